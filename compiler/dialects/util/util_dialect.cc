#include "compiler/dialects/util/util_dialect.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectImplementation.h"

#include "compiler/dialects/util/util_dialect.cpp.inc"

#define GET_OP_CLASSES
#include "compiler/dialects/util/util_ops.cpp.inc"

namespace kiln::compiler::Util {

void UtilDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "compiler/dialects/util/util_ops.cpp.inc"
      >();
}

// --- util.global ---
//
//   util.global [private|public|nested] [mutable] @name [attr-dict]
//       (`:` type [`=` initial value] | `=` typed initial value)

mlir::ParseResult GlobalOp::parse(mlir::OpAsmParser& parser, mlir::OperationState& result) {
  mlir::Builder& builder = parser.getBuilder();
  // Fails (without a diagnostic) when there is no visibility keyword.
  (void)mlir::impl::parseOptionalVisibilityKeyword(parser, result.attributes);
  if (succeeded(parser.parseOptionalKeyword("mutable"))) {
    result.addAttribute(getIsMutableAttrName(result.name), builder.getUnitAttr());
  }
  mlir::StringAttr name;
  if (parser.parseSymbolName(name, mlir::SymbolTable::getSymbolAttrName(), result.attributes) ||
      parser.parseOptionalAttrDict(result.attributes)) {
    return mlir::failure();
  }
  mlir::Type type;
  mlir::Attribute initial_value;
  if (succeeded(parser.parseOptionalColon())) {
    if (parser.parseType(type)) return mlir::failure();
    if (succeeded(parser.parseOptionalEqual()) && parser.parseAttribute(initial_value)) {
      return mlir::failure();
    }
  } else {
    llvm::SMLoc loc = parser.getCurrentLocation();
    if (parser.parseEqual() || parser.parseAttribute(initial_value)) return mlir::failure();
    auto typed = llvm::dyn_cast<mlir::TypedAttr>(initial_value);
    if (!typed) {
      return parser.emitError(loc, "an initial value without a type needs `: type` first");
    }
    type = typed.getType();
  }
  result.addAttribute(getTypeAttrName(result.name), mlir::TypeAttr::get(type));
  if (initial_value) result.addAttribute(getInitialValueAttrName(result.name), initial_value);
  return mlir::success();
}

void GlobalOp::print(mlir::OpAsmPrinter& p) {
  if (auto visibility = getSymVisibilityAttr()) p << ' ' << visibility.getValue();
  if (getIsMutable()) p << " mutable";
  p << ' ';
  p.printSymbolName(getSymName());
  p.printOptionalAttrDict((*this)->getAttrs(),
                          {getSymNameAttrName(), getSymVisibilityAttrName(), getTypeAttrName(),
                           getIsMutableAttrName(), getInitialValueAttrName()});
  mlir::Attribute initial_value = getInitialValueAttr();
  auto typed = llvm::dyn_cast_if_present<mlir::TypedAttr>(initial_value);
  if (typed && typed.getType() == getType()) {
    p << " = ";
    p.printAttribute(initial_value);
    return;
  }
  p << " : ";
  p.printType(getType());
  if (initial_value) {
    p << " = ";
    p.printAttribute(initial_value);
  }
}

mlir::LogicalResult GlobalOp::verify() {
  mlir::Type type = getType();
  if (llvm::isa<mlir::FunctionType>(type)) {
    return emitOpError("type must be a value type, got ") << type;
  }
  mlir::Attribute initial_value = getInitialValueAttr();
  if (!initial_value) return mlir::success();
  // Scalars take an attribute of exactly their type; tensors (and dialect
  // types) take what their lowering interprets: a tensor's element type may
  // differ, as in IREE.
  if (type.isIntOrIndexOrFloat()) {
    auto typed = llvm::dyn_cast<mlir::TypedAttr>(initial_value);
    const bool matches = typed && typed.getType() == type &&
                         llvm::isa<mlir::IntegerAttr, mlir::FloatAttr>(initial_value);
    if (!matches) {
      return emitOpError("initial value ")
             << initial_value << " doesn't match the global's type " << type;
    }
  }
  return mlir::success();
}

// --- util.global.load / util.global.store ---

namespace {

// The util.global `symbol` names, or an error at `op`.
mlir::FailureOr<GlobalOp> LookupGlobal(mlir::Operation* op, mlir::FlatSymbolRefAttr symbol,
                                       mlir::SymbolTableCollection& symbol_table) {
  auto global = symbol_table.lookupNearestSymbolFrom<GlobalOp>(op, symbol.getAttr());
  if (!global) {
    return op->emitOpError("references unknown global ") << symbol;
  }
  return global;
}

mlir::LogicalResult VerifyAccessType(mlir::Operation* op, GlobalOp global, mlir::Type type,
                                     llvm::StringRef what) {
  if (type == global.getType()) return mlir::success();
  mlir::InFlightDiagnostic diagnostic = op->emitOpError()
                                        << what << " type " << type << " doesn't match the type "
                                        << global.getType() << " of global @"
                                        << global.getSymName();
  diagnostic.attachNote(global.getLoc()) << "@" << global.getSymName() << " is defined here";
  return diagnostic;
}

}  // namespace

