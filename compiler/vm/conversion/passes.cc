#include "compiler/vm/conversion/passes.h"

namespace kiln::compiler {

void RegisterVMConversionPasses() {
  mlir::registerPass(CreateSCFToCFPass);
  mlir::registerPass(CreateConvertToVMPass);
  mlir::registerPass(CreateFuseVMInstructionsPass);
}

}  // namespace kiln::compiler
