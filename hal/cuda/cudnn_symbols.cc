#include "hal/cuda/cudnn_symbols.h"

#include "base/shared_library.h"

namespace kiln::hal::cuda {

Result<Ref<CudnnSymbols>> CudnnSymbols::Load(const char* library_path) {
  Ref<CudnnSymbols> symbols = Ref<CudnnSymbols>::Adopt(new CudnnSymbols());
  KILN_ASSIGN_OR_RETURN(void* library, OpenSharedLibrary(library_path, "the cuDNN library",
                                                         "is cuDNN 9 installed (libcudnn9)?"));
  const SharedLibrarySymbol table[] = {
#define KILN_CUDNN_SLOT(name) {#name, reinterpret_cast<void**>(&symbols->name)},
      KILN_CUDNN_SYMBOLS(KILN_CUDNN_SLOT)
#undef KILN_CUDNN_SLOT
  };
  KILN_RETURN_IF_ERROR(ResolveSharedLibrarySymbols(
      library, library_path, table, ": kiln needs cuDNN 9 with its legacy convolution API"));
  symbols->library_ = library;
  return symbols;
}

CudnnSymbols::~CudnnSymbols() {
  // The library stays loaded, like libcuda: cuDNN loads sublibraries and
  // keeps CUDA runtime state of its own that is not meant to be unloaded
  // while the process runs.
}

std::string CudnnSymbols::Describe() const {
  // cuDNN 9 encodes its version as major * 10000 + minor * 100 + patch.
  const size_t version = cudnnGetVersion();
  return "cuDNN " + std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) +
         "." + std::to_string(version % 100);
}

Status CudnnSymbols::Check(cudnnStatus_t status, std::string_view what) const {
  if (status == CUDNN_STATUS_SUCCESS) return OkStatus();
  std::string message = std::string(what) + ": ";
  const char* name = cudnnGetErrorString(status);
  message += name ? name : "cudnnStatus_t " + std::to_string(static_cast<int>(status));
  // cuDNN 9 keeps a per-thread explanation of the latest failure (which
  // parameter was wrong, which configuration is unsupported).
  char detail[512] = {};
  cudnnGetLastErrorString(detail, sizeof(detail));
  if (detail[0] != '\0') message += std::string(" (") + detail + ")";
  // cuDNN 9 groups its statuses by thousands: 1xxx uncategorized, 2xxx bad
  // parameters, 3xxx unsupported, 4xxx internal, 5xxx execution failures.
  if (status == CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED ||
      status == CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED) {
    return ResourceExhaustedError(std::move(message));
  }
  switch (static_cast<int>(status) / 1000) {
    case 1:
      return UnavailableError(std::move(message));
    case 2:
      return InvalidArgumentError(std::move(message));
    case 3:
      return UnimplementedError(std::move(message));
    default:
      return InternalError(std::move(message));
  }
}

}  // namespace kiln::hal::cuda
