#include "hal/cuda/cuda_libraries.h"

#include "hal/cuda/cublaslt_matmul.h"
#include "hal/cuda/cudnn_convolution.h"

namespace kiln::hal::cuda {

const Result<Ref<CublasLtLibrary>>& CudaLibraries::cublaslt() const {
  std::call_once(cublaslt_once_, [&] { cublaslt_.emplace(LoadCublasLt(context_)); });
  return *cublaslt_;
}

const Result<Ref<CudnnLibrary>>& CudaLibraries::cudnn() const {
  std::call_once(cudnn_once_, [&] { cudnn_.emplace(LoadCudnn(context_)); });
  return *cudnn_;
}

std::string CudaLibraries::Probe(bool enabled) {
  if (!enabled) return "library calls disabled (--cuda_library_calls=false)";
  std::string out = "libraries: ";
  Result<Ref<CublasLtSymbols>> cublaslt = CublasLtSymbols::Load();
  out += cublaslt.ok() ? (*cublaslt)->Describe()
                       : "cublasLt: not found (" + cublaslt.status().message() + ")";
  Result<Ref<CudnnSymbols>> cudnn = CudnnSymbols::Load();
  out += ", ";
  out += cudnn.ok() ? (*cudnn)->Describe() : "cuDNN: not found (" + cudnn.status().message() + ")";
  return out;
}

}  // namespace kiln::hal::cuda
