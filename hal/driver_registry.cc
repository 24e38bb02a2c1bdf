#include "hal/driver_registry.h"

#include <charconv>

namespace kiln::hal {

const DriverRegistry::Entry* DriverRegistry::Find(std::string_view name) const {
  for (const auto& [alias, target] : aliases_) {
    if (alias == name) {
      name = target;
      break;
    }
  }
  for (const Entry& entry : drivers_) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

Status DriverRegistry::Register(std::string name, Factory factory) {
  if (name.empty()) return InvalidArgumentError("a HAL driver needs a name");
  for (const auto& [alias, target] : aliases_) {
    if (alias == name)
      return Status(StatusCode::kAlreadyExists, "HAL driver name '" + name + "' is an alias");
  }
  for (const Entry& entry : drivers_) {
    if (entry.name == name) {
      return Status(StatusCode::kAlreadyExists, "HAL driver '" + name + "' is already registered");
    }
  }
  drivers_.push_back({std::move(name), std::move(factory)});
  return OkStatus();
}

Status DriverRegistry::RegisterAlias(std::string alias, std::string target) {
  if (Find(alias) != nullptr) {
    return Status(StatusCode::kAlreadyExists,
                  "HAL driver name '" + alias + "' is already registered");
  }
  bool found = false;
  for (const Entry& entry : drivers_) found |= entry.name == target;
  if (!found) {
    return NotFoundError("alias '" + alias + "' names unknown HAL driver '" + target + "'");
  }
  aliases_.emplace_back(std::move(alias), std::move(target));
  return OkStatus();
}

std::vector<std::string> DriverRegistry::DriverNames() const {
  std::vector<std::string> names;
  for (const Entry& entry : drivers_) names.push_back(entry.name);
  return names;
}

std::string DriverRegistry::Describe() const {
  std::string out;
  for (const Entry& entry : drivers_) out += (out.empty() ? "" : ", ") + entry.name;
  for (const auto& [alias, target] : aliases_) {
    out += (out.empty() ? "" : ", ") + alias + " (= " + target + ")";
  }
  return out.empty() ? "none" : out;
}

Result<Ref<Driver>> DriverRegistry::CreateDriver(std::string_view name) const {
  const Entry* entry = Find(name);
  if (entry == nullptr) {
    return NotFoundError("unknown HAL driver '" + std::string(name) +
                         "' (registered: " + Describe() + ")");
  }
  Result<Ref<Driver>> driver = entry->factory();
  if (!driver.ok()) {
    return driver.status().WithContext("HAL driver '" + entry->name + "' is unavailable");
  }
  return driver;
}

Result<Ref<Device>> DriverRegistry::CreateDevice(std::string_view uri) const {
  std::string_view name = uri;
  uint32_t index = 0;
  if (size_t sep = uri.find("://"); sep != std::string_view::npos) {
    name = uri.substr(0, sep);
    std::string_view rest = uri.substr(sep + 3);
    auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), index);
    if (rest.empty() || ec != std::errc() || end != rest.data() + rest.size()) {
      return InvalidArgumentError("device URI '" + std::string(uri) +
                                  "': expected a device index after '://' (e.g. '" +
                                  std::string(name) + "://0')");
    }
  }
  KILN_ASSIGN_OR_RETURN(Ref<Driver> driver, CreateDriver(name));
  KILN_ASSIGN_OR_RETURN(std::vector<DeviceInfo> devices, driver->ListDevices());
  if (index >= devices.size()) {
    std::string listed;
    for (const DeviceInfo& info : devices) listed += (listed.empty() ? "" : ", ") + info.uri;
    return NotFoundError("device URI '" + std::string(uri) + "': driver '" + driver->name() +
                         "' has no device " + std::to_string(index) +
                         " (available: " + (listed.empty() ? "none" : listed) + ")");
  }
  if (!devices[index].available) {
    return UnavailableError("device '" + devices[index].uri +
                            "' is unavailable: " + devices[index].reason);
  }
  Result<Ref<Device>> device = driver->CreateDevice(index);
  if (!device.ok())
    return device.status().WithContext("creating device '" + std::string(uri) + "'");
  return device;
}

std::vector<DeviceInfo> DriverRegistry::ListDevices() const {
  std::vector<DeviceInfo> out;
  for (const Entry& entry : drivers_) {
    Result<Ref<Driver>> driver = entry.factory();
    if (!driver.ok()) {
      out.push_back({entry.name, entry.name, false, driver.status().message(), ""});
      continue;
    }
    Result<std::vector<DeviceInfo>> devices = (*driver)->ListDevices();
    if (!devices.ok()) {
      out.push_back({entry.name, entry.name, false, devices.status().message(), ""});
      continue;
    }
    out.insert(out.end(), devices->begin(), devices->end());
  }
  return out;
}

}  // namespace kiln::hal
