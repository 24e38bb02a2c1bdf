// The flow dialect: flow.dispatch's syntax (IREE's shaped function type with
// tied results) and verification against the export it dispatches, and the
// verifiers of the tensor ops.
#include "compiler/dialects/flow/flow_dialect.h"

#include <string>

#include "compiler/dialects/flow/flow_dialect.cpp.inc"
#include "compiler/dialects/flow/flow_enums.cpp.inc"
#include "compiler/dialects/hal/instrumented_layout.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"

#define GET_TYPEDEF_CLASSES
#include "compiler/dialects/flow/flow_types.cpp.inc"

namespace kiln::compiler::Flow {

using mlir::failure;
using mlir::LogicalResult;
using mlir::OpAsmParser;
using mlir::OpAsmPrinter;
using mlir::ParseResult;
using mlir::success;

void FlowDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "compiler/dialects/flow/flow_types.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "compiler/dialects/flow/flow_ops.cpp.inc"
      >();
  registerAttributes();
}

namespace {

size_t DynamicDimCount(mlir::Type type) {
  auto shaped = llvm::dyn_cast<mlir::ShapedType>(type);
  return shaped && shaped.hasRank() ? shaped.getNumDynamicDims() : 0;
}

std::string Plural(size_t n, llvm::StringRef noun) {
  return std::to_string(n) + " " + noun.str() + (n == 1 ? "" : "s");
}

// `{%d0, %d1}` after a type, if present, checked against its dynamic dims.
ParseResult ParseDims(OpAsmParser& parser, mlir::Type type,
                      llvm::SmallVectorImpl<OpAsmParser::UnresolvedOperand>& dims) {
  llvm::SMLoc loc = parser.getCurrentLocation();
  size_t before = dims.size();
  if (succeeded(parser.parseOptionalLBrace())) {
    if (parser.parseOperandList(dims) || parser.parseRBrace()) return failure();
  }
  size_t given = dims.size() - before;
  if (given != DynamicDimCount(type)) {
    return parser.emitError(loc) << type << " has "
                                 << Plural(DynamicDimCount(type), "dynamic dimension") << ", but "
                                 << given << " dimension values are given";
  }
  return success();
}

void PrintDims(OpAsmPrinter& printer, mlir::ValueRange dims) {
  if (dims.empty()) return;
  printer << '{';
  printer.printOperands(dims);
  printer << '}';
}

// The slice of `dims` (concatenated per value) that belongs to value `index`.
mlir::ValueRange DimsOf(mlir::TypeRange types, mlir::ValueRange dims, unsigned index) {
  size_t start = 0;
  for (unsigned i = 0; i < index; ++i) start += DynamicDimCount(types[i]);
  size_t count = DynamicDimCount(types[index]);
  if (start + count > dims.size()) return {};
  return dims.slice(start, count);
}

}  // namespace

//===----------------------------------------------------------------------===//
// flow.dispatch
//===----------------------------------------------------------------------===//

