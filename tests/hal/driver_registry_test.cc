// The driver registry: URIs, aliases, errors, device listing.
#include "hal/driver_registry.h"

#include <gtest/gtest.h>

#include "hal/builtin_drivers.h"
#include "tests/hal/test_util.h"

namespace kiln::hal {
namespace {

using testing::Unwrap;

DriverRegistry Builtins() {
  DriverRegistry registry;
  Status status = RegisterBuiltinDrivers(registry);
  EXPECT_TRUE(status.ok()) << status.ToString();
  return registry;
}

TEST(DriverRegistryTest, CreatesCpuDevicesByNameUriAndAlias) {
  DriverRegistry registry = Builtins();
  struct Case {
    const char* uri;
    const char* driver;
  } cases[] = {{"cpu", "cpu"},
               {"cpu://0", "cpu"},
               {"local-task", "cpu"},
               {"local-task://0", "cpu"},
               {"cpu-sync", "cpu-sync"},
               {"cpu-sync://0", "cpu-sync"},
               {"local-sync", "cpu-sync"}};
  for (const Case& c : cases) {
    Result<Ref<Device>> device = registry.CreateDevice(c.uri);
    ASSERT_TRUE(device.ok()) << c.uri << ": " << device.status().ToString();
    EXPECT_EQ((*device)->properties().driver, c.driver) << c.uri;
    EXPECT_EQ((*device)->properties().kind, "cpu");
    EXPECT_EQ((*device)->properties().uri, std::string(c.driver) + "://0");
    EXPECT_GE((*device)->properties().cpu_count, 1u);
  }
  Ref<Device> sync = Unwrap(registry.CreateDevice("cpu-sync"));
  EXPECT_EQ(sync->properties().thread_count, 1u);
  Ref<Device> task = Unwrap(registry.CreateDevice("cpu"));
  EXPECT_EQ(task->properties().thread_count, task->properties().cpu_count);
}

TEST(DriverRegistryTest, UnknownDriverListsTheRegisteredOnes) {
  DriverRegistry registry = Builtins();
  Status status = registry.CreateDevice("metal://1").status();
  EXPECT_EQ(status.code(), StatusCode::kNotFound);
  EXPECT_NE(status.message().find("unknown HAL driver 'metal'"), std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find("(registered: cpu, cpu-sync, "), std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find("local-task (= cpu), local-sync (= cpu-sync))"),
            std::string::npos)
      << status.message();
}

TEST(DriverRegistryTest, BadOrMissingDeviceIndex) {
  DriverRegistry registry = Builtins();
  Status status = registry.CreateDevice("cpu://3").status();
  EXPECT_EQ(status.code(), StatusCode::kNotFound);
  EXPECT_NE(status.message().find("has no device 3"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("available: cpu://0"), std::string::npos) << status.message();
  for (const char* uri : {"cpu://", "cpu://x", "cpu://1x", "cpu://-1"}) {
    status = registry.CreateDevice(uri).status();
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << uri;
    EXPECT_NE(status.message().find("expected a device index"), std::string::npos)
        << status.message();
  }
}

TEST(DriverRegistryTest, DuplicateNamesAndBadAliasesAreErrors) {
  DriverRegistry registry = Builtins();
  EXPECT_EQ(RegisterBuiltinDrivers(registry).code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(registry.RegisterAlias("cpu", "cpu-sync").code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(registry.RegisterAlias("gpu", "metal").code(), StatusCode::kNotFound);
  EXPECT_EQ(registry.Register("local-sync", nullptr).code(), StatusCode::kAlreadyExists);
  // The GPU drivers the build has come after the CPU ones.
  std::vector<std::string> names = registry.DriverNames();
  ASSERT_GE(names.size(), 2u);
  EXPECT_EQ(names[0], "cpu");
  EXPECT_EQ(names[1], "cpu-sync");
}

TEST(DriverRegistryTest, ListsDevicesAndUnavailableDriversWithTheirReason) {
  DriverRegistry registry = Builtins();
  KILN_ASSERT_OK(registry.Register("fake-gpu", []() -> Result<Ref<Driver>> {
    return UnavailableError("libfake.so.1 not found");
  }));
  std::vector<DeviceInfo> devices = registry.ListDevices();
  ASSERT_GE(devices.size(), 3u);
  EXPECT_EQ(devices[0].uri, "cpu://0");
  EXPECT_TRUE(devices[0].available);
  EXPECT_EQ(devices[1].uri, "cpu-sync://0");
  // The fake driver registered last lists last, unavailable, with its reason.
  EXPECT_EQ(devices.back().uri, "fake-gpu");
  EXPECT_FALSE(devices.back().available);
  EXPECT_EQ(devices.back().reason, "libfake.so.1 not found");
  // Every unavailable device says why.
  for (const DeviceInfo& device : devices) {
    if (!device.available) {
      EXPECT_FALSE(device.reason.empty()) << device.uri;
    }
  }
  Status status = registry.CreateDevice("fake-gpu").status();
  EXPECT_EQ(status.code(), StatusCode::kUnavailable);
  EXPECT_NE(status.message().find("HAL driver 'fake-gpu' is unavailable: libfake.so.1 not found"),
            std::string::npos)
      << status.message();
}

TEST(DriverRegistryTest, RegistriesAreIndependent) {
  DriverRegistry empty;
  Status status = empty.CreateDevice("cpu").status();
  EXPECT_EQ(status.code(), StatusCode::kNotFound);
  EXPECT_NE(status.message().find("registered: none"), std::string::npos) << status.message();
}

}  // namespace
}  // namespace kiln::hal
