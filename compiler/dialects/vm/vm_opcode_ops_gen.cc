// vm-opcode-ops-gen: prints the ODS (TableGen) definitions of the vm
// dialect's opcode ops, one op per entry of KILN_FOR_EACH_OPCODE
// (vm/opcodes.h), so the dialect can never drift from the instruction set.
// The build runs it, then mlir-tblgen turns its output into op classes.
//
// The rules (documented for users in vm_dialect.h):
//   * op name "vm." + the table mnemonic, C++ class table Name + "Op";
//   * the destination register (the first operand of a non-terminator, when it
//     is a register) is the op's result; other registers are SSA operands in
//     table order, typed by bank (i32, i64, f32, f64, !vm.ref<...>);
//   * immediates are I32/I64/F32/F64 attributes; functions, imports, globals
//     and rodata are flat symbol references; strings StrAttr; types TypeAttr;
//   * branch targets are successors, each with its block-argument operands;
//     for.step's body successor also receives the incremented induction
//     variable as a produced first argument;
//   * call arguments/results, return values and trace operands are variadic.
//
// Runs on the build host; links nothing but the header.
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "vm/opcodes.h"

namespace {

using kiln::vm::OperandKind;
using kiln::vm::kTerminator;

struct Entry {
  std::string_view name;
  std::string_view mnemonic;
  uint8_t flags;
  std::vector<OperandKind> kinds;
};

const std::vector<Entry>& Entries() {
  using enum OperandKind;
#define KILN_GEN_ENTRY_(name, mnemonic, flags, ...) {#name, mnemonic, flags, {__VA_ARGS__}},
  static const std::vector<Entry> entries = {KILN_FOR_EACH_OPCODE(KILN_GEN_ENTRY_)};
#undef KILN_GEN_ENTRY_
  return entries;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool IsRegister(OperandKind k) { return k <= OperandKind::kRegRef; }

std::string Constraint(OperandKind k) {
  switch (k) {
    case OperandKind::kRegI32:
      return "I32";
    case OperandKind::kRegI64:
      return "I64";
    case OperandKind::kRegF32:
      return "F32";
    case OperandKind::kRegF64:
      return "F64";
    default:
      return "VM_AnyRef";
  }
}

// The first component of the mnemonic ("div" of "div.i32.s").
std::string_view Stem(std::string_view mnemonic) {
  return mnemonic.substr(0, mnemonic.find('.'));
}

// Ops without side effects (the VM defines every result, and none traps).
// Integer division and remainder stop the invocation on a zero divisor.
bool IsPure(const Entry& e) {
  static const std::vector<std::string_view> kPure = {
      "const", "mov",  "add",  "sub",   "mul",   "min",   "max",     "abs",   "neg",
      "and",   "or",   "xor",  "not",   "shl",   "shr",   "cmp",     "select", "trunc",
      "ext",   "cast", "bitcast", "pow", "fma",  "sqrt",  "exp",     "log",   "sin",
      "cos",   "tanh", "floor", "ceil", "round", "ref",   "import"};
  const std::string_view stem = Stem(e.mnemonic);
  if (stem == "div" || stem == "rem") {
    return e.mnemonic.find(".f32") != std::string_view::npos ||
           e.mnemonic.find(".f64") != std::string_view::npos;
  }
  for (std::string_view p : kPure) {
    if (stem == p) return true;
  }
  return false;
}

// Names of the register operands (the destination excluded), by op family.
std::vector<std::string> RegisterNames(const Entry& e, size_t count) {
  const std::string_view m = e.mnemonic;
  auto names = [&](std::initializer_list<const char*> list) {
    return std::vector<std::string>(list.begin(), list.end());
  };
  if (StartsWith(m, "select.")) return names({"condition", "true_value", "false_value"});
  if (StartsWith(m, "buffer.load.")) return names({"buffer", "offset"});
  if (StartsWith(m, "buffer.store.")) return names({"buffer", "offset", "value"});
  if (m == "buffer.copy")
    return names({"source", "source_offset", "target", "target_offset", "length"});
  if (m == "buffer.fill") return names({"buffer", "offset", "length", "value"});
  if (m == "buffer.alloc") return names({"length"});
  if (m == "buffer.length") return names({"buffer"});
  if (m == "list.alloc") return names({"capacity"});
  if (m == "list.size") return names({"list"});
  if (m == "list.resize") return names({"list", "size"});
  if (StartsWith(m, "list.get.")) return names({"list", "index"});
  if (StartsWith(m, "list.set.")) return names({"list", "index", "value"});
  if (StartsWith(m, "global.store.")) return names({"value"});
  if (m == "cond_br") return names({"condition"});
  if (StartsWith(m, "for.step.")) return names({"induction", "bound"});
  if (StartsWith(m, "fma.")) return names({"a", "b", "c"});
  if (count == 1) return names({"operand"});
  if (count == 2) return names({"lhs", "rhs"});
  std::vector<std::string> out;
  for (size_t i = 0; i < count; ++i) out.push_back(std::string(1, static_cast<char>('a' + i)));
  return out;
}

std::string Join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += separator;
    out += parts[i];
  }
  return out;
}

