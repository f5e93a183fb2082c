# What every CMake directory of qacc shares: the libraries' include directories, the configurations, the RTL
# file list and the check that the files generated from the spec are fresh. Included by the top-level
# CMakeLists.txt before its subdirectories.

# ---- Install layout (cmake/qacc_install.cmake) -----------------------------------------------------------------
# Headers are included from the repository root ("golden/gemm.h", "model/arch.h"); installed, from
# <prefix>/include/qacc, which holds golden/ and model/.
include(GNUInstallDirs)
set(QACC_INCLUDE_DIRS $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
                      $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/qacc>)
# The installed data directory (configs/*.json): sim/ compiles its place relative to bin/ into qacc.
set(QACC_INSTALL_DATADIR ${CMAKE_INSTALL_DATADIR}/qacc)

# ---- Configurations: every configs/*.json, found by glob (adding a file adds its builds and tests) -------------
file(GLOB QACC_CONFIG_FILES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/configs/*.json)
set(QACC_CONFIGS)
foreach(file ${QACC_CONFIG_FILES})
  get_filename_component(name ${file} NAME_WE)
  list(APPEND QACC_CONFIGS ${name})
endforeach()
# The co-simulation Verilates qacc_top for these (sim/cosim); a build directory may narrow the list. Empty (the
# default) means every configs/*.json, so that a config added later gets its build in an existing directory too.
set(QACC_COSIM_CONFIGS "" CACHE STRING "configs/*.json names with a Verilated qacc_top build (empty: all)")
if(NOT QACC_COSIM_CONFIGS)
  set(QACC_COSIM_CONFIGS ${QACC_CONFIGS})
endif()

# Reads configs/<name>.json into <prefix>_ROWS, _COLS, _A_DEPTH, _B_DEPTH, _BIAS_DEPTH, _RQ_DEPTH, _OUT_DEPTH,
# _REQUANT_LATENCY, _MAC_EDGE_LATENCY, _DATA_BYTES and _MAX_OUTSTANDING (mem.*, RTL parameters DataBytes and
# MaxOutstanding), and _RTL_PARAMS (the -G arguments of qacc_top) in the caller's scope.
function(qacc_read_config name prefix)
  set(file ${PROJECT_SOURCE_DIR}/configs/${name}.json)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${file})
  file(READ ${file} json)
  string(JSON value GET "${json}" array rows)
  set(${prefix}_ROWS ${value} PARENT_SCOPE)
  string(JSON value GET "${json}" array cols)
  set(${prefix}_COLS ${value} PARENT_SCOPE)
  foreach(key a_depth b_depth bias_depth rq_depth out_depth)
    string(JSON value GET "${json}" sram ${key})
    string(TOUPPER ${key} upper)
    set(${prefix}_${upper} ${value} PARENT_SCOPE)
  endforeach()
  foreach(key requant mac_edge)
    string(JSON value GET "${json}" latency ${key})
    string(TOUPPER ${key} upper)
    set(${prefix}_${upper}_LATENCY ${value} PARENT_SCOPE)
  endforeach()
  string(JSON lut_slots GET "${json}" lut slots)
  set(${prefix}_LUT_SLOTS ${lut_slots} PARENT_SCOPE)
  string(JSON data_bytes GET "${json}" mem data_bytes)
  string(JSON max_outstanding GET "${json}" mem max_outstanding)
  set(${prefix}_DATA_BYTES ${data_bytes} PARENT_SCOPE)
  set(${prefix}_MAX_OUTSTANDING ${max_outstanding} PARENT_SCOPE)
  set(params)
  string(JSON value GET "${json}" array rows)
  list(APPEND params -GNumRows=${value})
  string(JSON value GET "${json}" array cols)
  list(APPEND params -GNumCols=${value})
  foreach(pair a_depth:ADepth b_depth:BDepth bias_depth:BiasDepth rq_depth:RqDepth out_depth:OutDepth)
    string(REPLACE ":" ";" pair ${pair})
    list(GET pair 0 key)
    list(GET pair 1 param)
    string(JSON value GET "${json}" sram ${key})
    list(APPEND params -G${param}=${value})
  endforeach()
  list(APPEND params -GLutSlots=${lut_slots} -GDataBytes=${data_bytes} -GMaxOutstanding=${max_outstanding})
  set(${prefix}_RTL_PARAMS ${params} PARENT_SCOPE)
endfunction()

# ---- RTL sources: rtl/files.f lists them once, in compile order ---------------------------------------------------
# Sets `out_var` to the files of <rtl_dir>/files.f with their paths. rtl_dir may be a copy of rtl/ (the mutant
# schemata builds of qacc validate point QACC_COSIM_RTL_DIR at one): its own files.f is read.
# The paths are relative to the calling directory's source folder, where verilate() runs Verilator: Verilator
# writes the names it is given into the C++ it generates (assertion messages), and an absolute name would differ
# between two clones and make every Verilated file miss the compiler cache (docs/sanitizers.md "Caches").
function(qacc_rtl_sources rtl_dir out_var)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${rtl_dir}/files.f)
  file(STRINGS ${rtl_dir}/files.f files REGEX "^[^/ ]")
  file(RELATIVE_PATH relative_dir ${CMAKE_CURRENT_SOURCE_DIR} ${rtl_dir})
  list(TRANSFORM files PREPEND ${relative_dir}/)
  set(${out_var} ${files} PARENT_SCOPE)
endfunction()

# ---- The spec: docs/spec/qacc_spec.json and what scripts/gen_spec.py generates from it ----------------------------
# The generated files are committed. Every build regenerates them into <build>/spec and compares: a stale or
# hand-edited one fails the build, naming the file and the command that regenerates it.
find_program(QACC_PYTHON3 python3 PATHS /usr/bin NO_DEFAULT_PATH REQUIRED)
set(QACC_SPEC ${PROJECT_SOURCE_DIR}/docs/spec/qacc_spec.json)
set(QACC_GEN_SPEC ${PROJECT_SOURCE_DIR}/scripts/gen_spec.py)
execute_process(COMMAND ${QACC_PYTHON3} ${QACC_GEN_SPEC} --list OUTPUT_VARIABLE QACC_SPEC_OUTPUTS
                OUTPUT_STRIP_TRAILING_WHITESPACE COMMAND_ERROR_IS_FATAL ANY)
string(REPLACE "\n" ";" QACC_SPEC_OUTPUTS "${QACC_SPEC_OUTPUTS}")
list(TRANSFORM QACC_SPEC_OUTPUTS PREPEND ${PROJECT_SOURCE_DIR}/)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${QACC_GEN_SPEC})
set(stamp ${CMAKE_BINARY_DIR}/spec/check.stamp)
add_custom_command(
  OUTPUT ${stamp}
  COMMAND ${QACC_PYTHON3} ${QACC_GEN_SPEC} --check --out-dir ${CMAKE_BINARY_DIR}/spec
  COMMAND ${CMAKE_COMMAND} -E touch ${stamp}
  DEPENDS ${QACC_SPEC} ${QACC_GEN_SPEC} ${QACC_SPEC_OUTPUTS}
  COMMENT "Checking the files generated from docs/spec/qacc_spec.json"
  VERBATIM)
add_custom_target(qacc_spec_check ALL DEPENDS ${stamp})
