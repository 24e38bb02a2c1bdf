// Parser, printer and verifier of the flow attributes (flow_attrs.td).
//
// #flow.parameter.named takes IREE's two spellings: `<"scope"::"key">` and
// `<"key">` (the empty scope); it is printed the same way back.
#include "compiler/dialects/flow/flow_dialect.h"
#include "llvm/ADT/TypeSwitch.h"
#include "mlir/IR/DialectImplementation.h"

#define GET_ATTRDEF_CLASSES
#include "compiler/dialects/flow/flow_attrs.cpp.inc"

namespace kiln::compiler::Flow {

mlir::Attribute ParameterNamedAttr::parse(mlir::AsmParser& parser, mlir::Type type) {
  const llvm::SMLoc loc = parser.getCurrentLocation();
  std::string first, key;
  if (parser.parseLess() || parser.parseString(&first)) return {};
  std::string scope;
  if (succeeded(parser.parseOptionalColon())) {
    if (parser.parseColon() || parser.parseString(&key)) return {};
    scope = std::move(first);
  } else {
    key = std::move(first);
  }
  if (parser.parseGreater()) return {};
  if (!type) {
    // The value's type is the tensor the parameter holds; MLIR passes the
    // `: type` that follows the attribute.
    parser.emitError(loc,
                     "#flow.parameter.named needs its tensor type: "
                     "#flow.parameter.named<\"scope\"::\"key\"> : tensor<...>");
    return {};
  }
  mlir::MLIRContext* context = parser.getContext();
  return getChecked([&] { return parser.emitError(loc); }, context, type,
                    mlir::StringAttr::get(context, scope), mlir::StringAttr::get(context, key));
}

void ParameterNamedAttr::print(mlir::AsmPrinter& printer) const {
  printer << '<';
  if (!getScope().getValue().empty()) {
    printer.printString(getScope().getValue());
    printer << "::";
  }
  printer.printString(getKey().getValue());
  printer << '>';
}

mlir::LogicalResult ParameterNamedAttr::verify(
    llvm::function_ref<mlir::InFlightDiagnostic()> emit_error, mlir::Type type,
    mlir::StringAttr scope, mlir::StringAttr key) {
  if (!scope || !key) return emit_error() << "#flow.parameter.named needs a scope and a key";
  if (key.getValue().empty()) return emit_error() << "#flow.parameter.named has an empty key";
  if (!llvm::isa<mlir::TensorType>(type)) {
    return emit_error() << "#flow.parameter.named holds a tensor, not " << type;
  }
  return mlir::success();
}

void FlowDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "compiler/dialects/flow/flow_attrs.cpp.inc"
      >();
}

}  // namespace kiln::compiler::Flow
