#include "compiler/input/passes.h"

namespace kiln::compiler {

void registerInputPasses() { mlir::registerPass(createDetachUnreadInitsPass); }

}  // namespace kiln::compiler
