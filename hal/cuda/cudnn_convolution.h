// cuDNN convolutions as library calls (library_call.h): libcudnn.so.9
// opened at run time, one handle per device, and a LibraryCall per export
// whose `library_call.convolution` (schemas/executable_cuda.fbs) it validates.
#pragma once

#include <memory>
#include <string_view>

#include "base/ref.h"
#include "base/result.h"
#include "hal/cuda/cuda_context.h"
#include "hal/cuda/library_call.h"
#include "hal/executable.h"
#include "schemas/executable_cuda_generated.h"

namespace kiln::hal::cuda {

class CudnnLibrary;

// Opens libcudnn.so.9 (or `library_path`) and creates a handle for
// `context`'s device. UNAVAILABLE names what is missing.
Result<Ref<CudnnLibrary>> LoadCudnn(Ref<CudaContext> context,
                                    const char* library_path = "libcudnn.so.9");

// The call an export describes, checked against its layout (binding
// indices, sizes that overflow); `where` prefixes errors.
Result<std::unique_ptr<LibraryCall>> CreateCudnnConvolution(
    Ref<CudnnLibrary> library, const schema::cuda::ConvolutionCall& call,
    const ExecutableExport& info, std::string_view where);

}  // namespace kiln::hal::cuda
