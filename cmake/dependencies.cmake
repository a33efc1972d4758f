# SPDX-License-Identifier: MIT
# Optional dependencies, resolved once (included by the top-level
# CMakeLists.txt before the subdirectories that use the results):
#
#   CUDALOAD_YAML   ON when the library reads manifests with libyaml
#                   (YAML_INCLUDE_DIR, YAML_LIBRARY)
#   CUDALOAD_TESTS  ON when the test suite is built (CMOCKA_INCLUDE_DIR,
#                   CMOCKA_LIBRARY, CMOCKA_DEFINES, Python3_EXECUTABLE)
#
# Each option is AUTO, ON or OFF. AUTO uses what is found and says in one
# configure line what it went without and how to get it, so the README's
# first command works on a machine with only cmake, a C compiler and libc;
# ON makes a missing dependency an error, for those who asked for it.

# A cross build names its own prefix (scripts/build-cross-deps); a host
# build searches the usual places.
function(_cudaload_find_in var file root)
  if(root)
    find_path(${var} ${file} PATHS ${root} NO_DEFAULT_PATH)
  else()
    find_path(${var} ${file})
  endif()
endfunction()

function(_cudaload_find_library var names root)
  if(root)
    find_library(${var} NAMES ${names} PATHS ${root} NO_DEFAULT_PATH)
  else()
    find_library(${var} NAMES ${names})
  endif()
endfunction()

# _cudaload_mode(OPTION OUT): OUT = AUTO, ON or OFF from the option's value
# (any CMake boolean spelling, or AUTO in any case).
function(_cudaload_mode option out)
  string(TOUPPER "${${option}}" value)
  if(value STREQUAL "AUTO")
    set(${out} AUTO PARENT_SCOPE)
  elseif(${option})
    set(${out} ON PARENT_SCOPE)
  else()
    set(${out} OFF PARENT_SCOPE)
  endif()
endfunction()

# --- libyaml ----------------------------------------------------------------
# Only where YAML is read (the manifest); YAML reports are written by the
# library itself in every build (lib/report/report_yaml.c). Without it the
# library depends on nothing but the C runtime and the OS loader, and
# cudaload_load_manifest() returns CUDALOAD_E_UNSUPPORTED.
set(CUDALOAD_WITH_YAML AUTO CACHE STRING
  "Read manifests with libyaml: AUTO (when found), ON or OFF")
set_property(CACHE CUDALOAD_WITH_YAML PROPERTY STRINGS AUTO ON OFF)
_cudaload_mode(CUDALOAD_WITH_YAML _cl_yaml_mode)
set(CUDALOAD_YAML OFF)
# Why a build cannot read manifests, for cudaload_load_manifest()'s message
# (the real cause, not the option's default name).
set(CUDALOAD_NO_YAML_REASON "it was configured with -DCUDALOAD_WITH_YAML=OFF")
if(NOT _cl_yaml_mode STREQUAL "OFF")
  if(YAML_ROOT)
    _cudaload_find_in(YAML_INCLUDE_DIR yaml.h ${YAML_ROOT}/include)
    _cudaload_find_library(YAML_LIBRARY "yaml;libyaml" ${YAML_ROOT}/lib)
  else()
    _cudaload_find_in(YAML_INCLUDE_DIR yaml.h "")
    _cudaload_find_library(YAML_LIBRARY yaml "")
  endif()
  if(YAML_INCLUDE_DIR AND YAML_LIBRARY)
    set(CUDALOAD_YAML ON)
  elseif(_cl_yaml_mode STREQUAL "ON")
    message(FATAL_ERROR "cudaload: CUDALOAD_WITH_YAML=ON but libyaml was not found "
      "(yaml.h: ${YAML_INCLUDE_DIR}, library: ${YAML_LIBRARY}); install it "
      "(Debian/Ubuntu: apt-get install libyaml-dev) or configure with -DCUDALOAD_WITH_YAML=OFF")
  else()
    # (One string: no semicolon, which a compile definition would split at.)
    set(CUDALOAD_NO_YAML_REASON "libyaml was not found when it was configured (CUDALOAD_WITH_YAML=AUTO), so it was left out: install libyaml's development files (Debian/Ubuntu: apt-get install libyaml-dev), then configure and build again")
    message(NOTICE "cudaload: YAML manifests off: libyaml was not found (Debian/Ubuntu: "
      "apt-get install libyaml-dev; scripts/test installs it); everything else builds, "
      "YAML reports included")
  endif()
endif()

# --- the test suite -----------------------------------------------------------
# A developer's choice, not a user's requirement: AUTO builds it only for the
# top-level project, and only when cmocka and Python 3 are there.
_cudaload_mode(CUDALOAD_BUILD_TESTS _cl_tests_mode)
set(CUDALOAD_TESTS OFF)
if(_cl_tests_mode STREQUAL "ON" OR (_cl_tests_mode STREQUAL "AUTO" AND CUDALOAD_IS_TOP_LEVEL))
  set(_cl_tests_missing)
  # cmocka: the host's, or a cross-built static one given with
  # -DCMOCKA_ROOT=... (see scripts/build-cross-deps).
  if(CMOCKA_ROOT)
    _cudaload_find_in(CMOCKA_INCLUDE_DIR cmocka.h ${CMOCKA_ROOT}/include)
    _cudaload_find_library(CMOCKA_LIBRARY "cmocka-static;cmocka" ${CMOCKA_ROOT}/lib)
    set(CMOCKA_DEFINES CMOCKA_STATIC)
  else()
    _cudaload_find_in(CMOCKA_INCLUDE_DIR cmocka.h "")
    _cudaload_find_library(CMOCKA_LIBRARY cmocka "")
    set(CMOCKA_DEFINES)
  endif()
  if(NOT CMOCKA_INCLUDE_DIR OR NOT CMOCKA_LIBRARY)
    list(APPEND _cl_tests_missing "cmocka (Debian/Ubuntu: apt-get install libcmocka-dev)")
  endif()
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(NOT Python3_Interpreter_FOUND)
    list(APPEND _cl_tests_missing "Python 3 (Debian/Ubuntu: apt-get install python3)")
  endif()
  if(NOT _cl_tests_missing)
    set(CUDALOAD_TESTS ON)
  else()
    string(JOIN " and " _cl_tests_missing_text ${_cl_tests_missing})
    if(_cl_tests_mode STREQUAL "ON")
      message(FATAL_ERROR "cudaload: CUDALOAD_BUILD_TESTS=ON but ${_cl_tests_missing_text} "
        "not found; scripts/test installs what the tests need, or configure with "
        "-DCUDALOAD_BUILD_TESTS=OFF")
    endif()
    message(NOTICE "cudaload: tests off: ${_cl_tests_missing_text} not found; "
      "scripts/test installs it (-DCUDALOAD_BUILD_TESTS=ON makes this an error)")
  endif()
endif()
