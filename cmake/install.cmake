# SPDX-License-Identifier: MIT
# Install: header, shared and static libraries, cudaload.pc and a CMake package
# (find_package(cudaload) -> cudaload::cudaload, cudaload::cudaload_static),
# and the license beside them (share/licenses/cudaload/LICENSE, where
# distributions and installers look for it).
include(CMakePackageConfigHelpers)

install(FILES ${PROJECT_SOURCE_DIR}/LICENSE
  DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/licenses/${PROJECT_NAME})

install(FILES ${PROJECT_SOURCE_DIR}/include/cudaload.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS cudaload cudaload_static EXPORT cudaloadTargets
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT cudaloadTargets NAMESPACE cudaload:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/cudaload)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/cudaloadConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cudaloadConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/cudaload)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cudaloadConfigVersion.cmake COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cudaloadConfig.cmake ${PROJECT_BINARY_DIR}/cudaloadConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/cudaload)

if(WIN32)
  set(CUDALOAD_PC_PRIVATE_LIBS "-ladvapi32")
else()
  set(CUDALOAD_PC_PRIVATE_LIBS "-ldl -lpthread")
endif()
# A static link of a build that reads manifests needs libyaml too.
if(CUDALOAD_YAML)
  string(APPEND CUDALOAD_PC_PRIVATE_LIBS " -lyaml")
endif()
# The .pc file finds its prefix relative to itself (${pcfiledir}), so it stays
# right after `cmake --install --prefix X` and when the tree is relocated.
file(RELATIVE_PATH CUDALOAD_PC_RELATIVE_PREFIX
  "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
string(REGEX REPLACE "/$" "" CUDALOAD_PC_RELATIVE_PREFIX "${CUDALOAD_PC_RELATIVE_PREFIX}")
configure_file(${PROJECT_SOURCE_DIR}/pkgconfig/cudaload.pc.in ${PROJECT_BINARY_DIR}/cudaload.pc @ONLY)
# cudaload-static.pc names the archive itself: with -lcudaload the linker
# takes libcudaload.so, which lies beside it (lib/CMakeLists.txt names it).
if(WIN32)
  set(CUDALOAD_PC_STATIC_ARCHIVE "${CMAKE_STATIC_LIBRARY_PREFIX}cudaload_static${CMAKE_STATIC_LIBRARY_SUFFIX}")
else()
  set(CUDALOAD_PC_STATIC_ARCHIVE "${CMAKE_STATIC_LIBRARY_PREFIX}cudaload${CMAKE_STATIC_LIBRARY_SUFFIX}")
endif()
configure_file(${PROJECT_SOURCE_DIR}/pkgconfig/cudaload-static.pc.in
  ${PROJECT_BINARY_DIR}/cudaload-static.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/cudaload.pc ${PROJECT_BINARY_DIR}/cudaload-static.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
