// LowerStructuredControlFlow: scf.if/for/while into blocks and cf branches.
//
// The block shapes are a contract with codegen (which pattern-matches the
// loop latch onto the VM's for.step instruction):
//
//   scf.if %c → ^B: ... cf.cond_br %c, ^then, ^else   (^merge when no else)
//               ^then...: each scf.yield %v → cf.br ^merge(%v)
//               ^else...: likewise
//               ^merge(%r: R...): the if's results; the ops after the if.
//
//   scf.for %i = %lb to %ub step %s iter_args(%a = %init), a rotated loop:
//               ^B:   ... %entered = arith.cmpi slt, %lb, %ub : T
//                         cf.cond_br %entered, ^body(%lb, %init...), ^exit(%init...)
//               ^body(%i: T, %a...): the body's blocks; each scf.yield %y becomes
//                         %next = arith.addi %i, %s : T
//                         %more = arith.cmpi slt, %next, %ub : T
//                         cf.cond_br %more, ^body(%next, %y...), ^exit(%y...)
//               ^exit(%r...): the for's results; the ops after the for.
//             (ult instead of slt when the for has the `unsignedCmp` attribute.)
//
//   scf.while → ^B:   ... cf.br ^before(%init...)
//               ^before(...): each scf.condition(%c) %f... →
//                         cf.cond_br %c, ^after(%f...), ^exit(%f...)
//               ^after(...): each scf.yield %y... → cf.br ^before(%y...)
//               ^exit(%r...): the while's results; the ops after the while.
//
// The new blocks are placed right after ^B in the order above, so straight-line
// layout follows the source. Lowering goes outermost first: the blocks of a
// lowered op's regions join the function body, and the scan of the body's
// blocks then reaches the scf ops nested in them. Each created op takes the
// location (loc and debug_loc) of the scf op, yield or condition it came from.
#include <functional>
#include <memory>
#include <unordered_map>

#include "compiler/passes/passes.h"

namespace kiln::compiler {
namespace {

class Lowering {
 public:
  explicit Lowering(DiagnosticEngine& diagnostics) : diagnostics_(diagnostics) {}

  // Lowers every scf op in `func`'s body.
  bool LowerFunction(Operation* func);

 private:
  // Each lowers the scf op at `index` of `block`; false after reporting.
  bool LowerIf(Block* block, size_t index);
  bool LowerFor(Block* block, size_t index);
  bool LowerWhile(Block* block, size_t index);

  // Moves the ops after `index` of `block` into a new block inserted after
  // `block`, with arguments for the results of the op at `index`, which are
  // mapped to them.
  Block* SplitAfter(Block* block, size_t index);
  // Moves the blocks of `region` into `block`'s region right before `before`.
  static std::vector<Block*> InlineRegion(Region* region, Block* before);
  // Replaces the scf.yield/scf.condition terminator of `block` (if it has one)
  // with the ops `make` creates at the end of `block`.
  static void ReplaceTerminator(Block* block, OpKind kind,
                                const std::function<void(OpBuilder&, Operation&)>& make);

  Operation* Create(OpBuilder& b, const Operation& origin, OpKind kind,
                    std::vector<Value*> operands = {}, std::vector<Type> results = {},
                    std::vector<NamedAttribute> attributes = {}) {
    Operation* op =
        b.Create(kind, origin.loc, std::move(operands), std::move(results), std::move(attributes));
    op->debug_loc = origin.debug_loc;
    return op;
  }
  static Operation* Branch(OpBuilder& b, const Operation& origin, Block* dest,
                           std::vector<Value*> args) {
    Operation* op = b.Create(OpKind::kBr, origin.loc);
    op->debug_loc = origin.debug_loc;
    op->successors.push_back({dest, std::move(args)});
    return op;
  }
  static Operation* CondBranch(OpBuilder& b, const Operation& origin, Value* cond, Block* t,
                               std::vector<Value*> t_args, Block* f, std::vector<Value*> f_args) {
    Operation* op = b.Create(OpKind::kCondBr, origin.loc, {cond});
    op->debug_loc = origin.debug_loc;
    op->successors.push_back({t, std::move(t_args)});
    op->successors.push_back({f, std::move(f_args)});
    return op;
  }

