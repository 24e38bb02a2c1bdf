// LogicalDevice: a VkDevice and what every object made on it shares: the
// function table, limits, the allocator, the queue, layouts and recycled
// pools.
//
// The HAL device users hold (VulkanDevice, vulkan_device.h) is a thin front
// over a LogicalDevice. Every object made on the device (buffers, command
// buffers, executables, semaphores) holds a reference to the LogicalDevice,
// not to the front, so the VkDevice outlives all of them while dropping the
// front is still noticed: that is when the queue drains and stops
// (VulkanQueue::Shutdown).
//
// Layouts are shared: exports with the same number of bindings and
// constants use one VkDescriptorSetLayout and one VkPipelineLayout, so a
// descriptor set written for one export can be bound for any other of the
// same shape. Command pools and descriptor pools of the standard size are
// recycled (reset, then handed to the next command buffer) instead of being
// created per command buffer.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "base/ref.h"
#include "base/result.h"
#include "hal/vulkan/vulkan_allocator.h"
#include "hal/vulkan/vulkan_api.h"
#include "hal/vulkan/vulkan_instance.h"
#include "hal/vulkan/vulkan_queue.h"

namespace kiln::hal::vulkan {

class LogicalDevice : public RefObject {
 public:
  static Result<Ref<LogicalDevice>> Create(Ref<VulkanInstance> instance,
                                           const PhysicalDeviceInfo& physical);
  ~LogicalDevice() override;

  VulkanInstance& instance() const { return *instance_; }
  const DeviceFunctions& fn() const { return fn_; }
  VkDevice handle() const { return device_; }
  VkQueue queue_handle() const { return queue_handle_; }
  const VkPhysicalDeviceProperties& properties() const { return properties_; }
  const VkPhysicalDeviceLimits& limits() const { return properties_.limits; }
  const VkPhysicalDeviceMemoryProperties& memory_properties() const { return memory_; }
  VkPipelineCache pipeline_cache() const { return pipeline_cache_; }
  // VkPhysicalDeviceVulkan11Properties::maxMemoryAllocationSize.
  VkDeviceSize max_memory_allocation_size() const { return max_memory_allocation_size_; }
  // Whether descriptor set layouts and pools are update-after-bind (see
  // VulkanDriverOptions::update_after_bind).
  bool update_after_bind() const { return update_after_bind_; }
  // VK_KHR_shader_clock's device clock is enabled: shaders may read it.
  bool shader_device_clock() const { return shader_device_clock_; }
  // The queue family's timestampValidBits (0: its queues cannot time
  // dispatches, and traced submissions add no device spans).
  uint32_t timestamp_valid_bits() const { return timestamp_valid_bits_; }

  VulkanAllocator& allocator() { return *allocator_; }
  VulkanQueue& queue() { return *queue_; }

  struct Layout {
    VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;  // Null without bindings.
    VkPipelineLayout pipeline_layout = VK_NULL_HANDLE;
  };
  // The shared layout of `binding_count` storage buffers (set 0, binding i)
  // and `constant_count` 32-bit push constants.
  Result<Layout> GetLayout(uint32_t binding_count, uint32_t constant_count);

  // A command pool (RESET_COMMAND_BUFFER) for one command buffer's use;
  // released pools are reset and reused.
  Result<VkCommandPool> AcquireCommandPool();
  void ReleaseCommandPool(VkCommandPool pool);

  // Descriptor pools of the standard size (kPoolSets sets, kPoolBuffers
  // storage-buffer descriptors), recycled like command pools.
  // Large enough that recording a long command buffer rarely needs a new
  // pool (creating one is slow on some drivers), small enough that many
  // live command buffers stay within maxUpdateAfterBindDescriptorsInAllPools.
  static constexpr uint32_t kPoolSets = 512;
  static constexpr uint32_t kPoolBuffers = 2048;
  Result<VkDescriptorPool> AcquireDescriptorPool();
  void ReleaseDescriptorPool(VkDescriptorPool pool);
  // A pool of another size (a set with more bindings than a standard pool
  // holds); destroyed, not recycled.
  Result<VkDescriptorPool> CreateDescriptorPool(uint32_t sets, uint32_t buffers);
  void DestroyDescriptorPool(VkDescriptorPool pool);

 private:
  explicit LogicalDevice(Ref<VulkanInstance> instance);

  Ref<VulkanInstance> instance_;
  DeviceFunctions fn_;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_handle_ = VK_NULL_HANDLE;
  uint32_t queue_family_ = 0;
  VkPhysicalDeviceProperties properties_ = {};
  VkPhysicalDeviceMemoryProperties memory_ = {};
  VkPipelineCache pipeline_cache_ = VK_NULL_HANDLE;
  VkDeviceSize max_memory_allocation_size_ = 0;
  bool update_after_bind_ = false;
  bool shader_device_clock_ = false;
  uint32_t timestamp_valid_bits_ = 0;

  // Destroyed explicitly, before the VkDevice.
  std::unique_ptr<VulkanAllocator> allocator_;
  std::unique_ptr<VulkanQueue> queue_;

  std::mutex cache_mutex_;                                   // Innermost lock of the driver.
  std::map<std::pair<uint32_t, uint32_t>, Layout> layouts_;  // Guarded by cache_mutex_.
  std::vector<VkCommandPool> free_command_pools_;            // Guarded by cache_mutex_.
  std::vector<VkDescriptorPool> free_descriptor_pools_;      // Guarded by cache_mutex_.
};

}  // namespace kiln::hal::vulkan