void EmitSwitch(const Entry& e) {
  std::printf(
      "def VM_%.*sOp : VM_Op<\"%.*s\", [Terminator, AttrSizedOperandSegments,\n"
      "    DeclareOpInterfaceMethods<BranchOpInterface, [\"getSuccessorOperands\"]>]> {\n"
      "  let summary = \"Opcode %.*s: jumps to case `index`, or to the default when out of "
      "range.\";\n"
      "  let arguments = (ins I32:$index,\n"
      "                       Variadic<VM_AnyValue>:$default_operands,\n"
      "                       VariadicOfVariadic<VM_AnyValue, \"case_operand_segments\">:"
      "$case_operands,\n"
      "                       DenseI32ArrayAttr:$case_operand_segments);\n"
      "  let successors = (successor AnySuccessor:$default_dest,\n"
      "                              VariadicSuccessor<AnySuccessor>:$case_dests);\n"
      "  let hasCustomAssemblyFormat = 1;\n"
      "  let hasVerifier = 1;\n"
      "}\n\n",
      static_cast<int>(e.name.size()), e.name.data(), static_cast<int>(e.mnemonic.size()),
      e.mnemonic.data(), static_cast<int>(e.mnemonic.size()), e.mnemonic.data());
}

void EmitOp(const Entry& e) {
  if (e.name == "Switch") return EmitSwitch(e);
  const bool terminator = e.flags & kTerminator;
  const bool for_step = StartsWith(e.mnemonic, "for.step.");
  // A register first operand is the destination, except for the ops that
  // only read their buffer or list (store, copy, fill, set, resize).
  const bool reads_first = StartsWith(e.mnemonic, "buffer.store.") ||
                           StartsWith(e.mnemonic, "list.set.") || e.mnemonic == "buffer.copy" ||
                           e.mnemonic == "buffer.fill" || e.mnemonic == "list.resize";
  const bool has_def =
      !terminator && !reads_first && !e.kinds.empty() && IsRegister(e.kinds[0]);
  const bool is_call = e.name == "Call" || e.name == "CallImport";
  const bool is_return = e.name == "Return";

  std::vector<std::string> traits;
  const bool is_constant = StartsWith(e.mnemonic, "const.") && e.name != "ConstRefNull" &&
                           e.name != "ConstRefRodata";
  if (IsPure(e)) traits.push_back("Pure");
  if (is_constant) traits.push_back("ConstantLike");
  if (terminator) traits.push_back("Terminator");
  if (is_return) traits.push_back("ReturnLike");

  size_t register_count = 0, target_count = 0;
  for (size_t i = has_def ? 1 : 0; i < e.kinds.size(); ++i) {
    if (IsRegister(e.kinds[i])) ++register_count;
    if (e.kinds[i] == OperandKind::kTarget) ++target_count;
  }
  const std::vector<std::string> reg_names = RegisterNames(e, register_count);

  std::vector<std::string> args, results, successors, format_parts, ref_types;
  std::string variadic_format;  // Calls, returns, traces.
  std::string result_type;      // type($result), or empty.
  bool has_symbol = false;
  size_t next_reg = 0;
  std::vector<std::string> succ_names;
  if (target_count == 1) succ_names = {"dest"};
  if (target_count == 2) {
    succ_names = for_step ? std::vector<std::string>{"body", "exit"}
                          : std::vector<std::string>{"true_dest", "false_dest"};
  }
  size_t next_succ = 0;
  if (has_def) {
    results.push_back(Constraint(e.kinds[0]) + ":$result");
    result_type = "type($result)";
  }
  for (size_t i = has_def ? 1 : 0; i < e.kinds.size(); ++i) {
    const OperandKind k = e.kinds[i];
    if (IsRegister(k)) {
      const std::string& name = reg_names[next_reg++];
      args.push_back(Constraint(k) + ":$" + name);
      format_parts.push_back("$" + name);
      if (k == OperandKind::kRegRef) ref_types.push_back("type($" + name + ")");
      continue;
    }
    std::string attr;
    switch (k) {
      case OperandKind::kImmI32:
      case OperandKind::kImmI64:
      case OperandKind::kImmF32:
      case OperandKind::kImmF64: {
        static const char* kAttrs[] = {"I32Attr", "I64Attr", "F32Attr", "F64Attr"};
        const char* name = for_step                      ? "step"
                           : StartsWith(e.mnemonic, "const.") ? "value"
                                                               : "imm";
        attr = std::string(kAttrs[static_cast<int>(k) - static_cast<int>(OperandKind::kImmI32)]) +
               ":$" + name;
        format_parts.push_back(std::string("$") + name);
        break;
      }
      case OperandKind::kTarget: {
        const std::string& s = succ_names[next_succ++];
        successors.push_back("AnySuccessor:$" + s);
        args.push_back("Variadic<VM_AnyValue>:$" + s + "_operands");
        format_parts.push_back("$" + s + " (`(` $" + s + "_operands^ `:` type($" + s +
                               "_operands) `)`)?");
        continue;
      }
      case OperandKind::kFunction:
      case OperandKind::kImport:
        attr = "FlatSymbolRefAttr:$callee";
        has_symbol = true;
        if (!is_call) format_parts.push_back("$callee");
        break;
      case OperandKind::kRodata:
        attr = "FlatSymbolRefAttr:$rodata";
        has_symbol = true;
        format_parts.push_back("$rodata");
        break;
      case OperandKind::kGlobal32:
      case OperandKind::kGlobal64:
      case OperandKind::kGlobalRef:
        attr = "FlatSymbolRefAttr:$global";
        has_symbol = true;
        format_parts.push_back("$global");
        break;
      case OperandKind::kString:
        attr = "StrAttr:$message";
        format_parts.push_back("$message");
        break;
      case OperandKind::kType:
        attr = "TypeAttr:$object_type";
        format_parts.push_back("$object_type");
        break;
      case OperandKind::kCallArgs:
        args.push_back("Variadic<VM_AnyValue>:$operands");
        continue;
      case OperandKind::kCallResults:
        results.push_back("Variadic<VM_AnyValue>");
        continue;
      case OperandKind::kReturnValues:
        args.push_back("Variadic<VM_AnyValue>:$operands");
        variadic_format = "attr-dict ($operands^ `:` type($operands))?";
        continue;
      case OperandKind::kTraceOperands:
        args.push_back("Variadic<VM_AnyValue>:$operands");
        variadic_format = "$message `(` ($operands^ `:` type($operands))? `)` attr-dict";
        continue;
      default:
        std::fprintf(stderr, "vm-opcode-ops-gen: unhandled operand kind in %.*s\n",
                     static_cast<int>(e.name.size()), e.name.data());
        std::exit(1);
    }
    args.push_back(attr);
  }
  if (successors.size() > 1) traits.push_back("AttrSizedOperandSegments");
  if (!successors.empty()) traits.push_back("BranchOpInterface");
  if (is_call) {
    traits.push_back("CallOpInterface");
    args.push_back("OptionalAttr<DictArrayAttr>:$arg_attrs");
    args.push_back("OptionalAttr<DictArrayAttr>:$res_attrs");
    if (e.name == "CallImport") args.push_back("OptionalAttr<SymbolRefAttr>:$dispatch");
    variadic_format = "$callee `(` $operands `)` attr-dict `:` functional-type($operands, results)";
  }
  if (has_symbol) traits.push_back("SymbolUserOpInterface");

  std::string format = variadic_format;
  if (format.empty()) {
    format = Join(format_parts, " `,` ") + (format_parts.empty() ? "" : " ") + "attr-dict";
    if (!ref_types.empty()) {
      format += " `:` " + Join(ref_types, " `,` ");
      if (!result_type.empty()) format += " `->` " + result_type;
    } else if (!result_type.empty()) {
      format += " `:` " + result_type;
    }
  }

  std::printf("def VM_%.*sOp : VM_Op<\"%.*s\", [%s]> {\n", static_cast<int>(e.name.size()),
              e.name.data(), static_cast<int>(e.mnemonic.size()), e.mnemonic.data(),
              Join(traits, ", ").c_str());
  std::printf("  let summary = \"Opcode %.*s (vm/opcodes.h).\";\n",
              static_cast<int>(e.mnemonic.size()), e.mnemonic.data());
  std::printf("  let arguments = (ins %s);\n", Join(args, ", ").c_str());
  std::printf("  let results = (outs %s);\n", Join(results, ", ").c_str());
  if (!successors.empty()) {
    std::printf("  let successors = (successor %s);\n", Join(successors, ", ").c_str());
  }
  std::printf("  let assemblyFormat = [{ %s }];\n", format.c_str());
  if (is_constant) std::printf("  let hasFolder = 1;\n");
  // The class's own code: branch operands per successor, the call interface.
  std::string extra;
  if (!successors.empty()) {
    extra += "    ::mlir::SuccessorOperands getSuccessorOperands(unsigned index) {\n";
    for (size_t s = 0; s < succ_names.size(); ++s) {
      std::string accessor;
      for (size_t i = 0, up = 1; i < succ_names[s].size(); ++i) {
        char c = succ_names[s][i];
        if (c == '_') {
          up = 1;
          continue;
        }
        accessor += up ? static_cast<char>(c - 'a' + 'A') : c;
        up = 0;
      }
      const std::string produced = for_step && s == 0 ? "1, " : "";
      extra += "      if (index == " + std::to_string(s) + ") return ::mlir::SuccessorOperands(" +
               produced + "get" + accessor + "OperandsMutable());\n";
    }
    extra += "      llvm_unreachable(\"invalid successor index\");\n    }\n";
  }
  if (is_call) {
    extra +=
        "    ::mlir::CallInterfaceCallable getCallableForCallee() { return getCalleeAttr(); }\n"
        "    void setCalleeFromCallable(::mlir::CallInterfaceCallable callee) {\n"
        "      setCalleeAttr(::llvm::cast<::mlir::FlatSymbolRefAttr>(\n"
        "          ::llvm::cast<::mlir::SymbolRefAttr>(callee)));\n"
        "    }\n"
        "    ::mlir::Operation::operand_range getArgOperands() { return getOperands(); }\n"
        "    ::mlir::MutableOperandRange getArgOperandsMutable() { return getOperandsMutable(); "
        "}\n";
  }
  if (has_symbol) {
    // Symbol kinds and banks, signatures: VerifyOpcodeSymbolUses (vm_dialect.cc).
    extra +=
        "    ::llvm::LogicalResult verifySymbolUses(::mlir::SymbolTableCollection &symbols) {\n"
        "      return ::kiln::compiler::VM::VerifyOpcodeSymbolUses(getOperation(), symbols);\n"
        "    }\n";
  }
  if (!extra.empty()) std::printf("  let extraClassDeclaration = [{\n%s  }];\n", extra.c_str());
  std::printf("}\n\n");
}

}  // namespace

int main() {
  std::printf(
      "// GENERATED by vm-opcode-ops-gen from KILN_FOR_EACH_OPCODE (vm/opcodes.h).\n"
      "// Do not edit: change the opcode table or vm_opcode_ops_gen.cc.\n"
      "#ifndef KILN_COMPILER_DIALECTS_VM_OPCODE_OPS\n"
      "#define KILN_COMPILER_DIALECTS_VM_OPCODE_OPS\n\n"
      "include \"compiler/dialects/vm/vm_base.td\"\n\n");
  for (const Entry& e : Entries()) EmitOp(e);
  std::printf("#endif  // KILN_COMPILER_DIALECTS_VM_OPCODE_OPS\n");
  return 0;
}
