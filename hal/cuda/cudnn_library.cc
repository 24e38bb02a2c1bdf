#include "hal/cuda/cudnn_library.h"

namespace kiln::hal::cuda {

Result<Ref<CudnnLibrary>> CudnnLibrary::Load(Ref<CudaContext> context, const char* library_path) {
  KILN_ASSIGN_OR_RETURN(Ref<CudnnSymbols> symbols, CudnnSymbols::Load(library_path));
  Ref<CudnnLibrary> library =
      Ref<CudnnLibrary>::Adopt(new CudnnLibrary(std::move(context), std::move(symbols)));
  const std::string where = "cuda://" + std::to_string(library->context_->ordinal());
  // cudnnCreate binds the handle to the current device (through the CUDA
  // runtime, which shares the primary context kiln retained).
  KILN_RETURN_IF_ERROR(library->context_->MakeCurrent());
  cudnnStatus_t status = library->symbols_->cudnnCreate(&library->handle_);
  if (status != CUDNN_STATUS_SUCCESS) {
    library->handle_ = nullptr;
    Status error = library->symbols_->Check(status, where + ": cudnnCreate");
    return UnavailableError(library->symbols_->Describe() + " is not usable: " + error.message());
  }
  return library;
}

CudnnLibrary::~CudnnLibrary() {
  if (!handle_) return;
  // cudnnDestroy releases the handle's device memory: the context must be
  // current, and no other thread may hold the handle (none can: the last
  // reference is going).
  if (context_->MakeCurrent().ok()) symbols_->cudnnDestroy(handle_);
}

}  // namespace kiln::hal::cuda
