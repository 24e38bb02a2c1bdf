// The printer writes each op in the custom form that compiler/parser reads
// (custom_op_parser.cc), or MLIR's generic form when asked to or when an op's
// shape does not fit its custom form (a pass produced something unusual, or
// the IR is invalid): the output always parses back.
//
// Names: within each isolated op (module, function) a value keeps its source
// name when no other value in that scope has it, others are numbered %0, %1,
// ... skipping kept names. A multi-result op's results form one group
// (`%r:2`, used as `%r#1`). Blocks are numbered ^bb0, ^bb1, ... per region.
#include "compiler/ir/printer.h"

#include <unordered_map>
#include <unordered_set>

#include "compiler/parser/affine_map.h"

namespace kiln::compiler {
namespace {

bool IsSuffixName(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '$' || c == '.' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::string Quote(std::string_view text) { return Attribute::String(std::string(text)).ToString(); }

std::string Symbol(const std::string& name) { return Attribute::SymbolRef({name}).ToString(); }


// The type a constant-like attribute gives its value, or null.
Type TypeOfAttribute(const Attribute& attribute) {
  switch (attribute.kind) {
    case Attribute::Kind::kInteger:
    case Attribute::Kind::kFloat:
    case Attribute::Kind::kBool:
    case Attribute::Kind::kDialect:
      return attribute.type;
    default:
      return Type();
  }
}

bool IsString(const Attribute* a) { return a && a->kind == Attribute::Kind::kString; }
// A sym_visibility the custom forms can spell (absent, or a keyword).
bool IsVisibilityKeyword(const Attribute* a) {
  return !a ||
         (IsString(a) && (a->text == "private" || a->text == "public" || a->text == "nested"));
}
bool IsSymbol(const Attribute* a) {
  return a && a->kind == Attribute::Kind::kSymbolRef && !a->symbols.empty();
}

bool IsBranchTarget(const Region& region, const Block* target) {
  for (const auto& block : region.blocks()) {
    for (const auto& op : block->operations()) {
      for (const Successor& s : op->successors) {
        if (s.block == target) return true;
      }
    }
  }
  return false;
}

// Whether a custom form that declares its entry block's arguments in the op's
// syntax (func, scf.for, scf.while's before region, module) can print `region`.
bool EntryPrintsWithoutLabel(const Region& region) {
  return region.empty() || !IsBranchTarget(region, region.front());
}

bool SameTypes(const std::vector<Value*>& values, const std::vector<Type>& types) {
  if (values.size() != types.size()) return false;
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i]->type != types[i]) return false;
  }
  return true;
}

bool AllOfType(const std::vector<Value*>& values, const Type& type) {
  for (const Value* v : values) {
    if (v->type != type) return false;
  }
  return true;
}

class Printer {
 public:
  explicit Printer(const PrintOptions& options) : options_(options) {}

  std::string Print(const Operation& op) {
    NameScope(op);
    PrintOp(op, 0);
    return std::move(out_);
  }

 private:
  // ---- Naming ----

  // Names every value and block defined in `op`'s regions (not inside nested
  // isolated ops, which get their own scope when printed).
  void NameScope(const Operation& op) {
    struct Def {
      std::vector<Value*> values;
      std::string candidate;  // Source name to keep if unique, or "".
    };
    std::vector<Def> defs;
    auto single_candidate = [](const Value* v) {
      return IsSuffixName(v->name) ? v->name : std::string();
    };
    std::function<void(const Operation&)> collect = [&](const Operation& parent) {
      for (size_t r = 0; r < parent.num_regions(); ++r) {
        // Successors stay within their region, so labels restart per region.
        size_t block_index = 0;
        for (const auto& block : parent.region(r)->blocks()) {
          block_names_[block.get()] = "^bb" + std::to_string(block_index++);
          for (Value* arg : block->arguments()) defs.push_back({{arg}, single_candidate(arg)});
          for (const auto& child : block->operations()) {
            if (child->num_results() == 1) {
              defs.push_back({{child->result(0)}, single_candidate(child->result(0))});
            } else if (child->num_results() > 1) {
              // A group keeps its base name when every result is "<base>#<i>".
              std::string base;
              const std::string& first = child->result(0)->name;
              size_t hash = first.rfind('#');
              if (hash != std::string::npos) base = first.substr(0, hash);
              bool ok = IsSuffixName(base);
              for (size_t i = 0; ok && i < child->num_results(); ++i) {
                ok = child->result(i)->name == base + "#" + std::to_string(i);
              }
              defs.push_back({child->results(), ok ? base : std::string()});
            }
            if (!child->HasTrait(kOpIsolated)) collect(*child);
          }
        }
      }
    };
    collect(op);

    std::unordered_map<std::string, int> counts;
    for (const Def& def : defs) {
      if (!def.candidate.empty()) ++counts[def.candidate];
    }
    std::unordered_set<std::string> kept;
    for (const Def& def : defs) {
      if (!def.candidate.empty() && counts[def.candidate] == 1) kept.insert(def.candidate);
    }
    size_t next = 0;
    for (const Def& def : defs) {
      std::string base;
      if (!def.candidate.empty() && counts[def.candidate] == 1) {
        base = def.candidate;
      } else {
        do {
          base = std::to_string(next++);
        } while (kept.count(base));
      }
      if (def.values.size() == 1) {
        names_[def.values[0]] = "%" + base;
      } else {
        for (size_t i = 0; i < def.values.size(); ++i) {
          names_[def.values[i]] = "%" + base + "#" + std::to_string(i);
        }
        group_names_[def.values[0]] = "%" + base;
      }
    }
  }

