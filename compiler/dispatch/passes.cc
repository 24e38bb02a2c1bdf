#include "compiler/dispatch/passes.h"

namespace kiln::compiler {

void registerDispatchPasses() {
  mlir::registerPass(createFormDispatchesPass);
  mlir::registerPass(createDistributeToWorkgroupsPass);
}

}  // namespace kiln::compiler
