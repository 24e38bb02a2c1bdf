// --kiln-vm-fuse: the fused and immediate instruction forms the VM has for
// hot code (vm/opcodes.h), chosen after instruction selection, in this order
// over every vm.func:
//
//   0. Forwarded returns: `vm.br ^b(%v...)` to a block holding only a
//      vm.return of its arguments and/or values dominating the branch becomes
//      that return, so an scf.if yielding into a return returns directly on
//      each path; a conditional edge passing values to such a block gets a
//      block of its own that returns them (no copies, no jump). Blocks left
//      unreachable go.
//   1. Compare-and-branch: a vm.cmp.{lt,gt,le,ge}.{i32,i64}.s whose only use
//      is the vm.cond_br ending its block becomes vm.br.lt.{i32,i64}.s
//      (gt/le swap the operands, ge/le swap the successors).
//   2. Counted-loop back-edges: `%n = add %i, C` followed (%n unread in
//      between) by `vm.br.lt %n, %bound, ^body(%n, ...), ^exit(...)` becomes
//      `vm.for.step %i, C, %bound, ^body(...), ^exit(...)` when C fits the
//      32-bit immediate: for.step increments %i in place and hands the new
//      value to ^body's first argument. %n may have no other use (the exit
//      receives it nowhere), as in the rotated loops of --kiln-scf-to-cf.
//   3. Immediates: add/sub of a constant that fits 32 bits becomes
//      add.imm.i32/i64; br.lt.i32.s against a constant becomes
//      br.lt.imm.i32.s (`C < %b` as `!(%b < C + 1)`).
//   4. Constants nothing reads any more disappear (they were only used as
//      immediates).
//
// Each phase runs over the whole function before the next, as the order
// matters: a loop bounded by a constant becomes for.step with the bound in a
// register rather than a br.lt.imm that could not step.
#include <optional>

#include "compiler/dialects/vm/vm_dialect.h"
#include "compiler/vm/conversion/passes.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/RegionUtils.h"

