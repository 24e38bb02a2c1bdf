// DeviceRequirements: what kiln needs from a Vulkan physical device, checked
// against a summary of what the device offers.
//
// The check is a pure function of the summary so that a device that lacks a
// feature can be described (and tested) without owning such a device. A
// device that fails it is listed as unavailable, with every missing piece
// named, and cannot be created.
#pragma once

#include <cstdint>
#include <string>

namespace kiln::hal::vulkan {

struct DeviceCapabilities {
  uint32_t api_version = 0;              // VkPhysicalDeviceProperties::apiVersion.
  bool timeline_semaphore = false;       // VkPhysicalDeviceVulkan12Features.
  bool compute_queue = false;            // Some queue family has VK_QUEUE_COMPUTE_BIT.
  uint32_t max_push_constants_size = 0;  // Bytes.
  uint32_t max_per_stage_storage_buffers = 0;
};

// The smallest push-constant block the driver promises to pass (the Vulkan
// minimum; executables needing more are checked against the device's own
// limit when they load).
inline constexpr uint32_t kRequiredPushConstantBytes = 128;

// "" when the device qualifies; otherwise what is missing, e.g.
// "Vulkan 1.2 (the device supports 1.1.0), the timelineSemaphore feature".
std::string MissingRequirements(const DeviceCapabilities& capabilities);

}  // namespace kiln::hal::vulkan
