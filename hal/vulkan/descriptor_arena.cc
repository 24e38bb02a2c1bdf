#include "hal/vulkan/descriptor_arena.h"

#include "hal/vulkan/logical_device.h"

namespace kiln::hal::vulkan {

DescriptorArena::~DescriptorArena() {
  for (VkDescriptorPool pool : pools_) device_->ReleaseDescriptorPool(pool);
  for (VkDescriptorPool pool : dedicated_) device_->DestroyDescriptorPool(pool);
}

Result<VkDescriptorSet> DescriptorArena::Allocate(VkDescriptorSetLayout layout,
                                                  uint32_t binding_count) {
  VkDescriptorPool pool;
  if (binding_count > LogicalDevice::kPoolBuffers) {
    KILN_ASSIGN_OR_RETURN(pool, device_->CreateDescriptorPool(1, binding_count));
    dedicated_.push_back(pool);
  } else {
    if (sets_left_ == 0 || buffers_left_ < binding_count) {
      KILN_ASSIGN_OR_RETURN(VkDescriptorPool fresh, device_->AcquireDescriptorPool());
      pools_.push_back(fresh);
      sets_left_ = LogicalDevice::kPoolSets;
      buffers_left_ = LogicalDevice::kPoolBuffers;
    }
    pool = pools_.back();
    --sets_left_;
    buffers_left_ -= binding_count;
  }
  VkDescriptorSetAllocateInfo info = {};
  info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
  info.descriptorPool = pool;
  info.descriptorSetCount = 1;
  info.pSetLayouts = &layout;
  VkDescriptorSet set = VK_NULL_HANDLE;
  VkResult result = device_->fn().vkAllocateDescriptorSets(device_->handle(), &info, &set);
  if (result != VK_SUCCESS) return VkResultToStatus(result, "vkAllocateDescriptorSets");
  return set;
}

}  // namespace kiln::hal::vulkan
