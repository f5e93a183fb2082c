# Finds Accellera SystemC 2.3, which ships no CMake package: its header and its library by name on the usual
# paths (Debian's libsystemc-dev: /usr/include, /usr/lib/<arch>) and CMAKE_PREFIX_PATH, or the cache variables
# SYSTEMC_INCLUDE_DIR and SYSTEMC_LIBRARY when set. Defines the imported target qacc::SystemC when both are found.
#
# One file for both users, so that they look for SystemC the same way: the build (model/CMakeLists.txt) and the
# installed package (qaccConfig.cmake, beside which it is installed).
# QACC_SYSTEMC_HINTS: directories searched first (the package names those of the SystemC qacc was built with).
find_path(SYSTEMC_INCLUDE_DIR systemc.h HINTS ${QACC_SYSTEMC_HINTS})
find_library(SYSTEMC_LIBRARY systemc HINTS ${QACC_SYSTEMC_HINTS})
if(SYSTEMC_INCLUDE_DIR AND SYSTEMC_LIBRARY AND NOT TARGET qacc::SystemC)
  # Imported, so its headers are SYSTEM includes for every user: they do not build warning-free under -Wshadow.
  add_library(qacc::SystemC UNKNOWN IMPORTED)
  set_target_properties(qacc::SystemC PROPERTIES
    IMPORTED_LOCATION ${SYSTEMC_LIBRARY}
    INTERFACE_INCLUDE_DIRECTORIES ${SYSTEMC_INCLUDE_DIR})
endif()