mlir::LogicalResult GlobalLoadOp::verifySymbolUses(mlir::SymbolTableCollection& symbol_table) {
  mlir::FailureOr<GlobalOp> global = LookupGlobal(*this, getGlobalAttr(), symbol_table);
  if (failed(global)) return mlir::failure();
  return VerifyAccessType(*this, *global, getResult().getType(), "result");
}

mlir::LogicalResult GlobalStoreOp::verifySymbolUses(mlir::SymbolTableCollection& symbol_table) {
  mlir::FailureOr<GlobalOp> global = LookupGlobal(*this, getGlobalAttr(), symbol_table);
  if (failed(global)) return mlir::failure();
  if (failed(VerifyAccessType(*this, *global, getValue().getType(), "stored value"))) {
    return mlir::failure();
  }
  // Initializers give immutable globals their value (IREE's rule).
  if (!global->getIsMutable() && !(*this)->getParentOfType<InitializerOp>()) {
    mlir::InFlightDiagnostic diagnostic =
        emitOpError("cannot store to immutable global @")
        << global->getSymName() << " (declare it `mutable`, or store it in a util.initializer)";
    diagnostic.attachNote(global->getLoc()) << "@" << global->getSymName() << " is defined here";
    return diagnostic;
  }
  return mlir::success();
}

// --- util.initializer ---

mlir::LogicalResult InitializerOp::verify() {
  mlir::Region& body = getBody();
  if (body.empty()) return emitOpError("requires a body");
  if (body.front().getNumArguments() != 0) {
    return emitOpError("entry block takes no arguments");
  }
  for (mlir::Block& block : body) {
    if (block.empty() || !block.back().hasTrait<mlir::OpTrait::IsTerminator>()) continue;
    if (auto ret = llvm::dyn_cast<ReturnOp>(block.back()); ret && ret.getNumOperands() != 0) {
      return ret.emitOpError("in an initializer returns no values");
    }
  }
  return mlir::success();
}

// --- util.unfoldable_constant ---
//
//   %c = util.unfoldable_constant [attr-dict] <typed attribute>

mlir::ParseResult UnfoldableConstantOp::parse(mlir::OpAsmParser& parser,
                                              mlir::OperationState& result) {
  mlir::Attribute value;
  if (parser.parseOptionalAttrDict(result.attributes)) return mlir::failure();
  llvm::SMLoc loc = parser.getCurrentLocation();
  if (parser.parseAttribute(value)) return mlir::failure();
  auto typed = llvm::dyn_cast<mlir::TypedAttr>(value);
  if (!typed) return parser.emitError(loc, "expected a typed attribute");
  result.addAttribute(getValueAttrName(result.name), value);
  result.addTypes(typed.getType());
  return mlir::success();
}

void UnfoldableConstantOp::print(mlir::OpAsmPrinter& p) {
  p.printOptionalAttrDict((*this)->getAttrs(), {getValueAttrName()});
  p << ' ';
  p.printAttribute(getValue());
}

mlir::LogicalResult UnfoldableConstantOp::verify() {
  mlir::Type type = llvm::cast<mlir::TypedAttr>(getValue()).getType();
  if (type != getType()) {
    return emitOpError("value of type ") << type << " doesn't match the result type " << getType();
  }
  return mlir::success();
}

// --- util.optimization_barrier ---
//
//   %a, %b = util.optimization_barrier [attr-dict] %x, %y : i32, f32

mlir::ParseResult OptimizationBarrierOp::parse(mlir::OpAsmParser& parser,
                                               mlir::OperationState& result) {
  llvm::SmallVector<mlir::OpAsmParser::UnresolvedOperand> operands;
  llvm::SmallVector<mlir::Type> types;
  llvm::SMLoc loc = parser.getCurrentLocation();
  if (parser.parseOptionalAttrDict(result.attributes) || parser.parseOperandList(operands)) {
    return mlir::failure();
  }
  if (!operands.empty() && (parser.parseColon() || parser.parseTypeList(types))) {
    return mlir::failure();
  }
  if (parser.resolveOperands(operands, types, loc, result.operands)) return mlir::failure();
  result.addTypes(types);
  return mlir::success();
}

void OptimizationBarrierOp::print(mlir::OpAsmPrinter& p) {
  p.printOptionalAttrDict((*this)->getAttrs());
  if (getOperands().empty()) return;
  p << ' ' << getOperands() << " : " << getOperands().getTypes();
}

mlir::LogicalResult OptimizationBarrierOp::verify() {
  if (getOperands().getTypes() != getResults().getTypes()) {
    return emitOpError("result types must be the operand types");
  }
  return mlir::success();
}

}  // namespace kiln::compiler::Util
