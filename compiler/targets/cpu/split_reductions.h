// Long reductions on the CPU in IREE's summation order.
//
//   --kiln-cpu-split-reductions   strided reductions -> 128 partials + a tree
//
// Runs on contract kernels (bufferized, tiled into workgroups) before the
// lowering to LLVM. Each linalg op that is a strided reduction
// (compiler/targets/strided_reduction.h: one reduction loop, one associative
// combiner with a neutral element, not a contraction or a convolution) whose
// reduction may be longer than 1024 becomes, for each output point:
//
//   %partials = memref.alloca() : memref<128 x 1..1 x T>   // on the stack
//   partials[r] = neutral                          for r in [0, 128)
//   for %k0 = 0 to K step 128:
//     for %r = 0 to min(128, K - k0):
//       partials[r] = combine(partials[r], element k0 + r)   // the payload
//   for s = 64, 32, .., 1:  partials[r] = combine(partials[r], partials[r + s])
//   out[point] = combine(out[point], partials[0])
//
// so that partial r sums the elements r, r + 128, ... in order and the 128
// partials are added as a tree: the order the GPU backends use
// (gpu/cooperative_reduction.h) and the one IREE's expected values encode
// (a 40,960-long f32 sum of 0.001 is 40.96 to 1e-4 only when reduced so).
// The inner loop runs over consecutive partials and elements, which LLVM
// vectorizes without reassociating anything. Reductions known to be at most
// 1024 long stay in order, the order of IREE's CPU reductions with
// reassociation off (its expected value for a 384-long sum of squares
// encodes it), as does everything else.
#pragma once

#include <memory>

#include "mlir/Pass/Pass.h"

namespace kiln::compiler::cpu {

std::unique_ptr<mlir::Pass> createSplitReductionsPass();
void registerSplitReductionsPass();

}  // namespace kiln::compiler::cpu
