# SPDX-License-Identifier: MIT
# tests/python.cmake - the Python bindings' pytest suite (tests/python/),
# every test with both backends (ctypes, CFFI), against the library, the
# fixture trees and the command-line tool of this build. Included by
# tests/CMakeLists.txt.
#
# Not registered where the library cannot be loaded into this machine's
# Python: a cross build (Windows DLLs; there is no Windows Python under
# Wine here) or a sanitizer build (the ASan runtime would have to be
# preloaded into the interpreter).
if(CMAKE_CROSSCOMPILING OR WIN32 OR CUDALOAD_SANITIZE)
  return()
endif()

execute_process(COMMAND ${Python3_EXECUTABLE} -c "import pytest"
  RESULT_VARIABLE _cl_no_pytest OUTPUT_QUIET ERROR_QUIET)
if(_cl_no_pytest)
  message(STATUS "cudaload python: pytest is not installed for ${Python3_EXECUTABLE}: "
    "python_bindings will skip (python3 -m pip install pytest cffi)")
  add_test(NAME python_bindings COMMAND ${CMAKE_COMMAND} -E echo
    "[  SKIPPED ] python_bindings: pytest is not installed (python3 -m pip install pytest cffi)")
  set_tests_properties(python_bindings PROPERTIES DISABLED TRUE LABELS "python")
  return()
endif()

set(_cl_python_env
  "CUDALOAD_LIBRARY=$<TARGET_SONAME_FILE:cudaload>"
  "CUDALOAD_FIXTURES_DIR=${CUDALOAD_FIXTURES_DIR}")
if(TARGET cudaload_cli)
  list(APPEND _cl_python_env "CUDALOAD_CLI=$<TARGET_FILE:cudaload_cli>")
endif()

# Two ctest entries, so that ctest -j runs the packaging tests (CMake builds
# through scikit-build-core: the longest test of a native run) beside the
# rest.
add_test(NAME python_bindings
  COMMAND ${Python3_EXECUTABLE} -m pytest -q -rs -p no:cacheprovider
          --ignore=${CMAKE_CURRENT_LIST_DIR}/python/test_packaging.py
          ${CMAKE_CURRENT_LIST_DIR}/python
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
add_test(NAME python_packaging
  COMMAND ${Python3_EXECUTABLE} -m pytest -q -rs -p no:cacheprovider
          ${CMAKE_CURRENT_LIST_DIR}/python/test_packaging.py
  WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(python_bindings python_packaging PROPERTIES
  ENVIRONMENT "${_cl_python_env}"
  TIMEOUT 900
  COST 1000 # started first: the longest of the run
  LABELS "python")