  const std::string& NameOf(const Value* value) {
    auto it = names_.find(value);
    if (it != names_.end()) return it->second;
    // A value defined outside what is being printed.
    return names_[value] = "%outside" + std::to_string(outside_++);
  }

  std::string BlockName(const Block* block) {
    auto it = block_names_.find(block);
    if (it != block_names_.end()) return it->second;
    return block_names_[block] = "^outside" + std::to_string(outside_++);
  }

  // ---- Output helpers ----

  void Indent(int indent) { out_.append(static_cast<size_t>(indent), ' '); }

  std::string ValueList(const std::vector<Value*>& values) {
    std::string out;
    for (size_t i = 0; i < values.size(); ++i) {
      if (i) out += ", ";
      out += NameOf(values[i]);
    }
    return out;
  }

  // `%a, %b : i32, f32`
  std::string ValuesWithTypes(const std::vector<Value*>& values) {
    std::string out = ValueList(values) + " : ";
    for (size_t i = 0; i < values.size(); ++i) {
      if (i) out += ", ";
      out += values[i]->type.ToString();
    }
    return out;
  }

  std::string Successor(const compiler::Successor& successor) {
    std::string out = BlockName(successor.block);
    if (!successor.arguments.empty()) out += "(" + ValuesWithTypes(successor.arguments) + ")";
    return out;
  }

  // ` {a = 1, b}` for the attributes not in `skip`; "" when none remain.
  static std::string AttrDict(const Operation& op, std::initializer_list<std::string_view> skip,
                              bool keyword = false) {
    std::vector<NamedAttribute> rest;
    for (const NamedAttribute& a : op.attributes) {
      bool skipped = false;
      for (std::string_view s : skip) skipped = skipped || a.name == s;
      if (!skipped) rest.push_back(a);
    }
    if (rest.empty()) return "";
    return (keyword ? " attributes " : " ") + Attribute::Dictionary(std::move(rest)).ToString();
  }

  void PrintBlockLabel(const Block* block, int indent) {
    Indent(indent);
    out_ += BlockName(block);
    if (block->num_arguments()) {
      out_ += "(";
      for (size_t i = 0; i < block->num_arguments(); ++i) {
        if (i) out_ += ", ";
        out_ += NameOf(block->argument(i)) + ": " + block->argument(i)->type.ToString();
      }
      out_ += ")";
    }
    out_ += ":\n";
  }

  // `{`, blocks, `}`. The entry block's label is printed when it has
  // arguments the op's syntax does not declare.
  // An entry block that is a branch target (invalid, but possible while a
  // pass works) needs its label; ops declaring entry arguments then print
  // generically.
  void PrintRegion(const Region& region, int indent, bool entry_args_declared) {
    out_ += "{\n";
    for (size_t i = 0; i < region.num_blocks(); ++i) {
      const Block* block = region.block(i);
      if (i > 0 ||
          (!entry_args_declared && (block->num_arguments() > 0 || IsBranchTarget(region, block)))) {
        PrintBlockLabel(block, indent);
      }
      for (const auto& op : block->operations()) PrintOp(*op, indent + 2);
    }
    Indent(indent);
    out_ += "}";
  }

  // ---- Operations ----

  void PrintOp(const Operation& op, int indent) {
    if (op.HasTrait(kOpIsolated) && indent > 0) NameScope(op);
    Indent(indent);
    if (op.num_results() > 0) {
      if (op.num_results() == 1) {
        out_ += NameOf(op.result(0));
      } else {
        auto it = group_names_.find(op.result(0));
        if (it != group_names_.end()) {
          out_ += it->second + ":" + std::to_string(op.num_results());
        } else {
          out_ += ValueList(op.results());
        }
      }
      out_ += " = ";
    }
    if (options_.generic || !PrintCustom(op, indent)) PrintGeneric(op, indent);
    if (options_.locations && options_.sources && op.debug_loc.known() &&
        op.debug_loc.file < options_.sources->file_count()) {
      out_ += " loc(" + Quote(options_.sources->path(op.debug_loc.file)) + ":" +
              std::to_string(op.debug_loc.line) + ":" + std::to_string(op.debug_loc.column) + ")";
    }
    out_ += "\n";
  }

