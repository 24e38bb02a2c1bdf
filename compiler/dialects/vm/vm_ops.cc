// The vm dialect's ops: the structural ops' assembly and verifiers, vm.switch's
// assembly, the constants' folders and the opcode ops' symbol checks.
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"

#include "compiler/dialects/vm/vm_dialect.h"

#define GET_OP_CLASSES
#include "compiler/dialects/vm/vm_structural_ops.cpp.inc"

#define GET_OP_CLASSES
#include "compiler/dialects/vm/vm_opcode_ops.cpp.inc"

namespace kiln::compiler::VM {

using kiln::vm::Bank;
using kiln::vm::Opcode;

//===----------------------------------------------------------------------===//
// vm.module
//===----------------------------------------------------------------------===//

void ModuleOp::build(mlir::OpBuilder& builder, mlir::OperationState& state,
                     llvm::StringRef name) {
  state.addAttribute(mlir::SymbolTable::getSymbolAttrName(), builder.getStringAttr(name));
  state.addRegion()->emplaceBlock();
}

//===----------------------------------------------------------------------===//
// vm.func
//===----------------------------------------------------------------------===//

void FuncOp::build(mlir::OpBuilder& builder, mlir::OperationState& state, llvm::StringRef name,
                   mlir::FunctionType type) {
  state.addAttribute(mlir::SymbolTable::getSymbolAttrName(), builder.getStringAttr(name));
  state.addAttribute(getFunctionTypeAttrName(state.name), mlir::TypeAttr::get(type));
  state.addRegion();
}

mlir::ParseResult FuncOp::parse(mlir::OpAsmParser& parser, mlir::OperationState& result) {
  auto build_type = [](mlir::Builder& builder, llvm::ArrayRef<mlir::Type> inputs,
                       llvm::ArrayRef<mlir::Type> results, mlir::function_interface_impl::VariadicFlag,
                       std::string&) { return builder.getFunctionType(inputs, results); };
  return mlir::function_interface_impl::parseFunctionOp(
      parser, result, /*allowVariadic=*/false, getFunctionTypeAttrName(result.name), build_type,
      getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));
}

void FuncOp::print(mlir::OpAsmPrinter& p) {
  mlir::function_interface_impl::printFunctionOp(p, *this, /*isVariadic=*/false,
                                                 getFunctionTypeAttrName(), getArgAttrsAttrName(),
                                                 getResAttrsAttrName());
}

llvm::StringRef FuncOp::getExportName() {
  mlir::Attribute attr = (*this)->getAttr("vm.export");
  if (!attr) return {};
  if (auto name = llvm::dyn_cast<mlir::StringAttr>(attr)) return name.getValue();
  return getSymName();
}

llvm::LogicalResult FuncOp::verify() {
  mlir::FunctionType type = getFunctionType();
  for (auto [i, t] : llvm::enumerate(type.getInputs())) {
    if (!BankOfType(t)) {
      return emitOpError() << "argument #" << i << " has type " << t
                           << ", which no VM register bank holds (i32, i64, f32, f64, !vm.ref)";
    }
  }
  for (auto [i, t] : llvm::enumerate(type.getResults())) {
    if (!BankOfType(t)) {
      return emitOpError() << "result #" << i << " has type " << t
                           << ", which no VM register bank holds (i32, i64, f32, f64, !vm.ref)";
    }
  }
  if (isExternal()) return emitOpError("a vm.func needs a body (imports are vm.import)");
  for (mlir::Block& block : getBody()) {
    for (mlir::BlockArgument arg : block.getArguments()) {
      if (!BankOfType(arg.getType())) {
        return mlir::emitError(arg.getLoc())
               << "block argument of type " << arg.getType()
               << ", which no VM register bank holds";
      }
    }
    if (block.empty()) continue;
    auto ret = llvm::dyn_cast<ReturnOp>(block.back());
    if (!ret) continue;
    if (ret.getOperands().getTypes() != type.getResults()) {
      return ret.emitOpError() << "returns (" << ret.getOperands().getTypes()
                               << ") from a function returning (" << type.getResults() << ")";
    }
  }
  return llvm::success();
}

