// VerifyModule: the semantic checks every later stage relies on.
//
// Per op, in this order, stopping at the first problem (one error per op is
// enough; the rest of the function and every other function are still
// checked so users see several errors at once):
//   1. placement: where the op may appear (module level, function body, the
//      right scf region) and terminators only at the end of a block;
//   2. shape: operand/result/successor/region counts, required attributes
//      and their kinds, the typing rules of ir/ops.h, symbol references;
//   3. SSA dominance of every operand and successor argument.
// Blocks of function bodies and scf regions must end in a terminator.
//
// Messages follow MLIR's (`'arith.addi' op expected 2 operands, got 3`) except
// the ones about names, which read as sentences (`unknown callee '@g'`).
// Nothing here may crash on IR the parser can build: every access is guarded.
#include <algorithm>
#include <memory>
#include <string>
#include <unordered_map>

#include "compiler/parser/affine_map.h"
#include "compiler/parser/hal_attributes.h"
#include "compiler/passes/dispatch_shape.h"
#include "compiler/passes/dominance.h"
#include "compiler/passes/passes.h"

namespace kiln::compiler {
namespace {

std::string Plural(size_t n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

std::string Quoted(const Type& type) { return "'" + type.ToString() + "'"; }

std::string TypeList(const std::vector<Type>& types) { return "(" + FormatTypes(types) + ")"; }

// "^bb1" for a labelled block, "^bb<index>" for one without a label.
std::string BlockName(const Block* block) {
  if (!block->label.empty()) return "^" + block->label;
  const Region* region = block->parent_region();
  size_t index = region ? region->IndexOf(block) : 0;
  return "^bb" + std::to_string(index);
}

bool IsFlatSymbolRef(const Attribute* a) {
  return a && a->kind == Attribute::Kind::kSymbolRef && a->symbols.size() == 1;
}

bool IsIntegerAttr(const Attribute& a) {
  return a.kind == Attribute::Kind::kInteger || a.kind == Attribute::Kind::kBool;
}

// Whether `value` is a valid constant of `type` (arith.constant's value,
// util.global's initial_value).
bool AttributeMatchesType(const Attribute& value, const Type& type) {
  if (type.is_integer_or_index()) return IsIntegerAttr(value) && value.type == type;
  if (type.is_float()) return value.kind == Attribute::Kind::kFloat && value.type == type;
  // Tensors and dialect types take dense<...> / dialect attributes, which
  // lowering interprets (or rejects) later.
  if (type.is_tensor() || type.is_dialect()) {
    return value.kind == Attribute::Kind::kDialect || value.kind == Attribute::Kind::kArray ||
           value.kind == Attribute::Kind::kDenseArray;
  }
  return false;
}

class Verifier {
 public:
  Verifier(Operation* module, DiagnosticEngine& diagnostics)
      : module_(module), diagnostics_(diagnostics) {}

  void Run();

 private:
  // Reports "'<op name>' op <message>" at the op.
  void OpError(const Operation* op, const std::string& message) {
    diagnostics_.Error(op->loc, "'" + std::string(op->name()) + "' op " + message);
  }

  void VerifyTopLevelOp(Operation* op);
  void VerifyNestedOp(Operation* op);
  void VerifyRegion(Operation* parent, Region* region);

  bool VerifyPlacement(Operation* op);
  bool VerifyShape(Operation* op);
  bool VerifyDominance(Operation* op);

  // Shape helpers; each reports and returns false on failure.
  bool ExpectCounts(Operation* op, size_t operands, size_t results, size_t successors,
                    size_t regions, bool variadic_operands = false, bool variadic_results = false);
  const Attribute* RequireAttr(Operation* op, std::string_view name, Attribute::Kind kind,
                               const char* what);
  bool ExpectOperandKind(Operation* op, size_t index, bool (*pred)(const Type&), const char* what);
  bool ExpectSameTypes(Operation* op);
  bool ExpectI1(Operation* op, const Type& type, const std::string& what);
  bool VerifySymbolVisibility(Operation* op);
  bool VerifySuccessors(Operation* op);

  bool VerifyFunc(Operation* op);
  bool VerifyReturn(Operation* op);
  bool VerifyCall(Operation* op);
  bool VerifyConstant(Operation* op);
  bool VerifyCast(Operation* op);
  bool VerifyIf(Operation* op);
  bool VerifyFor(Operation* op);
  bool VerifyWhile(Operation* op);
  bool VerifyYield(Operation* op);
  bool VerifyCondition(Operation* op);
  bool VerifySwitch(Operation* op);
  bool VerifyGlobal(Operation* op);
  bool VerifyGlobalAccess(Operation* op);
  bool VerifyExecutableSource(Operation* op);
  bool VerifyExecutableExport(Operation* op);
  bool VerifyHalReturn(Operation* op);
  bool VerifyAffineApply(Operation* op);
  bool VerifyDispatch(Operation* op);
  bool VerifyTensorDim(Operation* op);
  bool VerifyTensorEmpty(Operation* op);
  bool VerifyRodata(Operation* op);
  bool VerifyConstRef(Operation* op);
  bool VerifyRefIsNull(Operation* op);

  const DominanceInfo& DominanceOf(const Region* region) {
    auto& info = dominance_[region];
    if (!info) info = std::make_unique<DominanceInfo>(*region);
    return *info;
  }

  // The index of `op` in its block, from a table built once per block (a
  // linear search per use would be quadratic in long blocks).
  size_t PositionOf(const Operation* op) {
    auto it = positions_.find(op);
    if (it != positions_.end()) return it->second;
    const Block* block = op->parent_block();
    for (size_t i = 0; i < block->operations().size(); ++i) {
      positions_[block->operations()[i].get()] = i;
    }
    return positions_.at(op);
  }

  Operation* module_;
  DiagnosticEngine& diagnostics_;
  std::unordered_map<std::string, Operation*> symbols_;
  // Per top-level op (a function's regions), cleared between them.
  std::unordered_map<const Region*, std::unique_ptr<DominanceInfo>> dominance_;
  std::unordered_map<const Operation*, size_t> positions_;
};

bool IsIntOrIndex(const Type& t) { return t.is_integer_or_index(); }
bool IsFloat(const Type& t) { return t.is_float(); }
bool IsIndex(const Type& t) { return t.is_index(); }
bool IsTensor(const Type& t) { return t.is_tensor(); }
bool IsIndexValue(const Value* v) { return v->type.is_index(); }

void Verifier::Run() {
  if (module_->kind() != OpKind::kModule) {
    OpError(module_, "expected a 'builtin.module' at the top level");
    return;
  }
  if (!ExpectCounts(module_, 0, 0, 0, 1)) return;
  if (const Attribute* name = module_->attribute("sym_name");
      name && name->kind != Attribute::Kind::kString) {
    OpError(module_, "attribute 'sym_name' must be a string");
  }
  Region* body = module_->region(0);
  if (body->empty()) return;
  if (body->num_blocks() > 1) {
    OpError(module_, "expected 1 block in its region, got " + std::to_string(body->num_blocks()));
    return;
  }

  // Symbols first, so calls and global accesses can refer to later ones.
  for (const auto& op : body->front()->operations()) {
    if (!op->HasTrait(kOpSymbol)) continue;
    std::string_view name = op->symbol_name();
    if (name.empty()) continue;  // Reported by the op's own shape check.
    auto [it, inserted] = symbols_.emplace(std::string(name), op.get());
    if (!inserted) {
      diagnostics_.Error(op->loc, "redefinition of symbol '@" + std::string(name) + "'");
      diagnostics_.Note(it->second->loc, "previous definition is here");
    }
  }
  for (const auto& op : body->front()->operations()) {
    VerifyTopLevelOp(op.get());
    dominance_.clear();
    positions_.clear();
  }
}

void Verifier::VerifyTopLevelOp(Operation* op) {
  if (op->kind() != OpKind::kFunc && op->kind() != OpKind::kGlobal &&
      op->kind() != OpKind::kExecutableSource && op->kind() != OpKind::kRodata) {
    OpError(op,
            "is not allowed at module level (expected 'func.func', 'util.global' or "
            "'hal.executable.source')");
    return;
  }
  VerifyNestedOp(op);
}

void Verifier::VerifyNestedOp(Operation* op) {
  if (VerifyPlacement(op) && VerifyShape(op)) VerifyDominance(op);
  for (size_t r = 0; r < op->num_regions(); ++r) VerifyRegion(op, op->region(r));
}

void Verifier::VerifyRegion(Operation* parent, Region* region) {
  const bool needs_terminator = !parent->HasTrait(kOpNoTerminator);
  for (const auto& block : region->blocks()) {
    if (needs_terminator && !block->terminator()) {
      if (block->empty()) {
        diagnostics_.Error(block->loc.known() ? block->loc : parent->loc,
                           "empty block " + BlockName(block.get()) + ": missing terminator");
      } else {
        const Operation* last = block->operations().back().get();
        diagnostics_.Error(
            last->loc, "block with no terminator (last op is '" + std::string(last->name()) + "')");
      }
    }
    for (size_t i = 0; i < block->operations().size(); ++i) {
      VerifyNestedOp(block->operations()[i].get());
    }
  }
}

// --- Placement ---

bool Verifier::VerifyPlacement(Operation* op) {
  Block* block = op->parent_block();
  Operation* parent = op->parent_op();
  if (op->kind() == OpKind::kModule) {
    OpError(op, "must be the top-level operation");
    return false;
  }
  if (op->kind() == OpKind::kFunc || op->kind() == OpKind::kGlobal ||
      op->kind() == OpKind::kExecutableSource || op->kind() == OpKind::kRodata) {
    if (!parent || parent->kind() != OpKind::kModule) {
      OpError(op, "expects parent op 'builtin.module'");
      return false;
    }
    return true;
  }
  if (!parent) return true;  // Not reachable from Run().
  if (op->is_terminator() && block->operations().back().get() != op) {
    OpError(op, "must be the last operation in its block");
    return false;
  }
  // Which region of the parent holds the op (scf.while's 'before' is #0).
  size_t region_index = 0;
  while (region_index < parent->num_regions() &&
         parent->region(region_index) != block->parent_region()) {
    ++region_index;
  }
  if (parent->kind() == OpKind::kExecutableSource && op->kind() != OpKind::kExecutableExport) {
    OpError(op, "is not allowed in 'hal.executable.source' (expected 'hal.executable.export')");
    return false;
  }
  if (parent->kind() == OpKind::kExecutableExport && !op->successors.empty()) {
    OpError(op, "cannot branch in a workgroup count region");
    return false;
  }
  switch (op->kind()) {
    case OpKind::kExecutableExport:
      if (parent->kind() != OpKind::kExecutableSource) {
        OpError(op, "expects parent op 'hal.executable.source'");
        return false;
      }
      return true;
    case OpKind::kHalReturn:
      if (parent->kind() != OpKind::kExecutableExport) {
        OpError(op, "expects parent op 'hal.executable.export'");
        return false;
      }
      return true;
    case OpKind::kReturn:
      if (parent->kind() != OpKind::kFunc) {
        OpError(op, "expects parent op 'func.func'");
        return false;
      }
      return true;
    case OpKind::kYield:
      if (parent->kind() != OpKind::kIf && parent->kind() != OpKind::kFor &&
          parent->kind() != OpKind::kWhile) {
        OpError(op, "expects parent op 'scf.if', 'scf.for' or 'scf.while'");
        return false;
      }
      if (parent->kind() == OpKind::kWhile && region_index == 0) {
        OpError(op,
                "cannot terminate the 'before' region of 'scf.while' (expected "
                "'scf.condition')");
        return false;
      }
      return true;
    case OpKind::kCondition:
      if (parent->kind() != OpKind::kWhile || region_index != 0) {
        OpError(op, "expects to terminate the 'before' region of 'scf.while'");
        return false;
      }
      return true;
    default:
      return true;
  }
}

// --- Shape helpers ---

bool Verifier::ExpectCounts(Operation* op, size_t operands, size_t results, size_t successors,
                            size_t regions, bool variadic_operands, bool variadic_results) {
  if (variadic_operands ? op->operands.size() < operands : op->operands.size() != operands) {
    OpError(op, std::string("expected ") + (variadic_operands ? "at least " : "") +
                    Plural(operands, "operand") + ", got " + std::to_string(op->operands.size()));
    return false;
  }
  for (size_t i = 0; i < op->operands.size(); ++i) {
    if (!op->operands[i]) {
      OpError(op, "operand #" + std::to_string(i) + " is null");
      return false;
    }
  }
  if (!variadic_results && op->num_results() != results) {
    OpError(op,
            "expected " + Plural(results, "result") + ", got " + std::to_string(op->num_results()));
    return false;
  }
  if (op->successors.size() != successors) {
    OpError(op, "expected " + Plural(successors, "successor") + ", got " +
                    std::to_string(op->successors.size()));
    return false;
  }
  for (const Successor& s : op->successors) {
    for (const Value* v : s.arguments) {
      if (!v) {
        OpError(op, "has a null successor argument");
        return false;
      }
    }
  }
  if (op->num_regions() != regions) {
    OpError(op,
            "expected " + Plural(regions, "region") + ", got " + std::to_string(op->num_regions()));
    return false;
  }
  return true;
}

const Attribute* Verifier::RequireAttr(Operation* op, std::string_view name, Attribute::Kind kind,
                                       const char* what) {
  const Attribute* a = op->attribute(name);
  if (!a) {
    OpError(op, "requires attribute '" + std::string(name) + "'");
    return nullptr;
  }
  if (a->kind != kind) {
    OpError(op, "attribute '" + std::string(name) + "' must be " + what + ", got " + a->ToString());
    return nullptr;
  }
  return a;
}

bool Verifier::ExpectOperandKind(Operation* op, size_t index, bool (*pred)(const Type&),
                                 const char* what) {
  const Type& t = op->operands[index]->type;
  if (!pred(t)) {
    OpError(op,
            "operand #" + std::to_string(index) + " must be " + what + ", but got " + Quoted(t));
    return false;
  }
  return true;
}

bool Verifier::ExpectSameTypes(Operation* op) {
  const Type& t = op->operands[0]->type;
  for (const Value* v : op->operands) {
    if (v->type != t) {
      OpError(op, "requires the same type for all operands and results");
      return false;
    }
  }
  for (size_t i = 0; i < op->num_results(); ++i) {
    if (op->result(i)->type != t) {
      OpError(op, "requires the same type for all operands and results");
      return false;
    }
  }
  return true;
}

bool Verifier::ExpectI1(Operation* op, const Type& type, const std::string& what) {
  if (!type.is_integer(1)) {
    OpError(op, what + " must be i1, but got " + Quoted(type));
    return false;
  }
  return true;
}

bool Verifier::VerifySymbolVisibility(Operation* op) {
  const Attribute* v = op->attribute("sym_visibility");
  if (!v) return true;
  if (v->kind != Attribute::Kind::kString ||
      (v->text != "public" && v->text != "private" && v->text != "nested")) {
    OpError(op, "attribute 'sym_visibility' must be \"public\", \"private\" or \"nested\", got " +
                    v->ToString());
    return false;
  }
  return true;
}

// Successors of a branch: blocks of the same region, never the entry block,
// with arguments matching the block's arguments.
bool Verifier::VerifySuccessors(Operation* op) {
  const Region* region = op->parent_block() ? op->parent_block()->parent_region() : nullptr;
  for (size_t s = 0; s < op->successors.size(); ++s) {
    const Successor& succ = op->successors[s];
    const Block* target = succ.block;
    if (!target || target->parent_region() != region) {
      OpError(op, "successor #" + std::to_string(s) + " is not a block of the same region");
      return false;
    }
    if (region && !region->empty() && region->front() == target) {
      OpError(op, "cannot branch to the entry block of a region");
      return false;
    }
    if (succ.arguments.size() != target->num_arguments()) {
      OpError(op, "branch to '" + BlockName(target) + "' passes " +
                      Plural(succ.arguments.size(), "argument") + ", block expects " +
                      std::to_string(target->num_arguments()));
      return false;
    }
    for (size_t i = 0; i < succ.arguments.size(); ++i) {
      const Type& passed = succ.arguments[i]->type;
      const Type& expected = target->argument(i)->type;
      if (passed != expected) {
        diagnostics_.Error(op->loc, "type mismatch for block argument " + std::to_string(i) +
                                        " of '" + BlockName(target) + "': branch passes " +
                                        Quoted(passed) + ", block expects " + Quoted(expected));
        return false;
      }
    }
  }
  return true;
}

// --- Per-op shape ---

bool Verifier::VerifyShape(Operation* op) {
  switch (op->info().op_class) {
    case OpClass::kIntegerBinary:
    case OpClass::kIntegerUnary: {
      const size_t arity = static_cast<size_t>(ElementwiseArity(op->kind()));
      if (!ExpectCounts(op, arity, 1, 0, 0)) return false;
      for (size_t i = 0; i < arity; ++i) {
        if (!ExpectOperandKind(op, i, IsIntOrIndex, "an integer or index")) return false;
      }
      return ExpectSameTypes(op);
    }
    case OpClass::kFloatBinary:
    case OpClass::kFloatUnary:
    case OpClass::kFloatTernary: {
      const size_t arity = static_cast<size_t>(ElementwiseArity(op->kind()));
      if (!ExpectCounts(op, arity, 1, 0, 0)) return false;
      for (size_t i = 0; i < arity; ++i) {
        if (!ExpectOperandKind(op, i, IsFloat, "a float")) return false;
      }
      return ExpectSameTypes(op);
    }
    case OpClass::kCast:
      return VerifyCast(op);
    case OpClass::kOther:
      break;
  }
  switch (op->kind()) {
    case OpKind::kModule:
      return false;  // Placement already reported it.
    case OpKind::kFunc:
      return VerifyFunc(op);
    case OpKind::kReturn:
      return VerifyReturn(op);
    case OpKind::kCall:
      return VerifyCall(op);
    case OpKind::kConstant:
      return VerifyConstant(op);

    case OpKind::kCmpI:
    case OpKind::kCmpF: {
      const bool is_int = op->kind() == OpKind::kCmpI;
      if (!ExpectCounts(op, 2, 1, 0, 0)) return false;
      auto pred = is_int ? IsIntOrIndex : IsFloat;
      const char* what = is_int ? "an integer or index" : "a float";
      if (!ExpectOperandKind(op, 0, pred, what) || !ExpectOperandKind(op, 1, pred, what)) {
        return false;
      }
      if (op->operands[0]->type != op->operands[1]->type) {
        OpError(op, "requires both operands to have the same type, got " +
                        Quoted(op->operands[0]->type) + " and " + Quoted(op->operands[1]->type));
        return false;
      }
      if (!ExpectI1(op, op->result(0)->type, "result #0")) return false;
      const Attribute* p = RequireAttr(op, "predicate", Attribute::Kind::kInteger, "an integer");
      if (!p) return false;
      const int64_t max = is_int ? static_cast<int64_t>(CmpIPredicate::kUge)
                                 : static_cast<int64_t>(CmpFPredicate::kTrue);
      if (p->integer_value < 0 || p->integer_value > max) {
        OpError(op, "invalid predicate " + std::to_string(p->integer_value) + " (expected 0.." +
                        std::to_string(max) + ")");
        return false;
      }
      return true;
    }
    case OpKind::kSelect:
      if (!ExpectCounts(op, 3, 1, 0, 0) ||
          !ExpectI1(op, op->operands[0]->type, "operand #0 (the condition)")) {
        return false;
      }
      if (op->operands[1]->type != op->result(0)->type ||
          op->operands[2]->type != op->result(0)->type) {
        OpError(op, "requires the true value, false value and result to have the same type, got " +
                        Quoted(op->operands[1]->type) + ", " + Quoted(op->operands[2]->type) +
                        " and " + Quoted(op->result(0)->type));
        return false;
      }
      return true;


    case OpKind::kIf:
      return VerifyIf(op);
    case OpKind::kFor:
      return VerifyFor(op);
    case OpKind::kWhile:
      return VerifyWhile(op);
    case OpKind::kCondition:
      return VerifyCondition(op);
    case OpKind::kYield:
      return VerifyYield(op);

    case OpKind::kBr:
      return ExpectCounts(op, 0, 0, 1, 0) && VerifySuccessors(op);
    case OpKind::kCondBr:
      return ExpectCounts(op, 1, 0, 2, 0) &&
             ExpectI1(op, op->operands[0]->type, "operand #0 (the condition)") &&
             VerifySuccessors(op);
    case OpKind::kSwitch:
      return VerifySwitch(op);
    case OpKind::kAssert:
      return ExpectCounts(op, 1, 0, 0, 0) &&
             ExpectI1(op, op->operands[0]->type, "operand #0 (the condition)") &&
             RequireAttr(op, "msg", Attribute::Kind::kString, "a string") != nullptr;

    case OpKind::kGlobal:
      return VerifyGlobal(op);
    case OpKind::kGlobalLoad:
    case OpKind::kGlobalStore:
      return VerifyGlobalAccess(op);
    case OpKind::kExecutableSource:
      return VerifyExecutableSource(op);
    case OpKind::kExecutableExport:
      return VerifyExecutableExport(op);
    case OpKind::kHalReturn:
      return VerifyHalReturn(op);
    case OpKind::kAffineApply:
      return VerifyAffineApply(op);
    case OpKind::kDispatch:
      return VerifyDispatch(op);
    case OpKind::kTensorDim:
      return VerifyTensorDim(op);
    case OpKind::kTensorEmpty:
      return VerifyTensorEmpty(op);
    case OpKind::kRodata:
      return VerifyRodata(op);
    case OpKind::kConstRefRodata:
    case OpKind::kConstRefNull:
      return VerifyConstRef(op);
    case OpKind::kRefIsNull:
      return VerifyRefIsNull(op);

    default:  // Elementwise ops and casts are verified by class above.
      break;
  }
  OpError(op, "is not a known operation");
  return false;
}

bool Verifier::VerifyFunc(Operation* op) {
  if (!ExpectCounts(op, 0, 0, 0, 1)) return false;
  if (!RequireAttr(op, "sym_name", Attribute::Kind::kString, "a string")) return false;
  const Attribute* ft = RequireAttr(op, "function_type", Attribute::Kind::kType, "a type");
  if (!ft) return false;
  if (!ft->type.is_function()) {
    OpError(op, "attribute 'function_type' must be a function type, got " + Quoted(ft->type));
    return false;
  }
  if (!VerifySymbolVisibility(op)) return false;
  Region* body = op->region(0);
  if (body->empty()) return true;  // A declaration (an import).
  const Block* entry = body->front();
  const std::vector<Type>& inputs = ft->type.inputs();
  if (entry->num_arguments() != inputs.size()) {
    OpError(op, "entry block has " + Plural(entry->num_arguments(), "argument") +
                    ", but the function type has " + Plural(inputs.size(), "input"));
    return false;
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (entry->argument(i)->type != inputs[i]) {
      OpError(op, "type of entry block argument #" + std::to_string(i) + " (" +
                      Quoted(entry->argument(i)->type) +
                      ") doesn't match the function input type (" + Quoted(inputs[i]) + ")");
      return false;
    }
  }
  return true;
}

bool Verifier::VerifyReturn(Operation* op) {
  if (!ExpectCounts(op, 0, 0, 0, 0, /*variadic_operands=*/true)) return false;
  Operation* func = op->parent_op();
  Type type = FunctionTypeOf(func);
  if (type.is_null()) return true;  // The function reports its own type.
  std::string func_name = "@" + std::string(func->symbol_name());
  const std::vector<Type>& results = type.results();
  if (op->operands.size() != results.size()) {
    OpError(op, "has " + Plural(op->operands.size(), "operand") + ", but enclosing function (" +
                    func_name + ") returns " + std::to_string(results.size()));
    return false;
  }
  for (size_t i = 0; i < results.size(); ++i) {
    if (op->operands[i]->type != results[i]) {
      OpError(op, "type of return operand " + std::to_string(i) + " (" +
                      Quoted(op->operands[i]->type) + ") doesn't match function result type (" +
                      Quoted(results[i]) + ") in function " + func_name);
      return false;
    }
  }
  return true;
}

bool Verifier::VerifyCall(Operation* op) {
  if (!ExpectCounts(op, 0, 0, 0, 0, /*variadic_operands=*/true, /*variadic_results=*/true)) {
    return false;
  }
  const Attribute* callee = op->attribute("callee");
  if (!callee) {
    OpError(op, "requires attribute 'callee'");
    return false;
  }
  if (!IsFlatSymbolRef(callee)) {
    OpError(op, "attribute 'callee' must be a flat symbol reference, got " + callee->ToString());
    return false;
  }
  const std::string& name = callee->symbols[0];
  auto it = symbols_.find(name);
  if (it == symbols_.end()) {
    diagnostics_.Error(op->loc, "unknown callee '@" + name + "'");
    return false;
  }
  if (it->second->kind() != OpKind::kFunc) {
    diagnostics_.Error(op->loc, "callee '@" + name + "' is not a function");
    diagnostics_.Note(it->second->loc, "'@" + name + "' is defined here");
    return false;
  }
  Type callee_type = FunctionTypeOf(it->second);
  if (callee_type.is_null()) return true;  // The callee reports its own type.
  if (callee_type.inputs() != op->operand_types() || callee_type.results() != op->result_types()) {
    diagnostics_.Error(op->loc,
                       "call to '@" + name + "' has wrong signature: passes " +
                           Type::Function(op->operand_types(), op->result_types()).ToString() +
                           ", callee is " + callee_type.ToString());
    diagnostics_.Note(it->second->loc, "'@" + name + "' is defined here");
    return false;
  }
  return true;
}

bool Verifier::VerifyConstant(Operation* op) {
  if (!ExpectCounts(op, 0, 1, 0, 0)) return false;
  const Attribute* value = op->attribute("value");
  if (!value) {
    OpError(op, "requires attribute 'value'");
    return false;
  }
  const Type& type = op->result(0)->type;
  if (!AttributeMatchesType(*value, type)) {
    OpError(op, "value '" + value->ToString() + "' doesn't match result type " + Quoted(type));
    return false;
  }
  return true;
}

bool Verifier::VerifyCast(Operation* op) {
  if (!ExpectCounts(op, 1, 1, 0, 0)) return false;
  const Type& in = op->operands[0]->type;
  const Type& out = op->result(0)->type;
  auto incompatible = [&] {
    OpError(op, "operand type " + Quoted(in) + " and result type " + Quoted(out) +
                    " are cast incompatible");
    return false;
  };
  auto width_error = [&](const char* relation) {
    OpError(op, "result type " + Quoted(out) + " must be " + relation + " than operand type " +
                    Quoted(in));
    return false;
  };
  switch (op->kind()) {
    case OpKind::kIndexCast:
    case OpKind::kIndexCastUI:
      if (!((in.is_index() && out.is_integer()) || (in.is_integer() && out.is_index()))) {
        return incompatible();
      }
      return true;
    case OpKind::kExtSI:
    case OpKind::kExtUI:
    case OpKind::kTruncI: {
      if (!in.is_integer() || !out.is_integer()) return incompatible();
      const bool widen = op->kind() != OpKind::kTruncI;
      if (widen ? out.width() <= in.width() : out.width() >= in.width()) {
        return width_error(widen ? "wider" : "narrower");
      }
      return true;
    }
    case OpKind::kSIToFP:
    case OpKind::kUIToFP:
      if (!in.is_integer() || !out.is_float()) return incompatible();
      return true;
    case OpKind::kFPToSI:
    case OpKind::kFPToUI:
      if (!in.is_float() || !out.is_integer()) return incompatible();
      return true;
    case OpKind::kExtF:
    case OpKind::kTruncF: {
      if (!in.is_float() || !out.is_float()) return incompatible();
      const bool widen = op->kind() == OpKind::kExtF;
      if (widen ? out.width() <= in.width() : out.width() >= in.width()) {
        return width_error(widen ? "wider" : "narrower");
      }
      return true;
    }
    case OpKind::kBitcast:
      if (!(in.is_integer() || in.is_float()) || !(out.is_integer() || out.is_float())) {
        return incompatible();
      }
      if (in.width() != out.width()) {
        OpError(op, "operand type " + Quoted(in) + " and result type " + Quoted(out) +
                        " must have the same bit width");
        return false;
      }
      return true;
    default:
      return incompatible();
  }
}

bool Verifier::VerifyIf(Operation* op) {
  if (!ExpectCounts(op, 1, 0, 0, 2, false, /*variadic_results=*/true) ||
      !ExpectI1(op, op->operands[0]->type, "operand #0 (the condition)")) {
    return false;
  }
  if (op->region(0)->empty()) {
    OpError(op, "requires a non-empty 'then' region");
    return false;
  }
  if (op->region(1)->empty() && op->num_results() != 0) {
    OpError(op, "must have an 'else' region when it has results");
    return false;
  }
  for (size_t r = 0; r < 2; ++r) {
    const Region* region = op->region(r);
    if (!region->empty() && region->front()->num_arguments() != 0) {
      OpError(op, std::string("entry block of the '") + (r ? "else" : "then") +
                      "' region must have no arguments");
      return false;
    }
  }
  return true;
}

bool Verifier::VerifyFor(Operation* op) {
  if (!ExpectCounts(op, 3, 0, 0, 1, /*variadic_operands=*/true, /*variadic_results=*/true)) {
    return false;
  }
  const Type& iv_type = op->operands[0]->type;
  if (!iv_type.is_integer_or_index() || op->operands[1]->type != iv_type ||
      op->operands[2]->type != iv_type) {
    OpError(op,
            "lower bound, upper bound and step must have the same integer or index type, got " +
                TypeList({op->operands[0]->type, op->operands[1]->type, op->operands[2]->type}));
    return false;
  }
  const size_t num_iter = op->operands.size() - 3;
  if (op->num_results() != num_iter) {
    OpError(op,
            "has " + Plural(num_iter, "iter_arg") + " but " + Plural(op->num_results(), "result"));
    return false;
  }
  for (size_t i = 0; i < num_iter; ++i) {
    if (op->operands[3 + i]->type != op->result(i)->type) {
      OpError(op, "type of iter_arg #" + std::to_string(i) + " (" +
                      Quoted(op->operands[3 + i]->type) + ") doesn't match result type (" +
                      Quoted(op->result(i)->type) + ")");
      return false;
    }
  }
  if (const Attribute* u = op->attribute("unsignedCmp"); u && u->kind != Attribute::Kind::kUnit) {
    OpError(op, "attribute 'unsignedCmp' must be a unit attribute, got " + u->ToString());
    return false;
  }
  if (op->region(0)->empty()) {
    OpError(op, "requires a non-empty body region");
    return false;
  }
  const Block* body = op->region(0)->front();
  if (body->num_arguments() != 1 + num_iter) {
    OpError(op, "body entry block must have " + Plural(1 + num_iter, "argument") +
                    " (the induction variable and the iter_args), got " +
                    std::to_string(body->num_arguments()));
    return false;
  }
  if (body->argument(0)->type != iv_type) {
    OpError(op, "induction variable type " + Quoted(body->argument(0)->type) +
                    " doesn't match the bounds' type " + Quoted(iv_type));
    return false;
  }
  for (size_t i = 0; i < num_iter; ++i) {
    if (body->argument(1 + i)->type != op->result(i)->type) {
      OpError(op, "type of body argument #" + std::to_string(1 + i) + " (" +
                      Quoted(body->argument(1 + i)->type) + ") doesn't match iter_arg type (" +
                      Quoted(op->result(i)->type) + ")");
      return false;
    }
  }
  return true;
}

bool Verifier::VerifyWhile(Operation* op) {
  if (!ExpectCounts(op, 0, 0, 0, 2, /*variadic_operands=*/true, /*variadic_results=*/true)) {
    return false;
  }
  if (op->region(0)->empty() || op->region(1)->empty()) {
    OpError(op, "requires non-empty 'before' and 'after' regions");
    return false;
  }
  std::vector<Type> before_args = op->region(0)->front()->argument_types();
  if (before_args != op->operand_types()) {
    OpError(op, "'before' region arguments " + TypeList(before_args) +
                    " don't match the initial values " + TypeList(op->operand_types()));
    return false;
  }
  std::vector<Type> after_args = op->region(1)->front()->argument_types();
  if (after_args != op->result_types()) {
    OpError(op, "'after' region arguments " + TypeList(after_args) + " don't match the results " +
                    TypeList(op->result_types()));
    return false;
  }
  return true;
}

bool Verifier::VerifyCondition(Operation* op) {
  if (!ExpectCounts(op, 1, 0, 0, 0, /*variadic_operands=*/true) ||
      !ExpectI1(op, op->operands[0]->type, "operand #0 (the condition)")) {
    return false;
  }
  Operation* loop = op->parent_op();
  std::vector<Type> forwarded(op->operands.size() - 1);
  for (size_t i = 1; i < op->operands.size(); ++i) forwarded[i - 1] = op->operands[i]->type;
  if (forwarded != loop->result_types()) {
    OpError(op, "forwards " + TypeList(forwarded) + " but the parent 'scf.while' has results " +
                    TypeList(loop->result_types()));
    return false;
  }
  return true;
}

bool Verifier::VerifyYield(Operation* op) {
  if (!ExpectCounts(op, 0, 0, 0, 0, /*variadic_operands=*/true)) return false;
  Operation* parent = op->parent_op();
  std::vector<Type> expected;
  switch (parent->kind()) {
    case OpKind::kIf:
    case OpKind::kFor:
      expected = parent->result_types();
      break;
    case OpKind::kWhile:  // After region: back to the 'before' region's arguments.
      expected = parent->operand_types();
      break;
    default:
      return false;  // Placement reported it.
  }
  if (op->operand_types() != expected) {
    OpError(op, "yields " + TypeList(op->operand_types()) + " but the parent '" +
                    std::string(parent->name()) + "' expects " + TypeList(expected));
    return false;
  }
  return true;
}

bool Verifier::VerifySwitch(Operation* op) {
  if (op->successors.empty()) {
    OpError(op, "requires a default destination");
    return false;
  }
  if (!ExpectCounts(op, 1, 0, op->successors.size(), 0)) return false;
  if (!op->operands[0]->type.is_integer()) {
    OpError(op,
            "operand #0 (the flag) must be an integer, but got " + Quoted(op->operands[0]->type));
    return false;
  }
  std::vector<int64_t> cases;
  if (const Attribute* values = op->attribute("case_values")) {
    if (values->kind != Attribute::Kind::kArray && values->kind != Attribute::Kind::kDenseArray) {
      OpError(op,
              "attribute 'case_values' must be an array of integers, got " + values->ToString());
      return false;
    }
    for (const Attribute& e : values->elements) {
      if (!IsIntegerAttr(e)) {
        OpError(op,
                "attribute 'case_values' must be an array of integers, got " + values->ToString());
        return false;
      }
      // Compare as values of the flag's type, as the branch will.
      int64_t v = SignExtend(e.integer_value, op->operands[0]->type.integer_width());
      if (std::find(cases.begin(), cases.end(), v) != cases.end()) {
        OpError(op, "has duplicate case value " + std::to_string(v));
        return false;
      }
      cases.push_back(v);
    }
  }
  if (op->successors.size() != cases.size() + 1) {
    OpError(op, "has " + Plural(cases.size(), "case value") + " but " +
                    Plural(op->successors.size() - 1, "case destination"));
    return false;
  }
  return VerifySuccessors(op);
}

bool Verifier::VerifyGlobal(Operation* op) {
  if (!ExpectCounts(op, 0, 0, 0, 0)) return false;
  if (!RequireAttr(op, "sym_name", Attribute::Kind::kString, "a string")) return false;
  const Attribute* type = RequireAttr(op, "type", Attribute::Kind::kType, "a type");
  if (!type) return false;
  if (type->type.is_null() || type->type.is_function()) {
    OpError(op, "attribute 'type' must be a value type, got " + Quoted(type->type));
    return false;
  }
  if (const Attribute* m = op->attribute("is_mutable"); m && m->kind != Attribute::Kind::kUnit) {
    OpError(op, "attribute 'is_mutable' must be a unit attribute, got " + m->ToString());
    return false;
  }
  if (!VerifySymbolVisibility(op)) return false;
  if (const Attribute* init = op->attribute("initial_value");
      init && !AttributeMatchesType(*init, type->type)) {
    OpError(op, "initial value '" + init->ToString() + "' doesn't match the global's type " +
                    Quoted(type->type));
    return false;
  }
  return true;
}

bool Verifier::VerifyGlobalAccess(Operation* op) {
  const bool load = op->kind() == OpKind::kGlobalLoad;
  if (!ExpectCounts(op, load ? 0 : 1, load ? 1 : 0, 0, 0)) return false;
  const Attribute* ref = op->attribute("global");
  if (!ref) {
    OpError(op, "requires attribute 'global'");
    return false;
  }
  if (!IsFlatSymbolRef(ref)) {
    OpError(op, "attribute 'global' must be a flat symbol reference, got " + ref->ToString());
    return false;
  }
  const std::string& name = ref->symbols[0];
  auto it = symbols_.find(name);
  if (it == symbols_.end() || it->second->kind() != OpKind::kGlobal) {
    diagnostics_.Error(op->loc, "unknown global '@" + name + "'");
    return false;
  }
  Operation* global = it->second;
  const Attribute* type = global->attribute("type");
  if (!type || type->kind != Attribute::Kind::kType) return true;  // The global reports it.
  const Type& value_type = load ? op->result(0)->type : op->operands[0]->type;
  if (value_type != type->type) {
    OpError(op, std::string(load ? "result" : "stored value") + " type " + Quoted(value_type) +
                    " doesn't match the type " + Quoted(type->type) + " of global '@" + name + "'");
    diagnostics_.Note(global->loc, "'@" + name + "' is defined here");
    return false;
  }
  if (!load && !global->attribute("is_mutable")) {
    OpError(op, "cannot store to immutable global '@" + name + "'");
    diagnostics_.Note(global->loc, "'@" + name + "' is defined here");
    return false;
  }
  return true;
}

// --- Executables and dispatches ---

bool Verifier::VerifyExecutableSource(Operation* op) {
  if (!ExpectCounts(op, 0, 0, 0, 1)) return false;
  if (!RequireAttr(op, "sym_name", Attribute::Kind::kString, "a string")) return false;
  if (!VerifySymbolVisibility(op)) return false;
  const Attribute* objects = op->attribute("objects");
  if (!objects) {
    OpError(op,
            "requires attribute 'objects' (#hal.executable.objects<{...}>): kiln dispatches "
            "hand-authored objects only");
    return false;
  }
  if (Result<ExecutableObjects> parsed = ParseExecutableObjects(*objects); !parsed.ok()) {
    OpError(op, "attribute 'objects': " + parsed.status().message());
    return false;
  }
  Region* body = op->region(0);
  if (body->num_blocks() > 1) {
    OpError(op, "expected 1 block in its region, got " + std::to_string(body->num_blocks()));
    return false;
  }
  // Export ordinals are the indices the runtime dispatches by: 0..n-1, each once.
  std::vector<const Operation*> by_ordinal;
  size_t exports = 0;
  if (!body->empty()) {
    for (const auto& child : body->front()->operations()) {
      if (child->kind() == OpKind::kExecutableExport) ++exports;
    }
    by_ordinal.assign(exports, nullptr);
    std::unordered_map<std::string_view, const Operation*> names;
    for (const auto& child : body->front()->operations()) {
      if (child->kind() != OpKind::kExecutableExport) continue;
      const Attribute* ordinal = child->attribute("ordinal");
      std::string_view name = child->symbol_name();
      if (!name.empty() && !names.emplace(name, child.get()).second) {
        diagnostics_.Error(child->loc, "redefinition of export '@" + std::string(name) + "'");
        diagnostics_.Note(names[name]->loc, "previous definition is here");
        return false;
      }
      if (!ordinal || ordinal->kind != Attribute::Kind::kInteger) continue;  // Its own error.
      const int64_t n = ordinal->integer_value;
      if (n < 0 || n >= static_cast<int64_t>(exports)) {
        diagnostics_.Error(child->loc, "export '@" + std::string(name) + "' has ordinal " +
                                           std::to_string(n) + ", but the ordinals of the " +
                                           Plural(exports, "export") + " of '@" +
                                           std::string(op->symbol_name()) + "' must be 0.." +
                                           std::to_string(exports - 1));
        return false;
      }
      if (by_ordinal[static_cast<size_t>(n)]) {
        diagnostics_.Error(
            child->loc, "export '@" + std::string(name) + "' reuses ordinal " + std::to_string(n));
        diagnostics_.Note(by_ordinal[static_cast<size_t>(n)]->loc,
                          "ordinal " + std::to_string(n) + " is taken here");
        return false;
      }
      by_ordinal[static_cast<size_t>(n)] = child.get();
    }
  }
  return true;
}

bool Verifier::VerifyExecutableExport(Operation* op) {
  if (!ExpectCounts(op, 0, 0, 0, 1)) return false;
  if (!RequireAttr(op, "sym_name", Attribute::Kind::kString, "a string")) return false;
  if (!VerifySymbolVisibility(op)) return false;
  if (!RequireAttr(op, "ordinal", Attribute::Kind::kInteger, "an integer")) return false;
  const Attribute* layout = op->attribute("layout");
  if (!layout) {
    OpError(op, "requires attribute 'layout' (a #hal.pipeline.layout)");
    return false;
  }
  if (Result<PipelineLayout> parsed = ParsePipelineLayout(*layout); !parsed.ok()) {
    OpError(op, "attribute 'layout': " + parsed.status().message());
    return false;
  }
  if (const Attribute* size = op->attribute("workgroup_size")) {
    bool ok = size->kind == Attribute::Kind::kArray && size->elements.size() == 3;
    for (size_t i = 0; ok && i < size->elements.size(); ++i) {
      const Attribute& e = size->elements[i];
      ok = e.kind == Attribute::Kind::kInteger && e.integer_value >= 1 &&
           e.integer_value <= 0x7FFFFFFF;
    }
    if (!ok) {
      OpError(op, "attribute 'workgroup_size' must be 3 positive integers ([64, 1, 1]), got " +
                      size->ToString());
      return false;
    }
  }
  Region* count = op->region(0);
  if (count->empty()) return true;
  if (count->num_blocks() != 1) {
    OpError(op, "the workgroup count region must have 1 block, got " +
                    std::to_string(count->num_blocks()));
    return false;
  }
  const Block* entry = count->front();
  if (entry->num_arguments() == 0 || entry->argument(0)->type != Type::Dialect("hal.device")) {
    OpError(op, "the workgroup count region's first argument must be '%device: !hal.device'");
    return false;
  }
  for (size_t i = 1; i < entry->num_arguments(); ++i) {
    if (!entry->argument(i)->type.is_index()) {
      OpError(op, "workload argument #" + std::to_string(i - 1) +
                      " of the workgroup count region must be 'index', got " +
                      Quoted(entry->argument(i)->type));
      return false;
    }
  }
  // The region is inlined at every dispatch, between commands being
  // recorded: only index arithmetic may run there.
  for (const auto& child : entry->operations()) {
    const std::string_view name = child->name();
    const bool arithmetic = name.starts_with("arith.") || name.starts_with("math.") ||
                            child->kind() == OpKind::kAffineApply ||
                            child->kind() == OpKind::kHalReturn;
    if (!arithmetic || child->num_regions() != 0) {
      diagnostics_.Error(child->loc, "'" + std::string(name) +
                                         "' is not allowed in a workgroup count region (only "
                                         "arith, math and affine.apply ops)");
      return false;
    }
  }
  return true;
}

bool Verifier::VerifyHalReturn(Operation* op) {
  if (!ExpectCounts(op, 0, 0, 0, 0, /*variadic_operands=*/true)) return false;
  if (op->operands.size() != 3 ||
      !std::all_of(op->operands.begin(), op->operands.end(), IsIndexValue)) {
    OpError(op, "must return the workgroup count as 3 'index' values (x, y, z), got (" +
                    FormatTypes(op->operand_types()) + ")");
    return false;
  }
  return true;
}

bool Verifier::VerifyAffineApply(Operation* op) {
  if (!ExpectCounts(op, 0, 1, 0, 0, /*variadic_operands=*/true)) return false;
  const Attribute* map = RequireAttr(op, "map", Attribute::Kind::kDialect, "an affine_map");
  if (!map) return false;
  Result<AffineMap> parsed = ParseAffineMap(*map);
  if (!parsed.ok()) {
    OpError(op, "attribute 'map': " + parsed.status().message());
    return false;
  }
  if (parsed->results.size() != 1) {
    OpError(op, "expects a map with 1 result, got " + std::to_string(parsed->results.size()));
    return false;
  }
  const size_t expected = parsed->num_dims + parsed->num_symbols;
  if (op->operands.size() != expected) {
    OpError(op, "expects " + Plural(parsed->num_dims, "dimension") + " and " +
                    Plural(parsed->num_symbols, "symbol") + " operand, got " +
                    Plural(op->operands.size(), "operand"));
    return false;
  }
  for (size_t i = 0; i < op->operands.size(); ++i) {
    if (!ExpectOperandKind(op, i, IsIndex, "'index'")) {
      return false;
    }
  }
  if (!op->result(0)->type.is_index()) {
    OpError(op, "result must be 'index', got " + Quoted(op->result(0)->type));
    return false;
  }
  return true;
}

bool Verifier::VerifyDispatch(Operation* op) {
  if (!ExpectCounts(op, 0, 0, 0, 0, /*variadic_operands=*/true, /*variadic_results=*/true)) {
    return false;
  }
  const Attribute* entry = op->attribute("entry_point");
  if (!entry || entry->kind != Attribute::Kind::kSymbolRef || entry->symbols.size() != 2) {
    OpError(op, "requires attribute 'entry_point' (@executable::@export)");
    return false;
  }
  DispatchShape shape;
  std::string error;
  if (!DecodeDispatch(*op, &shape, &error)) {
    OpError(op, error);
    return false;
  }
  auto it = symbols_.find(entry->symbols[0]);
  if (it == symbols_.end() || it->second->kind() != OpKind::kExecutableSource) {
    diagnostics_.Error(op->loc, "unknown executable '@" + entry->symbols[0] + "'");
    return false;
  }
  Operation* source = it->second;
  Operation* exported = nullptr;
  if (source->num_regions() == 1 && !source->region(0)->empty()) {
    for (const auto& child : source->region(0)->front()->operations()) {
      if (child->kind() == OpKind::kExecutableExport && child->symbol_name() == entry->symbols[1]) {
        exported = child.get();
      }
    }
  }
  const std::string target = entry->ToString();
  if (!exported) {
    diagnostics_.Error(op->loc, "executable '@" + entry->symbols[0] + "' has no export '@" +
                                    entry->symbols[1] + "'");
    diagnostics_.Note(source->loc, "'@" + entry->symbols[0] + "' is defined here");
    return false;
  }
  for (size_t i = 0; i < shape.workload.size(); ++i) {
    if (!shape.workload[i]->type.is_index()) {
      OpError(op, "workload #" + std::to_string(i) + " must be 'index', got " +
                      Quoted(shape.workload[i]->type));
      return false;
    }
  }
  // The count region takes the workload: as many values, or up to 3 when
  // there is no region (then they are the workgroup count).
  Region* count = exported->num_regions() == 1 ? exported->region(0) : nullptr;
  if (count && !count->empty()) {
    const size_t expected = count->front()->num_arguments() - 1;
    if (shape.workload.size() != expected) {
      OpError(op, "passes " + Plural(shape.workload.size(), "workload value") + " to " + target +
                      ", whose workgroup count region takes " + std::to_string(expected));
      diagnostics_.Note(exported->loc, "the export is defined here");
      return false;
    }
  } else if (shape.workload.size() > 3) {
    OpError(op, "passes " + Plural(shape.workload.size(), "workload value") + " to " + target +
                    ", which has no workgroup count region (at most 3 are the count)");
    return false;
  }
  size_t scalars = 0, tensors = 0, dims = 0;
  for (size_t i = 0; i < shape.arguments.size(); ++i) {
    const Type& t = shape.arguments[i]->type;
    if (t.is_tensor()) {
      ++tensors;
      dims += DynamicDimCount(t);
    } else if (t.is_integer(32) || t.is_index() || t == Type::F32() || t.is_integer(16) ||
               t.is_integer(8) || t.is_integer(1)) {
      ++scalars;
    } else {
      OpError(op, "operand #" + std::to_string(i) + " of type " + Quoted(t) +
                      " cannot be passed to a dispatch (expected a tensor, an integer of at most "
                      "32 bits, index or f32)");
      return false;
    }
  }
  if (dims != shape.argument_dims.size()) {
    OpError(op, "the tensor operands have " + Plural(dims, "dynamic dimension") + ", but " +
                    std::to_string(shape.argument_dims.size()) + " dimension values are given");
    return false;
  }
  size_t untied = 0, result_dims = 0;
  for (size_t i = 0; i < op->num_results(); ++i) {
    const Type& t = op->result(i)->type;
    if (!t.is_tensor()) {
      OpError(op, "result #" + std::to_string(i) + " must be a tensor, got " + Quoted(t));
      return false;
    }
    result_dims += DynamicDimCount(t);
    const int64_t tie = shape.tied[i];
    if (tie < 0) {
      ++untied;
      continue;
    }
    const Type& tied_type = shape.arguments[static_cast<size_t>(tie)]->type;
    if (tied_type != t) {
      OpError(op, "result #" + std::to_string(i) + " of type " + Quoted(t) +
                      " is tied to operand #" + std::to_string(tie) + " of type " +
                      Quoted(tied_type));
      return false;
    }
  }
  if (result_dims != shape.result_dims.size()) {
    OpError(op, "the results have " + Plural(result_dims, "dynamic dimension") + ", but " +
                    std::to_string(shape.result_dims.size()) + " dimension values are given");
    return false;
  }
  for (const std::vector<Value*>* list : {&shape.argument_dims, &shape.result_dims}) {
    for (const Value* v : *list) {
      if (!v->type.is_index()) {
        OpError(op, "dimension values must be 'index', got " + Quoted(v->type));
        return false;
      }
    }
  }
  Result<PipelineLayout> layout = ParsePipelineLayout(*exported->attribute("layout"));
  if (!layout.ok()) return true;  // The export reports it.
  if (static_cast<size_t>(layout->constants) != scalars ||
      layout->bindings.size() != tensors + untied) {
    OpError(op, "passes " + Plural(scalars, "constant") + " and " +
                    Plural(tensors + untied, "binding") + " (" + Plural(tensors, "tensor operand") +
                    ", " + Plural(untied, "result") +
                    " not tied to an operand), but the layout of " + target + " has " +
                    Plural(static_cast<size_t>(layout->constants), "constant") + " and " +
                    Plural(layout->bindings.size(), "binding"));
    diagnostics_.Note(exported->loc, "the export is defined here");
    return false;
  }
  return true;
}

bool Verifier::VerifyTensorDim(Operation* op) {
  if (!ExpectCounts(op, 2, 1, 0, 0)) return false;
  if (!ExpectOperandKind(op, 0, IsTensor, "a tensor")) {
    return false;
  }
  if (!ExpectOperandKind(op, 1, IsIndex, "'index'")) {
    return false;
  }
  if (!op->result(0)->type.is_index()) {
    OpError(op, "result must be 'index', got " + Quoted(op->result(0)->type));
    return false;
  }
  return true;
}

bool Verifier::VerifyTensorEmpty(Operation* op) {
  if (!ExpectCounts(op, 0, 1, 0, 0, /*variadic_operands=*/true)) return false;
  const Type& t = op->result(0)->type;
  if (!t.is_tensor()) {
    OpError(op, "result must be a tensor, got " + Quoted(t));
    return false;
  }
  if (op->operands.size() != DynamicDimCount(t)) {
    OpError(op, Quoted(t) + " has " + Plural(DynamicDimCount(t), "dynamic dimension") + ", got " +
                    Plural(op->operands.size(), "operand"));
    return false;
  }
  for (size_t i = 0; i < op->operands.size(); ++i) {
    if (!ExpectOperandKind(op, i, IsIndex, "'index'")) {
      return false;
    }
  }
  return true;
}

bool Verifier::VerifyRodata(Operation* op) {
  if (!ExpectCounts(op, 0, 0, 0, 0)) return false;
  if (!RequireAttr(op, "sym_name", Attribute::Kind::kString, "a string")) return false;
  if (!RequireAttr(op, "value", Attribute::Kind::kString, "a string")) return false;
  return VerifySymbolVisibility(op);
}

bool Verifier::VerifyRefIsNull(Operation* op) {
  if (!ExpectCounts(op, 1, 1, 0, 0)) return false;
  if (!op->operands[0]->type.is_dialect()) {
    OpError(op, "operand must be a ref type (!hal.*, !vm.buffer), got " +
                    Quoted(op->operands[0]->type));
    return false;
  }
  return ExpectI1(op, op->result(0)->type, "result");
}

bool Verifier::VerifyConstRef(Operation* op) {
  if (!ExpectCounts(op, 0, 1, 0, 0)) return false;
  const Type& t = op->result(0)->type;
  if (op->kind() == OpKind::kConstRefNull) {
    if (!t.is_dialect()) {
      OpError(op, "result must be a ref type (!hal.*, !vm.buffer), got " + Quoted(t));
      return false;
    }
    return true;
  }
  if (t != Type::Dialect("vm.buffer")) {
    OpError(op, "result must be '!vm.buffer', got " + Quoted(t));
    return false;
  }
  const Attribute* ref = op->attribute("rodata");
  if (!IsFlatSymbolRef(ref)) {
    OpError(op, "requires attribute 'rodata' (a flat symbol reference)");
    return false;
  }
  auto it = symbols_.find(ref->symbols[0]);
  if (it == symbols_.end() || it->second->kind() != OpKind::kRodata) {
    diagnostics_.Error(op->loc, "unknown rodata '@" + ref->symbols[0] + "'");
    return false;
  }
  return true;
}

// --- Dominance ---

bool Verifier::VerifyDominance(Operation* op) {
  auto check = [&](const Value* value, size_t number) {
    const Block* def_block = value->parent_block();
    const Region* def_region = def_block ? def_block->parent_region() : nullptr;
    // Walk up from the user to the op that sits in the definition's region.
    // Isolated ops (functions) end the walk: their bodies see nothing outside.
    const Operation* user = op;
    bool found = false;
    while (def_region && user->parent_block()) {
      const Region* region = user->parent_block()->parent_region();
      if (region == def_region) {
        found = true;
        break;
      }
      const Operation* parent = region ? region->parent_op() : nullptr;
      if (!parent || parent->HasTrait(kOpIsolated)) break;
      user = parent;
    }
    bool dominates = false;
    if (found) {
      const Block* use_block = user->parent_block();
      if (use_block == def_block) {
        dominates =
            value->is_block_argument() || PositionOf(value->defining_op()) < PositionOf(user);
      } else {
        const DominanceInfo& dom = DominanceOf(def_region);
        // Code in unreachable blocks never runs: any visible value may be used
        // there (as LLVM and MLIR allow); SimplifyControlFlow removes it.
        dominates = !dom.IsReachable(use_block) || dom.Dominates(def_block, use_block);
      }
    }
    if (dominates) return true;
    std::string name = value->name.empty() ? "" : " ('%" + value->name + "')";
    diagnostics_.Error(op->loc,
                       "operand #" + std::to_string(number) + name + " does not dominate this use");
    diagnostics_.Note(value->loc, found ? "operand defined here"
                                        : "operand defined here, "
                                          "outside the user's scope");
    return false;
  };
  size_t number = 0;
  for (const Value* v : op->operands) {
    if (!check(v, number++)) return false;
  }
  for (const Successor& s : op->successors) {
    for (const Value* v : s.arguments) {
      if (!check(v, number++)) return false;
    }
  }
  return true;
}

}  // namespace

Status VerifyModule(Operation* module, DiagnosticEngine& diagnostics) {
  const size_t errors_before = diagnostics.error_count();
  Verifier(module, diagnostics).Run();
  if (diagnostics.error_count() == errors_before) return OkStatus();
  return diagnostics.ToStatus();
}

}  // namespace kiln::compiler
