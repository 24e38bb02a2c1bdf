// VulkanAllocator: buffers in Vulkan device memory, sub-allocated from
// blocks.
//
// Memory types: the caller's HAL bits become required property flags
// (device-local -> DEVICE_LOCAL; host-visible or host-coherent ->
// HOST_VISIBLE|HOST_COHERENT, so mapped memory never needs flushing) and the
// first memoryType that has them all is used. Vulkan orders memory types so
// that the first match carries the fewest extra properties: a device-local
// request on a discrete GPU gets VRAM the host cannot see, a host-visible
// one gets system memory, both together get the BAR window. The buffer
// reports the type's actual bits (on lavapipe every type is all three).
//
// Sub-allocation: buffers up to kDedicatedThreshold share kBlockSize blocks
// of their memory type (first fit over a free list that coalesces), since
// Vulkan caps the number of live VkDeviceMemory objects and each allocation
// is slow; larger buffers get a block of their own. Every offset is a
// multiple of alignment(): the buffer requirement, minStorageBufferOffsetAlignment
// and nonCoherentAtomSize together. An empty block is released, except one
// per memory type kept for the next allocation.
//
// Out of memory (including a size over the heap or over
// maxMemoryAllocationSize) is RESOURCE_EXHAUSTED naming the size and the
// memory type; a request no memory type satisfies is INVALID_ARGUMENT.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "hal/allocator.h"
#include "hal/vulkan/vulkan_api.h"
#include "hal/vulkan/vulkan_buffer.h"

namespace kiln::hal::vulkan {

// One VkDeviceMemory with a VkBuffer bound over all of it.
class MemoryBlock {
 public:
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkBuffer buffer = VK_NULL_HANDLE;
  uint8_t* mapped = nullptr;  // Host-visible blocks only.
  uint32_t memory_type_index = 0;
  bool dedicated = false;  // Holds exactly one buffer.
  VkDeviceSize used = 0;
  std::map<VkDeviceSize, VkDeviceSize> free_ranges;  // offset -> size, disjoint, coalesced.

  // First fit; `size` is already a multiple of the alignment, as are all
  // offsets.
  bool Reserve(VkDeviceSize size, VkDeviceSize* offset);
  void Release(VkDeviceSize offset, VkDeviceSize size);
};

class VulkanAllocator final : public Allocator {
 public:
  static constexpr VkDeviceSize kBlockSize = VkDeviceSize{32} << 20;
  static constexpr VkDeviceSize kDedicatedThreshold = kBlockSize / 4;

  explicit VulkanAllocator(LogicalDevice* device) : device_(device) {}
  ~VulkanAllocator() override;

  // Learns the memory types and alignment buffers need (one probe buffer).
  Status Initialize();

  Result<Ref<Buffer>> Allocate(const BufferParams& params, size_t size) override;
  // UNIMPLEMENTED: Vulkan memory is not shared with other libraries.
  Result<Ref<Buffer>> ImportBuffer(const BufferParams& params, const ExternalBuffer& external,
                                   std::function<void()> release) override;
  Result<ExternalBuffer> ExportBuffer(const Buffer& buffer) override;
  Result<Ref<VulkanBuffer>> AllocateBuffer(const BufferParams& params, size_t size);

  VkDeviceSize alignment() const { return alignment_; }

  struct Stats {
    size_t blocks = 0;            // Shared blocks, empty ones included.
    size_t dedicated_blocks = 0;  // One buffer each.
    VkDeviceSize bytes_in_use = 0;
  };
  Stats stats() const;

 private:
  friend class VulkanBuffer;
  // Called by ~VulkanBuffer.
  void Free(MemoryBlock* block, VkDeviceSize offset, VkDeviceSize size);

  // The memory type index for `params`, or an error.
  Result<uint32_t> ChooseMemoryType(MemoryTypeBits requested) const;
  Result<std::unique_ptr<MemoryBlock>> CreateBlock(uint32_t memory_type_index, VkDeviceSize size,
                                                   bool dedicated, size_t requested_size);
  void DestroyBlock(MemoryBlock* block);
  MemoryTypeBits HalBits(uint32_t memory_type_index) const;
  std::string DescribeType(uint32_t memory_type_index) const;

  LogicalDevice* device_;  // Owns this allocator.
  uint32_t buffer_memory_type_bits_ = 0;
  VkDeviceSize alignment_ = 256;

  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<MemoryBlock>> blocks_;  // Guarded by mutex_.
  uint64_t next_id_ = 1;                              // Guarded by mutex_.
  VkDeviceSize bytes_in_use_ = 0;                     // Guarded by mutex_.
};

}  // namespace kiln::hal::vulkan
