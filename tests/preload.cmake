# SPDX-License-Identifier: MIT
# tests/preload.cmake - the preload scenarios (tests/test_preload.c), one
# process and one ctest entry per scenario, since loads cannot be undone.
# Included by tests/CMakeLists.txt after the unit tests, before windows.cmake
# (which gives every test of this folder its Windows settings).
#
# A scenario for the other platform, or one whose files are missing, prints
# "[  SKIPPED ]" and exits 77: ctest lists it as skipped, not passed. When
# cross-compiling, ctest runs test_preload.exe under the emulator (Wine).

set(CUDALOAD_PRELOAD_SCENARIOS
  no_preload
  side_by_side
  side_by_side_all_sublibs
  bundled_shim
  global_conflict
  global_conflict_fix_as_printed
  versioned_global_no_conflict
  versioned_same_node_conflict
  dependency_order
  needed_dependencies
  needed_dependency_missing
  missing
  all_or_nothing
  partial
  exec
  real_toolkit
  threads
  idempotent
  writable_link_folder
  windows_no_preload
  windows
  windows_dependency_order
  windows_needed_dependencies
  windows_missing
  windows_all_or_nothing
  windows_missing_import
  windows_path_at_its_limit
  windows_semicolon_root
  windows_loaded_copy_lacks_an_import)

cudaload_defined_scenarios(${CMAKE_CURRENT_LIST_DIR}/test_preload.c _cl_defined)
cudaload_require_registered("tests/test_preload.c scenarios (CUDALOAD_PRELOAD_SCENARIOS, tests/preload.cmake)"
  "${_cl_defined}" "${CUDALOAD_PRELOAD_SCENARIOS}")

add_executable(test_preload ${CMAKE_CURRENT_LIST_DIR}/test_preload.c)
target_link_libraries(test_preload PRIVATE cudaload_objects ${CMOCKA_LIBRARY})
if(NOT WIN32)
  find_package(Threads REQUIRED)
  target_link_libraries(test_preload PRIVATE Threads::Threads ${CMAKE_DL_LIBS})
endif()
target_include_directories(test_preload PRIVATE ${CMOCKA_INCLUDE_DIR}
  ${PROJECT_SOURCE_DIR}/lib ${CMAKE_CURRENT_LIST_DIR})
target_compile_definitions(test_preload PRIVATE ${CMOCKA_DEFINES}
  CUDALOAD_STATIC _GNU_SOURCE
  CUDALOAD_FIXTURES_DIR="${CUDALOAD_FIXTURES_DIR}")
target_compile_options(test_preload PRIVATE ${CUDALOAD_WARNINGS})
if(TARGET cudaload_fixtures)
  add_dependencies(test_preload cudaload_fixtures)
endif()
# The exec scenario runs the command-line tool.
if(TARGET cudaload_cli)
  target_compile_definitions(test_preload PRIVATE
    CUDALOAD_CLI_PATH="$<TARGET_FILE:cudaload_cli>")
  add_dependencies(test_preload cudaload_cli)
endif()

foreach(_cl_scenario IN LISTS CUDALOAD_PRELOAD_SCENARIOS)
  add_test(NAME preload_${_cl_scenario}
    COMMAND test_preload ${_cl_scenario})
  set_tests_properties(preload_${_cl_scenario} PROPERTIES
    TIMEOUT 120 SKIP_RETURN_CODE 77 LABELS "preload")
endforeach()
