#include "hal/vulkan/vulkan_driver.h"

#include "hal/vulkan/vulkan_device.h"

namespace kiln::hal::vulkan {

Result<Ref<VulkanDriver>> VulkanDriver::Create(const VulkanDriverOptions& options) {
  KILN_ASSIGN_OR_RETURN(Ref<VulkanInstance> instance, VulkanInstance::Create(options));
  return Ref<VulkanDriver>::Adopt(new VulkanDriver(std::move(instance)));
}

Result<std::vector<DeviceInfo>> VulkanDriver::ListDevices() {
  KILN_ASSIGN_OR_RETURN(std::vector<PhysicalDeviceInfo> physical,
                        instance_->EnumeratePhysicalDevices());
  std::vector<DeviceInfo> devices;
  for (size_t i = 0; i < physical.size(); ++i) {
    DeviceInfo info;
    info.uri = "vulkan://" + std::to_string(i);
    info.name = physical[i].properties.deviceName;
    info.available = physical[i].missing.empty();
    if (!info.available) info.reason = "the device lacks " + physical[i].missing;
    info.details = std::string("device clock (instrumented dispatches): ") +
                   (physical[i].shader_device_clock ? "yes" : "no (VK_KHR_shader_clock)");
    devices.push_back(std::move(info));
  }
  return devices;
}

Result<Ref<Device>> VulkanDriver::CreateDevice(uint32_t index) {
  KILN_ASSIGN_OR_RETURN(std::vector<PhysicalDeviceInfo> physical,
                        instance_->EnumeratePhysicalDevices());
  if (index >= physical.size()) {
    return NotFoundError("driver 'vulkan' has " + std::to_string(physical.size()) +
                         " devices, not a device " + std::to_string(index));
  }
  KILN_ASSIGN_OR_RETURN(Ref<VulkanDevice> device,
                        VulkanDevice::Create(instance_, physical[index], index));
  return Ref<Device>(std::move(device));
}

}  // namespace kiln::hal::vulkan
