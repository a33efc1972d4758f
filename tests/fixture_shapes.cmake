# SPDX-License-Identifier: MIT
# tests/fixture_shapes.cmake - the fixtures of issue 32 (stale_minor/,
# cuda_majors/) behave under the real loaders as NVIDIA's files do
# (tests/fixture_shapes.py): glibc on native Linux builds, Wine in the
# mingw-w64 cross build. Included by tests/CMakeLists.txt.

set(_cl_shapes_args ${Python3_EXECUTABLE}
  ${CMAKE_CURRENT_LIST_DIR}/fixture_shapes.py
  --fixtures ${CUDALOAD_FIXTURES_DIR} --cc ${CMAKE_C_COMPILER})
if(WIN32 AND CMAKE_CROSSCOMPILING)
  add_test(NAME fixture_shapes_windows COMMAND ${_cl_shapes_args}
    --platform windows --work ${CMAKE_CURRENT_BINARY_DIR}/fixture_shapes
    --wine-run ${PROJECT_SOURCE_DIR}/scripts/wine-run)
  set_tests_properties(fixture_shapes_windows PROPERTIES
    TIMEOUT 300 SKIP_RETURN_CODE 77 LABELS "loader")
elseif(NOT WIN32 AND NOT CMAKE_CROSSCOMPILING AND CMAKE_SYSTEM_NAME STREQUAL "Linux")
  add_test(NAME fixture_shapes_linux COMMAND ${_cl_shapes_args}
    --platform linux --work ${CMAKE_CURRENT_BINARY_DIR}/fixture_shapes)
  set_tests_properties(fixture_shapes_linux PROPERTIES
    TIMEOUT 120 SKIP_RETURN_CODE 77 LABELS "loader")
endif()