  void PrintGeneric(const Operation& op, int indent) {
    out_ += Quote(op.name());
    std::vector<Value*> operands = op.operands;
    std::vector<NamedAttribute> attributes = op.attributes;
    if (!op.successors.empty()) {
      // MLIR flattens successor operands into the operand list and records
      // the split in segment attributes.
      auto dense = [](const std::vector<int64_t>& values) {
        Attribute a;
        a.kind = Attribute::Kind::kDenseArray;
        a.type = Type::I32();
        for (int64_t v : values) a.elements.push_back(Attribute::Integer(v, Type::I32()));
        return a;
      };
      std::vector<int64_t> counts;
      for (const compiler::Successor& s : op.successors) {
        counts.push_back(static_cast<int64_t>(s.arguments.size()));
        operands.insert(operands.end(), s.arguments.begin(), s.arguments.end());
      }
      auto set = [&](std::string name, Attribute value) {
        std::erase_if(attributes, [&](const NamedAttribute& a) { return a.name == name; });
        attributes.push_back({std::move(name), std::move(value)});
      };
      if (op.kind() == OpKind::kCondBr && counts.size() == 2) {
        set("operandSegmentSizes",
            dense({static_cast<int64_t>(op.operands.size()), counts[0], counts[1]}));
      } else if (op.kind() == OpKind::kSwitch) {
        int64_t cases = 0;
        for (size_t i = 1; i < counts.size(); ++i) cases += counts[i];
        set("operandSegmentSizes",
            dense({static_cast<int64_t>(op.operands.size()), counts[0], cases}));
        set("case_operand_segments", dense(std::vector<int64_t>(counts.begin() + 1, counts.end())));
      }
    }
    out_ += "(" + ValueList(operands) + ")";
    if (!op.successors.empty()) {
      out_ += "[";
      for (size_t i = 0; i < op.successors.size(); ++i) {
        if (i) out_ += ", ";
        out_ += BlockName(op.successors[i].block);
      }
      out_ += "]";
    }
    if (op.num_regions() > 0) {
      out_ += " (";
      for (size_t i = 0; i < op.num_regions(); ++i) {
        if (i) out_ += ", ";
        PrintRegion(*op.region(i), indent, /*entry_args_declared=*/false);
      }
      out_ += ")";
    }
    if (!attributes.empty()) out_ += " " + Attribute::Dictionary(std::move(attributes)).ToString();
    std::vector<Type> operand_types;
    for (const Value* v : operands) operand_types.push_back(v->type);
    out_ += " : " + Type::Function(operand_types, op.result_types()).ToString();
  }

