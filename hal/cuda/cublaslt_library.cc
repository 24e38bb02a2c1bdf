#include "hal/cuda/cublaslt_library.h"

namespace kiln::hal::cuda {

Result<Ref<CublasLtLibrary>> CublasLtLibrary::Load(Ref<CudaContext> context,
                                                   const char* library_path) {
  KILN_ASSIGN_OR_RETURN(Ref<CublasLtSymbols> symbols, CublasLtSymbols::Load(library_path));
  Ref<CublasLtLibrary> library =
      Ref<CublasLtLibrary>::Adopt(new CublasLtLibrary(std::move(context), std::move(symbols)));
  const std::string where = "cuda://" + std::to_string(library->context_->ordinal());
  // The handle belongs to the device current when it is created (the CUDA
  // runtime inside cuBLASLt shares the primary context kiln retained).
  KILN_RETURN_IF_ERROR(library->context_->MakeCurrent());
  cublasStatus_t status = library->symbols_->cublasLtCreate(&library->handle_);
  if (status != CUBLAS_STATUS_SUCCESS) {
    library->handle_ = nullptr;
    Status error = library->symbols_->Check(status, where + ": cublasLtCreate");
    return UnavailableError(library->symbols_->Describe() + " is not usable: " + error.message());
  }
  return library;
}

CublasLtLibrary::~CublasLtLibrary() {
  if (!handle_) return;
  if (context_->MakeCurrent().ok()) symbols_->cublasLtDestroy(handle_);
}

}  // namespace kiln::hal::cuda
