#include "compiler/pipeline/pass_registration.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Transforms/Passes.h"

namespace kiln::compiler {

void RegisterPasses() {
  // Upstream: canonicalize, cse, symbol-dce, inline, ... and the conversions
  // (scf to cf among them).
  mlir::registerTransformsPasses();
  mlir::registerSCFToControlFlowPass();
}

}  // namespace kiln::compiler
