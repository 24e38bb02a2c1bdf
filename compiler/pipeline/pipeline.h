// The pass pipeline kiln-compile runs, from the input program (func, arith,
// scf, tensors, flow.dispatch, hal.executable.source, util, check) to a
// module of the `vm` dialect with registers allocated, ready for bytecode
// emission (compile.h runs it and emits):
//
//   input        kiln-convert-ml-program, canonicalize, cse
//   tensors      kiln-convolutions-to-matmuls (where library calls are
//                compiled), kiln-tensor-input, kiln-form-dispatches,
//                kiln-select-library-calls (likewise),
//                kiln-tie-dispatch-results (unless disabled),
//                kiln-distribute-to-workgroups, lower-affine, symbol-dce
//   targets      kiln-serialize-executables   objects -> hal.executable.binary
//   host         kiln-hal-bufferize-dispatches, canonicalize, cse,
//                kiln-hal-plan-memory, kiln-hal-schedule-command-buffers,
//                kiln-hal-memoize-command-buffers (unless disabled)
//   vm           kiln-scf-to-cf, canonicalize, kiln-convert-to-vm
//                (func/arith/math/cf/util/check and hal -> vm),
//                kiln-vm-fuse (fused and immediate forms),
//                kiln-vm-allocate-registers
//
// Each step is one pass of its layer, runnable alone in kiln-opt.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "compiler/dispatch/passes.h"
#include "mlir/Pass/PassManager.h"

namespace kiln::compiler {

struct PipelineOptions {
  // Executable targets to embed (kiln's cpu, cuda, vulkan or IREE's llvm-cpu,
  // vulkan-spirv); empty: the module's hal.device.targets, else every
  // declared target.
  std::vector<std::string> targets;
  // Searched for relative executable object paths after the source's
  // directory (--object-search-path), in order.
  std::vector<std::string> object_search_paths;
  // Where relative object paths start; empty: the input file's directory.
  std::string source_directory;
  // Record static command buffers once and replay them with each call's
  // buffers; false records every command buffer on every call.
  bool memoize_command_buffers = true;
  // Elementwise dispatches write their result over an operand that dies
  // there (--kiln-tie-dispatch-results; kiln-compile --in-place=false
  // gives every result a buffer of its own).
  bool tie_dispatch_results = true;
  // Matmuls and convolutions that a vendor library computes carry that
  // library call beside their generated kernel (--library-calls;
  // compiler/dispatch/library_calls.h) when `targets` names cuda (cuBLASLt,
  // cuDNN) or cpu (oneDNN), the targets with libraries (vulkan alone keeps
  // its dispatches as formed without), and f32 calls may use TF32 tensor
  // cores (--allow-tf32).
  bool library_calls = true;
  bool allow_tf32 = false;
  // With library calls: strided and RxS convolutions of at most this many
  // output pixels become im2col + matmul (--im2col-max-pixels;
  // compiler/dispatch/convolutions_to_matmuls.cc); 1x1 ones always do,
  // unless it is negative. Unset: every convolution where cuda is a target
  // (cuBLASLt after im2col beats cuDNN at batch 1), and only the 1x1 ones
  // of stride 1 for cpu alone (0): oneDNN's direct convolutions in its
  // blocked layouts beat im2col + its matmul there (ResNet-50 on 16 cores:
  // 12.4 ms against 15.9), and its matmuls do the 1x1 ones as fast as its
  // convolutions with the activations kept blocked (-1 with
  // blocked_activations; convolutions_to_matmuls.cc, tests/benchmarks/README.md).
  std::optional<int64_t> im2col_max_pixels;
  // With library calls: convolution results that only convolution calls
  // read stay in the cpu driver's blocked layout between them
  // (--blocked-activations; compiler/dispatch/select_library_calls.cc).
  // Off unless set, and only where cpu is a target and cuda is not (cuDNN
  // reads NCHW only); pair it with im2col_max_pixels = -1, or the 1x1
  // convolutions that would chain are matmuls.
  std::optional<bool> blocked_activations;
  // Nonzero: every generated kernel records one entry per workgroup into an
  // instrumentation ring of this many bytes (kiln-compile
  // --instrument-dispatches; compiler/dispatch/instrument_dispatches.cc).
  // At least 64 and a multiple of 32; 0 leaves the kernels as they are.
  uint64_t instrument_dispatches_bytes = 0;
  // When set, executable objects are read through this instead of the file
  // system (the fuzzer's stand-in bytes).
  std::function<Result<std::vector<uint8_t>>(const std::string& path)> read_object = nullptr;
};

// Appends the pipeline to `pm` (a pass manager on builtin.module).
void BuildPipeline(mlir::OpPassManager& pm, const PipelineOptions& options);

}  // namespace kiln::compiler
