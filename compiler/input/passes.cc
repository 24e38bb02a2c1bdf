#include "compiler/input/passes.h"

namespace kiln::compiler {

void registerInputPasses() {
  mlir::registerPass(createDetachUnreadInitsPass);
  mlir::registerPass(createTensorInputPass);
}

}  // namespace kiln::compiler
