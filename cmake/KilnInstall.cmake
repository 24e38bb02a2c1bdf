# cmake --install <build> --prefix <prefix>: what an application needs to build
# against kiln without its source tree.
#
#   <prefix>/bin                      the tools (kiln-compile, kiln-run-module, ...)
#   <prefix>/lib                      the runtime's static libraries (libkiln_vm.a, ...)
#   <prefix>/include/kiln             the public headers, by their path in the
#                                     tree: #include "vm/context.h"
#   <prefix>/lib/cmake/kiln           kilnConfig.cmake (+ version file and the
#                                     exported kiln:: targets of KilnTargets.cmake)
#   <prefix>/lib/pkgconfig/kiln.pc    the same for pkg-config
#
# Included at the end of the top-level CMakeLists.txt, once every target
# exists (install(TARGETS) may name targets of other directories).
include(CMakePackageConfigHelpers)
set(KILN_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/kiln)

install(TARGETS ${KILN_EXPORTED_LIBRARIES} EXPORT kilnTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS ${KILN_EXPORTED_TOOLS} EXPORT kilnTargets
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The compiler tools link Debian's libMLIR/libLLVM from /usr/lib/llvm-22/lib,
# which is not on the loader's path: installed tools keep their link
# directories as RPATH (the system's own directories are left out).
set_target_properties(${KILN_EXPORTED_TOOLS} PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)

# Public headers: those of base/, vm/ and hal/ (the HAL API, hal/module,
# hal/parameters, hal/utils, the CPU driver with hal/cpu/kernel_abi.h). Not
# the headers that include a third party's (hal/cuda: cuda.h, hal/vulkan:
# vulkan.h, hal/cpu/onednn_*: dnnl.h), so that kiln's users need none of
# them: the drivers are reached through hal/builtin_drivers.h. Nor
# hal/utils/library_call_spec.h, the drivers' reader of the generated
# FlatBuffer headers (which stay in the build: see schemas/CMakeLists.txt).
install(DIRECTORY ${PROJECT_SOURCE_DIR}/base ${PROJECT_SOURCE_DIR}/vm ${PROJECT_SOURCE_DIR}/hal
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kiln
        FILES_MATCHING PATTERN "*.h"
        REGEX "/hal/(cuda|vulkan)$" EXCLUDE
        PATTERN "onednn_*.h" EXCLUDE
        PATTERN "library_call_spec.h" EXCLUDE)

# find_package(kiln): the exported targets (kiln::runtime, kiln::vm, ...,
# kiln::kiln-compile) and the config around them.
install(EXPORT kilnTargets NAMESPACE kiln:: DESTINATION ${KILN_INSTALL_CMAKEDIR})
# Written outside the build directory's root, where find_package would take
# them for an installed kiln.
set(_kiln_config_dir ${PROJECT_BINARY_DIR}/kiln-install)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/kilnConfig.cmake.in
                              ${_kiln_config_dir}/kilnConfig.cmake
                              INSTALL_DESTINATION ${KILN_INSTALL_CMAKEDIR})
# 0.x: a minor version may break the API.
write_basic_package_version_file(${_kiln_config_dir}/kilnConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${_kiln_config_dir}/kilnConfig.cmake ${_kiln_config_dir}/kilnConfigVersion.cmake
        DESTINATION ${KILN_INSTALL_CMAKEDIR})

# pkg-config: kiln.pc, relocatable (its prefix is found from its own
# directory, so `cmake --install --prefix` anywhere works). The libraries are
# static, so Libs lists all of kiln::runtime's, dependents first.
set(KILN_PC_LIBS)
foreach(target kiln_hal_module kiln_hal_parameters kiln_vm kiln_hal_drivers kiln_hal_cpu
               kiln_hal_cuda kiln_hal_vulkan kiln_hal kiln_base)
  if(TARGET ${target})
    string(APPEND KILN_PC_LIBS " -l${target}")
  endif()
endforeach()
string(APPEND KILN_PC_LIBS " -pthread")
foreach(lib ${CMAKE_DL_LIBS})
  string(APPEND KILN_PC_LIBS " -l${lib}")
endforeach()
file(RELATIVE_PATH KILN_PC_PREFIX_FROM_PCFILEDIR /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
string(REGEX REPLACE "/$" "" KILN_PC_PREFIX_FROM_PCFILEDIR "${KILN_PC_PREFIX_FROM_PCFILEDIR}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/kiln.pc.in ${_kiln_config_dir}/kiln.pc @ONLY)
install(FILES ${_kiln_config_dir}/kiln.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
