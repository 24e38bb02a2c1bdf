// VulkanDriver: the "vulkan" driver, one device per Vulkan physical device
// ("vulkan://0", "vulkan://1", ... in the loader's order; "vulkan" is 0).
//
// Creating the driver opens the loader and makes an instance
// (vulkan_instance.h); on a machine without a loader or a Vulkan driver that
// fails with the reason, which the registry shows as the unavailable
// "vulkan" entry. A physical device that lacks what kiln needs
// (device_requirements.h) is listed unavailable with what it lacks.
#pragma once

#include <string>
#include <vector>

#include "hal/driver.h"
#include "hal/vulkan/vulkan_instance.h"
#include "hal/vulkan/vulkan_options.h"

namespace kiln::hal::vulkan {

class VulkanDriver final : public Driver {
 public:
  static Result<Ref<VulkanDriver>> Create(const VulkanDriverOptions& options);

  const std::string& name() const override { return name_; }
  Result<std::vector<DeviceInfo>> ListDevices() override;
  Result<Ref<Device>> CreateDevice(uint32_t index) override;

  VulkanInstance& instance() { return *instance_; }

 private:
  explicit VulkanDriver(Ref<VulkanInstance> instance) : instance_(std::move(instance)) {}

  std::string name_ = "vulkan";
  Ref<VulkanInstance> instance_;
};

}  // namespace kiln::hal::vulkan