//===----------------------------------------------------------------------===//
// vm.import
//===----------------------------------------------------------------------===//

mlir::ParseResult ImportOp::parse(mlir::OpAsmParser& parser, mlir::OperationState& result) {
  mlir::Builder& builder = parser.getBuilder();
  if (succeeded(parser.parseOptionalKeyword("optional"))) {
    result.addAttribute(getIsOptionalAttrName(result.name), builder.getUnitAttr());
  }
  mlir::StringAttr name;
  if (parser.parseSymbolName(name, mlir::SymbolTable::getSymbolAttrName(), result.attributes) ||
      parser.parseLParen()) {
    return mlir::failure();
  }
  llvm::SmallVector<mlir::Type> inputs, results;
  if (failed(parser.parseOptionalRParen())) {
    do {
      if (succeeded(parser.parseOptionalEllipsis())) {
        result.addAttribute(getIsVariadicAttrName(result.name), builder.getUnitAttr());
        break;
      }
      if (parser.parseType(inputs.emplace_back())) return mlir::failure();
    } while (succeeded(parser.parseOptionalComma()));
    if (parser.parseRParen()) return mlir::failure();
  }
  if (parser.parseOptionalArrowTypeList(results) ||
      parser.parseOptionalAttrDictWithKeyword(result.attributes)) {
    return mlir::failure();
  }
  result.addAttribute(getFunctionTypeAttrName(result.name),
                      mlir::TypeAttr::get(builder.getFunctionType(inputs, results)));
  return mlir::success();
}

void ImportOp::print(mlir::OpAsmPrinter& p) {
  if (getIsOptional()) p << " optional";
  p << " ";
  p.printSymbolName(getSymName());
  p << "(";
  llvm::interleaveComma(getFunctionType().getInputs(), p);
  if (getIsVariadic()) p << (getFunctionType().getNumInputs() ? ", ..." : "...");
  p << ")";
  p.printArrowTypeList(getFunctionType().getResults());
  p.printOptionalAttrDictWithKeyword(
      (*this)->getAttrs(), {getSymNameAttrName(), getFunctionTypeAttrName(),
                            getIsVariadicAttrName(), getIsOptionalAttrName()});
}

//===----------------------------------------------------------------------===//
// vm.rodata
//===----------------------------------------------------------------------===//

llvm::LogicalResult RodataOp::verify() {
  if (std::optional<uint64_t> alignment = getAlignment()) {
    if (*alignment == 0 || (*alignment & (*alignment - 1)) != 0) {
      return emitOpError() << "alignment " << *alignment << " is not a power of two";
    }
  }
  if (auto elements = llvm::dyn_cast<mlir::DenseElementsAttr>(getValue())) {
    mlir::Type element = elements.getElementType();
    if (!element.isIntOrFloat()) {
      return emitOpError() << "elements of type " << element << " have no byte layout";
    }
  }
  if (std::optional<ExecutableVariantAttr> executable = getExecutable()) {
    for (mlir::Attribute e : executable->getExports()) {
      if (!llvm::isa<ExecutableExportAttr>(e))
        return emitOpError("an executable's exports must be #vm.executable_export");
    }
  }
  return llvm::success();
}

//===----------------------------------------------------------------------===//
// Opcode ops written by hand: vm.switch's assembly, the constants' folders.
//===----------------------------------------------------------------------===//

