// VulkanBuffer: a HAL buffer allocation in Vulkan device memory.
//
// A buffer is a range of a memory block (vulkan_allocator.h): blocks own one
// VkDeviceMemory and one VkBuffer covering all of it, so buffers, their
// subspans and binding-table entries are all (VkBuffer, offset, length)
// triples, and a descriptor or copy names the block's VkBuffer at the
// buffer's offset. Host-visible blocks stay mapped for their whole life, so
// Map is pointer arithmetic. Memory the host cannot see (VRAM of a discrete
// GPU) fails to map with the memory type in the message (Buffer::Map checks
// it first); ReadData and WriteData still work on it, through a synchronous
// staged copy: a host-visible staging buffer and a copy submitted on the
// device's queue, which orders it after all work submitted before (a
// blocked queue blocks the copy too).
#pragma once

#include <cstdint>

#include "base/ref.h"
#include "hal/buffer.h"
#include "hal/vulkan/vulkan_api.h"

namespace kiln::hal::vulkan {

class LogicalDevice;
class MemoryBlock;

class VulkanBuffer final : public Buffer {
 public:
  // The allocation behind `buffer` (a subspan's too) if `device` allocated
  // it, else null: what every command and submission checks a buffer by.
  static const VulkanBuffer* OwnedBy(const Buffer& buffer, const LogicalDevice* device);

  ~VulkanBuffer() override;

  LogicalDevice* device() const { return device_.get(); }
  // The VkBuffer this allocation lives in and where it starts in it (a
  // multiple of the allocator's alignment, which covers
  // minStorageBufferOffsetAlignment).
  VkBuffer handle() const { return handle_; }
  VkDeviceSize offset() const { return offset_; }
  // Never reused by another allocation of the same device: command buffers
  // compare binding tables by it without holding the buffers.
  uint64_t id() const { return id_; }

 protected:
  Result<uint8_t*> MapAllocation(size_t allocation_offset, size_t length) override;
  Status ReadAllocation(size_t allocation_offset, std::span<uint8_t> out) override;
  Status WriteAllocation(size_t allocation_offset, std::span<const uint8_t> data) override;

 private:
  friend class VulkanAllocator;
  VulkanBuffer(Ref<LogicalDevice> device, MemoryBlock* block, VkDeviceSize offset,
               VkDeviceSize reserved_size, MemoryTypeBits memory_type, BufferUsageBits usage,
               size_t byte_length, uint64_t id);
  // Copies [allocation_offset, + length) of this allocation to or from a
  // host-visible staging buffer on the queue and waits.
  enum class Direction { kToHost, kFromHost };
  Status StagedCopy(Direction direction, size_t allocation_offset, std::span<uint8_t> host);

  Ref<LogicalDevice> device_;
  MemoryBlock* block_;
  VkBuffer handle_;
  VkDeviceSize offset_;
  // Bytes reserved in the block: byte_length() rounded up, at least one
  // alignment unit (so even a zero-sized buffer has bytes a descriptor can
  // point at).
  VkDeviceSize reserved_size_;
  uint8_t* mapped_;  // Null when the memory is not host-visible.
  uint64_t id_;
};

}  // namespace kiln::hal::vulkan
