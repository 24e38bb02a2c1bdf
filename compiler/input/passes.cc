#include "compiler/input/passes.h"

namespace kiln::compiler {

void registerInputPasses() {
  mlir::registerPass(createDecomposeAggregatesPass);
  mlir::registerPass(createDetachUnreadInitsPass);
  mlir::registerPass(createTensorInputPass);
}

}  // namespace kiln::compiler
