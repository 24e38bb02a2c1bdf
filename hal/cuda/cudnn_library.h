// CudnnLibrary: cuDNN on one CUDA device: the library's entry points
// (CudnnSymbols) and one cudnnHandle_t created for the device's context.
//
// Every call that uses the handle holds the library's lock: a cuDNN handle
// must not be used by two threads at once, and a command buffer may plan
// (record) or capture its convolutions on another thread than the one the
// queue issues on. The handle's stream is set under the same lock right
// before each enqueue (cudnnSetStream), since every caller brings its own
// stream (the queue's, or a capturing one).
#pragma once

#include <cudnn.h>

#include <mutex>
#include <string>

#include "base/ref.h"
#include "base/result.h"
#include "hal/cuda/cuda_context.h"
#include "hal/cuda/cudnn_symbols.h"

namespace kiln::hal::cuda {

class CudnnLibrary : public RefObject {
 public:
  // Opens libcudnn.so.9 (or `library_path`) and creates the handle with
  // `context` current. UNAVAILABLE names what is missing (the library, a
  // symbol, or cudnnCreate's error: no usable device for this cuDNN).
  static Result<Ref<CudnnLibrary>> Load(Ref<CudaContext> context, const char* library_path);
  ~CudnnLibrary() override;

  // "cuDNN 9.19.0": the loaded library's version (--list_devices, traces).
  std::string Describe() const { return symbols_->Describe(); }

  const CudnnSymbols& symbols() const { return *symbols_; }
  const CudaContext& context() const { return *context_; }

  // The handle; use it only while holding Lock().
  cudnnHandle_t handle() const { return handle_; }
  [[nodiscard]] std::unique_lock<std::mutex> Lock() const {
    return std::unique_lock<std::mutex>(mutex_);
  }

 private:
  CudnnLibrary(Ref<CudaContext> context, Ref<CudnnSymbols> symbols)
      : context_(std::move(context)), symbols_(std::move(symbols)) {}

  Ref<CudaContext> context_;
  Ref<CudnnSymbols> symbols_;
  cudnnHandle_t handle_ = nullptr;
  mutable std::mutex mutex_;
};

}  // namespace kiln::hal::cuda
