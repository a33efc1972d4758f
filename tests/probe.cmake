# SPDX-License-Identifier: MIT
# tests/probe.cmake - the GPU probe scenarios (tests/test_probe.c) against
# the fake CUDA libraries of the fixture tree fake_cuda/, one process and one
# ctest entry per scenario, since loads cannot be undone. A scenario for the
# other platform, or whose fixtures are missing, exits 77: ctest lists it as
# skipped. When cross-compiling, ctest runs test_probe.exe under the emulator
# (Wine), and the Windows out-of-process scenarios use the cudaload tool as
# the probe helper.

set(CUDALOAD_PROBE_SCENARIOS
  no_driver
  stub_refused
  gpu_ok
  no_device
  insufficient_driver
  unknown_error
  runtime_newer_than_driver
  older_minor_warns
  cublas_not_initialized
  wrong_gemm
  device_failed
  cudnn_create_failed
  missing_symbol
  missing_library
  hang_out_of_process
  out_of_process_matches_in_process
  crash_out_of_process
  non_regular_driver
  fork_helper_out_of_process
  daemon_helper_out_of_process
  hang_fork_helper_out_of_process
  hang_setsid_helper_out_of_process
  close_fds_out_of_process
  stdout_out_of_process
  flood_out_of_process
  invalid_numbers
  wire_numbers
  device_facts
  wddm_watchdog
  compute_mode_prohibited
  visible_devices_hide_all
  cublas_low_memory
  cublas_mismatch)

cudaload_defined_scenarios(${CMAKE_CURRENT_LIST_DIR}/test_probe.c _cl_defined)
cudaload_require_registered("tests/test_probe.c scenarios (CUDALOAD_PROBE_SCENARIOS, tests/probe.cmake)"
  "${_cl_defined}" "${CUDALOAD_PROBE_SCENARIOS}")

add_executable(test_probe ${CMAKE_CURRENT_LIST_DIR}/test_probe.c)
target_link_libraries(test_probe PRIVATE cudaload_objects ${CMOCKA_LIBRARY})
target_include_directories(test_probe PRIVATE ${CMOCKA_INCLUDE_DIR}
  ${PROJECT_SOURCE_DIR}/lib ${CMAKE_CURRENT_LIST_DIR})
target_compile_definitions(test_probe PRIVATE ${CMOCKA_DEFINES}
  CUDALOAD_STATIC _GNU_SOURCE
  CUDALOAD_FIXTURES_DIR="${CUDALOAD_FIXTURES_DIR}")
target_compile_options(test_probe PRIVATE ${CUDALOAD_WARNINGS})
if(TARGET cudaload_fixtures)
  add_dependencies(test_probe cudaload_fixtures)
endif()
# Windows has no fork: the out-of-process probe runs the tool.
if(TARGET cudaload_cli)
  target_compile_definitions(test_probe PRIVATE
    CUDALOAD_CLI_PATH="$<TARGET_FILE:cudaload_cli>")
  add_dependencies(test_probe cudaload_cli)
else()
  target_compile_definitions(test_probe PRIVATE CUDALOAD_CLI_PATH="")
endif()

foreach(_cl_scenario IN LISTS CUDALOAD_PROBE_SCENARIOS)
  add_test(NAME probe_${_cl_scenario} COMMAND test_probe ${_cl_scenario})
  set_tests_properties(probe_${_cl_scenario} PROPERTIES
    TIMEOUT 120 SKIP_RETURN_CODE 77 LABELS "probe")
endforeach()
