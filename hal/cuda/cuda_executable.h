// CudaExecutable: a "cuda-nvptx-fb" executable (schemas/executable_cuda.fbs)
// loaded on one CUDA device: one CUfunction per export.
//
// The FlatBuffer carries one PTX image per target architecture. Loading picks
// the best image for the device: the highest sm_XY not above the device's
// compute capability (an arch-specific "sm_90a" image only on exactly sm_90).
// PTX is JIT-compiled by the driver (cuModuleLoadDataEx); a PTX that does not
// load reports the JIT's error log. Modules are cached per device by their
// PTX text (CudaModuleCache), so loading the same executable twice JITs
// once; the cache keeps them until the device goes away.
//
// Each export's block size is its workgroup size; a block larger than the
// kernel allows (the device limit, or fewer for a kernel using many
// registers) and dynamic shared memory beyond the device's opt-in limit are
// load errors, not launch failures.
//
// An export may also carry a library call (library_call.h): a cuBLASLt
// matmul or a cuDNN convolution that computes what its kernel does. Loading
// validates every call against its export's layout, whether or not the
// library is present (a malformed call is a load error, never a crash
// later), and makes it a LibraryCall where the device's library is loaded
// and calls are enabled (CudaLibraries); elsewhere the export runs its
// kernel, which is always loaded too.
#pragma once

#include <cuda.h>

#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "hal/cuda/cuda_context.h"
#include "hal/cuda/cuda_libraries.h"
#include "hal/cuda/library_call.h"
#include "hal/executable.h"

namespace kiln::hal::cuda {

// A loaded CUmodule; unloaded when the last reference goes.
class CudaModule : public RefObject {
 public:
  CudaModule(Ref<CudaContext> context, CUmodule module)
      : context_(std::move(context)), module_(module) {}
  ~CudaModule() override;
  CUmodule module() const { return module_; }

 private:
  Ref<CudaContext> context_;
  CUmodule module_;
};

// PTX text → loaded module, per device. Thread-safe.
class CudaModuleCache {
 public:
  explicit CudaModuleCache(Ref<CudaContext> context) : context_(std::move(context)) {}
  // The module of `ptx`, JIT-compiling it on first use. `where` prefixes
  // errors ("executable image sm_80").
  Result<Ref<CudaModule>> Load(const std::string& ptx, const std::string& where);
  size_t size() const;

 private:
  Ref<CudaContext> context_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Ref<CudaModule>> modules_;  // Guarded by mutex_.
};

struct CudaKernel {
  CUfunction function = nullptr;
  uint32_t shared_memory_bytes = 0;
};

class CudaExecutable final : public Executable {
 public:
  static Result<Ref<CudaExecutable>> Load(Ref<CudaContext> context, CudaModuleCache& cache,
                                          const CudaLibraries& libraries,
                                          std::span<const uint8_t> bytes);

  const CudaKernel& kernel(uint32_t ordinal) const { return kernels_[ordinal]; }
  // The library call export `ordinal` runs instead of its kernel; null when
  // it has none, or its library is missing or disabled.
  const LibraryCall* library_call(uint32_t ordinal) const { return library_calls_[ordinal].get(); }
  const CudaContext& context() const { return *context_; }
  // The target_arch of the image that was loaded ("sm_80").
  const std::string& target_arch() const { return target_arch_; }

 private:
  CudaExecutable(std::vector<ExecutableExport> exports, Ref<CudaContext> context)
      : Executable("cuda-nvptx-fb", std::move(exports)), context_(std::move(context)) {}

  Ref<CudaContext> context_;
  Ref<CudaModule> module_;
  std::vector<CudaKernel> kernels_;
  std::vector<std::unique_ptr<LibraryCall>> library_calls_;  // Per export.
  std::string target_arch_;
};

// The compute capability an arch name targets (sm_80 → 80, sm_90a → 90) and
// whether it is arch-specific (a/f suffix); nullopt when it is not "sm_N...".
struct TargetArch {
  int capability = 0;
  bool arch_specific = false;
};
std::optional<TargetArch> ParseTargetArch(std::string_view arch);

// The index of the image to load for a device of `capability` among
// `archs`, or an error listing them.
Result<size_t> SelectImage(std::span<const std::string> archs, int capability);

}  // namespace kiln::hal::cuda
