// The dispatch passes: from linalg on tensors in host functions to generated
// executables (compiler/dispatch), in pipeline order:
//
//   --kiln-convolutions-to-matmuls   (with library calls) NCHW convolutions
//       that a GEMM library does better as matmuls rewritten into them: 1x1
//       directly, small outputs through im2col (convolutions_to_matmuls.cc).
//   --kiln-form-dispatches           each linalg op left after elementwise
//       fusion (with the producers that only make its outputs) into a
//       hal.executable.source holding its kernel, and a flow.dispatch of it
//       whose workgroup count the host computes from the workgroup tiles
//       (form_dispatches.cc).
//   --kiln-select-library-calls      the kernels one library call computes
//       (a cuBLASLt matmul, a cuDNN convolution) marked with that call on
//       their export, and for cpu alone the activations that stay in
//       oneDNN's blocked layout between convolution calls
//       (select_library_calls.cc, library_calls.h).
//   --kiln-tie-dispatch-results      the result of an elementwise generated
//       kernel tied to an operand that dies at its dispatch (`-> %operand`),
//       the kernel writing it over that operand's binding
//       (tie_dispatch_results.cc).
//   --kiln-distribute-to-workgroups  each generated kernel tiled into one
//       workgroup's tile, bufferized into its bindings: the target-neutral
//       form that compiler/targets/* lower (distribute_to_workgroups.cc).
//   --kiln-instrument-dispatches     (kiln-compile --instrument-dispatches)
//       every generated kernel records one entry per workgroup into the
//       instrumentation ring, an extra last binding (instrument_dispatches.cc).
#pragma once

#include <cstdint>
#include <limits>
#include <memory>

#include "mlir/Pass/Pass.h"

namespace kiln::compiler {

// Output pixels (batch x height x width) up to which a strided or RxS
// convolution becomes im2col + matmul, by default: every one. Measured with
// ResNet-50 (tests/benchmarks/README.md): on the H100 cuBLASLt after im2col
// beats cuDNN on every layer (f32 and f16); on the CPU oneDNN's matmul after
// im2col beats its convolution too (92-99 against 101-104 ms per call on the
// 2-core machine with the 56x56 layers kept as convolutions).
constexpr int64_t kDefaultIm2colMaxPixels = std::numeric_limits<int64_t>::max();
std::unique_ptr<mlir::Pass> createConvolutionsToMatmulsPass(
    int64_t im2col_max_pixels = kDefaultIm2colMaxPixels);
// `library_calls`: a contraction a library would take joins its consumer's
// dispatch only when the library computes that consumer too (library_calls.h),
// and the transposes of its operands and result fold into it
// (library_permutations.h); kiln-opt's option `library-calls`.
std::unique_ptr<mlir::Pass> createFormDispatchesPass(bool library_calls = false);
// `blocked_activations`: convolution results that only convolution calls
// read stay in the cpu driver's blocked layout (select_library_calls.cc);
// only where cpu is the one target with library calls.
std::unique_ptr<mlir::Pass> createSelectLibraryCallsPass(bool allow_tf32 = false,
                                                         bool blocked_activations = false);
std::unique_ptr<mlir::Pass> createTieDispatchResultsPass();
std::unique_ptr<mlir::Pass> createDistributeToWorkgroupsPass();
// `ring_bytes`: the ring's size (at least 64, a multiple of 32); kiln-opt's
// option `ring-bytes` (1 MiB by default).
std::unique_ptr<mlir::Pass> createInstrumentDispatchesPass(uint64_t ring_bytes = 1 << 20);

// Registers them with MLIR's pass registry (kiln-opt).
void registerDispatchPasses();

}  // namespace kiln::compiler
