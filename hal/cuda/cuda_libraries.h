// CudaLibraries: the libraries whose kernels one CUDA device may run instead
// of an export's own (library_call.h): cuBLASLt for matmuls, cuDNN for
// convolutions.
//
// Each library is loaded for the device at the first executable that has a
// call of its kind, not when the device is created: cuDNN's handle costs
// time and device memory that a program without convolutions should not
// pay. A library that does not load (not installed, wrong version, no
// handle for this GPU) is never an error: its Result is kept, the exports
// run their kernels, and --list_devices shows the reason (Probe).
// `--cuda_library_calls=false` (CudaDeviceOptions::library_calls) turns
// every call off, so the exports run their kernels, for comparison.
#pragma once

#include <mutex>
#include <optional>
#include <string>

#include "base/ref.h"
#include "base/result.h"
#include "hal/cuda/cublaslt_library.h"
#include "hal/cuda/cuda_context.h"
#include "hal/cuda/cudnn_library.h"

namespace kiln::hal::cuda {

class CudaLibraries {
 public:
  CudaLibraries(Ref<CudaContext> context, bool enabled)
      : context_(std::move(context)), enabled_(enabled) {}

  // Whether library calls are on for this device.
  bool enabled() const { return enabled_; }

  // The device's cuBLASLt and cuDNN, loaded on first use (thread-safe);
  // the reason they are unusable otherwise. Call only when enabled().
  const Result<Ref<CublasLtLibrary>>& cublaslt() const;
  const Result<Ref<CudnnLibrary>>& cudnn() const;

  // What --list_devices says of a CUDA device's libraries without creating
  // the device: "libraries: cublasLt 13.1.0, cuDNN 9.14.0", with
  // "cuDNN: not found (<the loader's error>)" for one that does not load,
  // or that library calls are disabled. It opens the libraries
  // (no handle is created), which stay loaded.
  static std::string Probe(bool enabled);

 private:
  Ref<CudaContext> context_;
  bool enabled_;
  mutable std::once_flag cublaslt_once_, cudnn_once_;
  mutable std::optional<Result<Ref<CublasLtLibrary>>> cublaslt_;
  mutable std::optional<Result<Ref<CudnnLibrary>>> cudnn_;
};

}  // namespace kiln::hal::cuda
