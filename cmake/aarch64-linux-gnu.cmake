# SPDX-License-Identifier: MIT
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

set(_cl_cross_triplet ${CROSS_TRIPLET})
set(_cl_cross_triplet_variable CROSS_TRIPLET)
include(${CMAKE_CURRENT_LIST_DIR}/cross-roots.cmake)

# Every test executable runs under qemu-aarch64 with the cross sysroot.
get_filename_component(_cl_source_root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
set(CMAKE_CROSSCOMPILING_EMULATOR "${_cl_source_root}/scripts/qemu-run")
