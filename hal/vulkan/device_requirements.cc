#include "hal/vulkan/device_requirements.h"

#include "hal/vulkan/vulkan_api.h"

namespace kiln::hal::vulkan {

std::string MissingRequirements(const DeviceCapabilities& capabilities) {
  std::string missing;
  auto add = [&](const std::string& what) { missing += (missing.empty() ? "" : ", ") + what; };
  if (capabilities.api_version < VK_API_VERSION_1_2) {
    add("Vulkan 1.2 (the device supports " + FormatApiVersion(capabilities.api_version) + ")");
  }
  if (!capabilities.timeline_semaphore) add("the timelineSemaphore feature");
  if (!capabilities.compute_queue) add("a queue family with VK_QUEUE_COMPUTE_BIT");
  if (capabilities.max_push_constants_size < kRequiredPushConstantBytes) {
    add("push constants of " + std::to_string(kRequiredPushConstantBytes) +
        " bytes (maxPushConstantsSize is " + std::to_string(capabilities.max_push_constants_size) +
        ")");
  }
  if (capabilities.max_per_stage_storage_buffers == 0) {
    add("storage buffers (maxPerStageDescriptorStorageBuffers is 0)");
  }
  return missing;
}

}  // namespace kiln::hal::vulkan
