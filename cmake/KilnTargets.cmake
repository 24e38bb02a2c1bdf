# The kiln:: target names: what an application links, the same whether it
# builds kiln inside its own tree (add_subdirectory) or finds an installed
# kiln (find_package(kiln); cmake/KilnInstall.cmake exports these targets
# under these names). Included by the top-level CMakeLists.txt after the
# libraries and tools, before the samples (samples/embedding uses only these
# names).
#
#   kiln::runtime         everything an embedding application needs: the VM,
#                         the HAL with the built-in drivers, the `hal` VM
#                         module and external parameters
#   kiln::base            Status/Result, Ref<T>, files (base/)
#   kiln::vm              loader, interpreter, native modules, contexts (vm/)
#   kiln::hal             the HAL API (hal/)
#   kiln::hal_drivers     hal::RegisterBuiltinDrivers (hal/builtin_drivers.h)
#   kiln::hal_cpu, kiln::hal_cuda, kiln::hal_vulkan
#                         the drivers (cuda and vulkan where this build has them)
#   kiln::hal_module      the `hal` VM module (hal/module/hal_module.h)
#   kiln::hal_parameters  safetensors parameters (hal/parameters/)
#   kiln::cpu_kernel_abi  hal/cpu/kernel_abi.h, for hand-written CPU kernels
#   kiln::kiln-compile, kiln::kiln-run-module, ...   the tools (executables)

# The runtime as one target.
add_library(kiln_runtime INTERFACE)
target_link_libraries(kiln_runtime INTERFACE kiln_vm kiln_hal kiln_hal_drivers kiln_hal_module
                                             kiln_hal_parameters)

# Library targets and their names under kiln::. kiln::schemas is internal (the
# generated FlatBuffer headers, build tree only); it is exported only because
# the libraries name it among their dependencies.
# kiln_hal_cuda and kiln_hal_vulkan exist where the build found their headers.
set(KILN_EXPORTED_LIBRARIES)
foreach(target kiln_base kiln_schemas kiln_vm kiln_hal kiln_hal_cpu kiln_hal_cuda kiln_hal_vulkan
               kiln_hal_drivers kiln_hal_parameters kiln_hal_module kiln_cpu_kernel_abi
               kiln_runtime)
  if(TARGET ${target})
    string(REGEX REPLACE "^kiln_" "" name ${target})
    set_target_properties(${target} PROPERTIES EXPORT_NAME ${name})
    add_library(kiln::${name} ALIAS ${target})
    list(APPEND KILN_EXPORTED_LIBRARIES ${target})
  endif()
endforeach()

# The tools keep their names: kiln::kiln-compile runs kiln-compile.
set(KILN_EXPORTED_TOOLS)
foreach(tool kiln-compile kiln-opt kiln-import-onnx kiln-run-module kiln-check-module
             kiln-benchmark-module kiln-dump-module kiln-dump-instruments)
  if(TARGET ${tool})
    add_executable(kiln::${tool} ALIAS ${tool})
    list(APPEND KILN_EXPORTED_TOOLS ${tool})
  endif()
endforeach()
