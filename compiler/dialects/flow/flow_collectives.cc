// The flow dialect's channels and collectives (flow_collective_ops.td):
// the collectives' syntax and verification, shared by the five ops through
// Collective (flow_dialect.h).
//
// Syntax, as IREE spells it:
//   flow.collective.<kind> [reduction,] element_type, %target, %source, %channel
//       [, %send, %recv]
//       : (target type, source type, !flow.channel [, index, index])
//       -> %target as result type{%dims}     (tied: written into the target)
//        | result type{%dims}                (untied)
// `min` and `max` read as minimum and maximum; `-> %target` alone means
// `-> %target as <the target's type>`.
//
// What the verifier knows statically: the element type attribute names the
// tensors' element type, source and target share it and their rank, and
// their shapes agree as far as they are static (all_reduce and send_recv
// the same shape; all_to_all as many elements; all_gather and
// reduce_scatter the same dimensions but dimension 0, where the larger is
// the smaller times some participant count >= 1). The participant count
// itself is known only at run time, which checks the buffers' sizes.
#include <type_traits>

#include "compiler/dialects/flow/flow_dialect.h"
#include "llvm/ADT/TypeSwitch.h"
#include "mlir/IR/OpImplementation.h"

namespace kiln::compiler::Flow {

using mlir::failure;
using mlir::LogicalResult;
using mlir::OpAsmParser;
using mlir::OpAsmPrinter;
using mlir::ParseResult;
using mlir::success;

//===----------------------------------------------------------------------===//
// Collective
//===----------------------------------------------------------------------===//

namespace {

template <typename OpT>
constexpr bool kReduces =
    std::is_same_v<OpT, CollectiveAllReduceOp> || std::is_same_v<OpT, CollectiveReduceScatterOp>;
template <typename OpT>
constexpr bool kHasRanks = std::is_same_v<OpT, CollectiveSendRecvOp>;

template <typename OpT>
Collective ViewOf(OpT op, HAL::CollectiveKind kind) {
  Collective c;
  c.kind = kind;
  if constexpr (kReduces<OpT>) c.reduction = op.getReductionOp();
  c.element_type = op.getElementType();
  c.target = op.getTarget();
  c.target_dims = op.getTargetDims();
  c.source = op.getSource();
  c.channel = op.getChannel();
  if constexpr (kHasRanks<OpT>) {
    c.send_rank = op.getSend();
    c.recv_rank = op.getRecv();
  }
  c.tied = op.getTied();
  c.result = op.getResult();
  return c;
}

}  // namespace

std::optional<Collective> GetCollective(mlir::Operation* op) {
  using Kind = HAL::CollectiveKind;
  return llvm::TypeSwitch<mlir::Operation*, std::optional<Collective>>(op)
      .Case([](CollectiveAllGatherOp c) { return ViewOf(c, Kind::AllGather); })
      .Case([](CollectiveAllReduceOp c) { return ViewOf(c, Kind::AllReduce); })
      .Case([](CollectiveAllToAllOp c) { return ViewOf(c, Kind::AllToAll); })
      .Case([](CollectiveReduceScatterOp c) { return ViewOf(c, Kind::ReduceScatter); })
      .Case([](CollectiveSendRecvOp c) { return ViewOf(c, Kind::SendRecv); })
      .Default([](mlir::Operation*) { return std::nullopt; });
}

bool CollectiveElementTypeMatches(CollectiveElementType element_type, mlir::Type type) {
  using E = CollectiveElementType;
  switch (element_type) {
    case E::Float16:
      return type.isF16();
    case E::Float32:
      return type.isF32();
    case E::Float64:
      return type.isF64();
    case E::BFloat16:
      return type.isBF16();
    default:
      break;
  }
  auto integer = llvm::dyn_cast<mlir::IntegerType>(type);
  if (!integer) return false;
  const bool is_signed = element_type == E::Sint8 || element_type == E::Sint16 ||
                         element_type == E::Sint32 || element_type == E::Sint64;
  const unsigned width = element_type == E::Sint8 || element_type == E::Uint8     ? 8
                         : element_type == E::Sint16 || element_type == E::Uint16 ? 16
                         : element_type == E::Sint32 || element_type == E::Uint32 ? 32
                                                                                  : 64;
  if (integer.getWidth() != width) return false;
  return integer.isSignless() || (is_signed ? integer.isSigned() : integer.isUnsigned());
}

namespace {

//===----------------------------------------------------------------------===//
// Syntax
//===----------------------------------------------------------------------===//

// `sum`, `product`, `minimum` (`min`), `maximum` (`max`), `average`, `none`.
ParseResult ParseReduction(OpAsmParser& parser, CollectiveReductionOp& reduction) {
  const llvm::SMLoc loc = parser.getCurrentLocation();
  llvm::StringRef keyword;
  if (parser.parseKeyword(&keyword)) return failure();
  if (keyword == "min") keyword = "minimum";
  if (keyword == "max") keyword = "maximum";
  std::optional<CollectiveReductionOp> value = symbolizeCollectiveReductionOp(keyword);
  if (!value) {
    return parser.emitError(loc, "unknown collective reduction '")
           << keyword << "'; expected sum, product, minimum (min), maximum (max) or average";
  }
  reduction = *value;
  return success();
}

ParseResult ParseElementType(OpAsmParser& parser, CollectiveElementType& element_type) {
  const llvm::SMLoc loc = parser.getCurrentLocation();
  llvm::StringRef keyword;
  if (parser.parseKeyword(&keyword)) return failure();
  std::optional<CollectiveElementType> value = symbolizeCollectiveElementType(keyword);
  if (!value) {
    return parser.emitError(loc, "unknown collective element type '")
           << keyword
           << "'; expected si8, ui8, si16, ui16, si32, ui32, si64, ui64, f16, f32, f64 or bf16";
  }
  element_type = *value;
  return success();
}

template <typename OpT>
ParseResult ParseCollective(OpAsmParser& parser, mlir::OperationState& result) {
  mlir::MLIRContext* context = parser.getContext();
  if constexpr (kReduces<OpT>) {
    CollectiveReductionOp reduction = CollectiveReductionOp::None;
    if (ParseReduction(parser, reduction) || parser.parseComma()) return failure();
    result.addAttribute(OpT::getReductionOpAttrName(result.name),
                        CollectiveReductionOpAttr::get(context, reduction));
  }
  CollectiveElementType element_type;
  if (ParseElementType(parser, element_type) || parser.parseComma()) return failure();
  result.addAttribute(OpT::getElementTypeAttrName(result.name),
                      CollectiveElementTypeAttr::get(context, element_type));

  // %target, %source, %channel [, %send, %recv]
  OpAsmParser::UnresolvedOperand target, source, channel, send, recv;
  if (parser.parseOperand(target) || parser.parseComma() || parser.parseOperand(source) ||
      parser.parseComma() || parser.parseOperand(channel)) {
    return failure();
  }
  if constexpr (kHasRanks<OpT>) {
    if (parser.parseComma() || parser.parseOperand(send) || parser.parseComma() ||
        parser.parseOperand(recv)) {
      return failure();
    }
  }

  // `: (target type, source type, channel type [, index, index])`
  mlir::Type target_type, source_type, channel_type, send_type, recv_type;
  if (parser.parseColon() || parser.parseLParen() || parser.parseType(target_type) ||
      parser.parseComma() || parser.parseType(source_type) || parser.parseComma() ||
      parser.parseType(channel_type)) {
    return failure();
  }
  if constexpr (kHasRanks<OpT>) {
    if (parser.parseComma() || parser.parseType(send_type) || parser.parseComma() ||
        parser.parseType(recv_type)) {
      return failure();
    }
  }
  if (parser.parseRParen() || parser.parseArrow()) return failure();

  // `-> %target [as type]` or `-> type`, then `{%dims}`.
  mlir::Type result_type = target_type;
  OpAsmParser::UnresolvedOperand tied_to;
  const llvm::SMLoc result_loc = parser.getCurrentLocation();
  mlir::OptionalParseResult is_tied = parser.parseOptionalOperand(tied_to);
  if (is_tied.has_value()) {
    if (failed(*is_tied)) return failure();
    if (tied_to.name != target.name || tied_to.number != target.number) {
      return parser.emitError(result_loc, "the result can only be tied to the target (")
             << target.name << "), not " << tied_to.name;
    }
    if (succeeded(parser.parseOptionalKeyword("as")) && parser.parseType(result_type)) {
      return failure();
    }
    result.addAttribute(OpT::getTiedAttrName(result.name), parser.getBuilder().getUnitAttr());
  } else if (parser.parseType(result_type)) {
    return failure();
  }
  llvm::SmallVector<OpAsmParser::UnresolvedOperand> dims;
  if (succeeded(parser.parseOptionalLBrace())) {
    if (parser.parseOperandList(dims) || parser.parseRBrace()) return failure();
  }
  auto shaped = llvm::dyn_cast<mlir::ShapedType>(result_type);
  const size_t dynamic = shaped && shaped.hasRank() ? shaped.getNumDynamicDims() : 0;
  if (dims.size() != dynamic) {
    return parser.emitError(result_loc)
           << result_type << " has " << dynamic << " dynamic dimension(s), but " << dims.size()
           << " dimension values are given";
  }
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes)) return failure();

