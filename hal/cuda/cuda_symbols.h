// CudaSymbols: the CUDA driver API entry points kiln uses, resolved at run
// time from libcuda.so.1.
//
// kiln never links libcuda (DESIGN.md, principle 6): its binaries must start
// on machines without an NVIDIA driver, where the CUDA driver then reports
// itself unavailable with the reason. The toolkit's cuda.h is used at build
// time only, for types and prototypes. Entry points are resolved with
// cuGetProcAddress for the API version of the headers (CUDA_VERSION), which
// returns the variant the headers' macros name (cuMemAlloc is cuMemAlloc_v2),
// so each member has exactly the type of the function the header declares.
#pragma once

#include <cuda.h>

#include <string>

#include "base/ref.h"
#include "base/result.h"

namespace kiln::hal::cuda {

// X(name): every driver function kiln calls. The member for `name` is
// declared through the headers' macro (cuMemAlloc → cuMemAlloc_v2), and
// looked up by the unversioned name.
#define KILN_CUDA_SYMBOLS(X)            \
  X(cuInit)                             \
  X(cuGetErrorName)                     \
  X(cuGetErrorString)                   \
  X(cuDeviceGetCount)                   \
  X(cuDeviceGet)                        \
  X(cuDeviceGetName)                    \
  X(cuDeviceGetAttribute)               \
  X(cuDevicePrimaryCtxRetain)           \
  X(cuDevicePrimaryCtxRelease)          \
  X(cuCtxSetCurrent)                    \
  X(cuCtxGetCurrent)                    \
  X(cuMemAlloc)                         \
  X(cuMemAllocManaged)                  \
  X(cuMemFree)                          \
  X(cuMemHostAlloc)                     \
  X(cuMemFreeHost)                      \
  X(cuMemHostGetDevicePointer)          \
  X(cuPointerGetAttribute)              \
  X(cuMemcpyHtoD)                       \
  X(cuMemcpyDtoH)                       \
  X(cuMemcpyAsync)                      \
  X(cuMemsetD8Async)                    \
  X(cuMemsetD16Async)                   \
  X(cuMemsetD32Async)                   \
  X(cuMemAllocAsync)                    \
  X(cuMemFreeAsync)                     \
  X(cuDeviceGetDefaultMemPool)          \
  X(cuMemPoolSetAttribute)              \
  X(cuModuleLoadDataEx)                 \
  X(cuModuleUnload)                     \
  X(cuModuleGetFunction)                \
  X(cuFuncGetAttribute)                 \
  X(cuFuncSetAttribute)                 \
  X(cuLaunchKernel)                     \
  X(cuStreamCreate)                     \
  X(cuStreamDestroy)                    \
  X(cuStreamSynchronize)                \
  X(cuStreamWaitEvent)                  \
  X(cuEventCreate)                      \
  X(cuEventDestroy)                     \
  X(cuEventRecord)                      \
  X(cuEventQuery)                       \
  X(cuEventSynchronize)                 \
  X(cuEventElapsedTime)                 \
  X(cuGraphCreate)                      \
  X(cuGraphDestroy)                     \
  X(cuGraphAddKernelNode)               \
  X(cuGraphAddMemsetNode)               \
  X(cuGraphAddMemcpyNode)               \
  X(cuGraphAddEmptyNode)                \
  X(cuGraphInstantiateWithFlags)        \
  X(cuGraphExecDestroy)                 \
  X(cuGraphLaunch)                      \
  X(cuGraphUpload)                      \
  X(cuGraphExecKernelNodeSetParams)     \
  X(cuGraphExecMemcpyNodeSetParams)     \
  X(cuGraphExecMemsetNodeSetParams)     \
  X(cuGraphAddChildGraphNode)           \
  X(cuGraphExecChildGraphNodeSetParams) \
  X(cuGraphAddEventRecordNode)          \
  X(cuGraphExecEventRecordNodeSetEvent) \
  X(cuStreamBeginCapture)               \
  X(cuStreamEndCapture)

class CudaSymbols : public RefObject {
 public:
  // Opens libcuda.so.1 (or `library_path`), resolves every symbol and calls
  // cuInit. Fails with UNAVAILABLE naming what is missing: the library (no
  // NVIDIA driver), a symbol (a driver older than the toolkit), or cuInit's
  // error (no device, driver/kernel module mismatch).
  static Result<Ref<CudaSymbols>> Load(const char* library_path = "libcuda.so.1");
  ~CudaSymbols() override;

  // "CUDA_ERROR_OUT_OF_MEMORY (out of memory)".
  std::string DescribeError(CUresult result) const;
  // OK for CUDA_SUCCESS; otherwise an error whose code follows the result
  // (RESOURCE_EXHAUSTED for out-of-memory, ...) and whose message is
  // "<what>: CUDA_ERROR_X (description)".
  Status Check(CUresult result, std::string_view what) const;

#define KILN_CUDA_DECLARE_MEMBER(name) decltype(&::name) name = nullptr;
  KILN_CUDA_SYMBOLS(KILN_CUDA_DECLARE_MEMBER)
#undef KILN_CUDA_DECLARE_MEMBER

 private:
  CudaSymbols() = default;
  void* library_ = nullptr;
};

// Whether `result` leaves the context unusable (a kernel fault and the like):
// every later call fails too, so the device reports itself lost.
bool IsStickyError(CUresult result);

}  // namespace kiln::hal::cuda
