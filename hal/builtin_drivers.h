// RegisterBuiltinDrivers: adds kiln's drivers to a registry.
//
// Today: "cpu" (multi-threaded) and "cpu-sync" (inline), with the IREE
// names "local-task" and "local-sync" as aliases. GPU drivers register here
// as they arrive; a driver that cannot run on this machine still registers
// and reports why through DriverRegistry::ListDevices.
#pragma once

#include "base/status.h"
#include "hal/driver_registry.h"

namespace kiln::hal {

Status RegisterBuiltinDrivers(DriverRegistry& registry);

}  // namespace kiln::hal
