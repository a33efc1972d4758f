# SPDX-License-Identifier: MIT
# tests/loader.cmake - the loader model (lib/loader/resolve.c): its unit tests
# (tests/test_resolve.c, hand-built models) and the differential tests
# against the real loader (tests/loader_oracle/oracle.py), one process and
# one ctest entry per scenario. Included by tests/CMakeLists.txt before
# windows.cmake.
#
# Each scenario builds its tree of libraries at test time with the C
# compiler of this build (the host's gcc, or mingw-w64 when cross-compiling
# for Windows, whose scenarios then run under Wine through
# scripts/wine-run), runs a child program under the loader, and prints
# "explain: N of N predictions agree with the loader". A scenario this host
# cannot run exits 77 (skipped, said). The loader_explain_* scenarios take
# their predictions from `cudaload explain` (the cudaload_cli target)
# instead of loader_predict; the loader_commands_* ones check the verdicts
# of `cudaload doctor --for`, `cudaload exec --for` and cudaload.setup() (the
# preload) on those scenarios' trees.

cudaload_unit_test(test_resolve ${CMAKE_CURRENT_LIST_DIR}/test_resolve.c)

set(CUDALOAD_LOADER_LINUX_SCENARIOS
  rpath_chain
  ld_library_path
  same_soname
  already_loaded_other_path
  other_class_and_machine
  empty_runpath_entry
  lazy_dlopen
  exe_rpath
  exe_runpath
  hwcaps_subfolders
  origin_tokens
  nodeflib
  system_search_path
  explain_stale_minor
  explain_versioned_global
  explain_ld_library_path_shadow
  explain_rpath_vs_runpath
  explain_already_loaded
  explain_not_found)
# The commands users run (doctor --for, exec --for, cudaload.setup()) judged
# against the real loader on the trees of these explain scenarios: ctest
# entries loader_commands_<scenario>, each printing "doctor: N of N verdicts
# agree with the loader" and the same for exec and preload.
set(CUDALOAD_LOADER_COMMANDS_SCENARIOS
  explain_stale_minor
  explain_not_found
  explain_already_loaded
  explain_rpath_vs_runpath
  explain_versioned_global
  explain_ld_library_path_shadow)
set(CUDALOAD_LOADER_WINDOWS_SCENARIOS
  windows_app_folder_vs_path
  windows_already_loaded
  windows_search_flags
  windows_altered_search_path
  windows_lazy_loadlibrary
  windows_other_machine
  windows_current_folder
  windows_default_dirs
  windows_set_dll_directory
  explain_windows_app_folder_vs_path
  explain_windows_already_loaded)

# Scenarios of oracle.py deliberately not registered, each with its reason
# (said at configure time; run by name).
set(CUDALOAD_LOADER_UNREGISTERED_SCENARIOS
  commands_explain_ld_library_path_shadow)
set(_cl_unregistered_reason "a known disagreement on a host with a real cuDNN 9 in the default roots (docs/loader.md)")

set(_cl_oracle ${CMAKE_CURRENT_LIST_DIR}/loader_oracle)
# Every scenario oracle.py knows (--list) is registered above, or named as
# not registered with its reason.
execute_process(COMMAND ${Python3_EXECUTABLE} ${_cl_oracle}/oracle.py --list
  OUTPUT_VARIABLE _cl_defined RESULT_VARIABLE _cl_list_rc ERROR_VARIABLE _cl_list_error)
if(NOT _cl_list_rc EQUAL 0)
  message(FATAL_ERROR "cudaload tests: oracle.py --list failed: ${_cl_list_error}")
endif()
string(STRIP "${_cl_defined}" _cl_defined)
string(REPLACE "\n" ";" _cl_defined "${_cl_defined}")
set(_cl_registered ${CUDALOAD_LOADER_LINUX_SCENARIOS} ${CUDALOAD_LOADER_WINDOWS_SCENARIOS}
  ${CUDALOAD_LOADER_UNREGISTERED_SCENARIOS})
foreach(_cl_scenario IN LISTS CUDALOAD_LOADER_COMMANDS_SCENARIOS)
  list(APPEND _cl_registered commands_${_cl_scenario})
