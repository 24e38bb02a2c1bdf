// VulkanDevice: a Vulkan physical device as a HAL device ("vulkan://N").
//
// The front users hold; the VkDevice and the shared state live in a
// LogicalDevice (logical_device.h) that every object made here keeps alive.
// Dropping the last reference to this front shuts the queue down (pending
// work drains, waits nothing will satisfy are aborted, see vulkan_queue.h);
// objects still held keep working where they need no queue.
//
// Properties: the physical device's name, driver "vulkan", kind "cpu" for a
// CPU implementation (lavapipe) and "gpu" otherwise, one executable format,
// "vulkan-spirv-fb".
//
// QueueAlloca allocates at once from the allocator (Vulkan memory needs no
// queue ordering to be valid) and enqueues an empty submission that keeps
// the fences' order; QueueDealloca enqueues an empty submission that holds
// the buffer until it completes, so the memory returns to the allocator only
// after everything submitted before it, and whatever `wait` orders, is done.
#pragma once

#include <cstdint>

#include "base/ref.h"
#include "hal/device.h"
#include "hal/vulkan/logical_device.h"
#include "hal/vulkan/vulkan_instance.h"

namespace kiln::hal::vulkan {

class VulkanDevice final : public Device {
 public:
  // Device number `index` of `instance` (`physical` is its summary).
  static Result<Ref<VulkanDevice>> Create(Ref<VulkanInstance> instance,
                                          const PhysicalDeviceInfo& physical, uint32_t index);
  ~VulkanDevice() override;

  const DeviceProperties& properties() const override { return properties_; }
  Allocator& allocator() override { return logical_->allocator(); }

  Result<Ref<CommandBuffer>> CreateCommandBuffer(CommandBufferMode mode) override;
  Result<Ref<Executable>> CreateExecutable(std::string_view format,
                                           std::span<const uint8_t> bytes) override;
  Result<Ref<Semaphore>> CreateSemaphore(uint64_t initial_value) override;

  Status QueueExecute(const Fence& wait, const Fence& signal,
                      std::span<const Ref<CommandBuffer>> command_buffers,
                      std::span<const Ref<Buffer>> binding_table) override;
  Result<Ref<Buffer>> QueueAlloca(const Fence& wait, const Fence& signal,
                                  const BufferParams& params, size_t size) override;
  Status QueueDealloca(const Fence& wait, const Fence& signal, Ref<Buffer> buffer) override;

  // OK while the device works; once it is lost (VK_ERROR_DEVICE_LOST), the
  // status every later submission returns.
  Status health() const { return logical_->queue().health(); }
  LogicalDevice& logical() { return *logical_; }

 private:
  VulkanDevice(DeviceProperties properties, Ref<LogicalDevice> logical)
      : properties_(std::move(properties)), logical_(std::move(logical)) {}
  // What the drivers' submission skeleton (hal/utils/submission.h) asks of
  // this device's objects.
  struct Objects;

  DeviceProperties properties_;
  Ref<LogicalDevice> logical_;
};

}  // namespace kiln::hal::vulkan
