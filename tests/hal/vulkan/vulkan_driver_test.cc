// The Vulkan driver: loading, device listing and properties, registration,
// the requirements check and its messages, and validation setup errors.
#include <gtest/gtest.h>

#include "hal/builtin_drivers.h"
#include "hal/driver_registry.h"
#include "hal/vulkan/device_requirements.h"
#include "tests/hal/vulkan/vulkan_test_util.h"

namespace kiln::hal::vulkan {
namespace {

using testing::Unwrap;
using testing::VulkanTest;

TEST(VulkanRequirementsTest, AQualifyingDeviceLacksNothing) {
  DeviceCapabilities capabilities;
  capabilities.api_version = VK_API_VERSION_1_3;
  capabilities.timeline_semaphore = true;
  capabilities.compute_queue = true;
  capabilities.max_push_constants_size = 128;
  capabilities.max_per_stage_storage_buffers = 8;
  EXPECT_EQ(MissingRequirements(capabilities), "");
}

TEST(VulkanRequirementsTest, NamesEveryMissingFeature) {
  DeviceCapabilities capabilities;
  capabilities.api_version = VK_MAKE_API_VERSION(0, 1, 1, 130);
  capabilities.max_push_constants_size = 64;
  EXPECT_EQ(MissingRequirements(capabilities),
            "Vulkan 1.2 (the device supports 1.1.130), the timelineSemaphore feature, a queue "
            "family with VK_QUEUE_COMPUTE_BIT, push constants of 128 bytes "
            "(maxPushConstantsSize is 64), storage buffers (maxPerStageDescriptorStorageBuffers "
            "is 0)");
}

TEST(VulkanDriverTest, MissingLoaderIsAClearUnavailableError) {
  VulkanDriverOptions options;
  options.loader_library = "libkiln_no_such_vulkan_loader.so.1";
  Result<Ref<VulkanDriver>> driver = VulkanDriver::Create(options);
  ASSERT_FALSE(driver.ok());
  EXPECT_EQ(driver.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(driver.status().message().find(
                "cannot load the Vulkan loader libkiln_no_such_vulkan_loader.so.1"),
            std::string::npos)
      << driver.status().ToString();
}

TEST(VulkanDriverTest, MissingValidationLayerIsAClearError) {
  KILN_SKIP_WITHOUT_VULKAN();
  VulkanDriverOptions options;
  options.validation = true;
  options.validation_layer = "VK_LAYER_KILN_not_installed";
  Result<Ref<VulkanDriver>> driver = VulkanDriver::Create(options);
  ASSERT_FALSE(driver.ok());
  EXPECT_EQ(driver.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(
      driver.status().message().find("the layer VK_LAYER_KILN_not_installed is not installed"),
      std::string::npos)
      << driver.status().ToString();
}

TEST(VulkanDriverTest, ListsDevicesWithUris) {
  KILN_SKIP_WITHOUT_VULKAN();
  Ref<VulkanDriver> driver = Unwrap(VulkanDriver::Create(VulkanDriverOptions()));
  EXPECT_EQ(driver->name(), "vulkan");
  std::vector<DeviceInfo> devices = Unwrap(driver->ListDevices());
  ASSERT_FALSE(devices.empty());
  for (size_t i = 0; i < devices.size(); ++i) {
    EXPECT_EQ(devices[i].uri, "vulkan://" + std::to_string(i));
    EXPECT_FALSE(devices[i].name.empty());
    EXPECT_EQ(devices[i].available, devices[i].reason.empty()) << devices[i].reason;
  }
  Result<Ref<Device>> missing = driver->CreateDevice(static_cast<uint32_t>(devices.size()));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
}

TEST(VulkanDriverTest, RegisteredAsABuiltinDriver) {
  DriverRegistry registry;
  KILN_ASSERT_OK(RegisterBuiltinDrivers(registry));
  std::vector<std::string> names = registry.DriverNames();
  EXPECT_NE(std::find(names.begin(), names.end(), "vulkan"), names.end());
  // Listed either as devices or as one unavailable entry with the reason.
  bool listed = false;
  for (const DeviceInfo& info : registry.ListDevices()) {
    if (info.uri.rfind("vulkan", 0) == 0) listed = true;
  }
  EXPECT_TRUE(listed);
  std::string reason = testing::VulkanUnavailableReason();
  if (!reason.empty()) {
    Result<Ref<Device>> device = registry.CreateDevice("vulkan");
    EXPECT_FALSE(device.ok());
    return;
  }
  Ref<Device> device = Unwrap(registry.CreateDevice("vulkan"));
  EXPECT_EQ(device->properties().driver, "vulkan");
  EXPECT_EQ(device->properties().uri, "vulkan://0");
  Ref<Device> by_uri = Unwrap(registry.CreateDevice("vulkan://0"));
  EXPECT_EQ(by_uri->properties().name, device->properties().name);
  Result<Ref<Device>> out_of_range = registry.CreateDevice("vulkan://99");
  ASSERT_FALSE(out_of_range.ok());
  EXPECT_EQ(out_of_range.status().code(), StatusCode::kNotFound);
}

TEST_F(VulkanTest, DevicePropertiesDescribeThePhysicalDevice) {
  const DeviceProperties& properties = device_->properties();
  EXPECT_EQ(properties.driver, "vulkan");
  EXPECT_EQ(properties.uri, "vulkan://" + std::to_string(testing::TestDeviceIndex()));
  EXPECT_EQ(properties.name, std::string(device_->logical().properties().deviceName));
  const bool cpu_device = device_->logical().properties().deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
  EXPECT_EQ(properties.kind, cpu_device ? "cpu" : "gpu");
  EXPECT_EQ(properties.executable_formats, std::vector<std::string>{"vulkan-spirv-fb"});
  KILN_ASSERT_OK(device_->health());
}

TEST_F(VulkanTest, UnsupportedExecutableFormatListsWhatTheDeviceRuns) {
  std::vector<uint8_t> bytes(64, 0);
  Result<Ref<Executable>> executable = device_->CreateExecutable("cuda-nvptx-fb", bytes);
  ASSERT_FALSE(executable.ok());
  EXPECT_EQ(executable.status().message(),
            "the vulkan device cannot load 'cuda-nvptx-fb' executables (it runs vulkan-spirv-fb)");
}

TEST_F(VulkanTest, DeviceWithoutUpdateAfterBindStillWorks) {
  VulkanDriverOptions options = testing::TestOptions();
  options.update_after_bind = false;
  CreateDevice(options);
  EXPECT_FALSE(device_->logical().update_after_bind());
}

}  // namespace
}  // namespace kiln::hal::vulkan
