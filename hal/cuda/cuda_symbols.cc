#include "hal/cuda/cuda_symbols.h"

#include <dlfcn.h>

#include "base/shared_library.h"

namespace kiln::hal::cuda {

namespace {

// cuGetProcAddress as declared for CUDA 12+ (the header's macro maps the
// name to cuGetProcAddress_v2), resolved with dlsym: it resolves the rest.
using GetProcAddressFn = decltype(&::cuGetProcAddress);

}  // namespace

Result<Ref<CudaSymbols>> CudaSymbols::Load(const char* library_path) {
  Ref<CudaSymbols> symbols = Ref<CudaSymbols>::Adopt(new CudaSymbols());
  KILN_ASSIGN_OR_RETURN(symbols->library_,
                        OpenSharedLibrary(library_path, "the NVIDIA driver library",
                                          "is the NVIDIA driver installed?"));
  auto get_proc =
      reinterpret_cast<GetProcAddressFn>(dlsym(symbols->library_, "cuGetProcAddress_v2"));
  if (!get_proc) {
    return UnavailableError(std::string(library_path) +
                            " has no cuGetProcAddress_v2: the NVIDIA driver is older than CUDA "
                            "12, kiln needs a driver for CUDA " +
                            std::to_string(CUDA_VERSION / 1000) + "." +
                            std::to_string(CUDA_VERSION % 1000 / 10));
  }
  auto resolve = [&](const char* name, void** slot) -> Status {
    CUdriverProcAddressQueryResult found = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    CUresult result = get_proc(name, slot, CUDA_VERSION, CU_GET_PROC_ADDRESS_DEFAULT, &found);
    if (result != CUDA_SUCCESS || found != CU_GET_PROC_ADDRESS_SUCCESS || *slot == nullptr) {
      const bool too_old = found == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT;
      return UnavailableError(std::string("the NVIDIA driver does not provide ") + name +
                              (too_old ? " for CUDA " + std::to_string(CUDA_VERSION) +
                                             " (the driver is older than the toolkit kiln "
                                             "was built with)"
                                       : ""));
    }
    return OkStatus();
  };
#define KILN_CUDA_RESOLVE(name) \
  KILN_RETURN_IF_ERROR(resolve(#name, reinterpret_cast<void**>(&symbols->name)));
  KILN_CUDA_SYMBOLS(KILN_CUDA_RESOLVE)
#undef KILN_CUDA_RESOLVE
  CUresult init = symbols->cuInit(0);
  if (init != CUDA_SUCCESS) {
    return UnavailableError("cuInit failed: " + symbols->DescribeError(init));
  }
  return symbols;
}

CudaSymbols::~CudaSymbols() {
  // The library stays loaded: the driver keeps threads and handlers of its
  // own, and unloading it while they exist is not supported.
}

std::string CudaSymbols::DescribeError(CUresult result) const {
  const char* name = nullptr;
  const char* text = nullptr;
  if (cuGetErrorName == nullptr || cuGetErrorName(result, &name) != CUDA_SUCCESS) name = nullptr;
  if (cuGetErrorString == nullptr || cuGetErrorString(result, &text) != CUDA_SUCCESS) {
    text = nullptr;
  }
  std::string out = name ? name : "CUresult " + std::to_string(static_cast<int>(result));
  if (text) out += std::string(" (") + text + ")";
  return out;
}

Status CudaSymbols::Check(CUresult result, std::string_view what) const {
  if (result == CUDA_SUCCESS) return OkStatus();
  std::string message = std::string(what) + ": " + DescribeError(result);
  switch (result) {
    case CUDA_ERROR_OUT_OF_MEMORY:
      return ResourceExhaustedError(std::move(message));
    case CUDA_ERROR_INVALID_VALUE:
    case CUDA_ERROR_INVALID_PTX:
    case CUDA_ERROR_INVALID_IMAGE:
    case CUDA_ERROR_NOT_FOUND:
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
      return InvalidArgumentError(std::move(message));
    case CUDA_ERROR_NOT_READY:
    case CUDA_ERROR_NO_DEVICE:
      return UnavailableError(std::move(message));
    default:
      return InternalError(std::move(message));
  }
}

bool IsStickyError(CUresult result) {
  switch (result) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_CONTEXT_IS_DESTROYED:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_DEVICE_UNAVAILABLE:
    case CUDA_ERROR_SYSTEM_NOT_READY:
      return true;
    default:
      return false;
  }
}

}  // namespace kiln::hal::cuda
