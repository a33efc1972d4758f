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

# Headers and libraries come only from the cross sysroot (and from prefixes
# given explicitly, like CMOCKA_ROOT); programs (python3, wine) from the host.
# Without these a host libcmocka.so or libyaml.so could be picked up and fail
# at link time with confusing errors.
set(CMAKE_FIND_ROOT_PATH /usr/${MINGW_TRIPLET})
# Cross-built dependencies (scripts/build-cross-deps installs cmocka and
# libyaml into one prefix) must be roots too: with the ONLY modes below, a
# path outside every root is re-rooted under it and never found as given.
foreach(_cl_prefix IN ITEMS ${CMOCKA_ROOT} ${YAML_ROOT} ${CUDALOAD_CROSS_PREFIX})
  list(APPEND CMAKE_FIND_ROOT_PATH ${_cl_prefix})
endforeach()
# try_compile projects read this file again, in the same process: give them
# the same roots, or they would reset PKG_CONFIG_LIBDIR below without them.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES
  MINGW_TRIPLET CMOCKA_ROOT YAML_ROOT CUDALOAD_CROSS_PREFIX)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# pkg-config must not report the host's .pc files either: only those of the
# roots. (An empty PKG_CONFIG_LIBDIR would not do: CMake unsets a variable set
# to "", and pkg-config then falls back to the host's folders.)
set(_cl_pkg_config_dirs)
foreach(_cl_root IN LISTS CMAKE_FIND_ROOT_PATH)
  list(APPEND _cl_pkg_config_dirs ${_cl_root}/lib/pkgconfig ${_cl_root}/share/pkgconfig)
endforeach()
string(REPLACE ";" ":" _cl_pkg_config_dirs "${_cl_pkg_config_dirs}")
set(ENV{PKG_CONFIG_LIBDIR} "${_cl_pkg_config_dirs}")

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
