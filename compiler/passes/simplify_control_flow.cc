// SimplifyControlFlow: per region of every function (and, before lowering, of
// every scf op), repeated until nothing changes:
//   1. constant branches: cf.cond_br on a constant condition (an
//      arith.constant, or an op of constants such as the `cmpi slt %c0, %c8`
//      a lowered scf.for starts with) and cf.switch on a constant flag become
//      cf.br; a cf.cond_br (or cf.switch) whose destinations are all the same
//      block with the same arguments too;
//   2. forwarded returns (function bodies): `cf.br ^b(%v...)` to a block that
//      holds only `func.return` of its arguments and/or values dominating the
//      branch becomes that return, so an scf.if yielding into a return
//      returns directly on each path;
//   3. blocks unreachable from the entry block are removed;
//   4. a block whose only predecessor ends in a cf.br to it is merged into
//      that predecessor (its arguments replaced by the branch's values).
// New ops take the location (loc and debug_loc) of the op they replace; a
// forwarded return keeps the return's.
#include <algorithm>
#include <memory>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "compiler/passes/constant_eval.h"
#include "compiler/passes/dominance.h"
#include "compiler/passes/passes.h"

namespace kiln::compiler {
namespace {

// The integer value of `v` when it is known at compile time.
std::optional<int64_t> ConstantIntOf(const Value* v) {
  const Operation* def = v->defining_op();
  if (!def || def->num_results() != 1) return std::nullopt;
  const Attribute* value = nullptr;
  Attribute evaluated;
  if (def->kind() == OpKind::kConstant) {
    value = def->attribute("value");
  } else if (def->HasTrait(kOpPure) && !def->operands.empty()) {
    std::vector<const Attribute*> operands;
    for (const Value* operand : def->operands) {
      const Operation* c = operand->defining_op();
      if (!c || c->kind() != OpKind::kConstant || !c->attribute("value")) return std::nullopt;
      operands.push_back(c->attribute("value"));
    }
    evaluated = EvaluateConstantOp(*def, operands);
    value = &evaluated;
  }
  if (!value ||
      (value->kind != Attribute::Kind::kInteger && value->kind != Attribute::Kind::kBool)) {
    return std::nullopt;
  }
  return value->integer_value;
}

bool SameSuccessor(const Successor& a, const Successor& b) {
  return a.block == b.block && a.arguments == b.arguments;
}

// Replaces `block`'s terminator by `cf.br` to `target`, at its location.
void ReplaceWithBranch(Block* block, Successor target) {
  std::unique_ptr<Operation> old = block->Take(block->operations().size() - 1);
  std::unique_ptr<Operation> br = Operation::Create(OpKind::kBr, old->loc);
  br->debug_loc = old->debug_loc;
  br->successors.push_back(std::move(target));
  block->Append(std::move(br));
}

// The successor a cf.switch with flag value `flag` takes.
std::optional<size_t> SwitchTarget(const Operation* op, int64_t flag) {
  const uint32_t width = op->operands[0]->type.integer_width();
  const Attribute* cases = op->attribute("case_values");
  if (!cases) return 0;
  for (size_t i = 0; i < cases->elements.size(); ++i) {
    if (SignExtend(cases->elements[i].integer_value, width) == SignExtend(flag, width)) {
      if (i + 1 >= op->successors.size()) return std::nullopt;
      return i + 1;
    }
  }
  return 0;
}

bool FoldConstantBranches(Region* region) {
  bool changed = false;
  for (const auto& block : region->blocks()) {
    Operation* term = block->terminator();
    if (!term) continue;
    if (term->kind() == OpKind::kCondBr && term->operands.size() == 1 &&
        term->successors.size() == 2) {
      if (std::optional<int64_t> c = ConstantIntOf(term->operands[0])) {
        ReplaceWithBranch(block.get(), term->successors[*c & 1 ? 0 : 1]);
        changed = true;
      } else if (SameSuccessor(term->successors[0], term->successors[1])) {
        ReplaceWithBranch(block.get(), term->successors[0]);
        changed = true;
      }
    } else if (term->kind() == OpKind::kSwitch && term->operands.size() == 1 &&
               !term->successors.empty()) {
      std::optional<size_t> target;
      if (std::optional<int64_t> c = ConstantIntOf(term->operands[0])) {
        target = SwitchTarget(term, *c);
      } else if (std::all_of(
                     term->successors.begin(), term->successors.end(),
                     [&](const Successor& s) { return SameSuccessor(s, term->successors[0]); })) {
        target = 0;
      }
      if (target) {
        ReplaceWithBranch(block.get(), term->successors[*target]);
        changed = true;
      }
    }
  }
  return changed;
}

// `cf.br ^b(args)` where ^b is just `func.return` → that return.
bool ForwardReturns(Region* region) {
  DominanceInfo dom(*region);
  bool changed = false;
  for (const auto& block : region->blocks()) {
    Block* pred = block.get();
    Operation* br = pred->terminator();
    if (!br || br->kind() != OpKind::kBr || br->successors.size() != 1) continue;
    Block* dest = br->successors[0].block;
    if (dest == pred || dest->operations().size() != 1 ||
        dest->operations()[0]->kind() != OpKind::kReturn ||
        br->successors[0].arguments.size() != dest->num_arguments()) {
      continue;
    }
    const Operation* ret = dest->operations()[0].get();
    std::vector<Value*> values;
    bool ok = true;
    for (Value* v : ret->operands) {
      if (v->owner_block() == dest) {
        values.push_back(br->successors[0].arguments[v->index()]);
        continue;
      }
      // A value of another block must dominate the branch (the verifier's
      // rule, as the new return uses it there).
      const Block* def = v->parent_block();
      if (!def || def->parent_region() != region || !(def == pred || dom.Dominates(def, pred))) {
        ok = false;
        break;
      }
      values.push_back(v);
    }
    if (!ok) continue;
    std::unique_ptr<Operation> forwarded = Operation::Create(OpKind::kReturn, ret->loc);
    forwarded->debug_loc = ret->debug_loc;
    forwarded->operands = std::move(values);
    pred->Take(pred->operations().size() - 1);
    pred->Append(std::move(forwarded));
    changed = true;
  }
  return changed;
}

bool RemoveUnreachableBlocks(Region* region) {
  DominanceInfo dom(*region);
  const size_t before = region->num_blocks();
  region->EraseBlocksIf([&](Block* b) { return !dom.IsReachable(b); });
  return region->num_blocks() != before;
}

bool MergeBlocks(Region* region) {
  std::unordered_map<const Block*, size_t> predecessors;
  for (const auto& block : region->blocks()) {
    for (const auto& op : block->operations()) {
      for (const Successor& s : op->successors) ++predecessors[s.block];
    }
  }
  std::unordered_map<Value*, Value*> replaced;
  // Merged blocks stay (empty) until the replacements of their arguments are
  // applied, then go all at once (one erase per merge would be quadratic).
  std::unordered_set<const Block*> merged;
  for (size_t i = 0; i < region->num_blocks(); ++i) {
    Block* pred = region->block(i);
    for (;;) {
      Operation* br = pred->terminator();
      if (!br || br->kind() != OpKind::kBr || br->successors.size() != 1) break;
      Block* succ = br->successors[0].block;
      if (succ == pred || succ == region->front() || succ->parent_region() != region ||
          predecessors[succ] != 1 || br->successors[0].arguments.size() != succ->num_arguments()) {
        break;
      }
      for (size_t a = 0; a < succ->num_arguments(); ++a) {
        replaced[succ->argument(a)] = br->successors[0].arguments[a];
      }
      pred->Take(pred->operations().size() - 1);
      succ->MoveTail(0, pred);
      merged.insert(succ);
    }
  }
  if (merged.empty()) return false;
  // Apply the replacements to the region (and everything nested in it).
  for (const auto& block : region->blocks()) {
    for (const auto& op : block->operations()) ReplaceUses(op.get(), replaced);
  }
  region->EraseBlocksIf([&](Block* b) { return merged.count(b) != 0; });
  return true;
}

void SimplifyRegion(Region* region, bool function_body) {
  if (region->empty()) return;
  for (bool changed = true; changed;) {
    changed = FoldConstantBranches(region);
    if (function_body) changed |= ForwardReturns(region);
    changed |= RemoveUnreachableBlocks(region);
    changed |= MergeBlocks(region);
  }
}

}  // namespace

void SimplifyControlFlow(Operation* module) {
  if (module->num_regions() == 0 || module->region(0)->empty()) return;
  for (const auto& top : module->region(0)->front()->operations()) {
    if (top->kind() != OpKind::kFunc) continue;
    // Inner regions first: their blocks cannot affect the outer CFG.
    WalkPostOrder(top.get(), [&](Operation* op) {
      if (op->kind() != OpKind::kIf && op->kind() != OpKind::kFor && op->kind() != OpKind::kWhile &&
          op->kind() != OpKind::kFunc) {
        return;
      }
      for (size_t r = 0; r < op->num_regions(); ++r) {
        SimplifyRegion(op->region(r), op->kind() == OpKind::kFunc);
      }
    });
  }
}

}  // namespace kiln::compiler
