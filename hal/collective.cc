#include "hal/collective.h"

#include <limits>

namespace kiln::hal {

std::string_view CollectiveKindName(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllGather:
      return "all_gather";
    case CollectiveKind::kAllReduce:
      return "all_reduce";
    case CollectiveKind::kAllToAll:
      return "all_to_all";
    case CollectiveKind::kReduceScatter:
      return "reduce_scatter";
    case CollectiveKind::kSendRecv:
      return "send_recv";
  }
  return "unknown collective";
}

std::string_view CollectiveReductionName(CollectiveReduction reduction) {
  switch (reduction) {
    case CollectiveReduction::kNone:
      return "none";
    case CollectiveReduction::kSum:
      return "sum";
    case CollectiveReduction::kProduct:
      return "product";
    case CollectiveReduction::kMinimum:
      return "minimum";
    case CollectiveReduction::kMaximum:
      return "maximum";
    case CollectiveReduction::kAverage:
      return "average";
  }
  return "unknown reduction";
}

std::string DescribeCollective(const CollectiveOp& op) {
  std::string text(CollectiveKindName(op.kind));
  if (op.reduction != CollectiveReduction::kNone) {
    text += " ";
    text += CollectiveReductionName(op.reduction);
  }
  text += " ";
  text += FormatElementType(op.element_type);
  if (op.kind == CollectiveKind::kSendRecv) {
    text +=
        " (send " + std::to_string(op.send_rank) + ", recv " + std::to_string(op.recv_rank) + ")";
  }
  return text;
}

namespace {

bool IsCollectiveElementType(ElementType type) {
  switch (ElementKind(type)) {
    case NumericalKind::kInteger:
    case NumericalKind::kIntegerSigned:
    case NumericalKind::kIntegerUnsigned: {
      const uint32_t bits = ElementBitWidth(type);
      return bits == 8 || bits == 16 || bits == 32 || bits == 64;
    }
    case NumericalKind::kFloatIeee: {
      const uint32_t bits = ElementBitWidth(type);
      return bits == 16 || bits == 32 || bits == 64;
    }
    case NumericalKind::kFloatBrain:
      return ElementBitWidth(type) == 16;
    default:
      return false;
  }
}

bool IsKnownKind(CollectiveKind kind) {
  return static_cast<uint8_t>(kind) <= static_cast<uint8_t>(CollectiveKind::kSendRecv);
}

bool IsKnownReduction(CollectiveReduction reduction) {
  return static_cast<uint8_t>(reduction) <= static_cast<uint8_t>(CollectiveReduction::kAverage);
}

}  // namespace

Result<CollectiveCounts> CollectiveBufferCounts(const CollectiveOp& op, uint64_t element_count,
                                                int32_t count) {
  if (!IsKnownKind(op.kind)) {
    return InvalidArgumentError("collective kind " + std::to_string(static_cast<int>(op.kind)) +
                                " is not one of all_gather, all_reduce, all_to_all, "
                                "reduce_scatter, send_recv");
  }
  if (!IsKnownReduction(op.reduction)) {
    return InvalidArgumentError("collective reduction " +
                                std::to_string(static_cast<int>(op.reduction)) +
                                " is not one of none, sum, product, minimum, maximum, average");
  }
  auto error = [&](const std::string& what) {
    return InvalidArgumentError("collective " + DescribeCollective(op) + ": " + what);
  };
  if (count < 1) return error("a channel of " + std::to_string(count) + " participants");
  if (!IsCollectiveElementType(op.element_type)) {
    return error("element type " + std::string(FormatElementType(op.element_type)) +
                 " is not one of i8/si8/ui8, i16/si16/ui16, i32/si32/ui32, i64/si64/ui64, f16, "
                 "bf16, f32, f64");
  }
  const bool reduces =
      op.kind == CollectiveKind::kAllReduce || op.kind == CollectiveKind::kReduceScatter;
  if (reduces && op.reduction == CollectiveReduction::kNone) {
    return error("needs a reduction (sum, product, minimum, maximum or average)");
  }
  if (!reduces && op.reduction != CollectiveReduction::kNone) {
    return error("takes no reduction");
  }
  if (op.kind == CollectiveKind::kSendRecv) {
    for (int32_t peer : {op.send_rank, op.recv_rank}) {
      if (peer < -1 || peer >= count) {
        return error("rank " + std::to_string(peer) + " is not -1 or in [0, " +
                     std::to_string(count) + ")");
      }
    }
  } else if (op.send_rank != -1 || op.recv_rank != -1) {
    return error("send and recv ranks are for send_recv only");
  }
  // Every buffer's byte length must fit a size_t and an int64 (the VM's
  // lengths): bound the elements by what the widest type allows.
  const uint64_t max_elements =
      static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) / 8 / static_cast<uint64_t>(count);
  if (element_count > max_elements) {
    return error(std::to_string(element_count) + " elements among " + std::to_string(count) +
                 " participants overflow a buffer's size");
  }
  const uint64_t n = element_count;
  const uint64_t all = n * static_cast<uint64_t>(count);
  switch (op.kind) {
    case CollectiveKind::kAllGather:
      return CollectiveCounts{n, all};
    case CollectiveKind::kReduceScatter:
      return CollectiveCounts{all, n};
    case CollectiveKind::kAllToAll:
      if (n % static_cast<uint64_t>(count) != 0) {
        return error(std::to_string(n) + " elements do not split into " + std::to_string(count) +
                     " equal chunks");
      }
      return CollectiveCounts{n, n};
    case CollectiveKind::kAllReduce:
    case CollectiveKind::kSendRecv:
      return CollectiveCounts{n, n};
  }
  return error("unknown kind");
}

}  // namespace kiln::hal
