# SPDX-License-Identifier: MIT
# tests/windows.cmake - what the test tree needs on Windows builds, native or
# cross-compiled and run under Wine (tests/CMakeLists.txt includes it when
# WIN32, after the tests are defined).
#
# Fixture paths: tests build them with test_fixture_path() (test_paths.h),
# which turns the Linux path the build saw into the Z:\ form Wine shows.
# DLL lookup under Wine: scripts/wine-run puts the build's lib/ and tools/
# folders on WINEPATH.

# The hand-kept export list must match the header, and the DLL must export
# exactly that list and carry its VERSIONINFO. Runs on the build host (Python
# and objdump), so no emulator is involved.
set(_cl_check_def_args
  ${PROJECT_SOURCE_DIR}/include/cudaload.h ${PROJECT_SOURCE_DIR}/lib/cudaload.def)
if(TARGET cudaload AND CMAKE_OBJDUMP)
  list(APPEND _cl_check_def_args
    --dll $<TARGET_FILE:cudaload> --objdump ${CMAKE_OBJDUMP}
    --version ${PROJECT_VERSION})
endif()
add_test(NAME check_def COMMAND ${Python3_EXECUTABLE}
  ${CMAKE_CURRENT_LIST_DIR}/check_def.py ${_cl_check_def_args})

# A native Windows ctest (no Wine) finds DLLs through PATH: put the folder of
# cudaload.dll first for every test of this folder, so tests and the tool
# linked to the shared library run from the build tree.
if(NOT CMAKE_CROSSCOMPILING AND TARGET cudaload
   AND CMAKE_VERSION VERSION_GREATER_EQUAL 3.22)
  get_property(_cl_tests DIRECTORY PROPERTY TESTS)
  foreach(_cl_test IN LISTS _cl_tests)
    set_property(TEST ${_cl_test} APPEND PROPERTY ENVIRONMENT_MODIFICATION
      "PATH=path_list_prepend:$<TARGET_FILE_DIR:cudaload>")
  endforeach()
endif()

# Under Wine the first test of a run creates the Wine prefix (about 10 s);
# later ones start in about a second. Give every test room for that start.
if(CMAKE_CROSSCOMPILING)
  get_property(_cl_tests DIRECTORY PROPERTY TESTS)
  foreach(_cl_test IN LISTS _cl_tests)
    get_property(_cl_timeout TEST ${_cl_test} PROPERTY TIMEOUT)
    if(NOT _cl_timeout)
      set_property(TEST ${_cl_test} PROPERTY TIMEOUT 300)
    endif()
  endforeach()
endif()
