// Device selection: the --device, --list_devices and --list_drivers flags
// that kiln-run-module, kiln-check-module and kiln-benchmark-module share, and
// the driver flags of every tool that runs a module (AddDriverFlags).
//
// The tools create their HAL device from the driver registry before anything
// else runs, so a bad URI fails first, with an error that says which flag was
// wrong ("--device=nope: unknown HAL driver 'nope' (registered: ...)").
// --list_devices prints one line per device of every registered driver; a
// driver that cannot run here still appears, with the reason, so a user sees
// why `--device=cuda` will not work on this machine.
#pragma once

#include <cxxopts.hpp>
#include <string>

#include "base/ref.h"
#include "base/result.h"
#include "hal/builtin_drivers.h"
#include "hal/device.h"
#include "hal/driver_registry.h"

namespace kiln::tools {

// Prints one line per device to stdout: "cpu://0  CPU (2 threads)" or, for a
// driver that cannot run here, "cuda  unavailable: <reason>"; then the
// device's details ("libraries: cublasLt 13.1.0, cuDNN 9.19.0";
// "libraries: oneDNN 2.6.3" for cpu devices).
void PrintDevices(const hal::DriverRegistry& registry);

// Prints one line per registered driver to stdout, as iree-run-module's
// --list_drivers does: its name, then what it is
// ("cpu-sync  CPU, synchronous: ...; alias local-sync"). A driver is listed
// whether or not it can run here (--list_devices says that).
void PrintDrivers(const hal::DriverRegistry& registry);

// Declares the driver options as flags: --cuda_use_streams (CUDA command
// buffers as direct stream launches instead of graphs),
// --cuda_library_calls=false (CUDA exports run their kernels, never
// cuBLASLt/cuDNN), --cpu_library_calls=false (cpu exports run their
// kernels, never oneDNN) and
// --task_topology_group_count=N (the cpu device's worker threads, IREE's
// flag; default: one per CPU the process may run on).
void AddDriverFlags(cxxopts::Options& flags);
// Reads them into `drivers`; an error names the flag.
Status ReadDriverFlags(const cxxopts::ParseResult& result, hal::BuiltinDriverOptions* drivers);

// The device `uri` names; an error carries "--device=<uri>" as its context.
Result<Ref<hal::Device>> CreateDeviceFromFlag(const hal::DriverRegistry& registry,
                                              const std::string& uri);

}  // namespace kiln::tools
