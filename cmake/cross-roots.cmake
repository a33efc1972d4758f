# SPDX-License-Identifier: MIT
# cmake/cross-roots.cmake - what the cross toolchain files share (included
# by mingw-w64-x86_64.cmake and aarch64-linux-gnu.cmake after they set
# _cl_cross_triplet and the name of their triplet variable,
# _cl_cross_triplet_variable): headers and libraries only from the cross
# sysroot and from prefixes given explicitly (CMOCKA_ROOT, YAML_ROOT,
# CUDALOAD_CROSS_PREFIX: scripts/build-cross-deps installs cmocka and
# libyaml into one), programs (python3, wine, qemu) from the host. Without
# this a host libcmocka.so or libyaml.so could be picked up and fail at link
# time with confusing errors.
set(CMAKE_FIND_ROOT_PATH /usr/${_cl_cross_triplet})
# With the ONLY modes below, a path outside every root is re-rooted under
# it and never found as given: the prefixes must be roots too.
foreach(_cl_prefix IN ITEMS ${CMOCKA_ROOT} ${YAML_ROOT} ${CUDALOAD_CROSS_PREFIX})
  list(APPEND CMAKE_FIND_ROOT_PATH ${_cl_prefix})
endforeach()
# try_compile projects read the toolchain file again, in the same process:
# give them the same roots, or they would reset PKG_CONFIG_LIBDIR below
# without them.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES
  ${_cl_cross_triplet_variable} CMOCKA_ROOT YAML_ROOT CUDALOAD_CROSS_PREFIX)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# pkg-config must not report the host's .pc files either: only those of the
# roots. (An empty PKG_CONFIG_LIBDIR would not do: CMake unsets a variable
# set to "", and pkg-config then falls back to the host's folders.)
set(_cl_pkg_config_dirs)
foreach(_cl_root IN LISTS CMAKE_FIND_ROOT_PATH)
  list(APPEND _cl_pkg_config_dirs ${_cl_root}/lib/pkgconfig ${_cl_root}/share/pkgconfig)
endforeach()
string(REPLACE ";" ":" _cl_pkg_config_dirs "${_cl_pkg_config_dirs}")
set(ENV{PKG_CONFIG_LIBDIR} "${_cl_pkg_config_dirs}")
