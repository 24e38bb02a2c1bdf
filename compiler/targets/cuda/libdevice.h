// NVIDIA's libdevice: the CUDA math library (`__nv_sinf`, `__nv_powf`, ...)
// as LLVM bitcode, which generated CUDA kernels call for their math.
//
// The bitcode (the toolkit's nvvm/libdevice/libdevice.10.bc) is embedded into
// the compiler at build time (compiler/targets/cuda/CMakeLists.txt): the CUDA
// toolkit is a build-time dependency, never a run-time one, and PTX cannot
// call anything the driver does not define, so the functions a kernel uses
// are linked into its LLVM module before optimization and compiled into the
// PTX like the kernel's own code.
//
//   if (HaveLibdevice()) ... lower math.sin to llvm.call @__nv_sinf ...
//   KILN_RETURN_IF_ERROR(LinkLibdevice(module, /*sm_version=*/75));
#pragma once

#include <string_view>

#include "base/status.h"
#include "llvm/IR/Module.h"

namespace kiln::compiler::cuda {

// The embedded libdevice.10.bc, or an empty view where the build found none
// (defined in the source that embed_libdevice.cmake generates).
std::string_view EmbeddedLibdevice();

inline bool HaveLibdevice() { return !EmbeddedLibdevice().empty(); }

// Links the libdevice functions that `module` declares and calls (`__nv_*`)
// into it, only those (and what they call), with internal linkage, so that
// O3 inlines them and drops the rest. Then resolves libdevice's
// `__nvvm_reflect` queries as CUDA compiles them by default for the
// architecture `sm_version` (75 for sm_75): __CUDA_ARCH = 10 * sm_version,
// __CUDA_FTZ = 0 (denormals kept, as kiln's kernels are compiled) and
// __CUDA_PREC_SQRT = 1 (sqrt correctly rounded), leaving no call to it.
// A module that calls no `__nv_` function is left as it is. An error when
// the module needs libdevice and the build embedded none, or the bitcode
// does not load or link.
Status LinkLibdevice(llvm::Module& module, int sm_version);

}  // namespace kiln::compiler::cuda
