// VulkanDriverOptions: how the "vulkan" driver opens Vulkan and builds its
// devices.
//
// The defaults are what applications want. Validation is for development
// and tests: it loads the Khronos validation layer and records every warning
// and error it reports (vulkan_instance.h, ValidationLog), which is how the
// Vulkan tests fail on API misuse. Tools pick it up from the environment:
// KILN_VULKAN_VALIDATION=1.
#pragma once

#include <string>

namespace kiln::hal::vulkan {

struct VulkanDriverOptions {
  // Enable VK_LAYER_KHRONOS_validation and a VK_EXT_debug_utils messenger
  // that records its messages; a missing layer is an error, not a fallback.
  bool validation = false;
  // The loader library dlopen'ed at run time (never linked).
  std::string loader_library = "libvulkan.so.1";
  // The layer validation enables (tests name a missing one to check the
  // error).
  std::string validation_layer = "VK_LAYER_KHRONOS_validation";
  // Bind reusable command buffers' descriptors with update-after-bind where
  // the device supports it for storage buffers, so a new binding table is
  // written into the descriptor sets without re-recording. false forces the
  // re-recording path devices without the feature take (lavapipe).
  bool update_after_bind = true;

  // The defaults, with validation on when KILN_VULKAN_VALIDATION is "1",
  // "true", "on" or "yes".
  static VulkanDriverOptions FromEnvironment();
};

}  // namespace kiln::hal::vulkan