ParseResult DispatchOp::parse(OpAsmParser& parser, mlir::OperationState& result) {
  mlir::Builder& builder = parser.getBuilder();
  mlir::SymbolRefAttr entry_point;
  if (parser.parseAttribute(entry_point, getEntryPointAttrName(result.name).getValue(),
                            result.attributes)) {
    return failure();
  }
  llvm::SmallVector<OpAsmParser::UnresolvedOperand> workload, arguments, argument_dims, result_dims;
  if (succeeded(parser.parseOptionalLSquare())) {
    if (parser.parseOperandList(workload) || parser.parseRSquare()) return failure();
  }
  llvm::SMLoc arguments_loc = parser.getCurrentLocation();
  if (parser.parseOperandList(arguments, mlir::AsmParser::Delimiter::Paren) ||
      parser.parseOptionalAttrDict(result.attributes) || parser.parseColon()) {
    return failure();
  }

  // `(type{dims}, ...)`
  llvm::SmallVector<mlir::Type> argument_types;
  if (parser.parseCommaSeparatedList(mlir::AsmParser::Delimiter::Paren, [&]() -> ParseResult {
        mlir::Type type;
        if (parser.parseType(type)) return failure();
        argument_types.push_back(type);
        return ParseDims(parser, type, argument_dims);
      })) {
    return failure();
  }
  if (argument_types.size() != arguments.size()) {
    return parser.emitError(arguments_loc)
           << "has " << Plural(arguments.size(), "operand") << " but "
           << Plural(argument_types.size(), "operand type");
  }

  // `-> type{dims}`, `-> %tied{dims}` or `-> (...)` of those.
  if (parser.parseArrow()) return failure();
  llvm::SmallVector<mlir::Type> result_types;
  llvm::SmallVector<int64_t> tied;
  auto parse_result = [&]() -> ParseResult {
    OpAsmParser::UnresolvedOperand operand;
    llvm::SMLoc loc = parser.getCurrentLocation();
    mlir::OptionalParseResult is_operand = parser.parseOptionalOperand(operand);
    mlir::Type type;
    if (is_operand.has_value()) {
      if (failed(*is_operand)) return failure();
      auto it = llvm::find_if(arguments, [&](const OpAsmParser::UnresolvedOperand& argument) {
        return argument.name == operand.name && argument.number == operand.number;
      });
      if (it == arguments.end()) {
        return parser.emitError(loc, "result tied to '")
               << operand.name << "', which is not an operand of the dispatch";
      }
      size_t index = it - arguments.begin();
      type = argument_types[index];
      if (succeeded(parser.parseOptionalKeyword("as")) && parser.parseType(type)) {
        return failure();
      }
      tied.push_back(static_cast<int64_t>(index));
    } else {
      if (parser.parseType(type)) return failure();
      tied.push_back(-1);
    }
    result_types.push_back(type);
    return ParseDims(parser, type, result_dims);
  };
  if (succeeded(parser.parseOptionalLParen())) {
    if (failed(parser.parseOptionalRParen())) {
      do {
        if (parse_result()) return failure();
      } while (succeeded(parser.parseOptionalComma()));
      if (parser.parseRParen()) return failure();
    }
  } else if (parse_result()) {
    return failure();
  }

  mlir::Type index = builder.getIndexType();
  if (parser.resolveOperands(workload, index, result.operands) ||
      parser.resolveOperands(arguments, argument_types, arguments_loc, result.operands) ||
      parser.resolveOperands(argument_dims, index, result.operands) ||
      parser.resolveOperands(result_dims, index, result.operands)) {
    return failure();
  }
  result.addTypes(result_types);
  if (llvm::any_of(tied, [](int64_t t) { return t >= 0; })) {
    result.addAttribute(getTiedOperandsAttrName(result.name), builder.getDenseI64ArrayAttr(tied));
  }
  result.addAttribute(
      getOperandSegmentSizesAttrName(result.name),
      builder.getDenseI32ArrayAttr(
          {static_cast<int32_t>(workload.size()), static_cast<int32_t>(arguments.size()),
           static_cast<int32_t>(argument_dims.size()), static_cast<int32_t>(result_dims.size())}));
  return success();
}

void DispatchOp::print(OpAsmPrinter& printer) {
  printer << ' ';
  printer.printAttributeWithoutType(getEntryPointAttr());
  if (!getWorkload().empty()) {
    printer << '[';
    printer.printOperands(getWorkload());
    printer << ']';
  }
  printer << '(';
  printer.printOperands(getArguments());
  printer << ')';
  printer.printOptionalAttrDict(
      (*this)->getAttrs(),
      {getEntryPointAttrName(), getTiedOperandsAttrName(), getOperandSegmentSizesAttrName()});
  printer << " : (";
  mlir::TypeRange argument_types = getArguments().getTypes();
  for (unsigned i = 0; i < argument_types.size(); ++i) {
    if (i) printer << ", ";
    printer << argument_types[i];
    PrintDims(printer, getArgumentDynamicDims(i));
  }
  printer << ") -> ";
  bool parens = getNumResults() != 1;
  if (parens) printer << '(';
  for (unsigned i = 0; i < getNumResults(); ++i) {
    if (i) printer << ", ";
    if (std::optional<unsigned> tie = getTiedOperandIndex(i)) {
      printer << getArguments()[*tie];
      if (getArguments()[*tie].getType() != getResult(i).getType()) {
        printer << " as " << getResult(i).getType();
      }
    } else {
      printer << getResult(i).getType();
    }
    PrintDims(printer, getResultDynamicDims(i));
  }
  if (parens) printer << ')';
}