endforeach()
cudaload_require_registered("tests/loader_oracle/oracle.py scenarios (tests/loader.cmake)"
  "${_cl_defined}" "${_cl_registered}")
foreach(_cl_scenario IN LISTS CUDALOAD_LOADER_UNREGISTERED_SCENARIOS)
  message(STATUS "cudaload tests: loader scenario ${_cl_scenario} is not registered: "
    "${_cl_unregistered_reason}")
endforeach()
add_executable(loader_predict ${_cl_oracle}/predict.c)
target_link_libraries(loader_predict PRIVATE cudaload_objects)
target_include_directories(loader_predict PRIVATE ${PROJECT_SOURCE_DIR}/lib)
target_compile_definitions(loader_predict PRIVATE CUDALOAD_STATIC _GNU_SOURCE)
target_compile_options(loader_predict PRIVATE ${CUDALOAD_WARNINGS})
if(WIN32 AND MINGW)
  # Run under Wine without the mingw runtime DLLs beside it.
  target_link_options(loader_predict PRIVATE -static-libgcc)
endif()

set(_cl_oracle_args
  ${Python3_EXECUTABLE} ${_cl_oracle}/oracle.py
  --cc ${CMAKE_C_COMPILER}
  --predict $<TARGET_FILE:loader_predict>
  --work ${CMAKE_CURRENT_BINARY_DIR}/loader_oracle)
# The explain_* scenarios check `cudaload explain` itself (the tool, built
# for this target: under Wine for the Windows ones).
if(TARGET cudaload_cli)
  list(APPEND _cl_oracle_args --explain $<TARGET_FILE:cudaload_cli>)
endif()

if(WIN32)
  if(CMAKE_CROSSCOMPILING)
    foreach(_cl_scenario IN LISTS CUDALOAD_LOADER_WINDOWS_SCENARIOS)
      add_test(NAME loader_${_cl_scenario} COMMAND ${_cl_oracle_args}
        --wine-run ${PROJECT_SOURCE_DIR}/scripts/wine-run
        --scenario ${_cl_scenario})
      set_tests_properties(loader_${_cl_scenario} PROPERTIES
        TIMEOUT 300 SKIP_RETURN_CODE 77 LABELS "loader")
    endforeach()
  endif()
elseif(CMAKE_CROSSCOMPILING)
  # Another Linux machine under qemu-user (the aarch64 tier): the oracle
  # reads the loader's LD_DEBUG output, which the emulator's own host loader
  # would mix into; the native tiers run these scenarios.
  message(STATUS "cudaload: the loader oracle scenarios run natively only "
    "(not under ${CMAKE_CROSSCOMPILING_EMULATOR})")
else()
  foreach(_cl_scenario IN LISTS CUDALOAD_LOADER_LINUX_SCENARIOS)
    add_test(NAME loader_${_cl_scenario} COMMAND ${_cl_oracle_args}
      --scenario ${_cl_scenario})
    set_tests_properties(loader_${_cl_scenario} PROPERTIES
      TIMEOUT 120 SKIP_RETURN_CODE 77 LABELS "loader")
  endforeach()
  # setup() runs through the Python bindings with this build's library.
  if(TARGET cudaload_cli AND TARGET cudaload)
    foreach(_cl_scenario IN LISTS CUDALOAD_LOADER_COMMANDS_SCENARIOS)
      # A sanitizer build's library cannot be loaded into Python (its
      # runtime would have to come first): setup() is then not checked.
      set(_cl_library --library $<TARGET_SONAME_FILE:cudaload>)
      if(CUDALOAD_SANITIZE)
        set(_cl_library)
      endif()
      add_test(NAME loader_commands_${_cl_scenario} COMMAND ${_cl_oracle_args}
        ${_cl_library} --bindings ${PROJECT_SOURCE_DIR}/bindings/python
        --scenario commands_${_cl_scenario})
      set_tests_properties(loader_commands_${_cl_scenario} PROPERTIES
        TIMEOUT 300 SKIP_RETURN_CODE 77 LABELS "loader")
    endforeach()
  endif()
endif()
