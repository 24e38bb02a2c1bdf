// A matmul library call (library_call_spec.h, MatmulSpec) as a oneDNN
// matmul primitive (onednn_call.h).
//
// D = activation(A·B + bias + C) maps onto oneDNN's matmul directly, in
// row-major order: src is A ([batch,] m, k; transpose_a by its strides),
// weights B ([batch,] k, n; transpose_b likewise), dst D; the bias is a
// [1, n] bias; then the post-ops in the spec's order: C (a binary add of
// C's own binding, or a sum where C is D updated in place), then the
// activation (eltwise relu or gelu_tanh). An operand with batch stride 0 is
// one matrix broadcast over the batch (batch dimension 1). A strided operand
// (library_call.fbs: ld, offset) is a memory descriptor with its ld as the
// row (or, transposed, column) stride, read at its offset into the binding.
#pragma once

#include <memory>

#include "base/ref.h"
#include "base/result.h"
#include "hal/cpu/library_call.h"
#include "hal/cpu/onednn_library.h"
#include "hal/utils/library_call_spec.h"

namespace kiln::hal::cpu {

// UNIMPLEMENTED for element types other than f32, and where oneDNN has no
// implementation for the shapes; the export then runs its kernel.
Result<std::unique_ptr<CpuLibraryCall>> CreateOnednnMatmul(Ref<OnednnLibrary> library,
                                                           const utils::MatmulSpec& spec);

}  // namespace kiln::hal::cpu
