// cuDNN convolutions as library calls (library_call.h): libcudnn.so.9
// opened at run time, one handle per device, and a LibraryCall per export
// whose `library_call.convolution` (schemas/executable_cuda.fbs) it validates.
#pragma once

#include <memory>
#include <string_view>

#include "base/ref.h"
#include "base/result.h"
#include "hal/cuda/cuda_context.h"
#include "hal/cuda/cudnn_library.h"
#include "hal/cuda/library_call.h"
#include "hal/executable.h"
#include "schemas/library_call_generated.h"

namespace kiln::hal::cuda {

// Opens libcudnn.so.9 (or `library_path`) and creates a handle for
// `context`'s device. UNAVAILABLE names what is missing.
// CudnnLibrary::Describe() gives the loaded version ("cuDNN 9.19.0").
Result<Ref<CudnnLibrary>> LoadCudnn(Ref<CudaContext> context,
                                    const char* library_path = "libcudnn.so.9");

// The call an export describes, checked against its layout (binding
// indices, sizes that overflow); `where` prefixes errors.
//
// INVALID_ARGUMENT: the call is malformed, or asks for what cuDNN's
// convolution does not compute (a GeluTanh epilogue, a tensor past cuDNN's
// 2^31-element limit), which the export's generated kernel still does.
// Other codes: the device or library failed (creating descriptors,
// allocating the zero bias the fused epilogue needs when the call has none).
Result<std::unique_ptr<LibraryCall>> CreateCudnnConvolution(
    Ref<CudnnLibrary> library, const schema::library::ConvolutionCall& call,
    const ExecutableExport& info, std::string_view where);

}  // namespace kiln::hal::cuda
