// Driver: a kind of device (cpu, cuda, vulkan) that enumerates and creates
// devices.
//
// A driver is registered by name in a DriverRegistry (driver_registry.h) with
// a factory; the factory fails when the driver cannot work on this machine
// (no libcuda), and the registry reports that reason instead of the device.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/ref.h"
#include "base/result.h"
#include "hal/device.h"

namespace kiln::hal {

// One device a driver can create.
struct DeviceInfo {
  std::string uri;   // "cpu://0", "cuda://1".
  std::string name;  // Human-readable.
  bool available = true;
  std::string reason;  // Why it is not available (empty when it is).
  // More that --list_devices shows (the CUDA device's libraries); may be
  // empty.
  std::string details;
};

class Driver : public RefObject {
 public:
  virtual const std::string& name() const = 0;
  virtual Result<std::vector<DeviceInfo>> ListDevices() = 0;
  // Creates device number `index` of ListDevices().
  virtual Result<Ref<Device>> CreateDevice(uint32_t index) = 0;
};

}  // namespace kiln::hal