std::optional<unsigned> DispatchOp::getTiedOperandIndex(unsigned result) {
  std::optional<llvm::ArrayRef<int64_t>> tied = getTiedOperands();
  if (!tied || result >= tied->size() || (*tied)[result] < 0) return std::nullopt;
  return static_cast<unsigned>((*tied)[result]);
}

mlir::ValueRange DispatchOp::getArgumentDynamicDims(unsigned index) {
  return DimsOf(getArguments().getTypes(), getArgumentDims(), index);
}

mlir::ValueRange DispatchOp::getResultDynamicDims(unsigned index) {
  return DimsOf(getResultTypes(), getResultDims(), index);
}

HAL::ExecutableExportOp DispatchOp::lookupExport() {
  return llvm::dyn_cast_or_null<HAL::ExecutableExportOp>(
      mlir::SymbolTable::lookupNearestSymbolFrom(*this, getEntryPoint()));
}

LogicalResult DispatchOp::verify() {
  if (getEntryPoint().getNestedReferences().size() != 1) {
    return emitOpError("entry point must be @executable::@export, got ") << getEntryPoint();
  }
  size_t dims = 0;
  for (auto [i, type] : llvm::enumerate(getArguments().getTypes())) {
    if (auto tensor = llvm::dyn_cast<mlir::RankedTensorType>(type)) {
      dims += tensor.getNumDynamicDims();
      continue;
    }
    bool scalar = type.isIndex() || type.isF32() ||
                  (type.isSignlessInteger() && type.getIntOrFloatBitWidth() <= 32);
    if (!scalar) {
      return emitOpError("operand #")
             << i << " of type " << type
             << " cannot be passed to a dispatch (expected a ranked tensor, an integer of at "
                "most 32 bits, index or f32)";
    }
  }
  if (dims != getArgumentDims().size()) {
    return emitOpError("the tensor operands have ")
           << Plural(dims, "dynamic dimension") << ", but " << getArgumentDims().size()
           << " dimension values are given";
  }
  std::optional<llvm::ArrayRef<int64_t>> tied = getTiedOperands();
  if (tied && tied->size() != getNumResults()) {
    return emitOpError("'tied_operands' has ")
           << tied->size() << " entries for " << Plural(getNumResults(), "result");
  }
  size_t result_dims = 0;
  for (unsigned i = 0; i < getNumResults(); ++i) {
    mlir::Type type = getResult(i).getType();
    if (!llvm::isa<mlir::RankedTensorType>(type)) {
      return emitOpError("result #") << i << " must be a ranked tensor, got " << type;
    }
    result_dims += DynamicDimCount(type);
    if (tied && (*tied)[i] >= static_cast<int64_t>(getArguments().size())) {
      return emitOpError("result #") << i << " is tied to operand #" << (*tied)[i]
                                     << ", but there are " << getArguments().size();
    }
    if (std::optional<unsigned> tie = getTiedOperandIndex(i)) {
      mlir::Type tied_type = getArguments()[*tie].getType();
      if (tied_type != type) {
        return emitOpError("result #") << i << " of type " << type << " is tied to operand #"
                                       << *tie << " of type " << tied_type;
      }
    }
  }
  if (result_dims != getResultDims().size()) {
    return emitOpError("the results have ")
           << Plural(result_dims, "dynamic dimension") << ", but " << getResultDims().size()
           << " dimension values are given";
  }
  return success();
}

