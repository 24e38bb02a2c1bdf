// Vulkan API access: the loader opened at run time and the function tables
// the driver calls through.
//
// kiln never links libvulkan: its tools must start on machines that have no
// Vulkan loader (the "vulkan" driver then reports itself unavailable). The
// loader library is dlopen'ed, vkGetInstanceProcAddr is the one symbol looked
// up in it, and every other entry point is fetched through it (instance
// functions) or through vkGetDeviceProcAddr (device functions, which skip
// the loader's dispatch trampoline). The headers come from Vulkan::Headers
// with VK_NO_PROTOTYPES, so no code can call a prototype by accident.
//
// The lists below are every Vulkan function the driver uses; adding a call
// means adding its name here.
#pragma once

#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <vulkan/vulkan.h>

#include <string>

#include "base/ref.h"
#include "base/result.h"

namespace kiln::hal::vulkan {

// Functions fetched with vkGetInstanceProcAddr(nullptr, name).
#define KILN_VULKAN_GLOBAL_FUNCTIONS(X) \
  X(vkCreateInstance)                   \
  X(vkEnumerateInstanceVersion)         \
  X(vkEnumerateInstanceLayerProperties) \
  X(vkEnumerateInstanceExtensionProperties)

// Functions fetched with vkGetInstanceProcAddr(instance, name).
#define KILN_VULKAN_INSTANCE_FUNCTIONS(X)     \
  X(vkDestroyInstance)                        \
  X(vkEnumeratePhysicalDevices)               \
  X(vkGetPhysicalDeviceProperties)            \
  X(vkGetPhysicalDeviceProperties2)           \
  X(vkGetPhysicalDeviceFeatures2)             \
  X(vkGetPhysicalDeviceQueueFamilyProperties) \
  X(vkGetPhysicalDeviceMemoryProperties)      \
  X(vkCreateDevice)                           \
  X(vkEnumerateDeviceExtensionProperties)     \
  X(vkGetDeviceProcAddr)

// VK_EXT_debug_utils, present only when validation is enabled.
#define KILN_VULKAN_DEBUG_FUNCTIONS(X) \
  X(vkCreateDebugUtilsMessengerEXT)    \
  X(vkDestroyDebugUtilsMessengerEXT)

// Functions fetched with vkGetDeviceProcAddr(device, name).
#define KILN_VULKAN_DEVICE_FUNCTIONS(X) \
  X(vkDestroyDevice)                    \
  X(vkGetDeviceQueue)                   \
  X(vkQueueSubmit)                      \
  X(vkQueueWaitIdle)                    \
  X(vkDeviceWaitIdle)                   \
  X(vkAllocateMemory)                   \
  X(vkFreeMemory)                       \
  X(vkMapMemory)                        \
  X(vkCreateBuffer)                     \
  X(vkDestroyBuffer)                    \
  X(vkGetBufferMemoryRequirements)      \
  X(vkBindBufferMemory)                 \
  X(vkCreateShaderModule)               \
  X(vkDestroyShaderModule)              \
  X(vkCreatePipelineCache)              \
  X(vkDestroyPipelineCache)             \
  X(vkCreateComputePipelines)           \
  X(vkDestroyPipeline)                  \
  X(vkCreatePipelineLayout)             \
  X(vkDestroyPipelineLayout)            \
  X(vkCreateDescriptorSetLayout)        \
  X(vkDestroyDescriptorSetLayout)       \
  X(vkCreateDescriptorPool)             \
  X(vkDestroyDescriptorPool)            \
  X(vkResetDescriptorPool)              \
  X(vkAllocateDescriptorSets)           \
  X(vkUpdateDescriptorSets)             \
  X(vkCreateCommandPool)                \
  X(vkDestroyCommandPool)               \
  X(vkResetCommandPool)                 \
  X(vkAllocateCommandBuffers)           \
  X(vkFreeCommandBuffers)               \
  X(vkBeginCommandBuffer)               \
  X(vkEndCommandBuffer)                 \
  X(vkResetCommandBuffer)               \
  X(vkCmdBindPipeline)                  \
  X(vkCmdBindDescriptorSets)            \
  X(vkCmdPushConstants)                 \
  X(vkCmdDispatch)                      \
  X(vkCmdCopyBuffer)                    \
  X(vkCmdFillBuffer)                    \
  X(vkCmdUpdateBuffer)                  \
  X(vkCmdPipelineBarrier)               \
  X(vkCreateSemaphore)                  \
  X(vkDestroySemaphore)                 \
  X(vkGetSemaphoreCounterValue)         \
  X(vkWaitSemaphores)                   \
  X(vkSignalSemaphore)                  \
  X(vkCreateQueryPool)                  \
  X(vkDestroyQueryPool)                 \
  X(vkCmdResetQueryPool)                \
  X(vkCmdWriteTimestamp)                \
  X(vkGetQueryPoolResults)

#define KILN_VULKAN_DECLARE_POINTER(name) PFN_##name name = nullptr;

// The loader library and its global functions. Once opened, the library
// stays loaded for the life of the process (unloading it would unload the
// drivers, see VulkanInstance::Create).
class VulkanLoader : public RefObject {
 public:
  // dlopens `library` ("libvulkan.so.1"); UNAVAILABLE with dlerror's text
  // when it is not installed.
  static Result<Ref<VulkanLoader>> Open(const std::string& library);
  ~VulkanLoader() override;

  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
  KILN_VULKAN_GLOBAL_FUNCTIONS(KILN_VULKAN_DECLARE_POINTER)

 private:
  explicit VulkanLoader(void* handle) : handle_(handle) {}
  void* handle_;
};

struct InstanceFunctions {
  KILN_VULKAN_INSTANCE_FUNCTIONS(KILN_VULKAN_DECLARE_POINTER)
  KILN_VULKAN_DEBUG_FUNCTIONS(KILN_VULKAN_DECLARE_POINTER)

  // Fetches every instance function (the debug ones only when `debug_utils`);
  // a missing one is an UNAVAILABLE error naming it.
  Status Load(const VulkanLoader& loader, VkInstance instance, bool debug_utils);
};

struct DeviceFunctions {
  KILN_VULKAN_DEVICE_FUNCTIONS(KILN_VULKAN_DECLARE_POINTER)

  Status Load(const InstanceFunctions& instance_functions, VkDevice device);
};

#undef KILN_VULKAN_DECLARE_POINTER

// "VK_ERROR_DEVICE_LOST"; "VkResult(-13)" for codes this list does not know.
std::string VkResultName(VkResult result);

// The Status for a failed call: "<what>: VK_ERROR_OUT_OF_DEVICE_MEMORY". The
// code follows the result: memory and pool exhaustion are RESOURCE_EXHAUSTED,
// a lost device or a missing layer/extension/driver UNAVAILABLE, a timeout
// DEADLINE_EXCEEDED, a validation failure INVALID_ARGUMENT, anything else
// INTERNAL.
Status VkResultToStatus(VkResult result, std::string_view what);

// "1.3.239".
std::string FormatApiVersion(uint32_t version);

}  // namespace kiln::hal::vulkan