  mlir::Type index = parser.getBuilder().getIndexType();
  if (parser.resolveOperand(target, target_type, result.operands) ||
      parser.resolveOperands(dims, index, result.operands) ||
      parser.resolveOperand(source, source_type, result.operands) ||
      parser.resolveOperand(channel, channel_type, result.operands)) {
    return failure();
  }
  if constexpr (kHasRanks<OpT>) {
    if (parser.resolveOperand(send, send_type, result.operands) ||
        parser.resolveOperand(recv, recv_type, result.operands)) {
      return failure();
    }
  }
  result.addTypes(result_type);
  return success();
}

template <typename OpT>
void PrintCollective(OpAsmPrinter& printer, OpT op) {
  const Collective c = *GetCollective(op);
  printer << ' ';
  if constexpr (kReduces<OpT>) printer << stringifyCollectiveReductionOp(c.reduction) << ", ";
  printer << stringifyCollectiveElementType(c.element_type) << ", " << c.target << ", " << c.source
          << ", " << c.channel;
  if (c.send_rank) printer << ", " << c.send_rank << ", " << c.recv_rank;
  printer << " : (" << c.target.getType() << ", " << c.source.getType() << ", "
          << c.channel.getType();
  if (c.send_rank) printer << ", " << c.send_rank.getType() << ", " << c.recv_rank.getType();
  printer << ") -> ";
  if (c.tied) printer << c.target << " as ";
  printer << c.result.getType();
  if (!c.target_dims.empty()) {
    printer << '{';
    printer.printOperands(c.target_dims);
    printer << '}';
  }
  llvm::SmallVector<llvm::StringRef, 3> elided = {op.getElementTypeAttrName(),
                                                  op.getTiedAttrName()};
  if constexpr (kReduces<OpT>) elided.push_back(op.getReductionOpAttrName());
  printer.printOptionalAttrDictWithKeyword(op->getAttrs(), elided);
}

