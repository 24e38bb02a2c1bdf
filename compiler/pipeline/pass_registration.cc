#include "compiler/pipeline/pass_registration.h"

#include "compiler/host/passes.h"
#include "compiler/targets/passes.h"
#include "compiler/vm/conversion/passes.h"
#include "compiler/vm/passes.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Transforms/Passes.h"

namespace kiln::compiler {

void RegisterPasses() {
  // Upstream: canonicalize, cse, symbol-dce, inline, ... and the conversions
  // (scf to cf among them).
  mlir::registerTransformsPasses();
  mlir::registerSCFToControlFlowPass();
  mlir::registerLowerAffinePass();
  registerSerializeExecutablesPass();
  registerHostPasses();
  registerVMBackendPasses();
  RegisterVMConversionPasses();
}

}  // namespace kiln::compiler
