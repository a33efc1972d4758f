# SPDX-License-Identifier: MIT
# Tests written in Python: CLI scenarios, the export (ABI) check and the
# consumer project. Included at the end of tests/CMakeLists.txt, where
# Python3_EXECUTABLE is already found.

# The command-line tool's target: the CLI scenarios and the symbol check
# run it. With the tool built, a target of another name must not make them
# vanish with only a STATUS line: that stops the configure. With the tool
# off (the fuzz build), they are off, said in one line.
set(CUDALOAD_CLI_TARGET cudaload_cli)
set(_cl_cli ${CUDALOAD_BUILD_TOOLS})
if(NOT _cl_cli)
  message(NOTICE "cudaload tests: CLI tests off: the tool is not built "
    "(CUDALOAD_BUILD_TOOLS=OFF)")
elseif(NOT TARGET ${CUDALOAD_CLI_TARGET})
  message(FATAL_ERROR "cudaload tests: the command-line tool is built, but not as the "
    "target ${CUDALOAD_CLI_TARGET} that the CLI tests run (tools/CMakeLists.txt)")
endif()

# Where the fixture trees are built (tests/fixtures sets CUDALOAD_FIXTURES_DIR
# when it builds them in another place).
if(CUDALOAD_FIXTURES_DIR)
  set(_cl_fixtures_dir ${CUDALOAD_FIXTURES_DIR})
else()
  set(_cl_fixtures_dir ${PROJECT_BINARY_DIR}/fixtures)
endif()

# The emulator (scripts/wine-run when cross-compiling) as --emulator words.
set(_cl_emulator_args)
if(CMAKE_CROSSCOMPILING AND CMAKE_CROSSCOMPILING_EMULATOR)
  foreach(_cl_word IN LISTS CMAKE_CROSSCOMPILING_EMULATOR)
    list(APPEND _cl_emulator_args "--emulator=${_cl_word}")
  endforeach()
endif()

# --- CLI scenarios: one ctest entry per group of tests ----------------------
if(_cl_cli)
  # A child for `cudaload exec` that prints the arguments and search path it
  # was given, as bytes (cli/print_args.c); on Windows it starts at wmain,
  # like the tool, to see them in UTF-16.
  add_executable(cli_print_args ${CMAKE_CURRENT_SOURCE_DIR}/cli/print_args.c)
  target_compile_options(cli_print_args PRIVATE ${CUDALOAD_WARNINGS})
  if(MINGW)
    target_link_options(cli_print_args PRIVATE -municode)
  endif()
  # Under qemu-user the tool's execve of a child built for the target goes
  # to the host's kernel, which cannot run it (no binfmt_misc here): the
  # tests that need the child then skip, saying so. Wine starts Windows
  # children itself.
  set(_cl_print_args --print-args $<TARGET_FILE:cli_print_args>)
  if(CMAKE_CROSSCOMPILING AND NOT WIN32)
    set(_cl_print_args)
  endif()
  # One ctest entry per test class of test_cli.py: every class is run.
  set(_cl_cli_groups Usage Scan ScanFixtures Inspect InspectFixtures EnvExec Program StaleMinor
    StaleNccl
    CommandLine Doctor FixesAsPrinted Probe Hardening Explain IncludeDir Hardening3 ScanLooks
    PlanLooks NamesStore KnownBuilds MessageAnswers WindowsPython WindowsPythonPrograms ImportPath
    Fix)
  file(STRINGS ${CMAKE_CURRENT_SOURCE_DIR}/cli/test_cli.py _cl_lines
    REGEX "^class [A-Za-z0-9_]+\\(CliTestCase\\):")
  set(_cl_defined)
  foreach(_cl_line IN LISTS _cl_lines)
    string(REGEX REPLACE "^class ([A-Za-z0-9_]+)\\(.*" "\\1" _cl_name "${_cl_line}")
    list(APPEND _cl_defined ${_cl_name})
  endforeach()
  cudaload_require_registered("tests/cli/test_cli.py test classes (tests/extra.cmake)"
    "${_cl_defined}" "${_cl_cli_groups}")
  foreach(_cl_group IN LISTS _cl_cli_groups)
    add_test(NAME cli_${_cl_group}
      COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/cli/test_cli.py
              --cli $<TARGET_FILE:${CUDALOAD_CLI_TARGET}>
              ${_cl_print_args}
              ${_cl_emulator_args}
              --fixtures ${_cl_fixtures_dir}
              ${_cl_group})
    set_tests_properties(cli_${_cl_group} PROPERTIES TIMEOUT 600 LABELS "cli")
  endforeach()
