#include "hal/builtin_drivers.h"

#include "hal/cpu/cpu_driver.h"
#if defined(KILN_HAVE_CUDA_DRIVER)
#include "hal/cuda/cuda_driver.h"
#endif
#if defined(KILN_HAVE_VULKAN_DRIVER)
#include "hal/vulkan/vulkan_driver.h"
#endif

namespace kiln::hal {

Status RegisterBuiltinDrivers(DriverRegistry& registry, const BuiltinDriverOptions& options) {
  KILN_RETURN_IF_ERROR(registry.Register("cpu", [options]() -> Result<Ref<Driver>> {
    cpu::CpuDeviceOptions device_options;
    device_options.thread_count = options.cpu_thread_count;
    device_options.library_calls = options.cpu_library_calls;
    return Ref<Driver>(MakeRef<cpu::CpuDriver>("cpu", device_options));
  }));
  KILN_RETURN_IF_ERROR(registry.Register("cpu-sync", [options]() -> Result<Ref<Driver>> {
    cpu::CpuDeviceOptions device_options;
    device_options.asynchronous = false;
    device_options.library_calls = options.cpu_library_calls;
    return Ref<Driver>(MakeRef<cpu::CpuDriver>("cpu-sync", device_options));
  }));
  KILN_RETURN_IF_ERROR(registry.RegisterAlias("local-task", "cpu"));
  KILN_RETURN_IF_ERROR(registry.RegisterAlias("local-sync", "cpu-sync"));
#if defined(KILN_HAVE_CUDA_DRIVER)
  KILN_RETURN_IF_ERROR(registry.Register("cuda", [options]() -> Result<Ref<Driver>> {
    cuda::CudaDeviceOptions device_options;
    device_options.use_streams = options.cuda_use_streams;
    device_options.library_calls = options.cuda_library_calls;
    device_options.graph_cache = options.cuda_graph_cache;
    KILN_ASSIGN_OR_RETURN(Ref<cuda::CudaDriver> driver, cuda::CudaDriver::Create(device_options));
    return Ref<Driver>(std::move(driver));
  }));
#endif
#if defined(KILN_HAVE_VULKAN_DRIVER)
  KILN_RETURN_IF_ERROR(registry.Register("vulkan", []() -> Result<Ref<Driver>> {
    KILN_ASSIGN_OR_RETURN(
        Ref<vulkan::VulkanDriver> driver,
        vulkan::VulkanDriver::Create(vulkan::VulkanDriverOptions::FromEnvironment()));
    return Ref<Driver>(std::move(driver));
  }));
#endif
  return OkStatus();
}

}  // namespace kiln::hal
