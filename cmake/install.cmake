# `cmake --install`: headers, the static libraries and memhierConfig.cmake, so another CMake
# project links memhier::kernels, memhier::model, ... through find_package(memhier).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(MEMHIER_EXPORTED_LIBRARIES model results registry report claims core profile_host profile
    probe_host probe kernels_host kernels bench_host bench run warnings)
if(MEMHIER_SANITIZE)
  list(APPEND MEMHIER_EXPORTED_LIBRARIES sanitize)
endif()

set(_memhier_targets)
foreach(name IN LISTS MEMHIER_EXPORTED_LIBRARIES)
  set(tgt memhier_${name})
  set_target_properties(${tgt} PROPERTIES EXPORT_NAME ${name})
  # The source tree's include folder while building, the installed one for consumers.
  get_target_property(type ${tgt} TYPE)
  if(NOT type STREQUAL "INTERFACE_LIBRARY")
    get_target_property(incs ${tgt} INTERFACE_INCLUDE_DIRECTORIES)
    if(incs)
      set_property(TARGET ${tgt} PROPERTY INTERFACE_INCLUDE_DIRECTORIES
                   "$<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>")
    endif()
  endif()
  list(APPEND _memhier_targets ${tgt})
endforeach()

install(TARGETS ${_memhier_targets} EXPORT memhierTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/memhier
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev)
install(TARGETS memhier memhier-profile-target RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        COMPONENT cli)

set(MEMHIER_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/memhier)
install(EXPORT memhierTargets NAMESPACE memhier:: DESTINATION ${MEMHIER_CMAKE_DIR} COMPONENT dev)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/memhierConfig.cmake.in
  ${PROJECT_BINARY_DIR}/memhierConfig.cmake INSTALL_DESTINATION ${MEMHIER_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/memhierConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/memhierConfig.cmake
        ${PROJECT_BINARY_DIR}/memhierConfigVersion.cmake
        DESTINATION ${MEMHIER_CMAKE_DIR} COMPONENT dev)
