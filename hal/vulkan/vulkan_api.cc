#include "hal/vulkan/vulkan_api.h"

#include <dlfcn.h>

namespace kiln::hal::vulkan {

Result<Ref<VulkanLoader>> VulkanLoader::Open(const std::string& library) {
  void* handle = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* error = ::dlerror();
    return UnavailableError("cannot load the Vulkan loader " + library + " (" +
                            (error ? error : "unknown dlopen error") +
                            "); install libvulkan1 or put the loader on LD_LIBRARY_PATH");
  }
  Ref<VulkanLoader> loader = Ref<VulkanLoader>::Adopt(new VulkanLoader(handle));
  loader->vkGetInstanceProcAddr =
      reinterpret_cast<PFN_vkGetInstanceProcAddr>(::dlsym(handle, "vkGetInstanceProcAddr"));
  if (loader->vkGetInstanceProcAddr == nullptr) {
    return UnavailableError(library + " does not export vkGetInstanceProcAddr");
  }
#define KILN_VULKAN_LOAD_GLOBAL(name)                                                         \
  loader->name = reinterpret_cast<PFN_##name>(loader->vkGetInstanceProcAddr(nullptr, #name)); \
  if (loader->name == nullptr) {                                                              \
    return UnavailableError("the Vulkan loader " + library +                                  \
                            " lacks " #name " (Vulkan 1.1 or newer is needed)");              \
  }
  KILN_VULKAN_GLOBAL_FUNCTIONS(KILN_VULKAN_LOAD_GLOBAL)
#undef KILN_VULKAN_LOAD_GLOBAL
  return loader;
}

VulkanLoader::~VulkanLoader() {
  // The library stays loaded (handle_ is never closed): see
  // VulkanInstance::Create on why drivers must not be unloaded.
}

Status InstanceFunctions::Load(const VulkanLoader& loader, VkInstance instance, bool debug_utils) {
#define KILN_VULKAN_LOAD_INSTANCE(name)                                               \
  name = reinterpret_cast<PFN_##name>(loader.vkGetInstanceProcAddr(instance, #name)); \
  if (name == nullptr) return UnavailableError("the Vulkan instance has no " #name);
  KILN_VULKAN_INSTANCE_FUNCTIONS(KILN_VULKAN_LOAD_INSTANCE)
  if (debug_utils) {
    KILN_VULKAN_DEBUG_FUNCTIONS(KILN_VULKAN_LOAD_INSTANCE)
  }
#undef KILN_VULKAN_LOAD_INSTANCE
  return OkStatus();
}

Status DeviceFunctions::Load(const InstanceFunctions& instance_functions, VkDevice device) {
#define KILN_VULKAN_LOAD_DEVICE(name)                                                         \
  name = reinterpret_cast<PFN_##name>(instance_functions.vkGetDeviceProcAddr(device, #name)); \
  if (name == nullptr) return UnavailableError("the Vulkan device has no " #name);
  KILN_VULKAN_DEVICE_FUNCTIONS(KILN_VULKAN_LOAD_DEVICE)
#undef KILN_VULKAN_LOAD_DEVICE
  return OkStatus();
}

std::string VkResultName(VkResult result) {
  switch (result) {
#define KILN_VK_RESULT_CASE(name) \
  case name:                      \
    return #name;
    KILN_VK_RESULT_CASE(VK_SUCCESS)
    KILN_VK_RESULT_CASE(VK_NOT_READY)
    KILN_VK_RESULT_CASE(VK_TIMEOUT)
    KILN_VK_RESULT_CASE(VK_EVENT_SET)
    KILN_VK_RESULT_CASE(VK_EVENT_RESET)
    KILN_VK_RESULT_CASE(VK_INCOMPLETE)
    KILN_VK_RESULT_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
    KILN_VK_RESULT_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    KILN_VK_RESULT_CASE(VK_ERROR_INITIALIZATION_FAILED)
    KILN_VK_RESULT_CASE(VK_ERROR_DEVICE_LOST)
    KILN_VK_RESULT_CASE(VK_ERROR_MEMORY_MAP_FAILED)
    KILN_VK_RESULT_CASE(VK_ERROR_LAYER_NOT_PRESENT)
    KILN_VK_RESULT_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
    KILN_VK_RESULT_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
    KILN_VK_RESULT_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
    KILN_VK_RESULT_CASE(VK_ERROR_TOO_MANY_OBJECTS)
    KILN_VK_RESULT_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
    KILN_VK_RESULT_CASE(VK_ERROR_FRAGMENTED_POOL)
    KILN_VK_RESULT_CASE(VK_ERROR_UNKNOWN)
    KILN_VK_RESULT_CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
    KILN_VK_RESULT_CASE(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    KILN_VK_RESULT_CASE(VK_ERROR_FRAGMENTATION)
    KILN_VK_RESULT_CASE(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
    KILN_VK_RESULT_CASE(VK_PIPELINE_COMPILE_REQUIRED)
    KILN_VK_RESULT_CASE(VK_ERROR_VALIDATION_FAILED_EXT)
    KILN_VK_RESULT_CASE(VK_ERROR_INVALID_SHADER_NV)
#undef KILN_VK_RESULT_CASE
    default:
      return "VkResult(" + std::to_string(static_cast<int>(result)) + ")";
  }
}

Status VkResultToStatus(VkResult result, std::string_view what) {
  std::string message = std::string(what) + ": " + VkResultName(result);
  switch (result) {
    case VK_SUCCESS:
      return OkStatus();
    case VK_ERROR_OUT_OF_HOST_MEMORY:
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
    case VK_ERROR_OUT_OF_POOL_MEMORY:
    case VK_ERROR_FRAGMENTED_POOL:
    case VK_ERROR_FRAGMENTATION:
    case VK_ERROR_TOO_MANY_OBJECTS:
      return ResourceExhaustedError(std::move(message));
    case VK_ERROR_DEVICE_LOST:
    case VK_ERROR_INITIALIZATION_FAILED:
    case VK_ERROR_LAYER_NOT_PRESENT:
    case VK_ERROR_EXTENSION_NOT_PRESENT:
    case VK_ERROR_FEATURE_NOT_PRESENT:
    case VK_ERROR_INCOMPATIBLE_DRIVER:
      return UnavailableError(std::move(message));
    case VK_TIMEOUT:
      return DeadlineExceededError(std::move(message));
    case VK_ERROR_VALIDATION_FAILED_EXT:
    case VK_ERROR_INVALID_SHADER_NV:
      return InvalidArgumentError(std::move(message));
    default:
      return InternalError(std::move(message));
  }
}

std::string FormatApiVersion(uint32_t version) {
  return std::to_string(VK_API_VERSION_MAJOR(version)) + "." +
         std::to_string(VK_API_VERSION_MINOR(version)) + "." +
         std::to_string(VK_API_VERSION_PATCH(version));
}

}  // namespace kiln::hal::vulkan
