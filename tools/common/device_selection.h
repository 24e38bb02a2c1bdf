// Device selection: the --device and --list_devices flags that kiln-run-module
// and kiln-benchmark-module share.
//
// The tools create their HAL device from the driver registry before anything
// else runs, so a bad URI fails first, with an error that says which flag was
// wrong ("--device=nope: unknown HAL driver 'nope' (registered: ...)").
// --list_devices prints one line per device of every registered driver; a
// driver that cannot run here still appears, with the reason, so a user sees
// why `--device=cuda` will not work on this machine.
#pragma once

#include <string>

#include "base/ref.h"
#include "base/result.h"
#include "hal/device.h"
#include "hal/driver_registry.h"

namespace kiln::tools {

// Prints one line per device to stdout: "cpu://0  CPU (2 threads)" or, for a
// driver that cannot run here, "cuda  unavailable: <reason>".
void PrintDevices(const hal::DriverRegistry& registry);

// The device `uri` names; an error carries "--device=<uri>" as its context.
Result<Ref<hal::Device>> CreateDeviceFromFlag(const hal::DriverRegistry& registry,
                                              const std::string& uri);

}  // namespace kiln::tools