//===----------------------------------------------------------------------===//
// Verification
//===----------------------------------------------------------------------===//

bool DimsAgree(int64_t a, int64_t b) {
  return mlir::ShapedType::isDynamic(a) || mlir::ShapedType::isDynamic(b) || a == b;
}

// `larger` is `smaller` times some participant count >= 1 (when both are
// static).
bool IsMultiple(int64_t larger, int64_t smaller) {
  if (mlir::ShapedType::isDynamic(larger) || mlir::ShapedType::isDynamic(smaller)) return true;
  if (smaller == 0) return larger == 0;
  return larger >= smaller && larger % smaller == 0;
}

LogicalResult VerifyCollective(mlir::Operation* op) {
  const Collective c = *GetCollective(op);
  auto source = llvm::cast<mlir::RankedTensorType>(c.source.getType());
  auto target = llvm::cast<mlir::RankedTensorType>(c.target.getType());
  const llvm::StringRef kind = HAL::stringifyCollectiveKind(c.kind);
  if (source.getElementType() != target.getElementType()) {
    return op->emitOpError("source element type ")
           << source.getElementType() << " differs from the target's, " << target.getElementType();
  }
  if (!CollectiveElementTypeMatches(c.element_type, source.getElementType())) {
    return op->emitOpError("element type ")
           << stringifyCollectiveElementType(c.element_type)
           << " does not name the tensors' element type " << source.getElementType()
           << " (collectives move si8..si64, ui8..ui64 (signless integers either), f16, f32, "
              "f64 and bf16)";
  }
  const bool reduces =
      c.kind == HAL::CollectiveKind::AllReduce || c.kind == HAL::CollectiveKind::ReduceScatter;
  if (reduces && c.reduction == CollectiveReductionOp::None) {
    return op->emitOpError() << kind
                             << " needs a reduction (sum, product, minimum, maximum or "
                                "average), not none";
  }
  if (static_cast<int64_t>(c.target_dims.size()) != target.getNumDynamicDims()) {
    return op->emitOpError("the target ")
           << target << " has " << target.getNumDynamicDims() << " dynamic dimension(s), but "
           << c.target_dims.size() << " dimension values are given";
  }
  if (source.getRank() != target.getRank()) {
    return op->emitOpError("source ") << source << " and target " << target << " differ in rank";
  }
  auto mismatch = [&](llvm::StringRef how) {
    return op->emitOpError() << kind << " of source " << source << " into target " << target << ": "
                             << how;
  };
  switch (c.kind) {
    case HAL::CollectiveKind::AllReduce:
    case HAL::CollectiveKind::SendRecv:
      for (int64_t i = 0; i < source.getRank(); ++i) {
        if (!DimsAgree(source.getDimSize(i), target.getDimSize(i))) {
          return mismatch("source and target must have the same shape");
        }
      }
      break;
    case HAL::CollectiveKind::AllToAll:
      if (source.hasStaticShape() && target.hasStaticShape() &&
          source.getNumElements() != target.getNumElements()) {
        return mismatch("source and target must have as many elements");
      }
      break;
    case HAL::CollectiveKind::AllGather:
    case HAL::CollectiveKind::ReduceScatter: {
      if (source.getRank() == 0) return mismatch("needs a dimension 0 to gather or scatter along");
      for (int64_t i = 1; i < source.getRank(); ++i) {
        if (!DimsAgree(source.getDimSize(i), target.getDimSize(i))) {
          return mismatch("dimensions other than 0 must agree");
        }
      }
      const bool gathers = c.kind == HAL::CollectiveKind::AllGather;
      const int64_t larger = gathers ? target.getDimSize(0) : source.getDimSize(0);
      const int64_t smaller = gathers ? source.getDimSize(0) : target.getDimSize(0);
      if (!IsMultiple(larger, smaller)) {
        return mismatch(gathers ? "the target's dimension 0 must be the source's times the "
                                  "participant count"
                                : "the source's dimension 0 must be the target's times the "
                                  "participant count");
      }
      break;
    }
  }
  return success();
}

}  // namespace