  // Prints the custom form; false (having printed nothing) when the op's
  // shape does not fit it.
  bool PrintCustom(const Operation& op, int indent) {
    size_t arity = 0;
    const std::vector<Value*>& operands = op.operands;
    if (!op.successors.empty() && op.kind() != OpKind::kBr && op.kind() != OpKind::kCondBr &&
        op.kind() != OpKind::kSwitch) {
      return false;
    }
    if ((arity = static_cast<size_t>(ElementwiseArity(op.kind()))) != 0) {
      if (operands.size() != arity || op.num_results() != 1 || op.num_regions() != 0 ||
          !AllOfType(operands, op.result(0)->type)) {
        return false;
      }
      out_ += std::string(op.name()) + " " + ValueList(operands);
      std::vector<std::string_view> skip;
      const Attribute* overflow = op.attribute("overflowFlags");
      if (overflow && overflow->kind == Attribute::Kind::kDialect &&
          overflow->text == "arith.overflow" && overflow->type.is_null()) {
        out_ += " overflow<" + overflow->body + ">";
        skip.push_back("overflowFlags");
      }
      const Attribute* fastmath = op.attribute("fastmath");
      if (fastmath && fastmath->kind == Attribute::Kind::kDialect &&
          fastmath->text == "arith.fastmath" && fastmath->type.is_null()) {
        out_ += " fastmath<" + fastmath->body + ">";
        skip.push_back("fastmath");
      }
      std::string_view a = skip.size() > 0 ? skip[0] : "", b = skip.size() > 1 ? skip[1] : "";
      out_ += AttrDict(op, {a, b}) + " : " + op.result(0)->type.ToString();
      return true;
    }
    if (IsCastOp(op.kind())) {
      if (operands.size() != 1 || op.num_results() != 1 || op.num_regions() != 0) return false;
      out_ += std::string(op.name()) + " " + NameOf(operands[0]) + AttrDict(op, {}) + " : " +
              operands[0]->type.ToString() + " to " + op.result(0)->type.ToString();
      return true;
    }
    switch (op.kind()) {
      case OpKind::kModule: {
        const Attribute* name = op.attribute("sym_name");
        if (op.num_regions() != 1 || op.region(0)->num_blocks() != 1 ||
            op.region(0)->front()->num_arguments() != 0 || op.num_results() != 0 ||
            !operands.empty() || (name && !IsString(name)) ||
            !EntryPrintsWithoutLabel(*op.region(0))) {
          return false;
        }
        out_ += "module";
        if (name) out_ += " " + Symbol(name->text);
        out_ += AttrDict(op, {"sym_name"}, /*keyword=*/true) + " ";
        PrintRegion(*op.region(0), indent, /*entry_args_declared=*/true);
        return true;
      }
      case OpKind::kFunc:
        return PrintFunc(op, indent);
      case OpKind::kReturn:
      case OpKind::kYield:
        if (op.num_results() != 0 || op.num_regions() != 0) return false;
        // Inside a function MLIR spells func.return and func.call without
        // their dialect (func is the default dialect there); so does kiln.
        out_ +=
            std::string(op.kind() == OpKind::kReturn ? "return" : "scf.yield") + AttrDict(op, {});
        if (!operands.empty()) out_ += " " + ValuesWithTypes(operands);
        return true;
      case OpKind::kCall: {
        const Attribute* callee = op.attribute("callee");
        if (!IsSymbol(callee) || op.num_regions() != 0) return false;
        std::vector<Type> inputs;
        for (const Value* v : operands) inputs.push_back(v->type);
        out_ += "call " + callee->ToString() + "(" + ValueList(operands) + ")" +
                AttrDict(op, {"callee"}) + " : " +
                Type::Function(inputs, op.result_types()).ToString();
        return true;
      }
      case OpKind::kConstant: {
        const Attribute* value = op.attribute("value");
        if (!value || op.num_results() != 1 || !operands.empty() || op.num_regions() != 0 ||
            TypeOfAttribute(*value) != op.result(0)->type) {
          return false;
        }
        out_ += "arith.constant" + AttrDict(op, {"value"}) + " " + value->ToString();
        return true;
      }
      case OpKind::kCmpI:
      case OpKind::kCmpF: {
        const Attribute* predicate = op.attribute("predicate");
        if (!predicate || predicate->kind != Attribute::Kind::kInteger || operands.size() != 2 ||
            operands[0]->type != operands[1]->type || op.num_results() != 1 ||
            op.result(0)->type != Type::I1() || op.num_regions() != 0) {
          return false;
        }
        std::string_view name =
            op.kind() == OpKind::kCmpI
                ? CmpIPredicateName(static_cast<CmpIPredicate>(predicate->integer_value))
                : CmpFPredicateName(static_cast<CmpFPredicate>(predicate->integer_value));
        if (name.empty()) return false;
        out_ += std::string(op.name()) + " " + std::string(name) + ", " + ValueList(operands);
        const Attribute* fastmath = op.attribute("fastmath");
        bool print_fastmath = op.kind() == OpKind::kCmpF && fastmath &&
                              fastmath->kind == Attribute::Kind::kDialect &&
                              fastmath->text == "arith.fastmath" && fastmath->type.is_null();
        if (print_fastmath) out_ += " fastmath<" + fastmath->body + ">";
        out_ += AttrDict(op, {"predicate", print_fastmath ? "fastmath" : ""}) + " : " +
                operands[0]->type.ToString();
        return true;
      }
      case OpKind::kSelect:
        if (operands.size() != 3 || op.num_results() != 1 || op.num_regions() != 0 ||
            operands[1]->type != op.result(0)->type || operands[2]->type != op.result(0)->type) {
          return false;
        }
        out_ += "arith.select " + ValueList(operands) + AttrDict(op, {}) + " : ";
        if (operands[0]->type != Type::I1()) out_ += operands[0]->type.ToString() + ", ";
        out_ += op.result(0)->type.ToString();
        return true;
      case OpKind::kIf:
        return PrintIf(op, indent);
      case OpKind::kFor:
        return PrintFor(op, indent);
      case OpKind::kWhile:
        return PrintWhile(op, indent);
      case OpKind::kCondition:
        if (operands.empty() || operands[0]->type != Type::I1() || op.num_results() != 0 ||
            op.num_regions() != 0) {
          return false;
        }
        out_ += "scf.condition(" + NameOf(operands[0]) + ")" + AttrDict(op, {});
        if (operands.size() > 1) {
          out_ += " " + ValuesWithTypes(std::vector<Value*>(operands.begin() + 1, operands.end()));
        }
        return true;
      case OpKind::kBr:
        if (op.successors.size() != 1 || !operands.empty() || op.num_results() != 0) return false;
        out_ += "cf.br " + Successor(op.successors[0]) + AttrDict(op, {});
        return true;
      case OpKind::kCondBr:
        if (op.successors.size() != 2 || operands.size() != 1 || operands[0]->type != Type::I1() ||
            op.num_results() != 0) {
          return false;
        }
        out_ += "cf.cond_br " + NameOf(operands[0]) + ", " + Successor(op.successors[0]) + ", " +
                Successor(op.successors[1]) + AttrDict(op, {});
        return true;
      case OpKind::kSwitch:
        return PrintSwitch(op);
      case OpKind::kAssert: {
        const Attribute* msg = op.attribute("msg");
        if (operands.size() != 1 || operands[0]->type != Type::I1() || !IsString(msg) ||
            op.num_results() != 0) {
          return false;
        }
        out_ += "cf.assert " + NameOf(operands[0]) + ", " + msg->ToString() + AttrDict(op, {"msg"});
        return true;
      }
      case OpKind::kHalReturn:
        if (op.num_results() != 0 || op.num_regions() != 0) return false;
        out_ += "hal.return" + AttrDict(op, {});
        if (!operands.empty()) out_ += " " + ValuesWithTypes(operands);
        return true;
      case OpKind::kExecutableSource:
      case OpKind::kExecutableExport:
        return PrintExecutableOp(op, indent);
      case OpKind::kAffineApply:
        return PrintAffineApply(op);
      case OpKind::kDispatch:
        return PrintDispatch(op);
      case OpKind::kTensorDim:
        if (operands.size() != 2 || op.num_results() != 1 || op.num_regions() != 0 ||
            !operands[1]->type.is_index() || !op.result(0)->type.is_index()) {
          return false;
        }
        out_ += "tensor.dim " + ValueList(operands) + AttrDict(op, {}) + " : " +
                operands[0]->type.ToString();
        return true;
      case OpKind::kTensorEmpty:
        if (op.num_results() != 1 || op.num_regions() != 0 || !AllOfType(operands, Type::Index())) {
          return false;
        }
        out_ += "tensor.empty(" + ValueList(operands) + ")" + AttrDict(op, {}) + " : " +
                op.result(0)->type.ToString();
        return true;
      case OpKind::kGlobal:
        return PrintGlobal(op);
      case OpKind::kGlobalLoad: {
        const Attribute* global = op.attribute("global");
        if (!IsSymbol(global) || !operands.empty() || op.num_results() != 1) return false;
        out_ += "util.global.load " + global->ToString() + AttrDict(op, {"global"}) + " : " +
                op.result(0)->type.ToString();
        return true;
      }
      case OpKind::kGlobalStore: {
        const Attribute* global = op.attribute("global");
        if (!IsSymbol(global) || operands.size() != 1 || op.num_results() != 0) return false;
        out_ += "util.global.store " + NameOf(operands[0]) + ", " + global->ToString() +
                AttrDict(op, {"global"}) + " : " + operands[0]->type.ToString();
        return true;
      }
      default:
        return false;
    }
  }

