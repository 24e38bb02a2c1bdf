// The VM backend's passes (kiln-opt flags):
//   --kiln-vm-allocate-registers   register allocation of every vm.func,
//                                  recorded as annotations (register_annotations.h)
//   --kiln-vm-emit-module=output=PATH [debug-locations=false] [module-name=NAME]
//                                  writes the .kmod of the (one) vm.module to PATH
//                                  (tests and debugging; kiln-compile calls EmitModule,
//                                  module_emitter.h); the IR is left unchanged.
#pragma once

#include <memory>

#include "mlir/Pass/Pass.h"

namespace kiln::compiler {

std::unique_ptr<mlir::Pass> createAllocateRegistersPass();
std::unique_ptr<mlir::Pass> createEmitModulePass();

// Registers both passes for kiln-opt.
void registerVMBackendPasses();

}  // namespace kiln::compiler
