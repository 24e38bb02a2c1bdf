#include "hal/vulkan/one_shot_command_buffer.h"

namespace kiln::hal::vulkan {

OneShotCommandBuffer::~OneShotCommandBuffer() {
  if (handle_ != VK_NULL_HANDLE) fn_.vkFreeCommandBuffers(device_->handle(), pool_, 1, &handle_);
}

Status OneShotCommandBuffer::EndImpl() {
  KILN_RETURN_IF_ERROR(VulkanCommandBuffer::EndImpl());
  if (handle_ == VK_NULL_HANDLE) {
    KILN_ASSIGN_OR_RETURN(handle_, AllocateCommandBuffer());
  } else {
    // A failed End is retried: start the recording over.
    VkResult reset = fn_.vkResetCommandBuffer(handle_, 0);
    if (reset != VK_SUCCESS) return VkResultToStatus(reset, "vkResetCommandBuffer");
    scratch_.clear();
  }
  return Translate(handle_, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, {}, {}, &scratch_);
}

}  // namespace kiln::hal::vulkan
