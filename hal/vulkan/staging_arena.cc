#include "hal/vulkan/staging_arena.h"

#include <cstring>

#include "hal/vulkan/logical_device.h"

namespace kiln::hal::vulkan {

Result<DeviceRange> StagingArena::Stage(std::span<const uint8_t> bytes) {
  const VkDeviceSize size = (bytes.size() + 15) / 16 * 16;
  if (chunks_.empty() || used_ + size > chunks_.back()->byte_length()) {
    BufferParams params;
    params.memory_type = kMemoryTypeHostVisible | kMemoryTypeHostCoherent;
    params.usage = kBufferUsageTransfer | kBufferUsageMapping;
    KILN_ASSIGN_OR_RETURN(Ref<VulkanBuffer> chunk,
                          device_->allocator().AllocateBuffer(params, std::max(size, kChunkSize)));
    chunks_.push_back(std::move(chunk));
    used_ = 0;
  }
  VulkanBuffer& chunk = *chunks_.back();
  KILN_ASSIGN_OR_RETURN(std::span<uint8_t> mapped, chunk.Map(used_, bytes.size()));
  if (!bytes.empty()) std::memcpy(mapped.data(), bytes.data(), bytes.size());
  DeviceRange range{chunk.handle(), chunk.offset() + used_, bytes.size()};
  used_ += size;
  return range;
}

}  // namespace kiln::hal::vulkan