namespace kiln::compiler {
namespace {

using kiln::vm::Opcode;

std::optional<Opcode> OpcodeOf(mlir::Operation* op) {
  return op ? VM::GetOpcode(op) : std::nullopt;
}

// The constant value of `v` (a vm.const.i32/i64) as a signed integer.
std::optional<int64_t> IntConstant(mlir::Value v) {
  mlir::Operation* def = v.getDefiningOp();
  std::optional<Opcode> opcode = OpcodeOf(def);
  if (!opcode || (*opcode != Opcode::kConstI32 && *opcode != Opcode::kConstI64)) {
    return std::nullopt;
  }
  auto value = def->getAttrOfType<mlir::IntegerAttr>("value");
  if (!value) return std::nullopt;
  return value.getValue().getSExtValue();
}

bool FitsInt32(int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; }

// 2^32 - v: 32-bit wrapping negation without signed overflow.
int32_t WrapNegate(int64_t v) { return static_cast<int32_t>(0u - static_cast<uint32_t>(v)); }

// The values `ret` (the only op of its block) returns when entered with
// `args`, if they are all available at `from`.
std::optional<llvm::SmallVector<mlir::Value>> ForwardedValues(VM::ReturnOp ret,
                                                              mlir::ValueRange args,
                                                              mlir::Operation* from,
                                                              mlir::DominanceInfo& dominance) {
  llvm::SmallVector<mlir::Value> values;
  for (mlir::Value v : ret.getOperands()) {
    auto arg = llvm::dyn_cast<mlir::BlockArgument>(v);
    if (arg && arg.getOwner() == ret->getBlock()) {
      values.push_back(args[arg.getArgNumber()]);
    } else if (dominance.properlyDominates(v, from)) {
      values.push_back(v);
    } else {
      return std::nullopt;
    }
  }
  return values;
}

// 0. Branches into a block that only returns → returns.
void ForwardReturns(VM::FuncOp func, mlir::IRRewriter& rewriter) {
  mlir::DominanceInfo dominance(func);
  bool changed = false;
  auto return_only = [](mlir::Block* dest) {
    return llvm::dyn_cast<VM::ReturnOp>(dest->front());
  };
  for (mlir::Block& block : llvm::make_early_inc_range(func.getBody())) {
    mlir::Operation* terminator = block.getTerminator();
    if (auto branch = llvm::dyn_cast_or_null<VM::BrOp>(terminator)) {
      VM::ReturnOp ret = return_only(branch.getDest());
      if (!ret || branch.getDest() == &block) continue;
      auto values = ForwardedValues(ret, branch.getDestOperands(), branch, dominance);
      if (!values) continue;
      rewriter.setInsertionPoint(branch);
      VM::ReturnOp::create(rewriter, ret.getLoc(), *values);  // The return's location.
      rewriter.eraseOp(branch);
      changed = true;
      continue;
    }
    // A conditional edge that passes values to a return block gets its own
    // return instead: no copies into the block's arguments, no jump.
    auto branch = llvm::dyn_cast_or_null<mlir::BranchOpInterface>(terminator);
    if (!branch) continue;
    mlir::Block* insert_after = &block;
    for (unsigned i = 0; i < terminator->getNumSuccessors(); ++i) {
      mlir::Block* dest = terminator->getSuccessor(i);
      VM::ReturnOp ret = return_only(dest);
      mlir::SuccessorOperands operands = branch.getSuccessorOperands(i);
      if (!ret || dest == &block || operands.empty() || operands.getProducedOperandCount() != 0) {
        continue;
      }
      auto values = ForwardedValues(ret, operands.getForwardedOperands(), terminator, dominance);
      if (!values) continue;
      mlir::Block* forwarded =
          rewriter.createBlock(&func.getBody(), std::next(insert_after->getIterator()));
      VM::ReturnOp::create(rewriter, ret.getLoc(), *values);
      rewriter.modifyOpInPlace(terminator, [&] {
        operands.erase(0, operands.size());
        terminator->setSuccessor(forwarded, i);
      });
      insert_after = forwarded;
      changed = true;
    }
  }
  if (changed) {
    (void)mlir::eraseUnreachableBlocks(rewriter,
                                       llvm::MutableArrayRef<mlir::Region>(func.getBody()));
  }
}

// 1. cmp + cond_br → br.lt.
void FuseCompareBranch(mlir::Block& block, mlir::IRRewriter& rewriter) {
  auto branch = llvm::dyn_cast_or_null<VM::CondBrOp>(block.getTerminator());
  if (!branch) return;
  mlir::Value condition = branch.getCondition();
  mlir::Operation* cmp = condition.getDefiningOp();
  if (!condition.hasOneUse() || !cmp || cmp->getBlock() != &block) return;
  bool swap_operands = false, swap_targets = false, is64 = false;
  switch (OpcodeOf(cmp).value_or(Opcode::kCount)) {
    case Opcode::kCmpLtSI64:
      is64 = true;
      [[fallthrough]];
    case Opcode::kCmpLtSI32:
      break;
    case Opcode::kCmpGtSI64:
      is64 = true;
      [[fallthrough]];
    case Opcode::kCmpGtSI32:
      swap_operands = true;  // a > b ⇔ b < a
      break;
    case Opcode::kCmpGeSI64:
      is64 = true;
      [[fallthrough]];
    case Opcode::kCmpGeSI32:
      swap_targets = true;  // a >= b ⇔ !(a < b)
      break;
    case Opcode::kCmpLeSI64:
      is64 = true;
      [[fallthrough]];
    case Opcode::kCmpLeSI32:
      swap_operands = swap_targets = true;  // a <= b ⇔ !(b < a)
      break;
    default:
      return;
  }
  mlir::Value a = cmp->getOperand(0), b = cmp->getOperand(1);
  if (swap_operands) std::swap(a, b);
  mlir::Block* t = branch.getTrueDest();
  mlir::Block* f = branch.getFalseDest();
  mlir::ValueRange t_args = branch.getTrueDestOperands();
  mlir::ValueRange f_args = branch.getFalseDestOperands();
  if (swap_targets) std::swap(t, f), std::swap(t_args, f_args);
  rewriter.setInsertionPoint(branch);
  if (is64) {
    VM::BrLtI64SOp::create(rewriter, branch.getLoc(), a, b, t_args, f_args, t, f);
  } else {
    VM::BrLtI32SOp::create(rewriter, branch.getLoc(), a, b, t_args, f_args, t, f);
  }
  rewriter.eraseOp(branch);
  rewriter.eraseOp(cmp);
}

// 2. add + br.lt → for.step.
template <typename BrLtOp>
void FormForStep(BrLtOp branch, mlir::IRRewriter& rewriter) {
  constexpr bool is64 = std::is_same_v<BrLtOp, VM::BrLtI64SOp>;
  mlir::Block& block = *branch->getBlock();
  mlir::Value next = branch.getLhs(), bound = branch.getRhs();
  if (next == bound) return;
  mlir::Operation* add = next.getDefiningOp();
  if (!add || add->getBlock() != &block) return;
  mlir::Value induction;
  int64_t step = 0;
  bool add64 = false;
  switch (OpcodeOf(add).value_or(Opcode::kCount)) {
    case Opcode::kAddI64:
      add64 = true;
      [[fallthrough]];
    case Opcode::kAddI32:
      if (auto c = IntConstant(add->getOperand(1)); c && FitsInt32(*c)) {
        induction = add->getOperand(0), step = *c;
      } else if (auto c0 = IntConstant(add->getOperand(0)); c0 && FitsInt32(*c0)) {
        induction = add->getOperand(1), step = *c0;
      }
      break;
    case Opcode::kSubI32:
      if (auto c = IntConstant(add->getOperand(1))) {
        induction = add->getOperand(0), step = WrapNegate(*c);
      }
      break;
    case Opcode::kSubI64:
      add64 = true;
      if (auto c = IntConstant(add->getOperand(1)); c && *c > INT64_MIN && FitsInt32(-*c)) {
        induction = add->getOperand(0), step = -*c;
      }
      break;
    case Opcode::kAddImmI64:
      add64 = true;
      [[fallthrough]];
    case Opcode::kAddImmI32:
      induction = add->getOperand(0);
      step = add->getAttrOfType<mlir::IntegerAttr>("imm").getValue().getSExtValue();
      break;
    default:
      return;
  }
  if (!induction || add64 != is64) return;
  // The increment moves into the terminator: nothing in between may read it,
  // and only ^body's first argument may receive it.
  mlir::OperandRange body_args = branch.getTrueDestOperands();
  if (body_args.empty() || body_args[0] != next) return;
  for (mlir::OpOperand& use : next.getUses()) {
    if (use.getOwner() != branch.getOperation()) return;
    const unsigned index = use.getOperandNumber();
    if (index != 0 && index != body_args.getBeginOperandIndex()) return;
  }
  rewriter.setInsertionPoint(branch);
  auto step_attr = rewriter.getI32IntegerAttr(static_cast<int32_t>(step));
  auto rest = body_args.drop_front();
  if constexpr (is64) {
    VM::ForStepI64Op::create(rewriter, branch.getLoc(), induction, step_attr, bound, rest,
                             branch.getFalseDestOperands(), branch.getTrueDest(),
                             branch.getFalseDest());
  } else {
    VM::ForStepI32Op::create(rewriter, branch.getLoc(), induction, step_attr, bound, rest,
                             branch.getFalseDestOperands(), branch.getTrueDest(),
                             branch.getFalseDest());
  }
  rewriter.eraseOp(branch);
  rewriter.eraseOp(add);
}

// 3. Immediate operand forms.
void UseImmediates(mlir::Block& block, mlir::IRRewriter& rewriter) {
  for (mlir::Operation& op : llvm::make_early_inc_range(block)) {
    const std::optional<Opcode> opcode = OpcodeOf(&op);
    if (!opcode) continue;
    rewriter.setInsertionPoint(&op);
    auto add_imm = [&](Opcode imm_opcode, mlir::Value a, int64_t c) {
      mlir::OperationState state(op.getLoc(), VM::OpNameOfOpcode(imm_opcode));
      state.addOperands(a);
      state.addTypes(op.getResult(0).getType());
      state.addAttribute("imm", rewriter.getI32IntegerAttr(static_cast<int32_t>(c)));
      rewriter.replaceOp(&op, rewriter.create(state)->getResults());
    };
    auto constant = [&](unsigned i) { return IntConstant(op.getOperand(i)); };
    switch (*opcode) {
      case Opcode::kAddI32:
        if (auto c = constant(1)) {
          add_imm(Opcode::kAddImmI32, op.getOperand(0), *c);
        } else if (auto c0 = constant(0)) {
          add_imm(Opcode::kAddImmI32, op.getOperand(1), *c0);
        }
        break;
      case Opcode::kSubI32:
        if (auto c = constant(1)) add_imm(Opcode::kAddImmI32, op.getOperand(0), WrapNegate(*c));
        break;
      case Opcode::kAddI64:
        if (auto c = constant(1); c && FitsInt32(*c)) {
          add_imm(Opcode::kAddImmI64, op.getOperand(0), *c);
        } else if (auto c0 = constant(0); c0 && FitsInt32(*c0)) {
          add_imm(Opcode::kAddImmI64, op.getOperand(1), *c0);
        }
        break;
      case Opcode::kSubI64:
        if (auto c = constant(1); c && *c > INT64_MIN && FitsInt32(-*c)) {
          add_imm(Opcode::kAddImmI64, op.getOperand(0), -*c);
        }
        break;
      case Opcode::kBrLtI32S: {
        auto branch = llvm::cast<VM::BrLtI32SOp>(op);
        if (auto c = constant(1)) {
          // a < C
          VM::BrLtImmI32SOp::create(rewriter, op.getLoc(), branch.getLhs(),
                                    rewriter.getI32IntegerAttr(static_cast<int32_t>(*c)),
                                    branch.getTrueDestOperands(), branch.getFalseDestOperands(),
                                    branch.getTrueDest(), branch.getFalseDest());
          rewriter.eraseOp(&op);
        } else if (auto c0 = constant(0); c0 && *c0 < INT32_MAX) {
          // C < b ⇔ !(b < C + 1)
          VM::BrLtImmI32SOp::create(rewriter, op.getLoc(), branch.getRhs(),
                                    rewriter.getI32IntegerAttr(static_cast<int32_t>(*c0 + 1)),
                                    branch.getFalseDestOperands(), branch.getTrueDestOperands(),
                                    branch.getFalseDest(), branch.getTrueDest());
          rewriter.eraseOp(&op);
        }
        break;
      }
      default:
        break;
    }
  }
}

bool IsConstant(mlir::Operation& op) {
  switch (OpcodeOf(&op).value_or(Opcode::kCount)) {
    case Opcode::kConstI32:
    case Opcode::kConstI64:
    case Opcode::kConstF32:
    case Opcode::kConstF64:
      return true;
    default:
      return false;
  }
}

void FuseFunction(VM::FuncOp func) {
  mlir::IRRewriter rewriter(func.getContext());
  mlir::Region& body = func.getBody();
  if (body.empty()) return;
  ForwardReturns(func, rewriter);
  for (mlir::Block& block : body) FuseCompareBranch(block, rewriter);
  for (mlir::Block& block : body) {
    mlir::Operation* terminator = block.getTerminator();
    if (auto branch = llvm::dyn_cast_or_null<VM::BrLtI32SOp>(terminator)) {
      FormForStep(branch, rewriter);
    } else if (auto branch = llvm::dyn_cast_or_null<VM::BrLtI64SOp>(terminator)) {
      FormForStep(branch, rewriter);
    }
  }
  for (mlir::Block& block : body) UseImmediates(block, rewriter);
  for (mlir::Block& block : body) {
    for (mlir::Operation& op : llvm::make_early_inc_range(block)) {
      if (IsConstant(op) && op.use_empty()) rewriter.eraseOp(&op);
    }
  }
}

class FuseVMInstructionsPass
    : public mlir::PassWrapper<FuseVMInstructionsPass, mlir::OperationPass<>> {
 public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(FuseVMInstructionsPass)

  llvm::StringRef getArgument() const override { return "kiln-vm-fuse"; }
  llvm::StringRef getDescription() const override {
    return "The VM's fused and immediate forms: br.lt, for.step, add.imm, br.lt.imm";
  }
  void runOnOperation() override { getOperation()->walk(FuseFunction); }
};

}  // namespace

std::unique_ptr<mlir::Pass> CreateFuseVMInstructionsPass() {
  return std::make_unique<FuseVMInstructionsPass>();
}

}  // namespace kiln::compiler
