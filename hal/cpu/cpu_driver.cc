#include "hal/cpu/cpu_driver.h"

#include "hal/cpu/cpu_libraries.h"
#include "hal/cpu/thread_pool.h"

namespace kiln::hal::cpu {

Result<std::vector<DeviceInfo>> CpuDriver::ListDevices() {
  std::string description;
  if (options_.asynchronous) {
    const uint32_t threads =
        options_.thread_count != 0 ? options_.thread_count : AvailableCpuCount();
    description = "CPU (" + std::to_string(threads) + " threads)";
  } else {
    description = "CPU (inline, synchronous)";
  }
  return std::vector<DeviceInfo>{
      {name_ + "://0", description, true, "", CpuLibraries::Probe(options_.library_calls)}};
}

Result<Ref<Device>> CpuDriver::CreateDevice(uint32_t index) {
  if (index != 0) {
    return NotFoundError("driver '" + name_ + "' has one device (" + name_ + "://0), not " +
                         std::to_string(index));
  }
  KILN_ASSIGN_OR_RETURN(Ref<CpuDevice> device, CpuDevice::Create(options_));
  return Ref<Device>(std::move(device));
}

}  // namespace kiln::hal::cpu
