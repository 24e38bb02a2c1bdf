// CudnnSymbols: the cuDNN entry points kiln uses, resolved at run time from
// libcudnn.so.9.
//
// kiln never links cuDNN (DESIGN.md, principle 6): a binary built with the
// toolkit's headers starts on a machine without cuDNN, where convolution
// exports then run their generated kernels and the device says why. The
// headers (cudnn.h) are used at build time only, for types and prototypes;
// each member has exactly the type of the function the header declares.
//
// kiln uses the legacy descriptor API (cudnn_ops.h, cudnn_cnn.h): it is part
// of every cuDNN 9 release, and a forward convolution with a fused bias,
// addend and ReLU is all the compiler hands it.
#pragma once

#include <cudnn.h>

#include <string>
#include <string_view>

#include "base/ref.h"
#include "base/result.h"

namespace kiln::hal::cuda {

// X(name): every cuDNN function kiln calls, looked up by its own name
// (libcudnn.so.9 exports the whole API; it loads its sublibraries itself).
#define KILN_CUDNN_SYMBOLS(X)                    \
  X(cudnnGetVersion)                             \
  X(cudnnGetErrorString)                         \
  X(cudnnGetLastErrorString)                     \
  X(cudnnCreate)                                 \
  X(cudnnDestroy)                                \
  X(cudnnSetStream)                              \
  X(cudnnCreateTensorDescriptor)                 \
  X(cudnnSetTensor4dDescriptor)                  \
  X(cudnnDestroyTensorDescriptor)                \
  X(cudnnCreateFilterDescriptor)                 \
  X(cudnnSetFilter4dDescriptor)                  \
  X(cudnnDestroyFilterDescriptor)                \
  X(cudnnCreateConvolutionDescriptor)            \
  X(cudnnSetConvolution2dDescriptor)             \
  X(cudnnSetConvolutionGroupCount)               \
  X(cudnnSetConvolutionMathType)                 \
  X(cudnnGetConvolution2dForwardOutputDim)       \
  X(cudnnDestroyConvolutionDescriptor)           \
  X(cudnnCreateActivationDescriptor)             \
  X(cudnnSetActivationDescriptor)                \
  X(cudnnDestroyActivationDescriptor)            \
  X(cudnnGetConvolutionForwardAlgorithmMaxCount) \
  X(cudnnGetConvolutionForwardAlgorithm_v7)      \
  X(cudnnGetConvolutionForwardWorkspaceSize)     \
  X(cudnnConvolutionForward)                     \
  X(cudnnConvolutionBiasActivationForward)       \
  X(cudnnAddTensor)                              \
  X(cudnnActivationForward)

class CudnnSymbols : public RefObject {
 public:
  // Opens libcudnn.so.9 (or `library_path`) and resolves every symbol.
  // UNAVAILABLE names what is missing: the library (with dlerror's text) or
  // a symbol.
  static Result<Ref<CudnnSymbols>> Load(const char* library_path = "libcudnn.so.9");
  ~CudnnSymbols() override;

  // "cuDNN 9.19.0": the version of the library that was loaded (not of the
  // headers kiln was built with).
  std::string Describe() const;

  // OK for CUDNN_STATUS_SUCCESS; otherwise an error whose code follows the
  // status's category (INVALID_ARGUMENT for a bad parameter, UNIMPLEMENTED
  // for an unsupported configuration, RESOURCE_EXHAUSTED for a failed
  // allocation, INTERNAL otherwise) and whose message is
  // "<what>: CUDNN_STATUS_X (cuDNN's last error message)".
  Status Check(cudnnStatus_t status, std::string_view what) const;

#define KILN_CUDNN_DECLARE_MEMBER(name) decltype(&::name) name = nullptr;
  KILN_CUDNN_SYMBOLS(KILN_CUDNN_DECLARE_MEMBER)
#undef KILN_CUDNN_DECLARE_MEMBER

 private:
  CudnnSymbols() = default;
  void* library_ = nullptr;
};

}  // namespace kiln::hal::cuda
