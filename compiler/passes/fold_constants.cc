// FoldConstants: per function,
//   1. every arith.constant moves to the top of the entry block (which
//      dominates the whole body, scf regions included); equal constants are
//      merged into the first one, keeping its location;
//   2. ops whose operands are all constants are evaluated (constant_eval.h,
//      the VM's semantics) and replaced by a constant of the result, and
//      algebraic identities replace an op by one of its operands or by a
//      constant (x + 0, x * 1, x * 0, x & -1, x | 0, x ^ 0, shifts by 0,
//      x - x, x ^ x, x & x, x | x, select with a constant condition or equal arms, cmpi of a
//      value with itself, x / 1, x % 1), repeated until nothing changes
//      (a value may be used in a block listed before its definition's);
//   3. constants left without uses are removed.
// Float identities such as x + 0.0 are not applied: they are wrong for -0.0
// and NaN payloads.
#include <cstring>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "compiler/passes/constant_eval.h"
#include "compiler/passes/passes.h"

namespace kiln::compiler {
namespace {

// A key under which equal constants collide: type plus the exact bits (so
// 0.0 and -0.0 stay distinct, and Bool/Integer i1 attributes merge).
std::string ConstantKey(const Attribute& value, const Type& type) {
  std::string key = type.ToString();
  switch (value.kind) {
    case Attribute::Kind::kInteger:
    case Attribute::Kind::kBool:
      return key + "|i" + std::to_string(value.integer_value);
    case Attribute::Kind::kFloat: {
      uint64_t bits;
      std::memcpy(&bits, &value.float_value, 8);
      return key + "|f" + std::to_string(bits);
    }
    default:
      return key + "|a" + value.ToString();
  }
}

// The constants of one function, at the top of its entry block.
class ConstantPool {
 public:
  explicit ConstantPool(Block* entry) : entry_(entry) {}

  Value* Find(const std::string& key) const {
    auto it = values_.find(key);
    return it == values_.end() ? nullptr : it->second;
  }

  // Moves an existing constant op to the pool.
  void Adopt(std::unique_ptr<Operation> op, const std::string& key) {
    Operation* placed = entry_->Insert(next_++, std::move(op));
    values_.emplace(key, placed->result(0));
  }

  // The constant `value` (of its own type), created at `from`'s location when
  // the pool has none yet.
  Value* Get(const Attribute& value, const Operation& from) {
    std::string key = ConstantKey(value, value.type);
    if (Value* existing = Find(key)) return existing;
    OpBuilder builder(entry_, next_++);
    Value* created = builder.CreateConstant(from.loc, value);
    created->defining_op()->debug_loc = from.debug_loc;
    values_.emplace(std::move(key), created);
    return created;
  }

