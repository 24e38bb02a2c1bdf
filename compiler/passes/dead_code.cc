// EliminateDeadCode:
//  - pure ops (kOpPure) none of whose results is used are removed; removing
//    one may leave its operands' definitions unused, so a worklist carries
//    the removal to a fixed point in one pass over the uses;
//  - private functions that nothing refers to are removed. A function is
//    live when it is public or referred to (by a func.call's callee or any
//    other symbol-reference attribute) from a live function or from any other
//    module-level op; so private functions calling only each other go too.
//    A function marked `kiln.initializer` (run when a context is created)
//    is live.
//    Globals and other module-level ops are kept.
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "compiler/passes/passes.h"

namespace kiln::compiler {
namespace {

void RemoveDeadPureOps(Operation* module) {
  std::unordered_map<const Value*, uint32_t> uses = CountUses(module);
  std::unordered_set<Operation*> dead;
  std::vector<Operation*> worklist;
  auto is_dead = [&](Operation* op) {
    if (!op->HasTrait(kOpPure) || op->num_results() == 0 || dead.count(op)) return false;
    for (size_t i = 0; i < op->num_results(); ++i) {
      auto it = uses.find(op->result(i));
      if (it != uses.end() && it->second != 0) return false;
    }
    return true;
  };
  Walk(module, [&](Operation* op) {
    if (is_dead(op)) {
      dead.insert(op);
      worklist.push_back(op);
    }
  });
  while (!worklist.empty()) {
    Operation* op = worklist.back();
    worklist.pop_back();
    for (Value* v : op->operands) {
      auto it = uses.find(v);
      if (it != uses.end() && it->second > 0) --it->second;
      Operation* def = v->defining_op();
      if (def && is_dead(def)) {
        dead.insert(def);
        worklist.push_back(def);
      }
    }
  }
  if (dead.empty()) return;
  Walk(module, [&](Operation* op) {
    for (size_t r = 0; r < op->num_regions(); ++r) {
      for (const auto& block : op->region(r)->blocks()) {
        block->EraseIf([&](Operation* o) { return dead.count(o) != 0; });
      }
    }
  });
}

// Adds the names of every symbol reference in `a` (nested ones included).
void CollectSymbolRefs(const Attribute& a, std::vector<std::string>& out) {
  if (a.kind == Attribute::Kind::kSymbolRef && !a.symbols.empty()) out.push_back(a.symbols[0]);
  for (const Attribute& e : a.elements) CollectSymbolRefs(e, out);
  for (const NamedAttribute& e : a.entries) CollectSymbolRefs(e.value, out);
}

std::vector<std::string> SymbolRefsIn(Operation* root) {
  std::vector<std::string> refs;
  Walk(root, [&](Operation* op) {
    for (const NamedAttribute& a : op->attributes) CollectSymbolRefs(a.value, refs);
  });
  return refs;
}

bool IsPrivate(const Operation* op) {
  const Attribute* v = op->attribute("sym_visibility");
  return v && v->kind == Attribute::Kind::kString && v->text == "private";
}

void RemoveUnusedPrivateFunctions(Operation* module) {
  Block* body = module->region(0)->front();
  std::unordered_map<std::string, Operation*> functions;
  for (const auto& op : body->operations()) {
    if (op->kind() == OpKind::kFunc && !op->symbol_name().empty()) {
      functions.emplace(std::string(op->symbol_name()), op.get());
    }
  }
  std::unordered_set<Operation*> live;
  std::vector<Operation*> worklist;
  auto mark = [&](const std::string& name) {
    auto it = functions.find(name);
    if (it != functions.end() && live.insert(it->second).second) worklist.push_back(it->second);
  };
  for (const auto& op : body->operations()) {
    if (op->kind() == OpKind::kFunc) {
      // Public functions and module initializers (run when a context is
      // created) are the roots.
      if (!IsPrivate(op.get()) || op->symbol_name().empty() ||
          op->attribute("kiln.initializer")) {
        live.insert(op.get());
        worklist.push_back(op.get());
      }
    } else {
      for (const std::string& name : SymbolRefsIn(op.get())) mark(name);
    }
  }
  while (!worklist.empty()) {
    Operation* func = worklist.back();
    worklist.pop_back();
    for (const std::string& name : SymbolRefsIn(func)) mark(name);
  }
  body->EraseIf([&](Operation* op) { return op->kind() == OpKind::kFunc && !live.count(op); });
}

}  // namespace

void EliminateDeadCode(Operation* module) {
  if (module->num_regions() == 0 || module->region(0)->empty()) return;
  RemoveDeadPureOps(module);
  RemoveUnusedPrivateFunctions(module);
}

}  // namespace kiln::compiler
