# SPDX-License-Identifier: MIT
# Cross-compile for 64-bit Windows with mingw-w64 and run the results (tests,
# try_run) under Wine through scripts/wine-run.
#
#   cmake -S . -B build-win -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64-x86_64.cmake
#
# The tool prefix can be changed with -DMINGW_TRIPLET=... (e.g. a toolchain
# installed under another name); Debian's gcc-mingw-w64-x86-64 provides the
# default one.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)

if(NOT MINGW_TRIPLET)
  set(MINGW_TRIPLET x86_64-w64-mingw32)
endif()

set(CMAKE_C_COMPILER ${MINGW_TRIPLET}-gcc)
set(CMAKE_CXX_COMPILER ${MINGW_TRIPLET}-g++)
set(CMAKE_RC_COMPILER ${MINGW_TRIPLET}-windres)
# Absolute paths where the tools are installed next to the compiler; the bare
# names work as well through PATH.
find_program(CMAKE_AR ${MINGW_TRIPLET}-ar)
find_program(CMAKE_RANLIB ${MINGW_TRIPLET}-ranlib)

set(_cl_cross_triplet ${MINGW_TRIPLET})
set(_cl_cross_triplet_variable MINGW_TRIPLET)
include(${CMAKE_CURRENT_LIST_DIR}/cross-roots.cmake)

# A DLL meant to be dropped into other people's applications must need only
# system DLLs. Without this, gcc links libgcc dynamically into DLLs and
# cudaload.dll imports __emutls_get_address (behind _Thread_local) from
# libgcc_s_seh-1.dll, which users do not have.
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-static-libgcc")
set(CMAKE_MODULE_LINKER_FLAGS_INIT "-static-libgcc")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static-libgcc")

# Every test executable runs under Wine. The wrapper keeps the Wine prefix in
# the build tree and returns the program's own exit status.
get_filename_component(_cl_source_root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
set(CMAKE_CROSSCOMPILING_EMULATOR "${_cl_source_root}/scripts/wine-run")