// vm.switch %index [^case0(%a : i32), ^case1], default ^other(%b : i64)
mlir::ParseResult SwitchOp::parse(mlir::OpAsmParser& parser, mlir::OperationState& result) {
  mlir::OpAsmParser::UnresolvedOperand index;
  if (parser.parseOperand(index) ||
      parser.resolveOperand(index, parser.getBuilder().getI32Type(), result.operands) ||
      parser.parseLSquare()) {
    return mlir::failure();
  }
  llvm::SmallVector<mlir::Block*> cases;
  llvm::SmallVector<llvm::SmallVector<mlir::Value>> case_operands;
  if (failed(parser.parseOptionalRSquare())) {
    do {
      mlir::Block* dest = nullptr;
      llvm::SmallVector<mlir::Value> operands;
      if (parser.parseSuccessorAndUseList(dest, operands)) return mlir::failure();
      cases.push_back(dest);
      case_operands.push_back(std::move(operands));
    } while (succeeded(parser.parseOptionalComma()));
    if (parser.parseRSquare()) return mlir::failure();
  }
  mlir::Block* default_dest = nullptr;
  llvm::SmallVector<mlir::Value> default_operands;
  if (parser.parseComma() || parser.parseKeyword("default") ||
      parser.parseSuccessorAndUseList(default_dest, default_operands) ||
      parser.parseOptionalAttrDict(result.attributes)) {
    return mlir::failure();
  }
  result.addSuccessors(default_dest);
  result.addSuccessors(cases);
  result.addOperands(default_operands);
  llvm::SmallVector<int32_t> segments;
  int32_t total = 0;
  for (const auto& operands : case_operands) {
    result.addOperands(operands);
    segments.push_back(static_cast<int32_t>(operands.size()));
    total += segments.back();
  }
  mlir::Builder& builder = parser.getBuilder();
  result.addAttribute(getCaseOperandSegmentsAttrName(result.name),
                      builder.getDenseI32ArrayAttr(segments));
  result.addAttribute(getOperandSegmentSizesAttrName(result.name),
                      builder.getDenseI32ArrayAttr(
                          {1, static_cast<int32_t>(default_operands.size()), total}));
  return mlir::success();
}

void SwitchOp::print(mlir::OpAsmPrinter& p) {
  p << " " << getIndex() << " [";
  for (auto [i, dest] : llvm::enumerate(getCaseDests())) {
    if (i) p << ", ";
    p.printSuccessorAndUseList(dest, getCaseOperands()[i]);
  }
  p << "], default ";
  p.printSuccessorAndUseList(getDefaultDest(), getDefaultOperands());
  p.printOptionalAttrDict((*this)->getAttrs(),
                          {getCaseOperandSegmentsAttrName(), getOperandSegmentSizesAttrName()});
}

llvm::LogicalResult SwitchOp::verify() {
  if (getCaseDests().size() != getCaseOperandSegments().size()) {
    return emitOpError() << getCaseDests().size() << " cases but "
                         << getCaseOperandSegments().size() << " operand lists";
  }
  if (getCaseDests().size() > UINT16_MAX) {
    return emitOpError() << "a switch table holds at most " << UINT16_MAX << " cases";
  }
  return llvm::success();
}

mlir::SuccessorOperands SwitchOp::getSuccessorOperands(unsigned index) {
  if (index == 0) return mlir::SuccessorOperands(getDefaultOperandsMutable());
  return mlir::SuccessorOperands(getCaseOperandsMutable()[index - 1]);
}

mlir::OpFoldResult ConstI32Op::fold(FoldAdaptor) { return getValueAttr(); }
mlir::OpFoldResult ConstI64Op::fold(FoldAdaptor) { return getValueAttr(); }
mlir::OpFoldResult ConstF32Op::fold(FoldAdaptor) { return getValueAttr(); }
mlir::OpFoldResult ConstF64Op::fold(FoldAdaptor) { return getValueAttr(); }

//===----------------------------------------------------------------------===//
// Symbol operands of opcode ops.
//===----------------------------------------------------------------------===//

namespace {

// The ref types agree, or one of them is !vm.ref<?>.
bool RefCompatible(mlir::Type a, mlir::Type b) {
  if (a == b) return true;
  auto ra = llvm::dyn_cast<RefType>(a), rb = llvm::dyn_cast<RefType>(b);
  return ra && rb && (ra.isAny() || rb.isAny());
}

bool TypesCompatible(mlir::TypeRange have, mlir::TypeRange want) {
  if (have.size() != want.size()) return false;
  for (auto [a, b] : llvm::zip(have, want)) {
    if (!RefCompatible(a, b)) return false;
  }
  return true;
}

// The symbol `ref` of `op`'s vm.module as a T; reports an error at `op` and
// returns null when it is missing or another kind of op.
template <typename T>
T Lookup(mlir::Operation* op, mlir::SymbolTableCollection& symbols, mlir::FlatSymbolRefAttr ref,
         llvm::StringRef what) {
  auto module = op->getParentOfType<ModuleOp>();
  mlir::Operation* target = module ? symbols.lookupSymbolIn(module, ref.getAttr()) : nullptr;
  auto typed = llvm::dyn_cast_or_null<T>(target);
  if (!typed) {
    op->emitOpError() << "'" << ref << "' does not name " << what << " of the enclosing vm.module";
  }
  return typed;
}

}  // namespace

