#include "tools/common/device_selection.h"

#include <cstdio>

namespace kiln::tools {

void PrintDevices(const hal::DriverRegistry& registry) {
  for (const hal::DeviceInfo& device : registry.ListDevices()) {
    std::string line = device.uri;
    // An unavailable driver's entry may carry its name as both.
    if (!device.name.empty() && device.name != device.uri) line += "  " + device.name;
    if (!device.available) line += "  unavailable: " + device.reason;
    std::printf("%s\n", line.c_str());
  }
}

Result<Ref<hal::Device>> CreateDeviceFromFlag(const hal::DriverRegistry& registry,
                                              const std::string& uri) {
  auto device = registry.CreateDevice(uri);
  if (!device.ok()) return device.status().WithContext("--device=" + uri);
  return device;
}

}  // namespace kiln::tools
