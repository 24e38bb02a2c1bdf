#include "compiler/pipeline/pipeline.h"

#include <algorithm>

#include "compiler/dispatch/passes.h"
#include "compiler/host/passes.h"
#include "compiler/input/passes.h"
#include "compiler/targets/passes.h"
#include "compiler/vm/conversion/check_to_vm.h"
#include "compiler/vm/conversion/hal_to_vm.h"
#include "compiler/vm/conversion/passes.h"
#include "compiler/vm/passes.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Transforms/Passes.h"

namespace kiln::compiler {

void BuildPipeline(mlir::OpPassManager& pm, const PipelineOptions& options) {
  // Input: ml_program globals as util globals; then fold what the program
  // computes from constants (dispatch sizes, workgroup counts) before
  // anything depends on its shape.
  pm.addPass(createConvertMLProgramPass());
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());

  // Tensors: arith and math on whole tensors into linalg, elementwise
  // producers fused into their consumers, then each linalg op left into a
  // dispatch of a generated kernel, tiled into workgroups and bufferized.
  // (Each touches only the functions and kernels that have tensors.)
  auto targeted = [&](const char* name) {
    return std::find(options.targets.begin(), options.targets.end(), name) != options.targets.end();
  };
  const bool library_calls = options.library_calls && (targeted("cuda") || targeted("cpu"));
  // Convolutions a GEMM library does better become matmuls before the
  // input pipeline lowers a zero padding into its own copy: im2col reads
  // through it instead.
  // For cpu alone only the 1x1 ones of stride 1 do (0): on the lent 16-core
  // machine they run as oneDNN matmuls as fast as every convolution kept a
  // convolution with blocked activations (convolutions_to_matmuls.cc has the
  // numbers).
  const int64_t im2col_max_pixels =
      options.im2col_max_pixels.value_or(targeted("cuda") ? kDefaultIm2colMaxPixels : int64_t{0});
  if (library_calls && im2col_max_pixels >= 0) {
    pm.addPass(createConvolutionsToMatmulsPass(im2col_max_pixels));
  }
  pm.addPass(createTensorInputPass());
  pm.addPass(createFormDispatchesPass(library_calls));
  // Convolutions keep their activations in oneDNN's blocked layout between
  // calls only when asked, and never where a cuDNN call (which reads NCHW)
  // can be made of them.
  const bool blocked_activations =
      options.blocked_activations.value_or(false) && targeted("cpu") && !targeted("cuda");
  if (library_calls) {
    pm.addPass(createSelectLibraryCallsPass(options.allow_tf32, blocked_activations));
  }
  if (options.tie_dispatch_results) pm.addPass(createTieDispatchResultsPass());
  pm.addPass(createDistributeToWorkgroupsPass());
  pm.addPass(mlir::createLowerAffinePass());
  // Unused private functions and executables go before anything lowers them
  // (as IREE's input pipeline does).
  pm.addPass(mlir::createSymbolDCEPass());
  // After symbol-dce, so that only the executables the program dispatches
  // get site ids.
  if (options.instrument_dispatches_bytes != 0) {
    pm.addPass(createInstrumentDispatchesPass(options.instrument_dispatches_bytes));
  }

  // Targets: the objects of each hand-authored executable into binaries.
  SerializeExecutablesOptions serialize;
  serialize.targets = options.targets;
  serialize.object_search_paths = options.object_search_paths;
  serialize.source_directory = options.source_directory;
  serialize.read_object = options.read_object;
  pm.addPass(createSerializeExecutablesPass(std::move(serialize)));

  // Host: dispatches on tensors into command buffers of typed hal ops. The
  // canonicalization folds the byte lengths and dims bufferization computes,
  // so that memory planning, scheduling and memoization see static sizes as
  // constants. Memory is planned while every dispatch is still its own
  // awaited submission (lifetimes per dispatch); scheduling then puts the
  // barriers that reusing arena bytes needs (plan_memory.cc says why).
  pm.addPass(createBufferizeDispatchesPass());
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::createCSEPass());
  pm.addPass(createPlanMemoryPass());
  pm.addPass(createScheduleCommandBuffersPass());
  if (options.memoize_command_buffers) pm.addPass(createMemoizeCommandBuffersPass());

  // VM: structured control flow into blocks (loops rotated so that they
  // become for.step), everything into the vm dialect in one conversion,
  // the fused and immediate instruction forms, then registers.
  pm.addPass(CreateSCFToCFPass());
  pm.addPass(mlir::createCanonicalizerPass());
  RegisterHALToVMConversion();    // hal -> vm in the same conversion,
  RegisterCheckToVMConversion();  // and check -> vm.
  pm.addPass(CreateConvertToVMPass());
  pm.addPass(CreateFuseVMInstructionsPass());
  pm.addPass(createAllocateRegistersPass());
}

}  // namespace kiln::compiler
