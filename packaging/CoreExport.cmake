# SPDX-License-Identifier: GPL-3.0-or-later
# tpacf_core for C++ pipelines: the library, its public headers and a CMake package, so that
#   find_package(tpacf) + target_link_libraries(app PRIVATE tpacf::core)
# runs a CorrelationJob without the CLI (examples/). Included from core/CMakeLists.txt.
# Components: the shared library's runtime file is `lib` (the DEB libtpacf-core<soversion>);
# headers, the .so link, a static library and the CMake files are `devel` (tpacf-dev).
include(CMakePackageConfigHelpers)

# The ABI is not stable before 1.0: every minor release gets its own soname.
if(PROJECT_VERSION_MAJOR EQUAL 0)
  set(tpacf_core_soversion "${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}")
else()
  set(tpacf_core_soversion "${PROJECT_VERSION_MAJOR}")
endif()
set_target_properties(tpacf_core PROPERTIES
  VERSION "${PROJECT_VERSION}" SOVERSION "${tpacf_core_soversion}" EXPORT_NAME core)

install(TARGETS tpacf_core EXPORT tpacfTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT lib NAMELINK_COMPONENT devel
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT devel)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/core/include/tpacf DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        COMPONENT devel FILES_MATCHING PATTERN "*.h")

set(tpacf_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/tpacf)
install(EXPORT tpacfTargets NAMESPACE tpacf:: DESTINATION ${tpacf_cmake_dir} COMPONENT devel)
# The static library's users link what it links: the config finds those again.
set(TPACF_CORE_STATIC_FITS OFF)
if(NOT TPACF_SHARED_CORE AND TPACF_FITS)
  set(TPACF_CORE_STATIC_FITS ON)
endif()
configure_package_config_file(${PROJECT_SOURCE_DIR}/packaging/tpacfConfig.cmake.in
  ${PROJECT_BINARY_DIR}/packaging/tpacfConfig.cmake INSTALL_DESTINATION ${tpacf_cmake_dir})
# Before 1.0 a minor release may break the API: only the same minor version is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/packaging/tpacfConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/packaging/tpacfConfig.cmake
              ${PROJECT_BINARY_DIR}/packaging/tpacfConfigVersion.cmake
        DESTINATION ${tpacf_cmake_dir} COMPONENT devel)
