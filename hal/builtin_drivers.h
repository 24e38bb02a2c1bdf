// RegisterBuiltinDrivers: adds kiln's drivers to a registry.
//
// "cpu" (multi-threaded) and "cpu-sync" (inline), with the IREE names
// "local-task" and "local-sync" as aliases; "cuda" when the build found the
// CUDA toolkit's headers (hal/cuda). A driver that cannot run on this
// machine (no NVIDIA driver) still registers and reports why through
// DriverRegistry::ListDevices.
#pragma once

#include "base/status.h"
#include "hal/driver_registry.h"

namespace kiln::hal {

// Options of the built-in drivers that tools expose as flags.
struct BuiltinDriverOptions {
  // CUDA: record command buffers as direct stream launches instead of CUDA
  // graphs (kiln-run-module --cuda_use_streams), for debugging.
  bool cuda_use_streams = false;
  // CUDA: run exports' library calls (cuBLASLt, cuDNN) where the library is
  // present (kiln-run-module --cuda_library_calls=false turns them off).
  bool cuda_library_calls = true;
  // CUDA: keep the graphs of one-shot command buffers (functions with
  // dynamic shapes) for the next of the same structure
  // (--cuda_graph_cache=false builds one per submit).
  bool cuda_graph_cache = true;
  // cpu: worker threads of the device (--task_topology_group_count, IREE's
  // name for the same); 0 = one per CPU this process may run on.
  uint32_t cpu_thread_count = 0;
  // cpu: run exports' library calls (oneDNN matmuls and convolutions) where
  // libdnnl.so.2 is present (--cpu_library_calls=false turns them off).
  // Also cpu-sync's.
  bool cpu_library_calls = true;
};

Status RegisterBuiltinDrivers(DriverRegistry& registry, const BuiltinDriverOptions& options = {});

}  // namespace kiln::hal
