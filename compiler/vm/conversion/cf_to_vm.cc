// cf → vm. cf.br/cond_br become vm.br/vm.cond_br with the same successors;
// cf.switch becomes the VM's switch table when the case values are dense
// (offset by the smallest, with a range check for i64 flags), else a compare
// chain; cf.assert becomes a vm.cond_br to a cold block at the end of the
// function holding `vm.fail "<message>"`, located at the assert so the
// runtime error names the .mlir line.
#include <map>

#include "compiler/vm/conversion/patterns.h"
#include "compiler/vm/conversion/select_pattern.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"

namespace kiln::compiler {
namespace {

using kiln::vm::Bank;
using kiln::vm::Opcode;
namespace cf = mlir::cf;

class BranchLowering : public mlir::OpConversionPattern<cf::BranchOp> {
 public:
  using OpConversionPattern::OpConversionPattern;
  mlir::LogicalResult matchAndRewrite(cf::BranchOp op, OpAdaptor adaptor,
                                      mlir::ConversionPatternRewriter& rewriter) const override {
    rewriter.replaceOpWithNewOp<VM::BrOp>(op, adaptor.getDestOperands(), op.getDest());
    return mlir::success();
  }
};

class CondBranchLowering : public mlir::OpConversionPattern<cf::CondBranchOp> {
 public:
  using OpConversionPattern::OpConversionPattern;
  mlir::LogicalResult matchAndRewrite(cf::CondBranchOp op, OpAdaptor adaptor,
                                      mlir::ConversionPatternRewriter& rewriter) const override {
    rewriter.replaceOpWithNewOp<VM::CondBrOp>(
        op, adaptor.getCondition(), adaptor.getTrueDestOperands(),
        adaptor.getFalseDestOperands(), op.getTrueDest(), op.getFalseDest());
    return mlir::success();
  }
};

class AssertLowering : public mlir::OpConversionPattern<cf::AssertOp> {
 public:
  using OpConversionPattern::OpConversionPattern;
  mlir::LogicalResult matchAndRewrite(cf::AssertOp op, OpAdaptor adaptor,
                                      mlir::ConversionPatternRewriter& rewriter) const override {
    std::string message = op.getMsg().str();
    if (message.empty()) message = "assertion failed";
    mlir::Block* block = op->getBlock();
    mlir::Region* region = block->getParent();
    mlir::Block* cont = rewriter.splitBlock(block, std::next(op->getIterator()));
    // The failure is cold: laid out after every other block.
    mlir::Block* fail = rewriter.createBlock(region, region->end());
    VM::FailOp::create(rewriter, op.getLoc(), rewriter.getStringAttr(message));
    rewriter.setInsertionPoint(op);
    rewriter.replaceOpWithNewOp<VM::CondBrOp>(op, adaptor.getArg(), mlir::ValueRange(),
                                              mlir::ValueRange(), cont, fail);
    return mlir::success();
  }
};

class SwitchLowering : public mlir::OpConversionPattern<cf::SwitchOp> {
 public:
  using OpConversionPattern::OpConversionPattern;
  mlir::LogicalResult matchAndRewrite(cf::SwitchOp op, OpAdaptor adaptor,
                                      mlir::ConversionPatternRewriter& rewriter) const override;
};

// A successor and the values its arguments receive.
struct Edge {
  mlir::Block* block;
  llvm::SmallVector<mlir::Value> args;
};

mlir::LogicalResult SwitchLowering::matchAndRewrite(
    cf::SwitchOp op, OpAdaptor adaptor, mlir::ConversionPatternRewriter& rewriter) const {
  const mlir::Type flag_type = op.getFlag().getType();
  const std::optional<Bank> bank_or = BankOf(flag_type);
  if (!bank_or) return rewriter.notifyMatchFailure(op, "flag type has no VM bank");
  const Bank bank = *bank_or;
  mlir::Value flag = adaptor.getFlag();
  std::vector<int64_t> cases;
  if (std::optional<mlir::DenseIntElementsAttr> values = op.getCaseValues()) {
    for (const llvm::APInt& value : values->getValues<llvm::APInt>()) {
      int64_t c = static_cast<int64_t>(CanonicalIntegerBits(value.getSExtValue(), flag_type));
      if (bank == Bank::kI32) c = static_cast<int32_t>(c);
      cases.push_back(c);
    }
  }
  const Edge default_edge{op.getDefaultDestination(),
                          llvm::to_vector(adaptor.getDefaultOperands())};
  llvm::SmallVector<mlir::ValueRange> case_operands = adaptor.getCaseOperands();
  auto case_edge = [&](size_t k) {
    return Edge{op.getCaseDestinations()[k], llvm::to_vector(case_operands[k])};
  };
  const size_t n = cases.size();
  const mlir::Location loc = op.getLoc();
  SelectionBuilder s(rewriter, loc);
  if (n == 0) {
    rewriter.replaceOpWithNewOp<VM::BrOp>(op, default_edge.args, default_edge.block);
    return mlir::success();
  }
  mlir::Block* current = op->getBlock();
  mlir::Region* region = current->getParent();
  // New blocks go right after the current one, so straight-line layout
  // follows the source.
  auto new_block_after = [&](mlir::Block* after) {
    mlir::OpBuilder::InsertionGuard guard(rewriter);
    return rewriter.createBlock(region, std::next(after->getIterator()));
  };

  int64_t min = cases[0], max = cases[0];
  for (int64_t c : cases) min = std::min(min, c), max = std::max(max, c);
  const uint64_t span = static_cast<uint64_t>(max) - static_cast<uint64_t>(min);  // range - 1
  const bool dense = n >= 3 && span < 4096 && span + 1 <= 2 * n + 8;

  rewriter.setInsertionPoint(op);
  if (dense) {
    const uint32_t range = static_cast<uint32_t>(span + 1);
    // Each table slot's successor; unfilled slots go to the default.
    std::vector<std::optional<size_t>> table(range);
    for (size_t k = 0; k < n; ++k) {
      const uint64_t slot = static_cast<uint64_t>(cases[k]) - static_cast<uint64_t>(min);
      if (!table[slot]) table[slot] = k;  // A duplicate case value: the first one wins.
    }
    mlir::Value index;
    if (bank == Bank::kI32) {
      index = min == 0 ? flag : s.AddImm(Bank::kI32, flag, WrapNegate32(min));
    } else {
      // Bring the flag into [0, range) in 64 bits, check it, then truncate.
      mlir::Value offset = flag;
      // -min fits an i32 immediate for min in [-(2^31 - 1), 2^31].
      const bool negation_fits = min >= -int64_t{INT32_MAX} && min <= int64_t{INT32_MAX} + 1;
      if (min != 0 && negation_fits) {
        offset = s.AddImm(Bank::kI64, flag, static_cast<int32_t>(-min));
      } else if (min != 0) {
        offset = s.Binary(Opcode::kSubI64, Bank::kI64, flag,
                          s.Constant(Bank::kI64, static_cast<uint64_t>(min)));
      }
      mlir::Value in_range =
          s.Binary(Opcode::kCmpLtUI64, Bank::kI32, offset, s.Constant(Bank::kI64, range));
      mlir::Block* table_block = new_block_after(current);
      VM::CondBrOp::create(rewriter, loc, in_range, mlir::ValueRange(), default_edge.args,
                           table_block, default_edge.block);
      rewriter.setInsertionPointToEnd(table_block);
      index = s.Unary(Opcode::kTruncI64I32, Bank::kI32, offset);
    }
    llvm::SmallVector<mlir::Block*> dests;
    llvm::SmallVector<llvm::SmallVector<mlir::Value>> operands;
    for (const std::optional<size_t>& k : table) {
      Edge edge = k ? case_edge(*k) : default_edge;
      dests.push_back(edge.block);
      operands.push_back(std::move(edge.args));
    }
    llvm::SmallVector<mlir::ValueRange> operand_ranges(operands.begin(), operands.end());
    VM::SwitchOp::create(rewriter, loc, index, default_edge.args, operand_ranges,
                         default_edge.block, dests);
    rewriter.eraseOp(op);
    return mlir::success();
  }

  // A compare chain: each case tests one value and falls to the next test.
  for (size_t k = 0; k < n; ++k) {
    const Edge hit = case_edge(k);
    const bool last = k + 1 == n;
    mlir::Block* next = last ? nullptr : new_block_after(current);
    const Edge miss = last ? default_edge : Edge{next, {}};
    if (bank == Bank::kI32) {
      // flag - c is zero exactly on a match: no constant register needed.
      mlir::Value diff = cases[k] == 0 ? flag : s.AddImm(Bank::kI32, flag, WrapNegate32(cases[k]));
      VM::CondBrOp::create(rewriter, loc, diff, miss.args, hit.args, miss.block, hit.block);
    } else {
      mlir::Value value = s.Constant(Bank::kI64, static_cast<uint64_t>(cases[k]));
      mlir::Value equal = s.Binary(Opcode::kCmpEqI64, Bank::kI32, flag, value);
      VM::CondBrOp::create(rewriter, loc, equal, hit.args, miss.args, hit.block, miss.block);
    }
    if (!last) {
      current = next;
      rewriter.setInsertionPointToEnd(next);
    }
  }
  rewriter.eraseOp(op);
  return mlir::success();
}

}  // namespace

void PopulateControlFlowToVMPatterns(const mlir::TypeConverter& converter,
                                     mlir::RewritePatternSet& patterns) {
  patterns.add<BranchLowering, CondBranchLowering, AssertLowering, SwitchLowering>(
      converter, patterns.getContext());
}

}  // namespace kiln::compiler
