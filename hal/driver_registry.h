// DriverRegistry: the drivers an application can create devices from.
//
// There is no global registry (DESIGN.md, principle 3): an application makes
// a DriverRegistry, registers the drivers it links (RegisterBuiltinDrivers in
// hal/builtin_drivers.h adds kiln's own) and creates devices by URI:
//   "cpu"         device 0 of driver "cpu"
//   "cpu://1"     device 1 of driver "cpu"
//   "local-task"  an alias: the registry maps it to another driver name
// An unknown driver or device index is a NOT_FOUND error that lists what is
// registered or available.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/ref.h"
#include "base/result.h"
#include "hal/device.h"
#include "hal/driver.h"

namespace kiln::hal {

class DriverRegistry {
 public:
  using Factory = std::function<Result<Ref<Driver>>()>;

  // ALREADY_EXISTS when the name (or an alias) is taken.
  Status Register(std::string name, Factory factory);
  // Makes `alias` resolve to the registered driver `target`.
  Status RegisterAlias(std::string alias, std::string target);

  // Registered driver names (no aliases), in registration order.
  std::vector<std::string> DriverNames() const;
  // "cpu, cpu-sync, local-sync (= cpu-sync), ..." for messages.
  std::string Describe() const;

  Result<Ref<Driver>> CreateDriver(std::string_view name) const;
  Result<Ref<Device>> CreateDevice(std::string_view uri) const;
  // Every device of every driver; a driver whose factory or enumeration fails
  // appears as one unavailable entry carrying the reason.
  std::vector<DeviceInfo> ListDevices() const;

 private:
  struct Entry {
    std::string name;
    Factory factory;
  };
  const Entry* Find(std::string_view name) const;

  std::vector<Entry> drivers_;
  std::vector<std::pair<std::string, std::string>> aliases_;
};

}  // namespace kiln::hal