  bool PrintFunc(const Operation& op, int indent) {
    const Attribute* name = op.attribute("sym_name");
    const Attribute* visibility = op.attribute("sym_visibility");
    Type type = FunctionTypeOf(&op);
    const Attribute* arg_attrs = op.attribute("arg_attrs");
    const Attribute* res_attrs = op.attribute("res_attrs");
    auto valid_attrs = [](const Attribute* a, size_t n) {
      if (!a) return true;
      if (a->kind != Attribute::Kind::kArray || a->elements.size() != n) return false;
      for (const Attribute& e : a->elements) {
        if (e.kind != Attribute::Kind::kDictionary) return false;
      }
      return true;
    };
    if (!IsString(name) || type.is_null() || !IsVisibilityKeyword(visibility) ||
        op.num_regions() != 1 || op.num_results() != 0 || !op.operands.empty() ||
        !valid_attrs(arg_attrs, type.inputs().size()) ||
        !valid_attrs(res_attrs, type.results().size())) {
      return false;
    }
    const Region& body = *op.region(0);
    if (!body.empty() && body.front()->argument_types() != type.inputs()) return false;
    if (!EntryPrintsWithoutLabel(body)) return false;
    auto dict = [](const Attribute* attrs, size_t i) {
      if (!attrs || attrs->elements[i].entries.empty()) return std::string();
      return " " + attrs->elements[i].ToString();
    };
    out_ += "func.func ";
    if (visibility) out_ += visibility->text + " ";
    out_ += Symbol(name->text) + "(";
    for (size_t i = 0; i < type.inputs().size(); ++i) {
      if (i) out_ += ", ";
      if (!body.empty()) out_ += NameOf(body.front()->argument(i)) + ": ";
      out_ += type.inputs()[i].ToString() + dict(arg_attrs, i);
    }
    out_ += ")";
    const std::vector<Type>& results = type.results();
    bool has_res_attrs = false;
    for (size_t i = 0; i < results.size(); ++i) has_res_attrs |= !dict(res_attrs, i).empty();
    if (results.size() == 1 && !results[0].is_function() && !has_res_attrs) {
      out_ += " -> " + results[0].ToString();
    } else if (!results.empty()) {
      out_ += " -> (";
      for (size_t i = 0; i < results.size(); ++i) {
        if (i) out_ += ", ";
        out_ += results[i].ToString() + dict(res_attrs, i);
      }
      out_ += ")";
    }
    out_ += AttrDict(op, {"sym_name", "function_type", "sym_visibility", "arg_attrs", "res_attrs"},
                     /*keyword=*/true);
    if (!body.empty()) {
      out_ += " ";
      PrintRegion(body, indent, /*entry_args_declared=*/true);
    }
    return true;
  }

