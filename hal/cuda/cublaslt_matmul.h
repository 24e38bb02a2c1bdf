// cuBLASLt matmuls as library calls (library_call.h): libcublasLt.so.13
// opened at run time, one handle per device, and a LibraryCall per export
// whose `library_call.matmul` (schemas/executable_cuda.fbs) it validates.
#pragma once

#include <memory>
#include <string_view>

#include "base/ref.h"
#include "base/result.h"
#include "hal/cuda/cublaslt_library.h"
#include "hal/cuda/cuda_context.h"
#include "hal/cuda/library_call.h"
#include "hal/executable.h"
#include "schemas/library_call_generated.h"

namespace kiln::hal::cuda {

// Opens libcublasLt.so.13 (or `library_path`) and creates a handle for
// `context`'s device. UNAVAILABLE names what is missing.
Result<Ref<CublasLtLibrary>> LoadCublasLt(Ref<CudaContext> context,
                                          const char* library_path = "libcublasLt.so.13");

// The call an export describes, checked against its layout (binding
// indices, sizes that overflow); `where` prefixes errors.
Result<std::unique_ptr<LibraryCall>> CreateCublasLtMatmul(Ref<CublasLtLibrary> library,
                                                          const schema::library::MatmulCall& call,
                                                          const ExecutableExport& info,
                                                          std::string_view where);

}  // namespace kiln::hal::cuda
