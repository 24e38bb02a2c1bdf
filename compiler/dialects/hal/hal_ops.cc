// Parsers, printers and verifiers of the hal ops (hal_ops.td).
#include <string>

#include "compiler/dialects/hal/hal_dialect.h"
#include "llvm/ADT/STLExtras.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

namespace kiln::compiler::HAL {

using mlir::failure;
using mlir::LogicalResult;
using mlir::OpAsmParser;
using mlir::OpAsmPrinter;
using mlir::ParseResult;
using mlir::success;

namespace {

//===----------------------------------------------------------------------===//
// custom<SymbolVisibility>: an optional `public`, `private` or `nested`.
//===----------------------------------------------------------------------===//

ParseResult parseSymbolVisibility(OpAsmParser& parser, mlir::StringAttr& visibility) {
  llvm::StringRef keyword;
  if (succeeded(parser.parseOptionalKeyword(&keyword, {"public", "private", "nested"}))) {
    visibility = parser.getBuilder().getStringAttr(keyword);
  }
  return success();
}

void printSymbolVisibility(OpAsmPrinter& printer, mlir::Operation*,
                           mlir::StringAttr visibility) {
  printer << (visibility ? visibility.getValue() : llvm::StringRef("public"));
}

// The ordinals of an executable's exports are the indices the runtime
// dispatches by: 0..n-1, each once.
LogicalResult VerifyExportOrdinals(mlir::Operation* executable, mlir::Block& body) {
  llvm::SmallVector<ExecutableExportOp> by_ordinal;
  size_t exports = llvm::range_size(body.getOps<ExecutableExportOp>());
  by_ordinal.assign(exports, nullptr);
  for (ExecutableExportOp export_op : body.getOps<ExecutableExportOp>()) {
    std::optional<llvm::APInt> ordinal = export_op.getOrdinal();
    if (!ordinal) continue;
    int64_t n = ordinal->getSExtValue();
    if (n < 0 || n >= static_cast<int64_t>(exports)) {
      return export_op.emitOpError("has ordinal ")
             << n << ", but the ordinals of the " << exports << " export"
             << (exports == 1 ? "" : "s") << " of '@"
             << mlir::SymbolTable::getSymbolName(executable).getValue() << "' must be 0.."
             << exports - 1;
    }
    if (by_ordinal[n]) {
      mlir::InFlightDiagnostic diag = export_op.emitOpError("reuses ordinal ") << n;
      diag.attachNote(by_ordinal[n].getLoc()) << "ordinal " << n << " is taken here";
      return diag;
    }
    by_ordinal[n] = export_op;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// custom<SizeAwareType>: `!hal.buffer{%size}`
//===----------------------------------------------------------------------===//

ParseResult parseSizeAwareType(OpAsmParser& parser, mlir::Type& type,
                               OpAsmParser::UnresolvedOperand& size) {
  return failure(parser.parseType(type) || parser.parseLBrace() || parser.parseOperand(size) ||
                 parser.parseRBrace());
}

void printSizeAwareType(OpAsmPrinter& printer, mlir::Operation*, mlir::Type type,
                        mlir::Value size) {
  printer << type << '{' << size << '}';
}

//===----------------------------------------------------------------------===//
// custom<Bindings>: `(%buffer : !hal.buffer)[%offset, %length], ...`
//===----------------------------------------------------------------------===//

ParseResult parseBindings(OpAsmParser& parser,
                          llvm::SmallVectorImpl<OpAsmParser::UnresolvedOperand>& buffers,
                          llvm::SmallVectorImpl<mlir::Type>& buffer_types,
                          llvm::SmallVectorImpl<OpAsmParser::UnresolvedOperand>& offsets,
                          llvm::SmallVectorImpl<OpAsmParser::UnresolvedOperand>& lengths) {
  // One binding after its '(': `%buffer : type)[%offset, %length]`.
  auto parse_rest = [&]() -> ParseResult {
    OpAsmParser::UnresolvedOperand buffer, offset, length;
    mlir::Type type;
    if (parser.parseOperand(buffer) || parser.parseColonType(type) || parser.parseRParen() ||
        parser.parseLSquare() || parser.parseOperand(offset) || parser.parseComma() ||
        parser.parseOperand(length) || parser.parseRSquare()) {
      return failure();
    }
    buffers.push_back(buffer);
    buffer_types.push_back(type);
    offsets.push_back(offset);
    lengths.push_back(length);
    return success();
  };
  // An empty list: the caller's `]` follows at once.
  if (failed(parser.parseOptionalLParen())) return success();
  if (parse_rest()) return failure();
  while (succeeded(parser.parseOptionalComma())) {
    if (parser.parseLParen() || parse_rest()) return failure();
  }
  return success();
}

void printBindings(OpAsmPrinter& printer, mlir::Operation*, mlir::ValueRange buffers,
                   mlir::TypeRange buffer_types, mlir::ValueRange offsets,
                   mlir::ValueRange lengths) {
  for (size_t i = 0; i < buffers.size(); ++i) {
    printer.printNewline();
    printer << "  (" << buffers[i] << " : " << buffer_types[i] << ")[" << offsets[i] << ", "
            << lengths[i] << ']';
    if (i + 1 != buffers.size()) printer << ',';
  }
  if (!buffers.empty()) printer.printNewline();
}

//===----------------------------------------------------------------------===//
// custom<CommandBufferModes>: `OneShot`, `None`, "OneShot|AllowInlineExecution"
//===----------------------------------------------------------------------===//

ParseResult parseCommandBufferModes(OpAsmParser& parser,
                                    CommandBufferModeBitfieldAttr& modes) {
  llvm::SMLoc loc = parser.getCurrentLocation();
  std::string text;
  if (failed(parser.parseOptionalString(&text))) {
    llvm::StringRef keyword;
    if (parser.parseKeyword(&keyword)) return failure();
    text = keyword.str();
    while (succeeded(parser.parseOptionalVerticalBar())) {
      if (parser.parseKeyword(&keyword)) return failure();
      text += "|" + keyword.str();
    }
  }
  std::optional<CommandBufferModeBitfield> value = symbolizeCommandBufferModeBitfield(text);
  if (!value) {
    return parser.emitError(loc, "unknown command buffer mode '")
           << text << "'; expected 'OneShot', 'AllowInlineExecution' or 'None'";
  }
  modes = CommandBufferModeBitfieldAttr::get(parser.getContext(), *value);
  return success();
}

void printCommandBufferModes(OpAsmPrinter& printer, mlir::Operation*,
                             CommandBufferModeBitfieldAttr modes) {
  std::string text = stringifyCommandBufferModeBitfield(modes.getValue());
  if (text.find('|') != std::string::npos) {
    printer << '"' << text << '"';
  } else {
    printer << text;
  }
}

// The number of dynamic dimensions of a shaped type.
size_t DynamicDimCount(mlir::Type type) {
  auto shaped = llvm::dyn_cast<mlir::ShapedType>(type);
  return shaped && shaped.hasRank() ? shaped.getNumDynamicDims() : 0;
}

}  // namespace

//===----------------------------------------------------------------------===//
// hal.executable.source / hal.executable
//===----------------------------------------------------------------------===//

LogicalResult ExecutableSourceOp::verify() { return VerifyExportOrdinals(*this, getBlock()); }

LogicalResult ExecutableOp::verify() { return VerifyExportOrdinals(*this, getBlock()); }

//===----------------------------------------------------------------------===//
// hal.executable.export
//===----------------------------------------------------------------------===//

ParseResult ExecutableExportOp::parse(OpAsmParser& parser, mlir::OperationState& result) {
  mlir::Builder& builder = parser.getBuilder();
  mlir::StringAttr visibility;
  if (parseSymbolVisibility(parser, visibility)) return failure();
  if (visibility) result.addAttribute(getSymVisibilityAttrName(result.name), visibility);
  mlir::StringAttr name;
  if (parser.parseSymbolName(name, getSymNameAttrName(result.name), result.attributes)) {
    return failure();
  }
  if (succeeded(parser.parseOptionalKeyword("ordinal"))) {
    int64_t ordinal = 0;
    if (parser.parseLParen() || parser.parseInteger(ordinal) || parser.parseRParen()) {
      return failure();
    }
    result.addAttribute(getOrdinalAttrName(result.name), builder.getIndexAttr(ordinal));
  }
  PipelineLayoutAttr layout;
  if (parser.parseKeyword("layout") || parser.parseLParen() || parser.parseAttribute(layout) ||
      parser.parseRParen()) {
    return failure();
  }
  result.addAttribute(getLayoutAttrName(result.name), layout);

  // IREE's current form: `count(%device: !hal.device, %w: index) ->
  // (index, index, index) {...}`, attributes after it.
  mlir::Region* body = result.addRegion();
  bool have_region = false;
  if (succeeded(parser.parseOptionalKeyword("count"))) {
    llvm::SmallVector<OpAsmParser::Argument> args;
    if (parser.parseArgumentList(args, mlir::AsmParser::Delimiter::Paren,
                                 /*allowType=*/true, /*allowAttrs=*/true)) {
      return failure();
    }
    llvm::SMLoc types_loc = parser.getCurrentLocation();
    llvm::SmallVector<mlir::Type> return_types;
    if (parser.parseArrowTypeList(return_types)) return failure();
    if (return_types.size() != 3 ||
        !llvm::all_of(return_types, [](mlir::Type type) { return type.isIndex(); })) {
      return parser.emitError(types_loc,
                              "the workgroup count function must return (index, index, index)");
    }
    if (parser.parseRegion(*body, args, /*enableNameShadowing=*/false)) return failure();
    have_region = true;
  }
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes)) return failure();
  // IREE's older form: attributes, then the region with its entry block
  // `^bb0(%device: !hal.device, %workload: index):`.
  if (!have_region) {
    mlir::OptionalParseResult region = parser.parseOptionalRegion(*body);
    if (region.has_value()) {
      if (failed(*region)) return failure();
      if (parser.parseOptionalAttrDictWithKeyword(result.attributes)) return failure();
    }
  }
  return success();
}

void ExecutableExportOp::print(OpAsmPrinter& printer) {
  printer << ' ';
  printSymbolVisibility(printer, *this, getSymVisibilityAttr());
  printer << ' ';
  printer.printSymbolName(getSymName());
  if (std::optional<llvm::APInt> ordinal = getOrdinal()) {
    printer << " ordinal(" << ordinal->getSExtValue() << ')';
  }
  printer << " layout(";
  printer.printAttribute(getLayout());
  printer << ')';
  if (mlir::Block* count = getWorkgroupCountBody()) {
    printer << " count(";
    llvm::interleaveComma(count->getArguments(), printer,
                          [&](mlir::BlockArgument arg) { printer.printRegionArgument(arg); });
    printer << ") -> (index, index, index) ";
    printer.printRegion(getWorkgroupCount(), /*printEntryBlockArgs=*/false,
                        /*printBlockTerminators=*/true);
  }
  printer.printOptionalAttrDictWithKeyword(
      (*this)->getAttrs(), {getSymVisibilityAttrName(), getSymNameAttrName(),
                            getOrdinalAttrName(), getLayoutAttrName()});
}

void ExecutableExportOp::getAsmBlockArgumentNames(mlir::Region& region,
                                                  mlir::OpAsmSetValueNameFn set_name) {
  if (region.empty()) return;
  for (mlir::BlockArgument arg : region.front().getArguments()) {
    set_name(arg, arg.getArgNumber() == 0 ? "device" : "workload");
  }
}

llvm::SmallVector<int64_t, 3> ExecutableExportOp::getWorkgroupSizeValues() {
  llvm::SmallVector<int64_t, 3> sizes = {1, 1, 1};
  if (mlir::ArrayAttr attr = getWorkgroupSizeAttr()) {
    for (auto [i, element] : llvm::enumerate(attr)) {
      if (i < 3) sizes[i] = llvm::cast<mlir::IntegerAttr>(element).getInt();
    }
  }
  return sizes;
}

LogicalResult ExecutableExportOp::verify() {
  if (std::optional<llvm::APInt> ordinal = getOrdinal(); ordinal && ordinal->isNegative()) {
    return emitOpError("ordinal must be >= 0, got ") << ordinal->getSExtValue();
  }
  if (mlir::ArrayAttr size = getWorkgroupSizeAttr()) {
    bool ok = size.size() == 3 && llvm::all_of(size, [](mlir::Attribute element) {
                auto value = llvm::dyn_cast<mlir::IntegerAttr>(element);
                return value && value.getType().isIntOrIndex() && value.getInt() >= 1 &&
                       value.getInt() <= INT32_MAX;
              });
    if (!ok) {
      return emitOpError(
                 "attribute 'workgroup_size' must be 3 positive integers "
                 "([64 : index, 1 : index, 1 : index]), got ")
             << size;
    }
  }
  mlir::Region& count = getWorkgroupCount();
  if (count.empty()) return success();
  if (!count.hasOneBlock()) {
    return emitOpError("the workgroup count region must have 1 block, got ")
           << llvm::range_size(count.getBlocks());
  }
  mlir::Block& entry = count.front();
  if (entry.getNumArguments() == 0 || !llvm::isa<DeviceType>(entry.getArgument(0).getType())) {
    return emitOpError(
        "the workgroup count region's first argument must be '%device: !hal.device'");
  }
  for (unsigned i = 1; i < entry.getNumArguments(); ++i) {
    if (!entry.getArgument(i).getType().isIndex()) {
      return emitOpError("workload argument #")
             << i - 1 << " of the workgroup count region must be 'index', got "
             << entry.getArgument(i).getType();
    }
  }
  // The region is inlined at every dispatch, between commands being
  // recorded: only index arithmetic may run there.
  for (mlir::Operation& op : entry) {
    llvm::StringRef dialect = op.getName().getDialectNamespace();
    llvm::StringRef name = op.getName().getStringRef();
    bool arithmetic = dialect == "arith" || dialect == "math" || name == "affine.apply" ||
                      name == "affine.min" || name == "affine.max" || llvm::isa<ReturnOp>(op);
    if (!arithmetic || op.getNumRegions() != 0) {
      return op.emitOpError(
          "is not allowed in a workgroup count region (only arith, math and affine.apply, "
          "affine.min, affine.max ops)");
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// hal.return
//===----------------------------------------------------------------------===//

LogicalResult ReturnOp::verify() {
  if (getNumOperands() != 3 ||
      !llvm::all_of(getOperandTypes(), [](mlir::Type type) { return type.isIndex(); })) {
    return emitOpError("must return the workgroup count as 3 'index' values (x, y, z), got ")
           << getNumOperands() << " values";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Host ops
//===----------------------------------------------------------------------===//

LogicalResult TensorImportOp::verify() {
  size_t expected = DynamicDimCount(getTarget().getType());
  if (getTargetDims().size() != expected) {
    return emitOpError() << getTarget().getType() << " has " << expected
                         << " dynamic dimension(s), but " << getTargetDims().size()
                         << " dimension values are given";
  }
  return success();
}

LogicalResult TensorExportOp::verify() {
  size_t expected = DynamicDimCount(getSource().getType());
  if (getSourceDims().size() != expected) {
    return emitOpError() << getSource().getType() << " has " << expected
                         << " dynamic dimension(s), but " << getSourceDims().size()
                         << " dimension values are given";
  }
  return success();
}

LogicalResult BufferViewCreateOp::verify() {
  if (static_cast<bool>(getSourceOffset()) != static_cast<bool>(getSourceLength())) {
    return emitOpError("takes a byte range as [offset, length]: both or neither");
  }
  return success();
}

LogicalResult ExecutableCreateOp::verifySymbolUses(mlir::SymbolTableCollection& symbols) {
  mlir::Operation* target = symbols.lookupNearestSymbolFrom(*this, getExecutableTarget());
  if (!target || !llvm::isa<ExecutableOp, ExecutableSourceOp, ExecutableBinaryOp>(target)) {
    return emitOpError("target ") << getExecutableTarget()
                                  << " is not a hal.executable, hal.executable.binary or "
                                     "hal.executable.source";
  }
  return success();
}

ExecutableExportOp ExecutableExportOrdinalOp::lookupExport() {
  return llvm::dyn_cast_or_null<ExecutableExportOp>(
      mlir::SymbolTable::lookupNearestSymbolFrom(*this, getEntryPoint()));
}

LogicalResult ExecutableExportOrdinalOp::verifySymbolUses(mlir::SymbolTableCollection& symbols) {
  auto export_op = llvm::dyn_cast_or_null<ExecutableExportOp>(
      symbols.lookupNearestSymbolFrom(*this, getEntryPoint()));
  if (!export_op) {
    return emitOpError("target ") << getEntryPoint() << " is not a hal.executable.export";
  }
  if (!export_op.getOrdinal()) {
    return emitOpError("export ") << getEntryPoint() << " has no ordinal";
  }
  return success();
}

LogicalResult CommandBufferDispatchOp::verify() {
  size_t n = getBindingBuffers().size();
  if (getBindingOffsets().size() != n || getBindingLengths().size() != n) {
    return emitOpError("each binding needs a buffer, an offset and a length");
  }
  size_t slots = llvm::count_if(getBindingBuffers().getTypes(),
                                [](mlir::Type type) { return type.isIndex(); });
  if (slots != 0 && slots != n) {
    return emitOpError(
        "mixes buffers and binding-table slots; a dispatch's bindings are all buffers (a "
        "one-shot command buffer) or all slots (a reusable one)");
  }
  return success();
}

LogicalResult CommandBufferCollectiveOp::verify() {
  if (getSendBuffer().getType().isIndex() != getRecvBuffer().getType().isIndex()) {
    return emitOpError(
        "mixes a buffer and a binding-table slot; a collective's send and recv are both buffers "
        "(a one-shot command buffer) or both slots (a reusable one)");
  }
  const bool send_recv = getOp().getKind() == CollectiveKind::SendRecv;
  if (send_recv != static_cast<bool>(getSendRank())) {
    return send_recv ? emitOpError(
                           "send_recv needs the ranks it sends to and receives from: "
                           "ranks(%send_rank, %recv_rank)")
                     : emitOpError("only send_recv takes ranks(...), not ")
                           << stringifyCollectiveKind(getOp().getKind());
  }
  return success();
}

// --- The executable interface ---

LogicalResult InterfaceBindingSubspanOp::verify() {
  const size_t bindings = getLayout().getBindings().size();
  if (getBinding().getZExtValue() >= bindings) {
    return emitOpError() << "binding " << getBinding().getZExtValue()
                         << " is not in the layout (it has " << bindings << " bindings)";
  }
  auto type = llvm::cast<mlir::MemRefType>(getResult().getType());
  if (getDynamicDims().size() != static_cast<size_t>(type.getNumDynamicDims())) {
    return emitOpError() << "has " << getDynamicDims().size() << " dynamic dims for " << type
                         << ", which has " << type.getNumDynamicDims();
  }
  return success();
}

LogicalResult InterfaceConstantLoadOp::verify() {
  const int64_t constants = getLayout().getConstants();
  if (getOrdinal().getSExtValue() >= constants) {
    return emitOpError() << "ordinal " << getOrdinal().getSExtValue()
                         << " is not in the layout (it has " << constants << " constants)";
  }
  return success();
}

namespace {

LogicalResult VerifyWorkgroupDimension(mlir::Operation* op, llvm::APInt dimension) {
  if (dimension.getZExtValue() > 2) {
    return op->emitOpError() << "dimension " << dimension.getZExtValue() << " is not 0, 1 or 2";
  }
  return success();
}

void NameWorkgroupResult(mlir::Value result, llvm::StringRef what, llvm::APInt dimension,
                         mlir::OpAsmSetValueNameFn set_name) {
  static constexpr const char* kAxes[] = {"x", "y", "z"};
  const uint64_t d = dimension.getZExtValue();
  set_name(result, ("workgroup_" + what + "_" + (d < 3 ? kAxes[d] : "n")).str());
}

}  // namespace

LogicalResult InterfaceWorkgroupIDOp::verify() {
  return VerifyWorkgroupDimension(*this, getDimension());
}
LogicalResult InterfaceWorkgroupCountOp::verify() {
  return VerifyWorkgroupDimension(*this, getDimension());
}
LogicalResult InterfaceWorkgroupSizeOp::verify() {
  return VerifyWorkgroupDimension(*this, getDimension());
}
void InterfaceWorkgroupIDOp::getAsmResultNames(mlir::OpAsmSetValueNameFn set_name) {
  NameWorkgroupResult(getResult(), "id", getDimension(), set_name);
}
void InterfaceWorkgroupCountOp::getAsmResultNames(mlir::OpAsmSetValueNameFn set_name) {
  NameWorkgroupResult(getResult(), "count", getDimension(), set_name);
}
void InterfaceWorkgroupSizeOp::getAsmResultNames(mlir::OpAsmSetValueNameFn set_name) {
  NameWorkgroupResult(getResult(), "size", getDimension(), set_name);
}

}  // namespace kiln::compiler::HAL

#define GET_OP_CLASSES
#include "compiler/dialects/hal/hal_ops.cpp.inc"
