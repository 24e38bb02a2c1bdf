#include "compiler/pipeline/pass_registration.h"

#include "compiler/dispatch/passes.h"
#include "compiler/host/passes.h"
#include "compiler/input/passes.h"
#include "compiler/targets/cpu/lower_kernels_to_llvm.h"
#include "compiler/targets/cpu/split_reductions.h"
#include "compiler/targets/cuda/lower_kernels_to_nvvm.h"
#include "compiler/targets/gpu/distribute_to_threads.h"
#include "compiler/targets/passes.h"
#include "compiler/targets/vulkan/lower_kernels_to_spirv.h"
#include "compiler/vm/conversion/passes.h"
#include "compiler/vm/passes.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Transforms/Passes.h"

namespace kiln::compiler {

void RegisterPasses() {
  // Upstream: canonicalize, cse, symbol-dce, inline, ... and the conversions
  // (scf to cf among them).
  mlir::registerTransformsPasses();
  mlir::registerSCFToControlFlowPass();
  mlir::registerLowerAffinePass();
  mlir::registerLinalgPasses();
  registerInputPasses();
  registerDispatchPasses();
  registerSerializeExecutablesPass();
  cpu::registerLowerKernelsToLLVMPass();
  cpu::registerSplitReductionsPass();
  gpu::registerDistributeToThreadsPass();
  cuda::registerLowerKernelsToNVVMPass();
  vulkan::registerLowerKernelsToSPIRVPass();
  registerHostPasses();
  registerVMBackendPasses();
  RegisterVMConversionPasses();
}

}  // namespace kiln::compiler
