// --kiln-vm-allocate-registers: register allocation of every vm.func
// (register_allocation.h: SSA greedy colouring per bank with coalescing
// preferences, function arguments precoloured), recorded as annotations that
// emission reads (register_annotations.h).
#include "compiler/dialects/vm/vm_dialect.h"
#include "compiler/vm/liveness.h"
#include "compiler/vm/machine_function.h"
#include "compiler/vm/passes.h"
#include "compiler/vm/register_allocation.h"
#include "compiler/vm/register_annotations.h"
#include "mlir/Pass/Pass.h"

namespace kiln::compiler {
namespace {

struct AllocateRegistersPass
    : public mlir::PassWrapper<AllocateRegistersPass, mlir::OperationPass<>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(AllocateRegistersPass)

  llvm::StringRef getArgument() const override { return "kiln-vm-allocate-registers"; }
  llvm::StringRef getDescription() const override {
    return "Allocates the registers of every vm.func (recorded as vm.regs / vm.block_regs / "
           "vm.register_counts)";
  }

  // Runs on any op (a builtin.module holding the vm.module, or the
  // vm.module itself) and allocates every vm.func inside it.
  void runOnOperation() override {
    getOperation()->walk([&](VM::FuncOp func) {
      if (failed(Allocate(func))) signalPassFailure();
    });
  }

  static mlir::LogicalResult Allocate(VM::FuncOp func) {
    vm_backend::ClearRegisterAnnotations(func);
    vm_backend::MFunction mf;
    if (failed(vm_backend::BuildMachineFunction(func, &mf))) return mlir::failure();
    const vm_backend::ControlFlow cfg = vm_backend::AnalyzeControlFlow(mf);
    const vm_backend::Liveness liveness(mf, cfg);
    Result<vm_backend::Allocation> allocation = vm_backend::AllocateRegisters(mf, cfg, liveness);
    if (!allocation.ok()) {
      return func.emitOpError() << allocation.status().message();
    }
    vm_backend::AnnotateRegisters(mf, *allocation, func);
    return mlir::success();
  }
};

}  // namespace

std::unique_ptr<mlir::Pass> createAllocateRegistersPass() {
  return std::make_unique<AllocateRegistersPass>();
}

}  // namespace kiln::compiler
