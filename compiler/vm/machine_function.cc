#include "compiler/vm/machine_function.h"

#include "compiler/dialects/vm/vm_dialect.h"
#include "llvm/ADT/BitVector.h"

namespace kiln::compiler::vm_backend {

using vm::Opcode;

namespace {

// The constant's bits in its register (i32/f32 in the low 32 bits).
std::optional<uint64_t> ConstantBits(mlir::Operation* op) {
  if (auto c = llvm::dyn_cast<VM::ConstI32Op>(op))
    return c.getValueAttr().getValue().getZExtValue() & 0xFFFFFFFFu;
  if (auto c = llvm::dyn_cast<VM::ConstI64Op>(op)) return c.getValueAttr().getValue().getZExtValue();
  if (auto c = llvm::dyn_cast<VM::ConstF32Op>(op))
    return c.getValueAttr().getValue().bitcastToAPInt().getZExtValue();
  if (auto c = llvm::dyn_cast<VM::ConstF64Op>(op))
    return c.getValueAttr().getValue().bitcastToAPInt().getZExtValue();
  return std::nullopt;
}

}  // namespace

mlir::LogicalResult BuildMachineFunction(VM::FuncOp func, MFunction* out) {
  MFunction& mf = *out;
  llvm::DenseMap<mlir::Block*, uint32_t> index;
  for (mlir::Block& block : func.getBody()) {
    index[&block] = static_cast<uint32_t>(mf.blocks.size());
    mf.blocks.push_back({&block, {}, {}});
  }
  // Every value first, so a use may precede its definition in block order.
  auto define = [&](mlir::Value value) -> mlir::LogicalResult {
    std::optional<vm::Bank> bank = VM::BankOfType(value.getType());
    if (!bank) {
      return mlir::emitError(value.getLoc())
             << "value of type " << value.getType() << " has no VM register bank";
    }
    mf.vreg_of[value] = mf.NewVReg(*bank);
    return mlir::success();
  };
  for (MBlock& mb : mf.blocks) {
    for (mlir::BlockArgument arg : mb.block->getArguments()) {
      if (failed(define(arg))) return mlir::failure();
      mb.args.push_back(mf.vreg_of[arg]);
    }
    for (mlir::Operation& op : *mb.block) {
      for (mlir::Value result : op.getResults()) {
        if (failed(define(result))) return mlir::failure();
      }
      if (std::optional<uint64_t> bits = ConstantBits(&op)) {
        VRegInfo& info = mf.vregs[mf.vreg_of[op.getResult(0)]];
        info.is_constant = true;
        info.bits = *bits;
      }
    }
  }

  for (MBlock& mb : mf.blocks) {
    for (mlir::Operation& op : *mb.block) {
      std::optional<Opcode> opcode = VM::GetOpcode(&op);
      if (!opcode) {
        return op.emitOpError("is not a VM instruction; only vm opcode ops may appear in a "
                              "vm.func");
      }
      MInst inst;
      inst.op = &op;
      inst.opcode = *opcode;
      llvm::BitVector edge_operand(op.getNumOperands());
      if (auto branch = llvm::dyn_cast<mlir::BranchOpInterface>(op)) {
        for (unsigned s = 0; s < op.getNumSuccessors(); ++s) {
          mlir::Block* target = op.getSuccessor(s);
          mlir::SuccessorOperands operands = branch.getSuccessorOperands(s);
          MEdge edge;
          edge.block = index[target];
          if (operands.getProducedOperandCount() > 0) {
            // for.step: the incremented induction variable.
            if (operands.getProducedOperandCount() != 1 || target->getNumArguments() == 0 ||
                op.getNumOperands() == 0) {
              return op.emitOpError("unexpected produced successor operands");
            }
            std::optional<vm::Bank> bank = VM::BankOfType(target->getArgument(0).getType());
            if (!bank) return op.emitOpError("produced successor operand without a bank");
            const VReg def = mf.NewVReg(*bank);
            inst.defs.push_back(def);
            inst.tied = mf.vreg_of[op.getOperand(0)];
            edge.args.push_back(def);
          }
          mlir::OperandRange forwarded = operands.getForwardedOperands();
          if (!forwarded.empty()) {
            const unsigned begin = forwarded.getBeginOperandIndex();
            edge_operand.set(begin, begin + forwarded.size());
          }
          for (mlir::Value v : forwarded) edge.args.push_back(mf.vreg_of[v]);
          inst.edges.push_back(std::move(edge));
        }
      }
      for (mlir::OpOperand& operand : op.getOpOperands()) {
        if (!edge_operand.test(operand.getOperandNumber())) {
          inst.uses.push_back(mf.vreg_of[operand.get()]);
        }
      }
      for (mlir::Value result : op.getResults()) inst.defs.push_back(mf.vreg_of[result]);
      mb.insts.push_back(std::move(inst));
    }
    if (mb.insts.empty() || !mb.insts.back().is_terminator()) {
      return mlir::emitError(mb.block->getParent()->getLoc())
             << "a block of @" << func.getSymName() << " does not end in a VM terminator";
    }
  }
  return mlir::success();
}

}  // namespace kiln::compiler::vm_backend