LogicalResult DispatchOp::verifySymbolUses(mlir::SymbolTableCollection& symbols) {
  mlir::SymbolRefAttr entry = getEntryPoint();
  mlir::Operation* executable = symbols.lookupNearestSymbolFrom(
      *this, mlir::FlatSymbolRefAttr::get(entry.getRootReference()));
  if (!executable || !llvm::isa<HAL::ExecutableSourceOp, HAL::ExecutableOp>(executable)) {
    return emitOpError("unknown executable '@") << entry.getRootReference().getValue() << "'";
  }
  auto export_op = llvm::dyn_cast_or_null<HAL::ExecutableExportOp>(
      symbols.lookupSymbolIn(executable, entry.getLeafReference()));
  if (!export_op) {
    mlir::InFlightDiagnostic diag = emitOpError("executable '@")
                                    << entry.getRootReference().getValue() << "' has no export '@"
                                    << entry.getLeafReference().getValue() << "'";
    diag.attachNote(executable->getLoc())
        << "'@" << entry.getRootReference().getValue() << "' is defined here";
    return diag;
  }
  // The count region takes the workload: as many values, or up to 3 when
  // there is no region (then they are the workgroup count).
  if (mlir::Block* count = export_op.getWorkgroupCountBody()) {
    size_t expected = count->getNumArguments() - 1;
    if (getWorkload().size() != expected) {
      mlir::InFlightDiagnostic diag =
          emitOpError("passes ") << Plural(getWorkload().size(), "workload value") << " to "
                                 << entry << ", whose workgroup count region takes " << expected;
      diag.attachNote(export_op.getLoc()) << "the export is defined here";
      return diag;
    }
  } else if (getWorkload().size() > 3) {
    return emitOpError("passes ") << Plural(getWorkload().size(), "workload value") << " to "
                                  << entry
                                  << ", which has no workgroup count region (at most 3 are the "
                                     "count)";
  }
  size_t scalars = 0, tensors = 0, untied = 0;
  for (mlir::Type type : getArguments().getTypes()) {
    llvm::isa<mlir::RankedTensorType>(type) ? ++tensors : ++scalars;
  }
  for (unsigned i = 0; i < getNumResults(); ++i) {
    if (!getTiedOperandIndex(i)) ++untied;
  }
  HAL::PipelineLayoutAttr layout = export_op.getLayout();
  // An instrumented layout's last constant (the site id) and last binding
  // (the ring) come from the host, not from the dispatch's operands
  // (compiler/dialects/hal/instrumented_layout.h).
  const bool instrumented = HAL::IsInstrumentedLayout(layout);
  const size_t constants = static_cast<size_t>(layout.getConstants()) - (instrumented ? 1 : 0);
  const size_t bindings = layout.getBindings().size() - (instrumented ? 1 : 0);
  if (constants != scalars || bindings != tensors + untied) {
    mlir::InFlightDiagnostic diag =
        emitOpError("passes ") << Plural(scalars, "constant") << " and "
                               << Plural(tensors + untied, "binding") << " ("
                               << Plural(tensors, "tensor operand") << ", "
                               << Plural(untied, "result")
                               << " not tied to an operand), but the layout of " << entry << " has "
                               << Plural(constants, "constant") << " and "
                               << Plural(bindings, "binding")
                               << (instrumented ? " besides the instrumentation site id and ring"
                                                : "");
    diag.attachNote(export_op.getLoc()) << "the export is defined here";
    return diag;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// flow.tensor.*
//===----------------------------------------------------------------------===//

LogicalResult TensorDynamicConstantOp::verify() {
  auto value_type = llvm::dyn_cast<mlir::RankedTensorType>(getValue().getType());
  auto result_type = llvm::cast<mlir::RankedTensorType>(getResult().getType());
  if (!value_type || value_type.getElementType() != result_type.getElementType() ||
      value_type.getRank() != result_type.getRank()) {
    return emitOpError("value of type ")
           << getValue().getType() << " cannot be seen as " << result_type;
  }
  for (int64_t i = 0; i < result_type.getRank(); ++i) {
    if (!result_type.isDynamicDim(i) && result_type.getDimSize(i) != value_type.getDimSize(i)) {
      return emitOpError("value of type ")
             << value_type << " cannot be seen as " << result_type << " (dimension " << i << ")";
    }
  }
  return success();
}

LogicalResult TensorTieShapeOp::verify() {
  size_t expected = DynamicDimCount(getResult().getType());
  if (getDynamicDims().size() != expected) {
    return emitOpError() << getResult().getType() << " has "
                         << Plural(expected, "dynamic dimension") << ", but "
                         << getDynamicDims().size() << " dimension values are given";
  }
  return success();
}

}  // namespace kiln::compiler::Flow

#define GET_OP_CLASSES
#include "compiler/dialects/flow/flow_ops.cpp.inc"
