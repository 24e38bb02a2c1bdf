// VulkanInstance: the loader, a VkInstance (API 1.2) and the physical
// devices it enumerates; with validation, the debug messenger whose
// messages tests assert on.
//
// The driver makes one instance per factory call and every device created
// through it keeps it alive. The process's first instance is never
// destroyed, which keeps the Vulkan drivers loaded (see Create). Physical devices are summarised
// once (properties, the compute queue family, DeviceCapabilities and what is missing from them) so
// that ListDevices and CreateDevice agree.
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "base/ref.h"
#include "base/result.h"
#include "hal/vulkan/device_requirements.h"
#include "hal/vulkan/vulkan_api.h"
#include "hal/vulkan/vulkan_options.h"

namespace kiln::hal::vulkan {

// The warnings and errors reported by the validation layer (and the loader)
// through VK_EXT_debug_utils. Each message is also printed to stderr as
// "kiln vulkan validation: ..." so tools show it.
class ValidationLog {
 public:
  void Add(std::string message);
  // The messages so far; the log is emptied.
  std::vector<std::string> Take();

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> messages_;
};

struct PhysicalDeviceInfo {
  VkPhysicalDevice handle = VK_NULL_HANDLE;
  VkPhysicalDeviceProperties properties = {};
  DeviceCapabilities capabilities;
  std::string missing;        // MissingRequirements(capabilities).
  uint32_t queue_family = 0;  // The compute queue family (valid when not missing).
  // The family's timestampValidBits: 0 when its queues write no timestamps.
  uint32_t timestamp_valid_bits = 0;
  // VK_KHR_shader_clock with shaderDeviceClock: shaders may read the device
  // clock (instrumented dispatches do). Optional: enabled where offered.
  bool shader_device_clock = false;
};

class VulkanInstance : public RefObject {
 public:
  // Loads the loader, checks it offers Vulkan 1.2, and creates the instance
  // (with the validation layer and a messenger when options.validation).
  static Result<Ref<VulkanInstance>> Create(const VulkanDriverOptions& options);
  ~VulkanInstance() override;

  const VulkanDriverOptions& options() const { return options_; }
  const InstanceFunctions& functions() const { return functions_; }
  VkInstance handle() const { return instance_; }
  bool validation_enabled() const { return messenger_ != VK_NULL_HANDLE; }
  ValidationLog& validation_log() { return validation_log_; }

  // Every physical device, in the loader's order (index i is vulkan://i).
  Result<std::vector<PhysicalDeviceInfo>> EnumeratePhysicalDevices() const;

 private:
  VulkanInstance(VulkanDriverOptions options, Ref<VulkanLoader> loader)
      : options_(std::move(options)), loader_(std::move(loader)) {}

  VulkanDriverOptions options_;
  Ref<VulkanLoader> loader_;
  InstanceFunctions functions_;
  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  // Outlives instance_ (the messenger's callback writes to it until
  // vkDestroyInstance returns).
  ValidationLog validation_log_;
};

}  // namespace kiln::hal::vulkan
