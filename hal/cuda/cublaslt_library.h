// CublasLtLibrary: cuBLASLt on one CUDA device: the library's entry points
// (CublasLtSymbols) and one cublasLtHandle_t created with the device's
// context current.
//
// Every call that uses the handle holds the library's lock. cuBLASLt
// documents its handle as usable from several threads, but a command buffer
// plans (records) or captures its matmuls on another thread than the one the
// queue issues on, and the lock costs nothing next to a matmul: it keeps
// kiln from depending on the library's thread-safety rules.
#pragma once

#include <cublasLt.h>

#include <mutex>
#include <string>

#include "base/ref.h"
#include "base/result.h"
#include "hal/cuda/cublaslt_symbols.h"
#include "hal/cuda/cuda_context.h"

namespace kiln::hal::cuda {

class CublasLtLibrary : public RefObject {
 public:
  // Opens libcublasLt.so.13 (or `library_path`) and creates the handle with
  // `context` current. UNAVAILABLE names what is missing (the library, a
  // symbol, or cublasLtCreate's error).
  static Result<Ref<CublasLtLibrary>> Load(Ref<CudaContext> context, const char* library_path);
  ~CublasLtLibrary() override;

  // "cublasLt 13.1.0": the loaded library's version (--list_devices).
  std::string Describe() const { return symbols_->Describe(); }

  const CublasLtSymbols& symbols() const { return *symbols_; }
  const CudaContext& context() const { return *context_; }

  // The handle; use it only while holding Lock().
  cublasLtHandle_t handle() const { return handle_; }
  [[nodiscard]] std::unique_lock<std::mutex> Lock() const {
    return std::unique_lock<std::mutex>(mutex_);
  }

 private:
  CublasLtLibrary(Ref<CudaContext> context, Ref<CublasLtSymbols> symbols)
      : context_(std::move(context)), symbols_(std::move(symbols)) {}

  Ref<CudaContext> context_;
  Ref<CublasLtSymbols> symbols_;
  cublasLtHandle_t handle_ = nullptr;
  mutable std::mutex mutex_;
};

}  // namespace kiln::hal::cuda