endif()

# --- The symbol reader against binutils on real files ----------------------
# readelf on the CUDA toolkit, a few hundred system libraries and the
# symbols/ fixtures; mingw's objdump on the fixture DLLs and Wine's. Skipped
# (exit 77) without readelf. Linux host builds only: the readers are the
# same code in every build, and these files are this host's.
if(_cl_cli AND NOT CMAKE_CROSSCOMPILING AND CMAKE_SYSTEM_NAME STREQUAL "Linux")
  add_test(NAME check_symbols
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/check_symbols.py
            --cli $<TARGET_FILE:${CUDALOAD_CLI_TARGET}>
            --fixtures ${_cl_fixtures_dir})
  set_tests_properties(check_symbols PROPERTIES TIMEOUT 600 SKIP_RETURN_CODE 77
    LABELS "cli")
endif()

# --- Exported symbols of the shared library ---------------------------------
if(TARGET cudaload)
  set(_cl_export_tools)
  if(CMAKE_READELF)
    list(APPEND _cl_export_tools --readelf ${CMAKE_READELF})
  endif()
  if(CMAKE_NM)
    list(APPEND _cl_export_tools --nm ${CMAKE_NM})
  endif()
  if(CMAKE_OBJDUMP)
    list(APPEND _cl_export_tools --objdump ${CMAKE_OBJDUMP})
  endif()
  add_test(NAME check_exports
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/check_exports.py
            --lib $<TARGET_FILE:cudaload>
            --header ${PROJECT_SOURCE_DIR}/include/cudaload.h
            --soname libcudaload.so.${CUDALOAD_ABI_VERSION}
            --version-node CUDALOAD_${CUDALOAD_ABI_VERSION}
            --map ${PROJECT_SOURCE_DIR}/lib/cudaload.map
            ${_cl_export_tools})
  set_tests_properties(check_exports PROPERTIES LABELS "abi")
endif()

# --- A consumer of the installed package (Linux host builds only; the
# sanitizer build installs instrumented libraries a plain consumer cannot
# link, and the native tier already covers installing) ----------------------
if(CMAKE_SYSTEM_NAME STREQUAL "Linux" AND NOT CMAKE_CROSSCOMPILING AND TARGET cudaload
   AND NOT CUDALOAD_SANITIZE)
  add_test(NAME consumer
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/consumer/run_consumer_test.py
            --build-dir ${PROJECT_BINARY_DIR}
            --config $<CONFIG>
            --cmake ${CMAKE_COMMAND}
            --cc ${CMAKE_C_COMPILER}
            --generator ${CMAKE_GENERATOR})
  set_tests_properties(consumer PROPERTIES TIMEOUT 600 LABELS "install")
endif()

# --- the table of known builds against the real files -----------------------
# Every real NVIDIA library here whose build the table knows must give, when
# searched, the names the table holds for it (lib/binary/known_builds.h): the
# CUDA toolkit in /usr/local/cuda and the wheels the acceptance and
# windows-python tiers keep in their caches. Skipped, saying so, where neither is.
if(NOT CMAKE_CROSSCOMPILING)
  if(DEFINED ENV{CUDALOAD_ACCEPTANCE_CACHE})
    set(_cl_acceptance_cache $ENV{CUDALOAD_ACCEPTANCE_CACHE})
  else()
    set(_cl_acceptance_cache $ENV{HOME}/.cache/cudaload-acceptance)
  endif()
  if(DEFINED ENV{CUDALOAD_WINDOWS_PYTHON_CACHE})
    set(_cl_windows_python_cache $ENV{CUDALOAD_WINDOWS_PYTHON_CACHE})
  else()
    set(_cl_windows_python_cache $ENV{HOME}/.cache/cudaload-windows-python)
  endif()
  add_test(NAME known_builds_real_files
    COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/known-builds
      --tool $<TARGET_FILE:known_builds_tool> --skip-missing
      /usr/local/cuda/lib64 ${_cl_acceptance_cache} ${_cl_windows_python_cache})
  set_tests_properties(known_builds_real_files PROPERTIES TIMEOUT 600 SKIP_RETURN_CODE 77)
endif()
