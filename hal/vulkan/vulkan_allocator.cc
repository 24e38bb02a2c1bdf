#include "hal/vulkan/vulkan_allocator.h"

#include <algorithm>

#include "hal/vulkan/logical_device.h"

namespace kiln::hal::vulkan {
namespace {

constexpr VkBufferUsageFlags kBufferUsage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                            VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                            VK_BUFFER_USAGE_TRANSFER_DST_BIT;

VkDeviceSize RoundUp(VkDeviceSize value, VkDeviceSize alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

std::string Megabytes(VkDeviceSize bytes) { return std::to_string(bytes >> 20) + " MiB"; }

}  // namespace

bool MemoryBlock::Reserve(VkDeviceSize request, VkDeviceSize* offset) {
  for (auto it = free_ranges.begin(); it != free_ranges.end(); ++it) {
    if (it->second < request) continue;
    *offset = it->first;
    VkDeviceSize rest = it->second - request;
    VkDeviceSize rest_offset = it->first + request;
    free_ranges.erase(it);
    if (rest > 0) free_ranges.emplace(rest_offset, rest);
    used += request;
    return true;
  }
  return false;
}

void MemoryBlock::Release(VkDeviceSize offset, VkDeviceSize request) {
  used -= request;
  auto next = free_ranges.lower_bound(offset);
  // Merge with the following range, then with the preceding one.
  if (next != free_ranges.end() && offset + request == next->first) {
    request += next->second;
    next = free_ranges.erase(next);
  }
  if (next != free_ranges.begin()) {
    auto previous = std::prev(next);
    if (previous->first + previous->second == offset) {
      previous->second += request;
      return;
    }
  }
  free_ranges.emplace(offset, request);
}

VulkanAllocator::~VulkanAllocator() {
  // Every buffer holds the device, so only blocks kept for reuse remain.
  for (std::unique_ptr<MemoryBlock>& block : blocks_) DestroyBlock(block.get());
}

Status VulkanAllocator::Initialize() {
  const DeviceFunctions& fn = device_->fn();
  VkBufferCreateInfo info = {};
  info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  info.size = 65536;
  info.usage = kBufferUsage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkBuffer probe = VK_NULL_HANDLE;
  VkResult result = fn.vkCreateBuffer(device_->handle(), &info, nullptr, &probe);
  if (result != VK_SUCCESS) return VkResultToStatus(result, "vkCreateBuffer (probe)");
  // Buffers made with the same usage and flags share memoryTypeBits and
  // alignment, whatever their size.
  VkMemoryRequirements requirements;
  fn.vkGetBufferMemoryRequirements(device_->handle(), probe, &requirements);
  fn.vkDestroyBuffer(device_->handle(), probe, nullptr);
  buffer_memory_type_bits_ = requirements.memoryTypeBits;
  const VkPhysicalDeviceLimits& limits = device_->limits();
  alignment_ =
      std::max<VkDeviceSize>({requirements.alignment, limits.minStorageBufferOffsetAlignment,
                              limits.nonCoherentAtomSize, 16});
  return OkStatus();
}

MemoryTypeBits VulkanAllocator::HalBits(uint32_t index) const {
  VkMemoryPropertyFlags flags = device_->memory_properties().memoryTypes[index].propertyFlags;
  MemoryTypeBits bits = kMemoryTypeNone;
  if (flags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) bits |= kMemoryTypeDeviceLocal;
  if (flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) bits |= kMemoryTypeHostVisible;
  if (flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) bits |= kMemoryTypeHostCoherent;
  return bits;
}

std::string VulkanAllocator::DescribeType(uint32_t index) const {
  const VkPhysicalDeviceMemoryProperties& memory = device_->memory_properties();
  uint32_t heap = memory.memoryTypes[index].heapIndex;
  return "memory type " + std::to_string(index) + " (" + FormatMemoryType(HalBits(index)) +
         ", heap " + std::to_string(heap) + " of " + Megabytes(memory.memoryHeaps[heap].size) + ")";
}

Result<uint32_t> VulkanAllocator::ChooseMemoryType(MemoryTypeBits requested) const {
  if (requested & ~(kMemoryTypeDeviceLocal | kMemoryTypeHostVisible | kMemoryTypeHostCoherent)) {
    return InvalidArgumentError("unknown memory type bits " + std::to_string(requested));
  }
  VkMemoryPropertyFlags required = 0;
  if (requested & kMemoryTypeDeviceLocal) required |= VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
  // Host-visible memory is always taken coherent: a mapped pointer is
  // written and read with no flush or invalidate call in the HAL.
  if (requested & (kMemoryTypeHostVisible | kMemoryTypeHostCoherent)) {
    required |= VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  }
  const VkPhysicalDeviceMemoryProperties& memory = device_->memory_properties();
  for (uint32_t i = 0; i < memory.memoryTypeCount; ++i) {
    if (!(buffer_memory_type_bits_ & (1u << i))) continue;
    if ((memory.memoryTypes[i].propertyFlags & required) == required) return i;
  }
  std::string available;
  for (uint32_t i = 0; i < memory.memoryTypeCount; ++i) {
    if (buffer_memory_type_bits_ & (1u << i)) {
      available += (available.empty() ? "" : "; ") + FormatMemoryType(HalBits(i));
    }
  }
  return InvalidArgumentError("the Vulkan device has no buffer memory that is " +
                              FormatMemoryType(requested) +
                              (requested & kMemoryTypeHostVisible ? " and host-coherent" : "") +
                              " (its memory types: " + available + ")");
}

Result<std::unique_ptr<MemoryBlock>> VulkanAllocator::CreateBlock(uint32_t type_index,
                                                                  VkDeviceSize size, bool dedicated,
                                                                  size_t requested_size) {
  const DeviceFunctions& fn = device_->fn();
  VkDevice device = device_->handle();
  auto block = std::make_unique<MemoryBlock>();
  block->memory_type_index = type_index;
  block->dedicated = dedicated;
  auto exhausted = [&](const std::string& why) {
    return ResourceExhaustedError("out of Vulkan memory allocating a buffer of " +
                                  std::to_string(requested_size) + " bytes in " +
                                  DescribeType(type_index) + ": " + why);
  };
  VkBufferCreateInfo buffer_info = {};
  buffer_info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  buffer_info.size = size;
  buffer_info.usage = kBufferUsage;
  buffer_info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkResult result = fn.vkCreateBuffer(device, &buffer_info, nullptr, &block->buffer);
  if (result != VK_SUCCESS) {
    Status status = VkResultToStatus(result, "vkCreateBuffer");
    if (status.code() == StatusCode::kResourceExhausted) return exhausted(VkResultName(result));
    return status;
  }
  VkMemoryRequirements requirements;
  fn.vkGetBufferMemoryRequirements(device, block->buffer, &requirements);
  VkMemoryAllocateInfo allocate_info = {};
  allocate_info.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  allocate_info.allocationSize = requirements.size;
  allocate_info.memoryTypeIndex = type_index;
  result = fn.vkAllocateMemory(device, &allocate_info, nullptr, &block->memory);
  if (result != VK_SUCCESS) {
    fn.vkDestroyBuffer(device, block->buffer, nullptr);
    if (result == VK_ERROR_OUT_OF_DEVICE_MEMORY || result == VK_ERROR_OUT_OF_HOST_MEMORY ||
        result == VK_ERROR_TOO_MANY_OBJECTS) {
      return exhausted("vkAllocateMemory: " + VkResultName(result));
    }
    return VkResultToStatus(result, "vkAllocateMemory of " + std::to_string(size) + " bytes");
  }
  result = fn.vkBindBufferMemory(device, block->buffer, block->memory, 0);
  if (result == VK_SUCCESS && (device_->memory_properties().memoryTypes[type_index].propertyFlags &
                               VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)) {
    void* mapped = nullptr;
    result = fn.vkMapMemory(device, block->memory, 0, VK_WHOLE_SIZE, 0, &mapped);
    block->mapped = static_cast<uint8_t*>(mapped);
  }
  if (result != VK_SUCCESS) {
    fn.vkDestroyBuffer(device, block->buffer, nullptr);
    fn.vkFreeMemory(device, block->memory, nullptr);
    return VkResultToStatus(result, "binding or mapping a Vulkan memory block");
  }
  block->free_ranges.emplace(0, size);
  return block;
}

void VulkanAllocator::DestroyBlock(MemoryBlock* block) {
  const DeviceFunctions& fn = device_->fn();
  // Freeing the memory unmaps it.
  fn.vkDestroyBuffer(device_->handle(), block->buffer, nullptr);
  fn.vkFreeMemory(device_->handle(), block->memory, nullptr);
}

Result<Ref<Buffer>> VulkanAllocator::Allocate(const BufferParams& params, size_t size) {
  KILN_ASSIGN_OR_RETURN(Ref<VulkanBuffer> buffer, AllocateBuffer(params, size));
  return Ref<Buffer>(std::move(buffer));
}

// Vulkan could import host pointers (VK_EXT_external_memory_host) or file
// descriptors, but nothing kiln talks to hands out either yet.
Result<Ref<Buffer>> VulkanAllocator::ImportBuffer(const BufferParams&, const ExternalBuffer&,
                                                  std::function<void()>) {
  return UnimplementedError(
      "the Vulkan driver cannot import external memory (only the cpu and cuda drivers can)");
}

Result<ExternalBuffer> VulkanAllocator::ExportBuffer(const Buffer&) {
  return UnimplementedError(
      "the Vulkan driver cannot export buffers (only the cpu and cuda drivers can)");
}

Result<Ref<VulkanBuffer>> VulkanAllocator::AllocateBuffer(const BufferParams& params, size_t size) {
  KILN_ASSIGN_OR_RETURN(uint32_t type_index, ChooseMemoryType(params.memory_type));
  const VkPhysicalDeviceMemoryProperties& memory = device_->memory_properties();
  const VkDeviceSize heap_size = memory.memoryHeaps[memory.memoryTypes[type_index].heapIndex].size;
  const VkDeviceSize max_allocation = device_->max_memory_allocation_size();
  if (size > heap_size || size > max_allocation || size > ~VkDeviceSize{0} - 2 * alignment_) {
    return ResourceExhaustedError(
        "cannot allocate a Vulkan buffer of " + std::to_string(size) + " bytes: " +
        (size > heap_size ? "larger than its heap, " + DescribeType(type_index)
                          : "larger than the device's maxMemoryAllocationSize (" +
                                std::to_string(max_allocation) + " bytes)"));
  }
  const VkDeviceSize reserved = std::max(RoundUp(size, alignment_), alignment_);
  const MemoryTypeBits bits = HalBits(type_index);
  std::lock_guard<std::mutex> lock(mutex_);
  MemoryBlock* block = nullptr;
  VkDeviceSize offset = 0;
  if (reserved <= kDedicatedThreshold) {
    for (std::unique_ptr<MemoryBlock>& candidate : blocks_) {
      if (candidate->dedicated || candidate->memory_type_index != type_index) continue;
      if (candidate->Reserve(reserved, &offset)) {
        block = candidate.get();
        break;
      }
    }
    if (block == nullptr) {
      Result<std::unique_ptr<MemoryBlock>> created =
          CreateBlock(type_index, std::min(kBlockSize, heap_size), /*dedicated=*/false, size);
      if (created.ok()) {
        blocks_.push_back(std::move(*created));
        block = blocks_.back().get();
        block->Reserve(reserved, &offset);
      } else if (created.status().code() != StatusCode::kResourceExhausted) {
        return created.status();
      }
      // Out of memory for a whole block: fall through to an exact-size one.
    }
  }
  if (block == nullptr) {
    KILN_ASSIGN_OR_RETURN(std::unique_ptr<MemoryBlock> created,
                          CreateBlock(type_index, reserved, /*dedicated=*/true, size));
    blocks_.push_back(std::move(created));
    block = blocks_.back().get();
    block->Reserve(reserved, &offset);
  }
  bytes_in_use_ += reserved;
  uint64_t id = next_id_++;
  Ref<VulkanBuffer> buffer = Ref<VulkanBuffer>::Adopt(new VulkanBuffer(
      Ref<LogicalDevice>(device_), block, offset, reserved, bits, params.usage, size, id));
  // Device-local memory counts as the device's (on lavapipe and other
  // host-memory devices every type is device-local), the rest as the host's.
  buffer->CountAllocation(allocation_counters(), (bits & kMemoryTypeDeviceLocal)
                                                     ? MemoryPool::kDevice
                                                     : MemoryPool::kHost);
  return buffer;
}

void VulkanAllocator::Free(MemoryBlock* block, VkDeviceSize offset, VkDeviceSize size) {
  std::unique_ptr<MemoryBlock> destroyed;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    block->Release(offset, size);
    bytes_in_use_ -= size;
    if (block->used != 0) return;
    bool keep = !block->dedicated;
    if (keep) {
      // Keep one empty shared block per memory type for the next buffer.
      for (const std::unique_ptr<MemoryBlock>& other : blocks_) {
        if (other.get() != block && !other->dedicated &&
            other->memory_type_index == block->memory_type_index && other->used == 0) {
          keep = false;
        }
      }
    }
    if (keep) return;
    auto it = std::find_if(blocks_.begin(), blocks_.end(),
                           [&](const std::unique_ptr<MemoryBlock>& b) { return b.get() == block; });
    destroyed = std::move(*it);
    blocks_.erase(it);
  }
  DestroyBlock(destroyed.get());
}

VulkanAllocator::Stats VulkanAllocator::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  Stats stats;
  for (const std::unique_ptr<MemoryBlock>& block : blocks_) {
    (block->dedicated ? stats.dedicated_blocks : stats.blocks) += 1;
  }
  stats.bytes_in_use = bytes_in_use_;
  return stats;
}

}  // namespace kiln::hal::vulkan
