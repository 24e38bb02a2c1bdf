// Collective operations: what one participant of a channel (channel.h) asks
// of the group, recorded into command buffers (CommandBuffer::Collective).
//
// Every participant records the same collectives on the same channel in the
// same order; each one's buffers hold its own share. The kinds follow
// IREE's flow.collective ops and NCCL's calls (the CUDA driver's executor):
//
// clang-format off
//   kind            send elements        recv elements   result
//   all_reduce      n                    n               recv = reduce over ranks of send
//   all_gather      n                    n * count       recv[r*n : (r+1)*n] = send of rank r
//   reduce_scatter  n * count            n               recv = reduce over ranks of
//                                                               send[rank*n : (rank+1)*n]
//   all_to_all      n (count divides n)  n               recv chunk r = send chunk `rank`
//                                                               of rank r (chunks of n/count)
//   send_recv       n                    n               sends send to `send_rank`;
//                                                               recv = send of `recv_rank`
//                                                               (zeros when -1)
// clang-format on
//
// where n is the command's element_count and count the channel's
// participant count (CollectiveBufferCounts). Reductions are applied in rank
// order on every participant, so integer results are exact and float results
// identical across ranks on the CPU channel; `average` divides the sum by
// count (integers truncate toward zero).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"
#include "hal/element_type.h"

namespace kiln::hal {

enum class CollectiveKind : uint8_t {
  kAllGather = 0,
  kAllReduce = 1,
  kAllToAll = 2,
  kReduceScatter = 3,
  kSendRecv = 4,
};

// IREE's CollectiveReductionOp values.
enum class CollectiveReduction : uint8_t {
  kNone = 0,
  kSum = 1,
  kProduct = 2,
  kMinimum = 3,
  kMaximum = 4,
  kAverage = 5,
};

struct CollectiveOp {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  // all_reduce and reduce_scatter: anything but kNone; the others: kNone.
  CollectiveReduction reduction = CollectiveReduction::kNone;
  // One of si8/ui8/si16/ui16/si32/ui32/si64/ui64 (or the signless integer
  // of that width, read as signed), f16, bf16, f32, f64.
  ElementType element_type = ElementType::kNone;
  // send_recv only: the rank this participant sends to and the rank it
  // receives from, each in [0, count) or -1 for none; -1 for other kinds.
  int32_t send_rank = -1;
  int32_t recv_rank = -1;
};

// "all_reduce", "all_gather", ...; "sum", "product", "minimum", ...
std::string_view CollectiveKindName(CollectiveKind kind);
std::string_view CollectiveReductionName(CollectiveReduction reduction);
// "all_reduce sum f32", "send_recv f32 (send 1, recv -1)".
std::string DescribeCollective(const CollectiveOp& op);

// The element counts of the send and recv buffers of a collective of
// `element_count` among `count` participants (the table above).
struct CollectiveCounts {
  uint64_t send = 0;
  uint64_t recv = 0;
};

// Checks `op` against a channel of `count` participants and returns its
// buffers' element counts: the reduction matches the kind, the element type
// is one of the above, send_recv's ranks are in range (and -1 elsewhere),
// all_to_all's element_count is a multiple of count, nothing overflows.
// INVALID_ARGUMENT naming the collective (DescribeCollective) otherwise.
Result<CollectiveCounts> CollectiveBufferCounts(const CollectiveOp& op, uint64_t element_count,
                                                int32_t count);

}  // namespace kiln::hal
