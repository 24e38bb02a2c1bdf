#include "hal/vulkan/logical_device.h"

#include <vector>

namespace kiln::hal::vulkan {

LogicalDevice::LogicalDevice(Ref<VulkanInstance> instance) : instance_(std::move(instance)) {}

Result<Ref<LogicalDevice>> LogicalDevice::Create(Ref<VulkanInstance> instance,
                                                 const PhysicalDeviceInfo& physical) {
  const std::string name = physical.properties.deviceName;
  if (!physical.missing.empty()) {
    return UnavailableError("the Vulkan device '" + name + "' lacks " + physical.missing);
  }
  Ref<LogicalDevice> device = Ref<LogicalDevice>::Adopt(new LogicalDevice(instance));
  const InstanceFunctions& ifn = instance->functions();
  device->properties_ = physical.properties;
  device->queue_family_ = physical.queue_family;
  device->timestamp_valid_bits_ = physical.timestamp_valid_bits;
  ifn.vkGetPhysicalDeviceMemoryProperties(physical.handle, &device->memory_);
  VkPhysicalDeviceVulkan11Properties properties11 = {};
  properties11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_PROPERTIES;
  VkPhysicalDeviceProperties2 properties2 = {};
  properties2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  properties2.pNext = &properties11;
  ifn.vkGetPhysicalDeviceProperties2(physical.handle, &properties2);
  device->max_memory_allocation_size_ = properties11.maxMemoryAllocationSize;

  // What the device supports, then what kiln turns on: timeline semaphores
  // (required) and the shader features hand-written compute kernels use
  // (64-bit and small types, 8/16-bit storage, the memory model, scalar
  // layouts), each only where supported. Robust buffer access stays off: it
  // costs performance and kernels are trusted code.
  VkPhysicalDeviceVulkan12Features supported12 = {};
  supported12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  VkPhysicalDeviceVulkan11Features supported11 = {};
  supported11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
  supported11.pNext = &supported12;
  VkPhysicalDeviceFeatures2 supported = {};
  supported.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  supported.pNext = &supported11;
  ifn.vkGetPhysicalDeviceFeatures2(physical.handle, &supported);

  VkPhysicalDeviceVulkan12Features enabled12 = {};
  enabled12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  VkPhysicalDeviceVulkan11Features enabled11 = {};
  enabled11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
  enabled11.pNext = &enabled12;
  VkPhysicalDeviceFeatures2 enabled = {};
  enabled.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  enabled.pNext = &enabled11;
  enabled.features.shaderInt64 = supported.features.shaderInt64;
  enabled.features.shaderInt16 = supported.features.shaderInt16;
  enabled.features.shaderFloat64 = supported.features.shaderFloat64;
  enabled11.storageBuffer16BitAccess = supported11.storageBuffer16BitAccess;
  enabled11.uniformAndStorageBuffer16BitAccess = supported11.uniformAndStorageBuffer16BitAccess;
  enabled11.storagePushConstant16 = supported11.storagePushConstant16;
  enabled11.variablePointersStorageBuffer = supported11.variablePointersStorageBuffer;
  enabled11.variablePointers = supported11.variablePointers;
  enabled12.timelineSemaphore = VK_TRUE;
  enabled12.storageBuffer8BitAccess = supported12.storageBuffer8BitAccess;
  enabled12.uniformAndStorageBuffer8BitAccess = supported12.uniformAndStorageBuffer8BitAccess;
  enabled12.storagePushConstant8 = supported12.storagePushConstant8;
  enabled12.shaderBufferInt64Atomics = supported12.shaderBufferInt64Atomics;
  enabled12.shaderSharedInt64Atomics = supported12.shaderSharedInt64Atomics;
  enabled12.shaderFloat16 = supported12.shaderFloat16;
  enabled12.shaderInt8 = supported12.shaderInt8;
  enabled12.scalarBlockLayout = supported12.scalarBlockLayout;
  enabled12.uniformBufferStandardLayout = supported12.uniformBufferStandardLayout;
  enabled12.shaderSubgroupExtendedTypes = supported12.shaderSubgroupExtendedTypes;
  enabled12.subgroupBroadcastDynamicId = supported12.subgroupBroadcastDynamicId;
  enabled12.vulkanMemoryModel = supported12.vulkanMemoryModel;
  enabled12.vulkanMemoryModelDeviceScope = supported12.vulkanMemoryModelDeviceScope;
  device->update_after_bind_ = instance->options().update_after_bind &&
                               supported12.descriptorBindingStorageBufferUpdateAfterBind;
  enabled12.descriptorBindingStorageBufferUpdateAfterBind =
      device->update_after_bind_ ? VK_TRUE : VK_FALSE;

  // The device clock, for instrumented dispatches, where the device has it.
  VkPhysicalDeviceShaderClockFeaturesKHR enabled_clock = {};
  enabled_clock.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR;
  std::vector<const char*> extensions;
  if (physical.shader_device_clock) {
    enabled_clock.shaderDeviceClock = VK_TRUE;
    enabled12.pNext = &enabled_clock;
    extensions.push_back(VK_KHR_SHADER_CLOCK_EXTENSION_NAME);
    device->shader_device_clock_ = true;
  }

  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue_info = {};
  queue_info.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queue_info.queueFamilyIndex = physical.queue_family;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;
  VkDeviceCreateInfo create_info = {};
  create_info.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  create_info.pNext = &enabled;
  create_info.queueCreateInfoCount = 1;
  create_info.pQueueCreateInfos = &queue_info;
  create_info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  create_info.ppEnabledExtensionNames = extensions.data();
  VkResult result = ifn.vkCreateDevice(physical.handle, &create_info, nullptr, &device->device_);
  if (result != VK_SUCCESS) {
    device->device_ = VK_NULL_HANDLE;
    return VkResultToStatus(result, "vkCreateDevice for '" + name + "'");
  }
  KILN_RETURN_IF_ERROR(device->fn_.Load(ifn, device->device_));
  device->fn_.vkGetDeviceQueue(device->device_, physical.queue_family, 0, &device->queue_handle_);

  VkPipelineCacheCreateInfo cache_info = {};
  cache_info.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO;
  result = device->fn_.vkCreatePipelineCache(device->device_, &cache_info, nullptr,
                                             &device->pipeline_cache_);
  if (result != VK_SUCCESS) return VkResultToStatus(result, "vkCreatePipelineCache");

  device->allocator_ = std::make_unique<VulkanAllocator>(device.get());
  KILN_RETURN_IF_ERROR(device->allocator_->Initialize());
  device->queue_ = std::make_unique<VulkanQueue>(device.get());
  KILN_RETURN_IF_ERROR(device->queue_->Initialize());
  return device;
}

LogicalDevice::~LogicalDevice() {
  // The queue first (it waits for the device and drops what submissions
  // held), then memory, then the shared objects, then the device.
  queue_.reset();
  allocator_.reset();
  if (device_ == VK_NULL_HANDLE) return;
  for (const auto& [shape, layout] : layouts_) {
    fn_.vkDestroyPipelineLayout(device_, layout.pipeline_layout, nullptr);
    if (layout.set_layout != VK_NULL_HANDLE) {
      fn_.vkDestroyDescriptorSetLayout(device_, layout.set_layout, nullptr);
    }
  }
  for (VkCommandPool pool : free_command_pools_) fn_.vkDestroyCommandPool(device_, pool, nullptr);
  for (VkDescriptorPool pool : free_descriptor_pools_) {
    fn_.vkDestroyDescriptorPool(device_, pool, nullptr);
  }
  if (pipeline_cache_ != VK_NULL_HANDLE) {
    fn_.vkDestroyPipelineCache(device_, pipeline_cache_, nullptr);
  }
  fn_.vkDestroyDevice(device_, nullptr);
}

Result<LogicalDevice::Layout> LogicalDevice::GetLayout(uint32_t binding_count,
                                                       uint32_t constant_count) {
  std::lock_guard<std::mutex> lock(cache_mutex_);
  auto found = layouts_.find({binding_count, constant_count});
  if (found != layouts_.end()) return found->second;

  Layout layout;
  if (binding_count > 0) {
    std::vector<VkDescriptorSetLayoutBinding> bindings(binding_count);
    std::vector<VkDescriptorBindingFlags> flags(binding_count,
                                                VK_DESCRIPTOR_BINDING_UPDATE_AFTER_BIND_BIT);
    for (uint32_t i = 0; i < binding_count; ++i) {
      bindings[i].binding = i;
      bindings[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      bindings[i].descriptorCount = 1;
      bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    }
    VkDescriptorSetLayoutBindingFlagsCreateInfo flags_info = {};
    flags_info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_BINDING_FLAGS_CREATE_INFO;
    flags_info.bindingCount = binding_count;
    flags_info.pBindingFlags = flags.data();
    VkDescriptorSetLayoutCreateInfo info = {};
    info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
    if (update_after_bind_) {
      info.pNext = &flags_info;
      info.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_UPDATE_AFTER_BIND_POOL_BIT;
    }
    info.bindingCount = binding_count;
    info.pBindings = bindings.data();
    VkResult result = fn_.vkCreateDescriptorSetLayout(device_, &info, nullptr, &layout.set_layout);
    if (result != VK_SUCCESS) return VkResultToStatus(result, "vkCreateDescriptorSetLayout");
  }
  VkPushConstantRange range = {};
  range.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  range.offset = 0;
  range.size = 4 * constant_count;
  VkPipelineLayoutCreateInfo info = {};
  info.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  info.setLayoutCount = layout.set_layout != VK_NULL_HANDLE ? 1 : 0;
  info.pSetLayouts = &layout.set_layout;
  info.pushConstantRangeCount = constant_count > 0 ? 1 : 0;
  info.pPushConstantRanges = &range;
  VkResult result = fn_.vkCreatePipelineLayout(device_, &info, nullptr, &layout.pipeline_layout);
  if (result != VK_SUCCESS) {
    if (layout.set_layout != VK_NULL_HANDLE) {
      fn_.vkDestroyDescriptorSetLayout(device_, layout.set_layout, nullptr);
    }
    return VkResultToStatus(result, "vkCreatePipelineLayout");
  }
  layouts_.emplace(std::make_pair(binding_count, constant_count), layout);
  return layout;
}

Result<VkCommandPool> LogicalDevice::AcquireCommandPool() {
  {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    if (!free_command_pools_.empty()) {
      VkCommandPool pool = free_command_pools_.back();
      free_command_pools_.pop_back();
      return pool;
    }
  }
  VkCommandPoolCreateInfo info = {};
  info.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  // Reusable command buffers reset their recordings one by one.
  info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  info.queueFamilyIndex = queue_family_;
  VkCommandPool pool = VK_NULL_HANDLE;
  VkResult result = fn_.vkCreateCommandPool(device_, &info, nullptr, &pool);
  if (result != VK_SUCCESS) return VkResultToStatus(result, "vkCreateCommandPool");
  return pool;
}

void LogicalDevice::ReleaseCommandPool(VkCommandPool pool) {
  fn_.vkResetCommandPool(device_, pool, 0);
  std::lock_guard<std::mutex> lock(cache_mutex_);
  free_command_pools_.push_back(pool);
}

Result<VkDescriptorPool> LogicalDevice::CreateDescriptorPool(uint32_t sets, uint32_t buffers) {
  VkDescriptorPoolSize size = {};
  size.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  size.descriptorCount = buffers;
  VkDescriptorPoolCreateInfo info = {};
  info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
  info.flags = update_after_bind_ ? VK_DESCRIPTOR_POOL_CREATE_UPDATE_AFTER_BIND_BIT : 0;
  info.maxSets = sets;
  info.poolSizeCount = 1;
  info.pPoolSizes = &size;
  VkDescriptorPool pool = VK_NULL_HANDLE;
  VkResult result = fn_.vkCreateDescriptorPool(device_, &info, nullptr, &pool);
  if (result != VK_SUCCESS) return VkResultToStatus(result, "vkCreateDescriptorPool");
  return pool;
}

void LogicalDevice::DestroyDescriptorPool(VkDescriptorPool pool) {
  fn_.vkDestroyDescriptorPool(device_, pool, nullptr);
}

Result<VkDescriptorPool> LogicalDevice::AcquireDescriptorPool() {
  {
    std::lock_guard<std::mutex> lock(cache_mutex_);
    if (!free_descriptor_pools_.empty()) {
      VkDescriptorPool pool = free_descriptor_pools_.back();
      free_descriptor_pools_.pop_back();
      return pool;
    }
  }
  return CreateDescriptorPool(kPoolSets, kPoolBuffers);
}

void LogicalDevice::ReleaseDescriptorPool(VkDescriptorPool pool) {
  fn_.vkResetDescriptorPool(device_, pool, 0);
  std::lock_guard<std::mutex> lock(cache_mutex_);
  free_descriptor_pools_.push_back(pool);
}

}  // namespace kiln::hal::vulkan
