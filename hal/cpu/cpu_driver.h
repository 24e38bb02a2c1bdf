// CpuDriver: the "cpu" and "cpu-sync" drivers, each with one device (the
// host), "cpu://0" and "cpu-sync://0".
#pragma once

#include <string>
#include <vector>

#include "hal/cpu/cpu_device.h"
#include "hal/driver.h"

namespace kiln::hal::cpu {

class CpuDriver final : public Driver {
 public:
  // `name` is the registry name ("cpu" or "cpu-sync"); options say which
  // flavour its device is.
  CpuDriver(std::string name, CpuDeviceOptions options)
      : name_(std::move(name)), options_(options) {}

  const std::string& name() const override { return name_; }
  Result<std::vector<DeviceInfo>> ListDevices() override;
  Result<Ref<Device>> CreateDevice(uint32_t index) override;

 private:
  std::string name_;
  CpuDeviceOptions options_;
};

}  // namespace kiln::hal::cpu
