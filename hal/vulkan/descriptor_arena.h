// DescriptorArena: the descriptor sets of one command buffer, carved out of
// descriptor pools it borrows from its device.
//
// Sets are never freed one by one: they live as long as the command buffer
// (a reusable command buffer keeps binding them), and all its pools go back
// to the device together, reset, when it is destroyed. The arena counts
// what each pool has left instead of provoking VK_ERROR_OUT_OF_POOL_MEMORY,
// and a set with more bindings than a standard pool holds gets a pool of its
// own.
#pragma once

#include <cstdint>
#include <vector>

#include "base/result.h"
#include "hal/vulkan/vulkan_api.h"

namespace kiln::hal::vulkan {

class LogicalDevice;

class DescriptorArena {
 public:
  explicit DescriptorArena(LogicalDevice* device) : device_(device) {}
  ~DescriptorArena();
  DescriptorArena(const DescriptorArena&) = delete;
  DescriptorArena& operator=(const DescriptorArena&) = delete;

  // A set of `layout`, which has `binding_count` storage buffers.
  Result<VkDescriptorSet> Allocate(VkDescriptorSetLayout layout, uint32_t binding_count);

 private:
  LogicalDevice* device_;
  std::vector<VkDescriptorPool> pools_;      // Standard size; the last one is current.
  std::vector<VkDescriptorPool> dedicated_;  // Oversized sets.
  uint32_t sets_left_ = 0;                   // In pools_.back().
  uint32_t buffers_left_ = 0;
};

}  // namespace kiln::hal::vulkan
