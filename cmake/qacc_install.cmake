# What `cmake --install <build> [--prefix <prefix>]` puts where (README "Install", docs/api.md):
#
#   bin/qacc                        the command line; its data from ../share/qacc (sim/cli/install_layout.h)
#   share/qacc/configs/*.json       the shipped configurations (qacc's default config among them)
#   share/doc/qacc/*.md             the architecture spec, the model and the API guide
#   include/qacc/{golden,model,spec}/ the headers, included as "golden/gemm.h", "model/accelerator.h"
#   lib/libqacc_*.a                 the golden library and the model's
#   lib/cmake/qacc/                 the CMake package: find_package(qacc CONFIG), qacc::golden, qacc::model
#
# Every path to qacc's own files is relative to the prefix, in qacc's data lookup and in the package alike, so an
# installed tree keeps working when it is moved (SystemC, outside it, is looked for first where the build found
# it). tests/install builds and runs a project against it.
include(CMakePackageConfigHelpers)
set(QACC_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/qacc)

install(TARGETS qacc RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# qacc links SystemC dynamically. From a directory the loader does not search (the debug preset's sanitized
# SystemC, build/systemc-sanitized), the installed binary keeps it in its run path, as the built one does.
get_filename_component(systemc_lib_dir "${SYSTEMC_LIBRARY}" DIRECTORY)
if(TARGET qacc_accelerator AND NOT systemc_lib_dir IN_LIST CMAKE_CXX_IMPLICIT_LINK_DIRECTORIES)
  set_target_properties(qacc PROPERTIES INSTALL_RPATH "${systemc_lib_dir}")
endif()
install(FILES ${QACC_CONFIG_FILES} DESTINATION ${QACC_INSTALL_DATADIR}/configs)
install(FILES ${PROJECT_SOURCE_DIR}/docs/architecture.md ${PROJECT_SOURCE_DIR}/docs/model.md
              ${PROJECT_SOURCE_DIR}/docs/api.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
foreach(dir golden model spec)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/qacc/${dir}
          FILES_MATCHING PATTERN "*.h")
endforeach()

# The libraries, as qacc::<name>. Users name qacc::golden and qacc::model; the others are the layers between
# (model/CMakeLists.txt), exported because static libraries carry their dependencies as link items.
set(exported
  qacc_golden golden
  qacc_arch arch
  qacc_closed_form closed_form
  qacc_ext_memory ext_memory  # the testbench's external memory (model/ext_memory.h), linked by the model
  qacc_datapath datapath
  qacc_model model_plain)  # the model's behaviour in plain C++ (AccelState, model-only mode, GemmJob)
set(QACC_WITH_SYSTEMC OFF)
if(TARGET qacc_accelerator)
  set(QACC_WITH_SYSTEMC ON)
  list(APPEND exported qacc_units units qacc_tlm tlm qacc_accelerator model)
endif()
set(targets)
while(exported)
  list(POP_FRONT exported target name)
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
  list(APPEND targets ${target})
endwhile()
install(TARGETS ${targets} EXPORT qaccTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT qaccTargets NAMESPACE qacc:: DESTINATION ${QACC_INSTALL_CMAKEDIR})

set(QACC_INSTALL_CONFIGDIR ${QACC_INSTALL_DATADIR}/configs)
set(QACC_SYSTEMC_BUILT_INCLUDE_DIR ${SYSTEMC_INCLUDE_DIR})  # the package's hints (qaccConfig.cmake.in)
set(QACC_SYSTEMC_BUILT_LIB_DIR ${systemc_lib_dir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/qaccConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/package/qaccConfig.cmake
                              INSTALL_DESTINATION ${QACC_INSTALL_CMAKEDIR}
                              PATH_VARS QACC_INSTALL_CONFIGDIR)
# 0.x: a minor version may change the API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/qaccConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/package/qaccConfig.cmake ${PROJECT_BINARY_DIR}/package/qaccConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/qacc_systemc.cmake
        DESTINATION ${QACC_INSTALL_CMAKEDIR})
