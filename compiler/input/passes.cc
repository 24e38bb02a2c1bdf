#include "compiler/input/passes.h"

namespace kiln::compiler {

void registerInputPasses() {
  mlir::registerPass(createConvertMLProgramPass);
  mlir::registerPass(createDecomposeAggregatesPass);
  mlir::registerPass(createExpandTensorInsertsPass);
  mlir::registerPass(createLowerTensorPadsPass);
  mlir::registerPass(createDetachUnreadInitsPass);
  mlir::registerPass(createFuseElementwisePass);
  mlir::registerPass(createTensorInputPass);
}

}  // namespace kiln::compiler
