#include "hal/vulkan/vulkan_buffer.h"

#include <cstring>

#include "hal/fence.h"
#include "hal/vulkan/logical_device.h"
#include "hal/vulkan/staging_arena.h"
#include "hal/vulkan/vulkan_command_buffer.h"
#include "hal/vulkan/vulkan_queue.h"
#include "hal/vulkan/vulkan_semaphore.h"

namespace kiln::hal::vulkan {

VulkanBuffer::VulkanBuffer(Ref<LogicalDevice> device, MemoryBlock* block, VkDeviceSize offset,
                           VkDeviceSize reserved_size, MemoryTypeBits memory_type,
                           BufferUsageBits usage, size_t byte_length, uint64_t id)
    : Buffer(memory_type, usage, byte_length),
      device_(std::move(device)),
      block_(block),
      handle_(block->buffer),
      offset_(offset),
      reserved_size_(reserved_size),
      mapped_(block->mapped ? block->mapped + offset : nullptr),
      id_(id) {}

const VulkanBuffer* VulkanBuffer::OwnedBy(const Buffer& buffer, const LogicalDevice* device) {
  const auto* allocation = dynamic_cast<const VulkanBuffer*>(buffer.allocated_buffer());
  return allocation != nullptr && allocation->device() == device ? allocation : nullptr;
}

VulkanBuffer::~VulkanBuffer() { device_->allocator().Free(block_, offset_, reserved_size_); }

Result<uint8_t*> VulkanBuffer::MapAllocation(size_t allocation_offset, size_t length) {
  if (mapped_ == nullptr) {
    return FailedPreconditionError("cannot map Vulkan memory that is " +
                                   FormatMemoryType(memory_type()) +
                                   " (not host-visible): copy it through a staging buffer");
  }
  return mapped_ + allocation_offset;
}

Status VulkanBuffer::ReadAllocation(size_t allocation_offset, std::span<uint8_t> out) {
  return StagedCopy(Direction::kToHost, allocation_offset, out);
}

Status VulkanBuffer::WriteAllocation(size_t allocation_offset, std::span<const uint8_t> data) {
  // StagedCopy only reads `host` in this direction.
  return StagedCopy(Direction::kFromHost, allocation_offset,
                    std::span<uint8_t>(const_cast<uint8_t*>(data.data()), data.size()));
}

Status VulkanBuffer::StagedCopy(Direction direction, size_t allocation_offset,
                                std::span<uint8_t> host) {
  const char* what = direction == Direction::kToHost ? "ReadData" : "WriteData";
  auto context = [&](const Status& status) {
    return status.WithContext(std::string(what) + " of " + std::to_string(host.size()) +
                              " bytes through a staging buffer");
  };
  if (host.empty()) return OkStatus();
  BufferParams params;
  params.memory_type = kMemoryTypeHostVisible | kMemoryTypeHostCoherent;
  params.usage = kBufferUsageTransfer | kBufferUsageMapping;
  Result<Ref<VulkanBuffer>> staging = device_->allocator().AllocateBuffer(params, host.size());
  if (!staging.ok()) return context(staging.status());
  if (direction == Direction::kFromHost) {
    std::memcpy((*staging)->mapped_, host.data(), host.size());
  }
  Result<Ref<VulkanCommandBuffer>> commands =
      VulkanCommandBuffer::Create(device_, CommandBufferMode::kOneShot);
  if (!commands.ok()) return context(commands.status());
  // The copy skips the HAL's usage checks: ReadData and WriteData need only
  // the mapping usage, which the caller's buffer has. The command buffer
  // holds both buffers until it is gone.
  const BufferRef device_ref = BufferRef::Of(Ref<Buffer>(this), allocation_offset, host.size());
  const BufferRef staging_ref = BufferRef::Of(*staging, 0, host.size());
  Status status = (*commands)->Begin();
  if (status.ok()) {
    status = direction == Direction::kToHost
                 ? (*commands)->AppendInternalCopy(device_ref, staging_ref)
                 : (*commands)->AppendInternalCopy(staging_ref, device_ref);
  }
  if (status.ok()) status = (*commands)->End();
  Result<Ref<VulkanSemaphore>> done = VulkanSemaphore::Create(device_, 0);
  if (status.ok() && !done.ok()) status = done.status();
  if (status.ok()) {
    VulkanSubmission submission;
    submission.signals = {{*done, 1}};
    submission.command_buffers = {*commands};
    status = device_->queue().Submit(submission);
    if (status.ok()) status = (*done)->Wait(1, kInfiniteTimeout);
  }
  if (!status.ok()) return context(status);
  if (direction == Direction::kToHost) {
    std::memcpy(host.data(), (*staging)->mapped_, host.size());
  }
  return OkStatus();
}

}  // namespace kiln::hal::vulkan
