# Writes OUT (a header with QACC_GIT_COMMIT) from the git checkout at SRC, run on every build by the
# qacc_build_info target; the file is rewritten only when the commit changes, so that an unchanged
# tree rebuilds nothing. "-dirty" marks uncommitted changes; "unknown" outside a checkout.
execute_process(COMMAND git -C ${SRC} describe --always --dirty --abbrev=12
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR commit STREQUAL "")
  set(commit unknown)
endif()
set(content "#define QACC_GIT_COMMIT \"${commit}\"\n")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT "${old}" STREQUAL "${content}")
  file(WRITE ${OUT} "${content}")
endif()