  bool PrintIf(const Operation& op, int indent) {
    if (op.operands.size() != 1 || op.operands[0]->type != Type::I1() || op.num_regions() != 2 ||
        op.region(0)->empty()) {
      return false;
    }
    out_ += "scf.if " + NameOf(op.operands[0]);
    if (op.num_results()) out_ += " -> (" + FormatTypes(op.result_types()) + ")";
    out_ += " ";
    PrintRegion(*op.region(0), indent, false);
    if (!op.region(1)->empty()) {
      out_ += " else ";
      PrintRegion(*op.region(1), indent, false);
    }
    out_ += AttrDict(op, {});
    return true;
  }

  bool PrintFor(const Operation& op, int indent) {
    const std::vector<Value*>& operands = op.operands;
    if (operands.size() < 3 || op.num_regions() != 1 || op.region(0)->empty() ||
        !EntryPrintsWithoutLabel(*op.region(0))) {
      return false;
    }
    const Block* entry = op.region(0)->front();
    size_t iter_count = operands.size() - 3;
    if (entry->num_arguments() != iter_count + 1 || op.num_results() != iter_count) return false;
    Type iv_type = entry->argument(0)->type;
    if (operands[0]->type != iv_type || operands[1]->type != iv_type ||
        operands[2]->type != iv_type) {
      return false;
    }
    for (size_t i = 0; i < iter_count; ++i) {
      if (entry->argument(i + 1)->type != op.result(i)->type ||
          operands[i + 3]->type != op.result(i)->type) {
        return false;
      }
    }
    out_ += "scf.for " + NameOf(entry->argument(0)) + " = " + NameOf(operands[0]) + " to " +
            NameOf(operands[1]) + " step " + NameOf(operands[2]);
    if (iter_count) {
      out_ += " iter_args(";
      for (size_t i = 0; i < iter_count; ++i) {
        if (i) out_ += ", ";
        out_ += NameOf(entry->argument(i + 1)) + " = " + NameOf(operands[i + 3]);
      }
      out_ += ") -> (" + FormatTypes(op.result_types()) + ")";
    }
    if (!iv_type.is_index()) out_ += " : " + iv_type.ToString();
    out_ += " ";
    PrintRegion(*op.region(0), indent, true);
    out_ += AttrDict(op, {});
    return true;
  }

  bool PrintWhile(const Operation& op, int indent) {
    if (op.num_regions() != 2 || op.region(0)->empty() || !EntryPrintsWithoutLabel(*op.region(0))) {
      return false;
    }
    const Block* entry = op.region(0)->front();
    if (!SameTypes(op.operands, entry->argument_types())) return false;
    out_ += "scf.while ";
    if (!op.operands.empty()) {
      out_ += "(";
      for (size_t i = 0; i < op.operands.size(); ++i) {
        if (i) out_ += ", ";
        out_ += NameOf(entry->argument(i)) + " = " + NameOf(op.operands[i]);
      }
      out_ += ") ";
    }
    out_ += ": " + Type::Function(op.operand_types(), op.result_types()).ToString() + " ";
    PrintRegion(*op.region(0), indent, true);
    out_ += " do ";
    PrintRegion(*op.region(1), indent, false);
    out_ += AttrDict(op, {}, /*keyword=*/true);
    return true;
  }

  bool PrintSwitch(const Operation& op) {
    const Attribute* cases = op.attribute("case_values");
    if (op.operands.size() != 1 || !op.operands[0]->type.is_integer_or_index() ||
        op.successors.empty() || op.num_results() != 0 || !cases ||
        (cases->kind != Attribute::Kind::kDenseArray && cases->kind != Attribute::Kind::kArray) ||
        cases->elements.size() != op.successors.size() - 1) {
      return false;
    }
    for (const Attribute& e : cases->elements) {
      if (e.kind != Attribute::Kind::kInteger) return false;
    }
    const Type& type = op.operands[0]->type;
    out_ += "cf.switch " + NameOf(op.operands[0]) + " : " + type.ToString() +
            ", [default: " + Successor(op.successors[0]);
    for (size_t i = 1; i < op.successors.size(); ++i) {
      // The custom form states case values in the flag's type.
      int64_t value = cases->elements[i - 1].integer_value;
      out_ += ", " + std::to_string(SignExtend(value, type.integer_width())) + ": " +
              Successor(op.successors[i]);
    }
    out_ += "]" + AttrDict(op, {"case_values"});
    return true;
  }

