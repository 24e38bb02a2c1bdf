#include "tools/python/runtime/device.h"

#include <dlpack/dlpack.h>

#include "hal/builtin_drivers.h"
#include "hal/driver_registry.h"
#include "tools/python/status_error.h"

namespace kiln::python {

Device::Device(const std::string& uri) {
  auto created = [&]() -> Result<Ref<hal::Device>> {
    hal::DriverRegistry registry;
    KILN_RETURN_IF_ERROR(hal::RegisterBuiltinDrivers(registry));
    return registry.CreateDevice(uri);
  }();
  if (!created.ok()) ThrowStatus(created.status().WithContext("device '" + uri + "'"));
  device_ = std::move(*created);
}

std::pair<int, int> Device::DLPackDevice() const {
  const hal::DeviceProperties& properties = device_->properties();
  if (properties.kind == "cpu") return {kDLCPU, 0};
  if (properties.driver == "cuda") {
    // The URI's ordinal ("cuda://1"); "cuda" alone is device 0.
    const size_t slash = properties.uri.rfind('/');
    int ordinal = 0;
    if (slash != std::string::npos) ordinal = std::stoi(properties.uri.substr(slash + 1));
    return {kDLCUDA, ordinal};
  }
  ThrowStatus(UnimplementedError("the " + properties.driver +
                                 " driver's memory cannot be exchanged through DLPack (the cpu "
                                 "and cuda drivers' can)"));
}

}  // namespace kiln::python
