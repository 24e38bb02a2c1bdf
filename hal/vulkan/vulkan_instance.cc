#include "hal/vulkan/vulkan_instance.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace kiln::hal::vulkan {
namespace {

VKAPI_ATTR VkBool32 VKAPI_CALL RecordDebugMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                  VkDebugUtilsMessageTypeFlagsEXT types,
                                                  const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                  void* user_data) {
  std::string message =
      severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT ? "error" : "warning";
  if (data != nullptr && data->pMessageIdName != nullptr) {
    message += std::string(" [") + data->pMessageIdName + "]";
  }
  message += ": ";
  message += (data != nullptr && data->pMessage != nullptr) ? data->pMessage : "(no message)";
  static_cast<ValidationLog*>(user_data)->Add(std::move(message));
  // VK_FALSE: the call that triggered the message proceeds (the validation
  // layer itself decides to skip calls that fail its checks).
  return VK_FALSE;
}

bool HasLayer(const VulkanLoader& loader, const std::string& name) {
  uint32_t count = 0;
  if (loader.vkEnumerateInstanceLayerProperties(&count, nullptr) != VK_SUCCESS) return false;
  std::vector<VkLayerProperties> layers(count);
  if (loader.vkEnumerateInstanceLayerProperties(&count, layers.data()) < 0) return false;
  for (uint32_t i = 0; i < count; ++i) {
    if (name == layers[i].layerName) return true;
  }
  return false;
}

bool HasInstanceExtension(const VulkanLoader& loader, const char* layer, const char* name) {
  uint32_t count = 0;
  if (loader.vkEnumerateInstanceExtensionProperties(layer, &count, nullptr) != VK_SUCCESS) {
    return false;
  }
  std::vector<VkExtensionProperties> extensions(count);
  if (loader.vkEnumerateInstanceExtensionProperties(layer, &count, extensions.data()) < 0) {
    return false;
  }
  for (uint32_t i = 0; i < count; ++i) {
    if (std::strcmp(name, extensions[i].extensionName) == 0) return true;
  }
  return false;
}

}  // namespace

// The process's first instance (see Create). External linkage: the store
// must stay, so that leak checkers see the instance as reachable.
Ref<VulkanInstance>* kept_instance = nullptr;

VulkanDriverOptions VulkanDriverOptions::FromEnvironment() {
  VulkanDriverOptions options;
  if (const char* value = std::getenv("KILN_VULKAN_VALIDATION")) {
    std::string v = value;
    options.validation = v == "1" || v == "true" || v == "on" || v == "yes";
  }
  return options;
}

void ValidationLog::Add(std::string message) {
  std::fprintf(stderr, "kiln vulkan validation: %s\n", message.c_str());
  std::lock_guard<std::mutex> lock(mutex_);
  messages_.push_back(std::move(message));
}

std::vector<std::string> ValidationLog::Take() {
  std::lock_guard<std::mutex> lock(mutex_);
  return std::exchange(messages_, {});
}