  // hal.executable.source / hal.executable.export (the export's count
  // region in the labelled form: `{ ^bb0(%device: !hal.device, ...): ... }`).
  bool PrintExecutableOp(const Operation& op, int indent) {
    const bool is_export = op.kind() == OpKind::kExecutableExport;
    const Attribute* name = op.attribute("sym_name");
    const Attribute* visibility = op.attribute("sym_visibility");
    const Attribute* ordinal = op.attribute("ordinal");
    const Attribute* layout = op.attribute("layout");
    if (!IsString(name) || !IsVisibilityKeyword(visibility) || !op.operands.empty() ||
        op.num_results() != 0 || op.num_regions() != 1 || !op.successors.empty()) {
      return false;
    }
    const Region& region = *op.region(0);
    if (is_export) {
      if (!ordinal || ordinal->kind != Attribute::Kind::kInteger || !ordinal->type.is_index() ||
          !layout || region.num_blocks() > 1 ||
          (!region.empty() && region.front()->num_arguments() == 0 &&
           !EntryPrintsWithoutLabel(region))) {
        return false;
      }
    } else if (region.num_blocks() != 1 || region.front()->num_arguments() != 0) {
      return false;
    }
    out_ += std::string(op.name());
    if (visibility) out_ += " " + visibility->text;
    out_ += " " + Symbol(name->text);
    if (is_export) {
      out_ += " ordinal(" + std::to_string(ordinal->integer_value) + ") layout(" +
              layout->ToString() + ")";
    }
    out_ += AttrDict(op, {"sym_name", "sym_visibility", "ordinal", "layout"}, /*keyword=*/true);
    if (is_export && region.empty()) return true;
    out_ += " ";
    PrintRegion(region, indent, /*entry_args_declared=*/false);
    return true;
  }

  // affine.apply affine_map<...>(%dims)[%symbols]
  bool PrintAffineApply(const Operation& op) {
    const Attribute* map = op.attribute("map");
    if (!map || map->kind != Attribute::Kind::kDialect || map->text != "affine_map" ||
        !map->type.is_null() || op.num_results() != 1 || op.num_regions() != 0 ||
        !AllOfType(op.operands, Type::Index()) || !op.result(0)->type.is_index()) {
      return false;
    }
    // The split between dimensions and symbols is the map's `(d...)` count.
    Result<AffineMap> parsed = ParseAffineMap(*map);
    if (!parsed.ok() || parsed->num_dims + parsed->num_symbols != op.operands.size()) return false;
    std::vector<Value*> dims(op.operands.begin(), op.operands.begin() + parsed->num_dims);
    std::vector<Value*> symbols(op.operands.begin() + parsed->num_dims, op.operands.end());
    out_ += "affine.apply " + map->ToString() + "(" + ValueList(dims) + ")";
    if (!symbols.empty()) out_ += "[" + ValueList(symbols) + "]";
    out_ += AttrDict(op, {"map"});
    return true;
  }