llvm::LogicalResult VerifyOpcodeSymbolUses(mlir::Operation* op,
                                           mlir::SymbolTableCollection& symbols) {
  std::optional<Opcode> opcode = GetOpcode(op);
  if (!opcode) return op->emitOpError("not an opcode op");
  auto symbol = [&](llvm::StringRef name) {
    return op->getAttrOfType<mlir::FlatSymbolRefAttr>(name);
  };
  switch (*opcode) {
    case Opcode::kCall: {
      auto func = Lookup<FuncOp>(op, symbols, symbol("callee"), "a vm.func");
      if (!func) return llvm::failure();
      mlir::FunctionType type = func.getFunctionType();
      if (!TypesCompatible(op->getOperandTypes(), type.getInputs()) ||
          !TypesCompatible(op->getResultTypes(), type.getResults())) {
        return op->emitOpError() << "calls " << symbol("callee") << " of type " << type
                                 << " with (" << op->getOperandTypes() << ") -> ("
                                 << op->getResultTypes() << ")";
      }
      return llvm::success();
    }
    case Opcode::kCallImport: {
      auto import = Lookup<ImportOp>(op, symbols, symbol("callee"), "a vm.import");
      if (!import) return llvm::failure();
      mlir::FunctionType type = import.getFunctionType();
      mlir::TypeRange args = op->getOperandTypes();
      const bool args_ok =
          import.getIsVariadic()
              ? args.size() >= type.getNumInputs() &&
                    TypesCompatible(args.take_front(type.getNumInputs()), type.getInputs())
              : TypesCompatible(args, type.getInputs());
      if (!args_ok || !TypesCompatible(op->getResultTypes(), type.getResults())) {
        return op->emitOpError() << "calls " << symbol("callee") << " of type " << type
                                 << (import.getIsVariadic() ? " (variadic)" : "") << " with ("
                                 << args << ") -> (" << op->getResultTypes() << ")";
      }
      return llvm::success();
    }
    case Opcode::kImportResolved:
      return llvm::success(Lookup<ImportOp>(op, symbols, symbol("callee"), "a vm.import"));
    case Opcode::kConstRefRodata:
      return llvm::success(Lookup<RodataOp>(op, symbols, symbol("rodata"), "a vm.rodata"));
    default:
      break;
  }
  // Globals: the global's bank must be the op's.
  mlir::FlatSymbolRefAttr ref = symbol("global");
  if (!ref) return op->emitOpError("has no symbol operand");
  mlir::Type value_type =
      op->getNumResults() ? op->getResult(0).getType() : op->getOperand(0).getType();
  auto module = op->getParentOfType<ModuleOp>();
  mlir::Operation* global = module ? symbols.lookupSymbolIn(module, ref.getAttr()) : nullptr;
  mlir::Type global_type =
      !global ? mlir::Type()
              : llvm::TypeSwitch<mlir::Operation*, mlir::Type>(global)
          .Case<GlobalI32Op, GlobalI64Op, GlobalF32Op, GlobalF64Op, GlobalRefOp>(
              [](auto g) { return g.getGlobalType(); })
          .Default([](mlir::Operation*) { return mlir::Type(); });
  if (!global_type) {
    return op->emitOpError() << "'" << ref << "' does not name a vm.global of the enclosing "
                                                  "vm.module";
  }
  if (!RefCompatible(value_type, global_type)) {
    return op->emitOpError() << "accesses " << ref << " of type " << global_type << " as "
                             << value_type;
  }
  return llvm::success();
}

}  // namespace kiln::compiler::VM
