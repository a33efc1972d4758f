# Cross-compile for 64-bit Arm Linux (aarch64: Grace/SBSA servers, Jetson)
# with Debian's gcc-aarch64-linux-gnu and run the results (tests, try_run)
# under qemu-user through scripts/qemu-run.
#
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

if(NOT CROSS_TRIPLET)
  set(CROSS_TRIPLET aarch64-linux-gnu)
endif()
set(CMAKE_C_COMPILER ${CROSS_TRIPLET}-gcc)
set(CMAKE_CXX_COMPILER ${CROSS_TRIPLET}-g++)
find_program(CMAKE_AR ${CROSS_TRIPLET}-ar)
find_program(CMAKE_RANLIB ${CROSS_TRIPLET}-ranlib)

# Headers and libraries from the cross sysroot and the prefixes given
# (scripts/build-cross-deps installs cmocka and libyaml into one); programs
# (python3, qemu) from the host.
set(CMAKE_FIND_ROOT_PATH /usr/${CROSS_TRIPLET})
foreach(_cl_prefix IN ITEMS ${CMOCKA_ROOT} ${YAML_ROOT} ${CUDALOAD_CROSS_PREFIX})
  list(APPEND CMAKE_FIND_ROOT_PATH ${_cl_prefix})
endforeach()
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES
  CROSS_TRIPLET CMOCKA_ROOT YAML_ROOT CUDALOAD_CROSS_PREFIX)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(_cl_pkg_config_dirs)
foreach(_cl_root IN LISTS CMAKE_FIND_ROOT_PATH)
  list(APPEND _cl_pkg_config_dirs ${_cl_root}/lib/pkgconfig ${_cl_root}/share/pkgconfig)
endforeach()
string(REPLACE ";" ":" _cl_pkg_config_dirs "${_cl_pkg_config_dirs}")
set(ENV{PKG_CONFIG_LIBDIR} "${_cl_pkg_config_dirs}")

# Every test executable runs under qemu-aarch64 with the cross sysroot.
get_filename_component(_cl_source_root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
set(CMAKE_CROSSCOMPILING_EMULATOR "${_cl_source_root}/scripts/qemu-run")