#define KILN_FLOW_COLLECTIVE_OP(OpT)                                               \
  ParseResult OpT::parse(OpAsmParser& parser, mlir::OperationState& result) {      \
    return ParseCollective<OpT>(parser, result);                                   \
  }                                                                                \
  void OpT::print(OpAsmPrinter& printer) { PrintCollective<OpT>(printer, *this); } \
  LogicalResult OpT::verify() { return VerifyCollective(*this); }
KILN_FLOW_COLLECTIVE_OP(CollectiveAllGatherOp)
KILN_FLOW_COLLECTIVE_OP(CollectiveAllReduceOp)
KILN_FLOW_COLLECTIVE_OP(CollectiveAllToAllOp)
KILN_FLOW_COLLECTIVE_OP(CollectiveReduceScatterOp)
KILN_FLOW_COLLECTIVE_OP(CollectiveSendRecvOp)
#undef KILN_FLOW_COLLECTIVE_OP

//===----------------------------------------------------------------------===//
// Channels
//===----------------------------------------------------------------------===//

void ChannelDefaultOp::getAsmResultNames(mlir::OpAsmSetValueNameFn set_name) {
  set_name(getResult(), "channel");
}
void ChannelSplitOp::getAsmResultNames(mlir::OpAsmSetValueNameFn set_name) {
  set_name(getResult(), "channel");
}
void ChannelRankOp::getAsmResultNames(mlir::OpAsmSetValueNameFn set_name) {
  set_name(getResult(), "rank");
}
void ChannelCountOp::getAsmResultNames(mlir::OpAsmSetValueNameFn set_name) {
  set_name(getResult(), "count");
}

}  // namespace kiln::compiler::Flow
