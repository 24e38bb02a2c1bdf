#include "compiler/vm/register_annotations.h"

#include "compiler/dialects/vm/vm_dialect.h"
#include "mlir/IR/Builders.h"

namespace kiln::compiler::vm_backend {

namespace {

int32_t AsAttrValue(uint16_t reg) { return reg == Allocation::kNone ? -1 : reg; }

}  // namespace

void AnnotateRegisters(const MFunction& mf, const Allocation& allocation, VM::FuncOp func) {
  mlir::Builder builder(func.getContext());
  auto regs = [&](const std::vector<VReg>& values) {
    llvm::SmallVector<int32_t> out;
    for (VReg v : values) out.push_back(AsAttrValue(allocation.reg[v]));
    return builder.getDenseI32ArrayAttr(out);
  };
  for (const MBlock& block : mf.blocks) {
    for (const MInst& inst : block.insts) {
      inst.op->removeAttr(kBlockRegsAttr);
      if (inst.defs.empty()) {
        inst.op->removeAttr(kRegsAttr);
      } else {
        inst.op->setAttr(kRegsAttr, regs(inst.defs));
      }
    }
    if (!block.args.empty()) block.insts.front().op->setAttr(kBlockRegsAttr, regs(block.args));
  }
  llvm::SmallVector<int32_t> counts;
  for (uint32_t c : allocation.counts) counts.push_back(static_cast<int32_t>(c));
  func->setAttr(kRegisterCountsAttr, builder.getDenseI32ArrayAttr(counts));
}

void ClearRegisterAnnotations(VM::FuncOp func) {
  func->removeAttr(kRegisterCountsAttr);
  func.walk([](mlir::Operation* op) {
    op->removeAttr(kRegsAttr);
    op->removeAttr(kBlockRegsAttr);
  });
}

bool HasRegisterAnnotations(VM::FuncOp func) { return func->hasAttr(kRegisterCountsAttr); }

mlir::FailureOr<Allocation> ReadRegisterAnnotations(const MFunction& mf, VM::FuncOp func) {
  Allocation allocation;
  allocation.reg.assign(mf.vregs.size(), Allocation::kNone);
  auto counts = func->getAttrOfType<mlir::DenseI32ArrayAttr>(kRegisterCountsAttr);
  if (!counts || counts.size() != vm::kBankCount) {
    return func.emitOpError() << "needs '" << kRegisterCountsAttr
                              << "' (5 register counts); run --kiln-vm-allocate-registers";
  }
  for (int b = 0; b < vm::kBankCount; ++b) {
    if (counts[b] < 0) return func.emitOpError("negative register count");
    allocation.counts[b] = static_cast<uint32_t>(counts[b]);
  }
  auto read = [&](mlir::Operation* op, const char* name,
                  const std::vector<VReg>& values) -> mlir::LogicalResult {
    if (values.empty()) return mlir::success();
    auto regs = op->getAttrOfType<mlir::DenseI32ArrayAttr>(name);
    if (!regs || regs.size() != static_cast<int64_t>(values.size())) {
      return op->emitOpError() << "needs '" << name << "' with " << values.size()
                               << " registers; run --kiln-vm-allocate-registers";
    }
    for (size_t i = 0; i < values.size(); ++i) {
      const int32_t r = regs[i];
      if (r == -1) continue;
      const uint32_t count = allocation.counts[static_cast<int>(mf.vregs[values[i]].bank)];
      if (r < 0 || static_cast<uint32_t>(r) >= count) {
        return op->emitOpError() << "register " << r << " in '" << name
                                 << "' is outside the function's register count " << count;
      }
      allocation.reg[values[i]] = static_cast<uint16_t>(r);
    }
    return mlir::success();
  };
  for (const MBlock& block : mf.blocks) {
    if (failed(read(block.insts.front().op, kBlockRegsAttr, block.args))) return mlir::failure();
    for (const MInst& inst : block.insts) {
      if (failed(read(inst.op, kRegsAttr, inst.defs))) return mlir::failure();
    }
  }
  return allocation;
}

}  // namespace kiln::compiler::vm_backend