  bool Fail(const Operation& op, const std::string& message) {
    diagnostics_.Error(op.loc, "'" + std::string(op.name()) + "' op cannot be lowered: " + message);
    return false;
  }

  DiagnosticEngine& diagnostics_;
  // Results of lowered ops → the block arguments that replace them, applied
  // to the whole function at the end (one walk instead of one per op).
  std::unordered_map<Value*, Value*> replaced_;
  // Lowered ops stay alive until the replacements are applied, so no new
  // Value can be allocated at the address of a replaced one.
  std::vector<std::unique_ptr<Operation>> graveyard_;
};

Block* Lowering::SplitAfter(Block* block, size_t index) {
  Region* region = block->parent_region();
  Operation* op = block->operations()[index].get();
  auto tail = std::make_unique<Block>();
  tail->loc = op->loc;
  for (size_t i = 0; i < op->num_results(); ++i) {
    Value* result = op->result(i);
    replaced_[result] = tail->AddArgument(result->type, op->loc, result->name);
  }
  Block* inserted = region->InsertBlock(region->IndexOf(block) + 1, std::move(tail));
  block->MoveTail(index + 1, inserted);
  return inserted;
}

std::vector<Block*> Lowering::InlineRegion(Region* region, Block* before) {
  Region* target = before->parent_region();
  std::vector<Block*> moved;
  while (!region->empty()) {
    moved.push_back(target->InsertBlock(target->IndexOf(before), region->TakeBlock(0)));
  }
  return moved;
}

void Lowering::ReplaceTerminator(Block* block, OpKind kind,
                                 const std::function<void(OpBuilder&, Operation&)>& make) {
  if (block->empty() || block->operations().back()->kind() != kind) return;
  std::unique_ptr<Operation> terminator = block->Take(block->operations().size() - 1);
  OpBuilder b(block);
  make(b, *terminator);
  // The terminator's operands are now used by the new ops; the terminator
  // itself owns no values, so it can go.
}

bool Lowering::LowerIf(Block* block, size_t index) {
  Operation* op = block->operations()[index].get();
  if (op->operands.size() != 1 || op->num_regions() != 2 || op->region(0)->empty() ||
      (op->region(1)->empty() && op->num_results() != 0)) {
    return Fail(*op, "malformed scf.if (run the verifier first)");
  }
  Block* merge = SplitAfter(block, index);
  std::vector<Block*> then_blocks = InlineRegion(op->region(0), merge);
  std::vector<Block*> else_blocks = InlineRegion(op->region(1), merge);
  for (Block* b : then_blocks) {
    ReplaceTerminator(b, OpKind::kYield, [&](OpBuilder& builder, Operation& yield) {
      Branch(builder, yield, merge, yield.operands);
    });
  }
  for (Block* b : else_blocks) {
    ReplaceTerminator(b, OpKind::kYield, [&](OpBuilder& builder, Operation& yield) {
      Branch(builder, yield, merge, yield.operands);
    });
  }
  graveyard_.push_back(block->Take(index));
  OpBuilder b(block);
  CondBranch(b, *op, op->operands[0], then_blocks.front(), {},
             else_blocks.empty() ? merge : else_blocks.front(), {});
  return true;
}

bool Lowering::LowerFor(Block* block, size_t index) {
  Operation* op = block->operations()[index].get();
  if (op->operands.size() < 3 || op->num_regions() != 1 || op->region(0)->empty() ||
      op->region(0)->front()->num_arguments() != op->operands.size() - 2 ||
      op->num_results() != op->operands.size() - 3) {
    return Fail(*op, "malformed scf.for (run the verifier first)");
  }
  Value* lb = op->operands[0];
  Value* ub = op->operands[1];
  Value* step = op->operands[2];
  std::vector<Value*> inits(op->operands.begin() + 3, op->operands.end());
  const Type iv_type = lb->type;
  const auto predicate = static_cast<int64_t>(op->attribute("unsignedCmp") ? CmpIPredicate::kUlt
                                                                           : CmpIPredicate::kSlt);
  auto compare = [&](OpBuilder& b, const Operation& origin, Value* lhs) {
    return Create(b, origin, OpKind::kCmpI, {lhs, ub}, {Type::I1()},
                  {{"predicate", Attribute::Integer(predicate, Type::I64())}})
        ->result(0);
  };

  Block* exit = SplitAfter(block, index);
  std::vector<Block*> body_blocks = InlineRegion(op->region(0), exit);
  Block* body = body_blocks.front();
  Value* iv = body->argument(0);
  for (Block* b : body_blocks) {
    ReplaceTerminator(b, OpKind::kYield, [&](OpBuilder& builder, Operation& yield) {
      Value* next = Create(builder, yield, OpKind::kAddI, {iv, step}, {iv_type})->result(0);
      Value* more = compare(builder, yield, next);
      std::vector<Value*> loop_args = {next};
      loop_args.insert(loop_args.end(), yield.operands.begin(), yield.operands.end());
      CondBranch(builder, yield, more, body, std::move(loop_args), exit, yield.operands);
    });
  }

  graveyard_.push_back(block->Take(index));
  OpBuilder b(block);
  Value* entered = compare(b, *op, lb);
  std::vector<Value*> body_args = {lb};
  body_args.insert(body_args.end(), inits.begin(), inits.end());
  CondBranch(b, *op, entered, body, std::move(body_args), exit, inits);
  return true;
}

bool Lowering::LowerWhile(Block* block, size_t index) {
  Operation* op = block->operations()[index].get();
  if (op->num_regions() != 2 || op->region(0)->empty() || op->region(1)->empty()) {
    return Fail(*op, "malformed scf.while (run the verifier first)");
  }
  Block* exit = SplitAfter(block, index);
  std::vector<Block*> before_blocks = InlineRegion(op->region(0), exit);
  std::vector<Block*> after_blocks = InlineRegion(op->region(1), exit);
  Block* before = before_blocks.front();
  Block* after = after_blocks.front();
  for (Block* b : before_blocks) {
    ReplaceTerminator(b, OpKind::kCondition, [&](OpBuilder& builder, Operation& condition) {
      std::vector<Value*> forwarded(condition.operands.begin() + 1, condition.operands.end());
      CondBranch(builder, condition, condition.operands[0], after, forwarded, exit, forwarded);
    });
  }
  for (Block* b : after_blocks) {
    ReplaceTerminator(b, OpKind::kYield, [&](OpBuilder& builder, Operation& yield) {
      Branch(builder, yield, before, yield.operands);
    });
  }
  graveyard_.push_back(block->Take(index));
  OpBuilder b(block);
  Branch(b, *op, before, op->operands);
  return true;
}

bool Lowering::LowerFunction(Operation* func) {
  Region* body = func->region(0);
  bool ok = true;
  // The block list grows as regions are inlined: index loops on purpose.
  for (size_t bi = 0; bi < body->num_blocks(); ++bi) {
    Block* block = body->block(bi);
    for (size_t i = 0; i < block->operations().size(); ++i) {
      const OpKind kind = block->operations()[i]->kind();
      bool lowered = false;
      if (kind == OpKind::kIf) {
        lowered = LowerIf(block, i);
      } else if (kind == OpKind::kFor) {
        lowered = LowerFor(block, i);
      } else if (kind == OpKind::kWhile) {
        lowered = LowerWhile(block, i);
      } else {
        continue;
      }
      if (!lowered) {
        ok = false;
        continue;
      }
      // The block now ends with the new branch; the rest moved to a later block.
      break;
    }
  }
  ReplaceUses(func, replaced_);
  replaced_.clear();
  graveyard_.clear();
  return ok;
}

}  // namespace

Status LowerStructuredControlFlow(Operation* module, DiagnosticEngine& diagnostics) {
  if (module->num_regions() == 0 || module->region(0)->empty()) return OkStatus();
  const size_t errors_before = diagnostics.error_count();
  for (const auto& op : module->region(0)->front()->operations()) {
    if (op->kind() != OpKind::kFunc || op->num_regions() != 1 || op->region(0)->empty()) {
      continue;
    }
    Lowering lowering(diagnostics);
    lowering.LowerFunction(op.get());
  }
  if (diagnostics.error_count() == errors_before) return OkStatus();
  return diagnostics.ToStatus();
}

}  // namespace kiln::compiler