Result<Ref<VulkanInstance>> VulkanInstance::Create(const VulkanDriverOptions& options) {
  KILN_ASSIGN_OR_RETURN(Ref<VulkanLoader> loader, VulkanLoader::Open(options.loader_library));
  uint32_t loader_version = 0;
  if (loader->vkEnumerateInstanceVersion(&loader_version) != VK_SUCCESS ||
      loader_version < VK_API_VERSION_1_2) {
    return UnavailableError("the Vulkan loader " + options.loader_library + " supports Vulkan " +
                            FormatApiVersion(loader_version) + "; kiln needs 1.2");
  }
  Ref<VulkanInstance> instance = Ref<VulkanInstance>::Adopt(new VulkanInstance(options, loader));

  std::vector<const char*> layers;
  std::vector<const char*> extensions;
  VkDebugUtilsMessengerCreateInfoEXT messenger_info = {};
  messenger_info.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
  messenger_info.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                                   VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  messenger_info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                               VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  messenger_info.pfnUserCallback = &RecordDebugMessage;
  messenger_info.pUserData = &instance->validation_log_;
  // Beyond the default checks, synchronization validation: it reports
  // missing barriers (hazards between commands and submissions).
  const VkValidationFeatureEnableEXT enables[] = {
      VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
  VkValidationFeaturesEXT features = {};
  features.sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT;
  features.enabledValidationFeatureCount = 1;
  features.pEnabledValidationFeatures = enables;
  features.pNext = &messenger_info;
  const void* validation_features = nullptr;
  if (options.validation) {
    if (!HasLayer(*loader, options.validation_layer)) {
      return UnavailableError(
          "Vulkan validation was requested (KILN_VULKAN_VALIDATION) but the layer " +
          options.validation_layer +
          " is not installed (Debian: vulkan-validationlayers; or point VK_LAYER_PATH at it)");
    }
    if (!HasInstanceExtension(*loader, options.validation_layer.c_str(),
                              VK_EXT_DEBUG_UTILS_EXTENSION_NAME) &&
        !HasInstanceExtension(*loader, nullptr, VK_EXT_DEBUG_UTILS_EXTENSION_NAME)) {
      return UnavailableError("Vulkan validation needs the instance extension " +
                              std::string(VK_EXT_DEBUG_UTILS_EXTENSION_NAME) +
                              ", which neither the loader nor " + options.validation_layer +
                              " offers");
    }
    layers.push_back(options.validation_layer.c_str());
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    if (HasInstanceExtension(*loader, options.validation_layer.c_str(),
                             VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME)) {
      extensions.push_back(VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
      validation_features = &features;
    }
  }

  VkApplicationInfo application = {};
  application.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  application.pApplicationName = "kiln";
  application.pEngineName = "kiln";
  application.apiVersion = VK_API_VERSION_1_2;
  VkInstanceCreateInfo create_info = {};
  create_info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  // Chained, the messenger also reports what happens inside vkCreateInstance
  // and vkDestroyInstance.
  if (options.validation) {
    create_info.pNext = validation_features ? validation_features : &messenger_info;
  }
  create_info.pApplicationInfo = &application;
  create_info.enabledLayerCount = static_cast<uint32_t>(layers.size());
  create_info.ppEnabledLayerNames = layers.data();
  create_info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  create_info.ppEnabledExtensionNames = extensions.data();
  VkResult result = loader->vkCreateInstance(&create_info, nullptr, &instance->instance_);
  if (result == VK_ERROR_INCOMPATIBLE_DRIVER) {
    return UnavailableError(
        "vkCreateInstance: VK_ERROR_INCOMPATIBLE_DRIVER (no Vulkan 1.2 driver is installed; "
        "mesa-vulkan-drivers provides lavapipe, VK_DRIVER_FILES selects an ICD)");
  }
  if (result != VK_SUCCESS) return VkResultToStatus(result, "vkCreateInstance");
  KILN_RETURN_IF_ERROR(instance->functions_.Load(*loader, instance->instance_, options.validation));
  if (options.validation) {
    result = instance->functions_.vkCreateDebugUtilsMessengerEXT(
        instance->instance_, &messenger_info, nullptr, &instance->messenger_);
    if (result != VK_SUCCESS) return VkResultToStatus(result, "vkCreateDebugUtilsMessengerEXT");
  }
  // The first instance lives as long as the process. The loader unloads the
  // driver libraries (ICDs) when the last instance is destroyed and loads
  // them again for the next one, and NVIDIA's driver stops loading after a
  // few dozen such cycles in one process (every later vkCreateInstance
  // finds "no drivers"). One instance kept alive keeps the drivers loaded.
  static std::once_flag once;
  std::call_once(once, [&] { kept_instance = new Ref<VulkanInstance>(instance); });
  return instance;
}

VulkanInstance::~VulkanInstance() {
  if (instance_ == VK_NULL_HANDLE) return;
  if (messenger_ != VK_NULL_HANDLE) {
    functions_.vkDestroyDebugUtilsMessengerEXT(instance_, messenger_, nullptr);
  }
  functions_.vkDestroyInstance(instance_, nullptr);
}

namespace {

// Whether the device offers VK_KHR_shader_clock's device-scope clock.
bool HasShaderDeviceClock(const InstanceFunctions& functions, VkPhysicalDevice handle) {
  uint32_t count = 0;
  if (functions.vkEnumerateDeviceExtensionProperties(handle, nullptr, &count, nullptr) !=
      VK_SUCCESS) {
    return false;
  }
  std::vector<VkExtensionProperties> extensions(count);
  if (functions.vkEnumerateDeviceExtensionProperties(handle, nullptr, &count, extensions.data()) !=
      VK_SUCCESS) {
    return false;
  }
  bool listed = false;
  for (uint32_t i = 0; i < count; ++i) {
    if (std::string_view(extensions[i].extensionName) == VK_KHR_SHADER_CLOCK_EXTENSION_NAME) {
      listed = true;
    }
  }
  if (!listed) return false;
  VkPhysicalDeviceShaderClockFeaturesKHR clock = {};
  clock.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR;
  VkPhysicalDeviceFeatures2 features = {};
  features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  features.pNext = &clock;
  functions.vkGetPhysicalDeviceFeatures2(handle, &features);
  return clock.shaderDeviceClock == VK_TRUE;
}

}  // namespace

Result<std::vector<PhysicalDeviceInfo>> VulkanInstance::EnumeratePhysicalDevices() const {
  std::vector<VkPhysicalDevice> handles;
  for (;;) {
    uint32_t count = 0;
    VkResult result = functions_.vkEnumeratePhysicalDevices(instance_, &count, nullptr);
    if (result != VK_SUCCESS) return VkResultToStatus(result, "vkEnumeratePhysicalDevices");
    handles.resize(count);
    result = functions_.vkEnumeratePhysicalDevices(instance_, &count, handles.data());
    if (result == VK_INCOMPLETE) continue;  // A device appeared in between.
    if (result != VK_SUCCESS) return VkResultToStatus(result, "vkEnumeratePhysicalDevices");
    handles.resize(count);
    break;
  }
  if (handles.empty()) {
    return UnavailableError(
        "the Vulkan loader found no physical device (no Vulkan driver is installed: "
        "mesa-vulkan-drivers provides lavapipe, VK_DRIVER_FILES selects an ICD)");
  }
  std::vector<PhysicalDeviceInfo> devices;
  for (VkPhysicalDevice handle : handles) {
    PhysicalDeviceInfo info;
    info.handle = handle;
    functions_.vkGetPhysicalDeviceProperties(handle, &info.properties);
    DeviceCapabilities& caps = info.capabilities;
    caps.api_version = info.properties.apiVersion;
    caps.max_push_constants_size = info.properties.limits.maxPushConstantsSize;
    caps.max_per_stage_storage_buffers = info.properties.limits.maxPerStageDescriptorStorageBuffers;
    if (caps.api_version >= VK_API_VERSION_1_2) {
      // The Vulkan 1.2 feature structure may only be chained on 1.2 devices.
      VkPhysicalDeviceVulkan12Features features12 = {};
      features12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
      VkPhysicalDeviceFeatures2 features = {};
      features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
      features.pNext = &features12;
      functions_.vkGetPhysicalDeviceFeatures2(handle, &features);
      caps.timeline_semaphore = features12.timelineSemaphore == VK_TRUE;
    }
    uint32_t family_count = 0;
    functions_.vkGetPhysicalDeviceQueueFamilyProperties(handle, &family_count, nullptr);
    std::vector<VkQueueFamilyProperties> families(family_count);
    functions_.vkGetPhysicalDeviceQueueFamilyProperties(handle, &family_count, families.data());
    // A compute-only family (NVIDIA's and AMD's asynchronous compute queues)
    // is preferred: it carries no graphics state. Any compute family works.
    auto graphics = [&](int f) { return (families[f].queueFlags & VK_QUEUE_GRAPHICS_BIT) != 0; };
    int chosen = -1;
    for (uint32_t i = 0; i < family_count; ++i) {
      if (families[i].queueCount == 0 || !(families[i].queueFlags & VK_QUEUE_COMPUTE_BIT)) continue;
      const int f = static_cast<int>(i);
      if (chosen < 0 || (!graphics(f) && graphics(chosen))) chosen = f;
    }
    caps.compute_queue = chosen >= 0;
    info.queue_family = chosen >= 0 ? static_cast<uint32_t>(chosen) : 0;
    info.timestamp_valid_bits = chosen >= 0 ? families[chosen].timestampValidBits : 0;
    info.shader_device_clock = HasShaderDeviceClock(functions_, handle);
    info.missing = MissingRequirements(caps);
    devices.push_back(info);
  }
  return devices;
}

}  // namespace kiln::hal::vulkan
