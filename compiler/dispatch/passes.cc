#include "compiler/dispatch/passes.h"

namespace kiln::compiler {

void registerDispatchPasses() {
  mlir::registerPass([] { return createConvolutionsToMatmulsPass(); });
  mlir::registerPass([] { return createFormDispatchesPass(); });
  mlir::registerPass([] { return createSelectLibraryCallsPass(); });
  mlir::registerPass(createTieDispatchResultsPass);
  mlir::registerPass(createDistributeToWorkgroupsPass);
  mlir::registerPass([] { return createInstrumentDispatchesPass(); });
}

}  // namespace kiln::compiler