  // flow.dispatch @ex::@export[%w](%args) : (types{dims}) -> results{dims}
  bool PrintDispatch(const Operation& op) {
    const Attribute* entry = op.attribute("entry_point");
    const Attribute* segments = op.attribute("operandSegmentSizes");
    const Attribute* tied = op.attribute("tied_operands");
    if (!entry || entry->kind != Attribute::Kind::kSymbolRef || entry->symbols.size() != 2 ||
        !segments || segments->kind != Attribute::Kind::kDenseArray ||
        segments->elements.size() != 4 || op.num_regions() != 0) {
      return false;
    }
    size_t counts[4];
    size_t total = 0;
    for (size_t i = 0; i < 4; ++i) {
      const Attribute& e = segments->elements[i];
      if (e.kind != Attribute::Kind::kInteger || e.integer_value < 0) return false;
      counts[i] = static_cast<size_t>(e.integer_value);
      total += counts[i];
    }
    if (total != op.operands.size()) return false;
    std::vector<int64_t> ties(op.num_results(), -1);
    if (tied) {
      if (tied->kind != Attribute::Kind::kArray || tied->elements.size() != op.num_results()) {
        return false;
      }
      for (size_t i = 0; i < ties.size(); ++i) {
        const Attribute& e = tied->elements[i];
        if (e.kind != Attribute::Kind::kInteger || e.integer_value < -1 ||
            e.integer_value >= static_cast<int64_t>(counts[1])) {
          return false;
        }
        ties[i] = e.integer_value;
      }
    }
    auto begin = op.operands.begin();
    std::vector<Value*> workload(begin, begin + counts[0]);
    std::vector<Value*> args(begin + counts[0], begin + counts[0] + counts[1]);
    std::vector<Value*> arg_dims(begin + counts[0] + counts[1],
                                 begin + counts[0] + counts[1] + counts[2]);
    std::vector<Value*> result_dims(begin + counts[0] + counts[1] + counts[2], op.operands.end());
    // Every value must be a separately spelled operand for ties to print,
    // and the dims must match the types' dynamic dimensions.
    auto dynamic = [](const Type& t) {
      size_t n = 0;
      for (int64_t d : t.shape()) n += d == Type::kDynamic;
      return n;
    };
    size_t needed = 0;
    for (const Value* v : args) needed += dynamic(v->type);
    if (needed != arg_dims.size() || !AllOfType(workload, Type::Index()) ||
        !AllOfType(arg_dims, Type::Index()) || !AllOfType(result_dims, Type::Index())) {
      return false;
    }
    needed = 0;
    for (size_t i = 0; i < op.num_results(); ++i) {
      const Type& t = op.result(i)->type;
      if (!t.is_tensor()) return false;
      if (ties[i] >= 0) {
        if (args[ties[i]]->type != t) return false;
        for (size_t j = 0; j < static_cast<size_t>(ties[i]); ++j) {
          if (args[j] == args[ties[i]]) return false;  // Ambiguous spelling.
        }
      }
      needed += dynamic(t);
    }
    if (needed != result_dims.size()) return false;
    auto with_dims = [&](const std::string& head, const Type& t, size_t* next,
                         const std::vector<Value*>& dims) {
      std::string out = head;
      size_t n = dynamic(t);
      if (n) {
        std::vector<Value*> mine(dims.begin() + *next, dims.begin() + *next + n);
        out += "{" + ValueList(mine) + "}";
        *next += n;
      }
      return out;
    };
    out_ += "flow.dispatch " + entry->ToString();
    if (!workload.empty()) out_ += "[" + ValueList(workload) + "]";
    out_ += "(" + ValueList(args) + ")" +
            AttrDict(op, {"entry_point", "operandSegmentSizes", "tied_operands"}) + " : (";
    size_t next = 0;
    for (size_t i = 0; i < args.size(); ++i) {
      if (i) out_ += ", ";
      out_ += with_dims(args[i]->type.ToString(), args[i]->type, &next, arg_dims);
    }
    out_ += ") -> ";
    next = 0;
    std::string results;
    for (size_t i = 0; i < op.num_results(); ++i) {
      if (i) results += ", ";
      const Type& t = op.result(i)->type;
      results +=
          with_dims(ties[i] >= 0 ? NameOf(args[ties[i]]) : t.ToString(), t, &next, result_dims);
    }
    out_ += op.num_results() == 1 ? results : "(" + results + ")";
    return true;
  }

  bool PrintGlobal(const Operation& op) {
    const Attribute* name = op.attribute("sym_name");
    const Attribute* type = op.attribute("type");
    const Attribute* visibility = op.attribute("sym_visibility");
    const Attribute* is_mutable = op.attribute("is_mutable");
    const Attribute* initial = op.attribute("initial_value");
    if (!IsString(name) || !type || type->kind != Attribute::Kind::kType ||
        !IsVisibilityKeyword(visibility) ||
        (is_mutable && is_mutable->kind != Attribute::Kind::kUnit) || !op.operands.empty() ||
        op.num_results() != 0 || op.num_regions() != 0) {
      return false;
    }
    // The custom form re-reads an untyped initial value (an array, a string)
    // in the global's type, so only typed values print there.
    if (initial && TypeOfAttribute(*initial).is_null()) return false;
    out_ += "util.global ";
    if (visibility) out_ += visibility->text + " ";
    if (is_mutable) out_ += "mutable ";
    out_ += Symbol(name->text) +
            AttrDict(op, {"sym_name", "type", "sym_visibility", "is_mutable", "initial_value"}) +
            " : " + type->type.ToString();
    if (initial) out_ += " = " + initial->ToString();
    return true;
  }

  const PrintOptions& options_;
  std::string out_;
  std::unordered_map<const Value*, std::string> names_;
  std::unordered_map<const Value*, std::string> group_names_;  // First result -> "%r".
  std::unordered_map<const Block*, std::string> block_names_;
  size_t outside_ = 0;
};

}  // namespace

std::string PrintOperation(const Operation& op, const PrintOptions& options) {
  return Printer(options).Print(op);
}

}  // namespace kiln::compiler
