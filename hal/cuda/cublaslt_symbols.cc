#include "hal/cuda/cublaslt_symbols.h"

#include <dlfcn.h>

#include <utility>

namespace kiln::hal::cuda {

Result<Ref<CublasLtSymbols>> CublasLtSymbols::Load(const char* library_path) {
  Ref<CublasLtSymbols> symbols = Ref<CublasLtSymbols>::Adopt(new CublasLtSymbols());
  void* library = dlopen(library_path, RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char* error = dlerror();
    return UnavailableError(std::string("the cuBLASLt library ") + library_path +
                            " could not be opened (" + (error ? error : "unknown error") +
                            "); is cuBLAS " + std::to_string(CUBLAS_VER_MAJOR) +
                            " installed (libcublaslt" + std::to_string(CUBLAS_VER_MAJOR) + ")?");
  }
  for (auto [name, slot] : {
#define KILN_CUBLASLT_SLOT(name) \
  std::pair<const char*, void**>{#name, reinterpret_cast<void**>(&symbols->name)},
           KILN_CUBLASLT_SYMBOLS(KILN_CUBLASLT_SLOT)
#undef KILN_CUBLASLT_SLOT
       }) {
    dlerror();
    *slot = dlsym(library, name);
    if (*slot == nullptr) {
      const char* error = dlerror();
      std::string message = std::string(library_path) + " does not provide " + name + " (" +
                            (error ? error : "null symbol") + ")";
      dlclose(library);
      return UnavailableError(std::move(message));
    }
  }
  // cuBLAS encodes its version as major * 10000 + minor * 100 + patch.
  const size_t major = symbols->cublasLtGetVersion() / 10000;
  if (major != CUBLAS_VER_MAJOR) {
    std::string message = std::string(library_path) + " is " + symbols->Describe() +
                          ", kiln was built for cuBLASLt " + std::to_string(CUBLAS_VER_MAJOR);
    dlclose(library);
    return UnavailableError(std::move(message));
  }
  symbols->library_ = library;
  return symbols;
}

CublasLtSymbols::~CublasLtSymbols() {
  // The library stays loaded, like libcuda: cuBLASLt keeps CUDA runtime
  // state of its own that is not meant to be unloaded while the process runs.
}

std::string CublasLtSymbols::Describe() const {
  const size_t version = cublasLtGetVersion();
  return "cublasLt " + std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) +
         "." + std::to_string(version % 100);
}

Status CublasLtSymbols::Check(cublasStatus_t status, std::string_view what) const {
  if (status == CUBLAS_STATUS_SUCCESS) return OkStatus();
  std::string message = std::string(what) + ": ";
  const char* name = cublasLtGetStatusName(status);
  const char* text = cublasLtGetStatusString(status);
  message += name ? name : "cublasStatus_t " + std::to_string(static_cast<int>(status));
  if (text) message += std::string(" (") + text + ")";
  switch (status) {
    case CUBLAS_STATUS_INVALID_VALUE:
      return InvalidArgumentError(std::move(message));
    case CUBLAS_STATUS_NOT_SUPPORTED:
    case CUBLAS_STATUS_ARCH_MISMATCH:
      return UnimplementedError(std::move(message));
    case CUBLAS_STATUS_ALLOC_FAILED:
      return ResourceExhaustedError(std::move(message));
    case CUBLAS_STATUS_NOT_INITIALIZED:
      return UnavailableError(std::move(message));
    default:
      return InternalError(std::move(message));
  }
}

}  // namespace kiln::hal::cuda
