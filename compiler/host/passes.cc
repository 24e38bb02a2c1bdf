#include "compiler/host/passes.h"

namespace kiln::compiler {

void registerHostPasses() {
  mlir::registerPass(createBufferizeDispatchesPass);
  mlir::registerPass(createPlanMemoryPass);
  mlir::registerPass(createScheduleCommandBuffersPass);
  mlir::registerPass(createMemoizeCommandBuffersPass);
}

}  // namespace kiln::compiler
