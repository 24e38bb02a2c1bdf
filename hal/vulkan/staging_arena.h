// StagingArena: host-visible bytes a command buffer copies from on the
// device.
//
// UpdateBuffer takes its data at record time, and fills of ranges that are
// not 4-byte aligned write their ragged ends by copying pattern bytes: both
// need the bytes in memory the device can read when the command runs, for
// as long as the command buffer can be submitted. The arena bump-allocates
// them from host-visible, host-coherent buffers of the device (64 KiB
// chunks, or one of exactly the size for a larger update) and keeps those
// buffers until the command buffer is destroyed.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "base/ref.h"
#include "base/result.h"
#include "hal/vulkan/vulkan_api.h"
#include "hal/vulkan/vulkan_buffer.h"

namespace kiln::hal::vulkan {

class LogicalDevice;

// A byte range of a VkBuffer.
struct DeviceRange {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceSize offset = 0;
  VkDeviceSize length = 0;
};

class StagingArena {
 public:
  static constexpr VkDeviceSize kChunkSize = 64 << 10;

  explicit StagingArena(LogicalDevice* device) : device_(device) {}

  // Copies `bytes` into device-readable memory.
  Result<DeviceRange> Stage(std::span<const uint8_t> bytes);

 private:
  LogicalDevice* device_;
  std::vector<Ref<VulkanBuffer>> chunks_;  // The last one is being filled.
  VkDeviceSize used_ = 0;                  // In chunks_.back().
};

}  // namespace kiln::hal::vulkan
