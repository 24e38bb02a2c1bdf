// OneShotCommandBuffer: the Vulkan executor of a one-shot command buffer.
// The recorded list is translated once, at End, into a VkCommandBuffer
// begun with ONE_TIME_SUBMIT, which its one submission runs (one-shot
// command buffers take no binding table: every reference is concrete).
#pragma once

#include <vector>

#include "hal/vulkan/vulkan_command_buffer.h"

namespace kiln::hal::vulkan {

class OneShotCommandBuffer final : public VulkanCommandBuffer {
 public:
  OneShotCommandBuffer(Ref<LogicalDevice> device, VkCommandPool pool)
      : VulkanCommandBuffer(std::move(device), CommandBufferMode::kOneShot, pool) {}
  ~OneShotCommandBuffer() override;

  Result<VkCommandBuffer> PrepareSubmission(std::span<const Ref<Buffer>> binding_table,
                                            uint64_t serial, VulkanQueue& queue,
                                            DispatchTimestamps* timestamps) override {
    // Every reference is concrete: no slot values or sets.
    if (timestamps != nullptr) return TranslateTimed(*timestamps, {}, {});
    return handle_;
  }

 private:
  Status EndImpl() override;

  VkCommandBuffer handle_ = VK_NULL_HANDLE;
  std::vector<Ref<Buffer>> scratch_;  // Overlapping-copy buffers.
};

}  // namespace kiln::hal::vulkan