 private:
  Block* entry_;
  size_t next_ = 0;
  std::unordered_map<std::string, Value*> values_;
};

const Attribute* ConstantValueOf(const Value* v) {
  const Operation* def = v->defining_op();
  if (!def || def->kind() != OpKind::kConstant) return nullptr;
  return def->attribute("value");
}

bool IsIntConstant(const Attribute* a, const Type& type, int64_t value) {
  if (!a || !(a->kind == Attribute::Kind::kInteger || a->kind == Attribute::Kind::kBool) ||
      !type.is_integer_or_index()) {
    return false;
  }
  uint32_t w = type.integer_width();
  return SignExtend(a->integer_value, w) == SignExtend(value, w);
}

// What an op simplifies to: one of its operands, or a constant.
struct Simplified {
  Value* value = nullptr;
  Attribute constant;
  bool ok() const { return value || !constant.is_null(); }
};

Simplified Use(Value* v) { return {v, {}}; }
Simplified Constant(Attribute a) { return {nullptr, std::move(a)}; }

Attribute IntOfType(int64_t value, const Type& type) {
  if (type.is_integer(1)) return Attribute::Bool(value & 1);
  return Attribute::Integer(value, type);
}

// Algebraic identities of integer ops, select and cmpi.
Simplified SimplifyIdentity(Operation* op, const std::vector<const Attribute*>& c) {
  if (op->num_results() != 1) return {};
  const Type& type = op->result(0)->type;
  const size_t n = op->operands.size();
  if (op->kind() == OpKind::kSelect && n == 3) {
    if (c[0] && (c[0]->kind == Attribute::Kind::kInteger || c[0]->kind == Attribute::Kind::kBool)) {
      return Use(op->operands[c[0]->integer_value ? 1 : 2]);
    }
    if (op->operands[1] == op->operands[2]) return Use(op->operands[1]);
    return {};
  }
  if (op->kind() == OpKind::kCmpI && n == 2 && op->operands[0] == op->operands[1]) {
    const Attribute* p = op->attribute("predicate");
    if (!p || p->kind != Attribute::Kind::kInteger) return {};
    switch (static_cast<CmpIPredicate>(p->integer_value)) {
      case CmpIPredicate::kEq:
      case CmpIPredicate::kSle:
      case CmpIPredicate::kSge:
      case CmpIPredicate::kUle:
      case CmpIPredicate::kUge:
        return Constant(Attribute::Bool(true));
      case CmpIPredicate::kNe:
      case CmpIPredicate::kSlt:
      case CmpIPredicate::kSgt:
      case CmpIPredicate::kUlt:
      case CmpIPredicate::kUgt:
        return Constant(Attribute::Bool(false));
    }
    return {};
  }
  if (n != 2 || !type.is_integer_or_index()) return {};
  Value* lhs = op->operands[0];
  Value* rhs = op->operands[1];
  if (lhs->type != type || rhs->type != type) return {};
  auto is = [&](const Attribute* a, int64_t v) { return IsIntConstant(a, type, v); };
  const bool same = lhs == rhs;
  switch (op->kind()) {
    case OpKind::kAddI:
      if (is(c[1], 0)) return Use(lhs);
      if (is(c[0], 0)) return Use(rhs);
      return {};
    case OpKind::kSubI:
      if (is(c[1], 0)) return Use(lhs);
      if (same) return Constant(IntOfType(0, type));
      return {};
    case OpKind::kMulI:
      if (is(c[1], 1)) return Use(lhs);
      if (is(c[0], 1)) return Use(rhs);
      if (is(c[0], 0) || is(c[1], 0)) return Constant(IntOfType(0, type));
      return {};
    case OpKind::kAndI:
      if (is(c[1], -1)) return Use(lhs);
      if (is(c[0], -1)) return Use(rhs);
      if (is(c[0], 0) || is(c[1], 0)) return Constant(IntOfType(0, type));
      if (same) return Use(lhs);
      return {};
    case OpKind::kOrI:
      if (is(c[1], 0)) return Use(lhs);
      if (is(c[0], 0)) return Use(rhs);
      if (is(c[0], -1) || is(c[1], -1)) return Constant(IntOfType(-1, type));
      if (same) return Use(lhs);
      return {};
    case OpKind::kXOrI:
      if (is(c[1], 0)) return Use(lhs);
      if (is(c[0], 0)) return Use(rhs);
      if (same) return Constant(IntOfType(0, type));
      return {};
    case OpKind::kShLI:
    case OpKind::kShRSI:
    case OpKind::kShRUI:
      // Amounts are taken modulo the register width (constant_eval.h).
      if (c[1] && ConstantShiftAmount(*c[1], type) == 0) return Use(lhs);
      if (is(c[0], 0)) return Constant(IntOfType(0, type));
      return {};
    case OpKind::kDivSI:
    case OpKind::kDivUI:
      if (is(c[1], 1)) return Use(lhs);
      return {};
    case OpKind::kRemSI:
    case OpKind::kRemUI:
      if (is(c[1], 1)) return Constant(IntOfType(0, type));
      return {};
    case OpKind::kMaxSI:
    case OpKind::kMinSI:
    case OpKind::kMaxUI:
    case OpKind::kMinUI:
      if (same) return Use(lhs);
      return {};
    default:
      return {};
  }
}

void FoldFunction(Operation* func) {
  Region* body = func->region(0);
  Block* entry = body->front();
  ConstantPool pool(entry);

  // 1. Hoist and merge the constants, in textual order (the first one wins).
  std::vector<Operation*> constants;
  Walk(func, [&](Operation* op) {
    if (op->kind() == OpKind::kConstant && op->num_results() == 1 && op->operands.empty() &&
        op->num_regions() == 0 && op->attribute("value")) {
      constants.push_back(op);
    }
  });
  std::unordered_map<Value*, Value*> replaced;
  std::unordered_set<Operation*> erased;
  for (Operation* op : constants) {
    std::string key = ConstantKey(*op->attribute("value"), op->result(0)->type);
    if (Value* existing = pool.Find(key)) {
      replaced[op->result(0)] = existing;
      erased.insert(op);
      continue;
    }
    Block* block = op->parent_block();
    pool.Adopt(block->Take(block->IndexOf(op)), key);
  }

  auto resolve = [&](Value* v) { return FollowReplacements(replaced, v); };
  // Rewrites every operand through `replaced`, then erases the dead ops. After
  // this no live op refers to a replaced value, so the map can be cleared
  // before the erased values' memory is reused.
  auto apply = [&] {
    ReplaceUses(func, replaced);
    replaced.clear();
    if (erased.empty()) return;
    Walk(func, [&](Operation* op) {
      for (size_t r = 0; r < op->num_regions(); ++r) {
        for (const auto& block : op->region(r)->blocks()) {
          block->EraseIf([&](Operation* o) { return erased.count(o) != 0; });
        }
      }
    });
    erased.clear();
  };
  apply();

  // 2. Fold and simplify to a fixed point.
  for (bool changed = true; changed;) {
    changed = false;
    std::vector<Operation*> ops;
    Walk(func, [&](Operation* op) {
      if (op != func && op->kind() != OpKind::kConstant) ops.push_back(op);
    });
    for (Operation* op : ops) {
      for (Value*& v : op->operands) v = resolve(v);
      if (op->num_results() != 1 || op->num_regions() != 0 || !op->successors.empty()) continue;
      std::vector<const Attribute*> values;
      bool all_constant = true;
      for (Value* v : op->operands) {
        values.push_back(ConstantValueOf(v));
        all_constant = all_constant && values.back();
      }
      Simplified result;
      if (all_constant && !op->operands.empty()) {
        Attribute folded = EvaluateConstantOp(*op, values);
        if (!folded.is_null() && folded.type == op->result(0)->type) {
          result = Constant(std::move(folded));
        }
      }
      if (!result.ok()) result = SimplifyIdentity(op, values);
      if (!result.ok()) continue;
      Value* replacement = result.value ? result.value : pool.Get(result.constant, *op);
      if (replacement->type != op->result(0)->type) continue;
      replaced[op->result(0)] = replacement;
      erased.insert(op);
      changed = true;
    }
    apply();
  }

  // 3. Constants nothing uses any more (inputs of folded ops).
  std::unordered_map<const Value*, uint32_t> uses = CountUses(func);
  entry->EraseIf([&](Operation* op) {
    return op->kind() == OpKind::kConstant && op->num_results() == 1 &&
           uses.count(op->result(0)) == 0;
  });
}

}  // namespace

void FoldConstants(Operation* module) {
  if (module->num_regions() == 0 || module->region(0)->empty()) return;
  for (const auto& op : module->region(0)->front()->operations()) {
    if (op->kind() != OpKind::kFunc || op->num_regions() != 1 || op->region(0)->empty()) {
      continue;
    }
    FoldFunction(op.get());
  }
}

}  // namespace kiln::compiler
