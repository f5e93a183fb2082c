# ---- The compiler cache (docs/sanitizers.md "Caches") ----------------------------------------------------------
# Every compile goes through ccache when it is installed (scripts/setup.sh installs it), into qacc's own cache
# folder: $QACC_CACHE_DIR, else $XDG_CACHE_HOME/qacc, else ~/.cache/qacc (ccache/ there). CI builds a clean clone
# on the machine where the developer's builds ran, so those builds warm it.
#
# A clone in another folder hits the same entries because no compile line holds an absolute path of the clone:
# - ccache's base directory (the clone's root) rewrites the paths on the command line (sources, -I, -o) relative
#   to the build directory;
# - -fdebug-prefix-map takes the build directory out of the debug information, so that ccache need not hash it
#   (its hash_dir rule) and a debug build's objects are shared too;
# - what used to be absolute -D paths (the source tree, the qacc binary) is defined in one generated file each
#   (sim/build_paths.h, tests/qacc_binary.h), and Verilator is given relative RTL paths (qacc_rtl_sources).
# QACC_CCACHE=OFF builds without it; a CMAKE_CXX_COMPILER_LAUNCHER given on the command line wins.
# The fuzz preset sets it OFF: ccache hashes the working directory of clang's -fprofile-instr-generate compiles, so
# no other clone could hit them, and its relative paths would put the build directory into the source names of
# the coverage mapping, which scripts/fuzz.sh selects the parser files by.
option(QACC_CCACHE "Compile through ccache (when installed), with a base directory shared by every clone" ON)
find_program(QACC_CCACHE_PROGRAM ccache)
if(QACC_CCACHE AND QACC_CCACHE_PROGRAM AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  if(DEFINED ENV{QACC_CACHE_DIR} AND NOT "$ENV{QACC_CACHE_DIR}" STREQUAL "")
    set(cache_root "$ENV{QACC_CACHE_DIR}")
  elseif(DEFINED ENV{XDG_CACHE_HOME} AND NOT "$ENV{XDG_CACHE_HOME}" STREQUAL "")
    set(cache_root "$ENV{XDG_CACHE_HOME}/qacc")
  else()
    set(cache_root "$ENV{HOME}/.cache/qacc")
  endif()
  # Depend mode: on a miss ccache runs no preprocessor of its own but reads the compiler's -MD output (which CMake
  # asks for anyway), so that a build with an empty cache costs what it did without ccache.
  set(CMAKE_CXX_COMPILER_LAUNCHER ${CMAKE_COMMAND} -E env CCACHE_BASEDIR=${PROJECT_SOURCE_DIR}
      CCACHE_DIR=${cache_root}/ccache CCACHE_DEPEND=1 ${QACC_CCACHE_PROGRAM})
  # CMAKE_CXX_FLAGS, not add_compile_options: the Verilated libraries clear their COMPILE_OPTIONS.
  string(APPEND CMAKE_CXX_FLAGS " -fdebug-prefix-map=${PROJECT_SOURCE_DIR}=.")
  message(STATUS "ccache: ${QACC_CCACHE_PROGRAM}, cache ${cache_root}/ccache, base directory ${PROJECT_SOURCE_DIR}")
endif()
