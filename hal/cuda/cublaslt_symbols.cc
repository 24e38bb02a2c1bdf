#include "hal/cuda/cublaslt_symbols.h"

#include "base/shared_library.h"

namespace kiln::hal::cuda {

Result<Ref<CublasLtSymbols>> CublasLtSymbols::Load(const char* library_path) {
  Ref<CublasLtSymbols> symbols = Ref<CublasLtSymbols>::Adopt(new CublasLtSymbols());
  KILN_ASSIGN_OR_RETURN(
      void* library,
      OpenSharedLibrary(library_path, "the cuBLASLt library",
                        "is cuBLAS " + std::to_string(CUBLAS_VER_MAJOR) +
                            " installed (libcublaslt" + std::to_string(CUBLAS_VER_MAJOR) + ")?"));
  const SharedLibrarySymbol table[] = {
#define KILN_CUBLASLT_SLOT(name) {#name, reinterpret_cast<void**>(&symbols->name)},
      KILN_CUBLASLT_SYMBOLS(KILN_CUBLASLT_SLOT)
#undef KILN_CUBLASLT_SLOT
  };
  KILN_RETURN_IF_ERROR(ResolveSharedLibrarySymbols(library, library_path, table));
  // cuBLAS encodes its version as major * 10000 + minor * 100 + patch.
  const size_t major = symbols->cublasLtGetVersion() / 10000;
  if (major != CUBLAS_VER_MAJOR) {
    std::string message = std::string(library_path) + " is " + symbols->Describe() +
                          ", kiln was built for cuBLASLt " + std::to_string(CUBLAS_VER_MAJOR);
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
