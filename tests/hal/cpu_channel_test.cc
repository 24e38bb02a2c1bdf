// The CPU driver's collectives (hal/cpu/cpu_channel.h) between forked
// processes, through real command buffers submitted to CPU devices: every
// kind, reduction and a representative set of element types on 2 and 3
// processes, each result compared bit for bit with a value this file
// computes on its own; reusable command buffers replayed with new inputs;
// send_recv rings and -1 peers; splits; in-place all_reduce; a 32 MiB
// all_reduce; peers that die, hang or run another program; tcp://; groups
// of one; CreateChannel's checks.
#include "hal/cpu/cpu_channel.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <ostream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "hal/cpu/cpu_device.h"
#include "hal/rendezvous.h"
#include "tests/hal/multiprocess.h"
#include "tests/hal/test_util.h"

namespace kiln::hal {

// Test names and failures print the kind's name (found by gtest through ADL).
void PrintTo(CollectiveKind kind, std::ostream* os) { *os << CollectiveKindName(kind); }

namespace {

using namespace std::chrono_literals;
using testing::FreePort;
using testing::RunRanks;
using testing::ScratchDirectory;
using testing::Unwrap;

// --- The reference: inputs and expected results, computed independently ---

uint64_t Hash(uint64_t seed, uint64_t rank, uint64_t index) {
  uint64_t x = seed * 0x9E3779B97F4A7C15ull ^ (rank + 1) * 0xC2B2AE3D27D4EB4Full ^ index;
  x ^= x >> 33;
  x *= 0xFF51AFD7ED558CCDull;
  x ^= x >> 33;
  x *= 0xC4CEB9FE1A85EC53ull;
  return x ^ (x >> 33);
}

uint16_t HalfBits(float value) {
  const _Float16 half = static_cast<_Float16>(value);  // The compiler rounds to nearest even.
  return std::bit_cast<uint16_t>(half);
}
float HalfValue(uint16_t bits) { return static_cast<float>(std::bit_cast<_Float16>(bits)); }

// bf16 to nearest even, by comparing with the midpoint between the two
// candidates (written apart from the driver's bit trick on purpose).
uint16_t BFloat16Bits(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  if (std::isnan(value)) return static_cast<uint16_t>((bits >> 16) | 0x40);
  const uint32_t sign = bits & 0x80000000u;
  const uint32_t magnitude = bits & 0x7FFFFFFFu;
  const uint32_t below = magnitude & 0xFFFF0000u;
  const uint32_t midpoint = below | 0x8000u;
  uint32_t chosen = below;
  if (magnitude > midpoint || (magnitude == midpoint && ((below >> 16) & 1u) != 0)) {
    chosen = below + 0x10000u;  // Up, possibly to infinity.
  }
  return static_cast<uint16_t>((sign | chosen) >> 16);
}
float BFloat16Value(uint16_t bits) { return std::bit_cast<float>(uint32_t{bits} << 16); }

// Element `index` of `rank`'s send buffer, as raw little-endian bits.
uint64_t InputBits(ElementType type, int rank, uint64_t index, uint64_t seed) {
  const uint64_t h = Hash(seed, static_cast<uint64_t>(rank), index);
  // Small multiples of 1/8: exact in f16 and bf16, so sums, products and
  // averages of them exercise the rounding back to 16 bits.
  const float small = static_cast<float>(static_cast<int>(h % 201) - 100) / 8.0f;
  const double wide = (static_cast<double>(h >> 11) / 9007199254740992.0 - 0.5) * 2000.0;
  switch (type) {
    case ElementType::kFloat16:
      return HalfBits(small);
    case ElementType::kBFloat16:
      return BFloat16Bits(small);
    case ElementType::kFloat32:
      return std::bit_cast<uint32_t>(static_cast<float>(wide));
    case ElementType::kFloat64:
      return std::bit_cast<uint64_t>(wide);
    default:
      return h;  // Integers: any bits (sums and products wrap).
  }
}

// One reduction step on a host value, in the arithmetic the header
// documents (wrapping integers, NaN-propagating minimum and maximum).
template <typename T>
T Combine(CollectiveReduction reduction, T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    switch (reduction) {
      case CollectiveReduction::kSum:
      case CollectiveReduction::kAverage:
        return static_cast<T>(static_cast<U>(static_cast<uint64_t>(static_cast<U>(a)) +
                                             static_cast<uint64_t>(static_cast<U>(b))));
      case CollectiveReduction::kProduct:
        return static_cast<T>(static_cast<U>(static_cast<uint64_t>(static_cast<U>(a)) *
                                             static_cast<uint64_t>(static_cast<U>(b))));
      case CollectiveReduction::kMinimum:
        return std::min(a, b);
      case CollectiveReduction::kMaximum:
        return std::max(a, b);
      default:
        return a;
    }
  } else {
    switch (reduction) {
      case CollectiveReduction::kSum:
      case CollectiveReduction::kAverage:
        return a + b;
      case CollectiveReduction::kProduct:
        return a * b;
      case CollectiveReduction::kMinimum:
        return std::isnan(a) ? a : std::isnan(b) ? b : (b < a ? b : a);
      case CollectiveReduction::kMaximum:
        return std::isnan(a) ? a : std::isnan(b) ? b : (a < b ? b : a);
      default:
        return a;
    }
  }
}

template <typename T>
T Finish(CollectiveReduction reduction, T value, int count) {
  if (reduction != CollectiveReduction::kAverage) return value;
  if constexpr (std::is_integral_v<T>) {
    if constexpr (std::is_signed_v<T>) {
      return static_cast<T>(static_cast<int64_t>(value) / count);
    } else {
      return static_cast<T>(static_cast<uint64_t>(value) / static_cast<uint64_t>(count));
    }
  } else {
    return value / static_cast<T>(count);
  }
}

// Reduces element `index` of each rank's send buffer (elements given by
// `input(rank)`), in rank order; returns the result's raw bits.
template <typename T, typename Input>
uint64_t ReduceTyped(CollectiveReduction reduction, int count, Input input) {
  T acc = input(0);
  for (int r = 1; r < count; ++r) acc = Combine(reduction, acc, static_cast<T>(input(r)));
  acc = Finish(reduction, acc, count);
  if constexpr (std::is_integral_v<T>) {
    return static_cast<uint64_t>(static_cast<std::make_unsigned_t<T>>(acc));
  } else if constexpr (sizeof(T) == 4) {
    return std::bit_cast<uint32_t>(acc);
  } else {
    return std::bit_cast<uint64_t>(acc);
  }
}

uint64_t ReduceBits(CollectiveReduction reduction, ElementType type, int count,
                    const std::function<uint64_t(int rank)>& bits) {
  switch (type) {
    case ElementType::kSint8:
    case ElementType::kInt8:
      return ReduceTyped<int8_t>(reduction, count,
                                 [&](int r) { return static_cast<int8_t>(bits(r)); });
    case ElementType::kUint8:
      return ReduceTyped<uint8_t>(reduction, count,
                                  [&](int r) { return static_cast<uint8_t>(bits(r)); });
    case ElementType::kSint16:
      return ReduceTyped<int16_t>(reduction, count,
                                  [&](int r) { return static_cast<int16_t>(bits(r)); });
    case ElementType::kUint16:
      return ReduceTyped<uint16_t>(reduction, count,
                                   [&](int r) { return static_cast<uint16_t>(bits(r)); });
    case ElementType::kSint32:
    case ElementType::kInt32:
      return ReduceTyped<int32_t>(reduction, count,
                                  [&](int r) { return static_cast<int32_t>(bits(r)); });
    case ElementType::kUint32:
      return ReduceTyped<uint32_t>(reduction, count,
                                   [&](int r) { return static_cast<uint32_t>(bits(r)); });
    case ElementType::kSint64:
    case ElementType::kInt64:
      return ReduceTyped<int64_t>(reduction, count,
                                  [&](int r) { return static_cast<int64_t>(bits(r)); });
    case ElementType::kUint64:
      return ReduceTyped<uint64_t>(reduction, count, [&](int r) { return bits(r); });
    case ElementType::kFloat32:
      return ReduceTyped<float>(reduction, count, [&](int r) {
        return std::bit_cast<float>(static_cast<uint32_t>(bits(r)));
      });
    case ElementType::kFloat64:
      return ReduceTyped<double>(reduction, count,
                                 [&](int r) { return std::bit_cast<double>(bits(r)); });
    case ElementType::kFloat16:
      return HalfBits(std::bit_cast<float>(static_cast<uint32_t>(ReduceTyped<float>(
          reduction, count, [&](int r) { return HalfValue(static_cast<uint16_t>(bits(r))); }))));
    case ElementType::kBFloat16:
      return BFloat16Bits(std::bit_cast<float>(
          static_cast<uint32_t>(ReduceTyped<float>(reduction, count, [&](int r) {
            return BFloat16Value(static_cast<uint16_t>(bits(r)));
          }))));
    default:
      ADD_FAILURE() << "no reference for " << FormatElementType(type);
      return 0;
  }
}

void PutElement(std::vector<uint8_t>& bytes, size_t index, size_t size, uint64_t bits) {
  std::memcpy(bytes.data() + index * size, &bits, size);  // Little-endian host.
}

// Rank `rank`'s send buffer for `op` of `n` elements among `count`.
std::vector<uint8_t> SendBuffer(const CollectiveOp& op, uint64_t n, int count, int rank,
                                uint64_t seed) {
  const CollectiveCounts counts = Unwrap(CollectiveBufferCounts(op, n, count));
  const size_t size = ElementByteSize(op.element_type);
  std::vector<uint8_t> bytes(counts.send * size);
  for (uint64_t i = 0; i < counts.send; ++i) {
    PutElement(bytes, i, size, InputBits(op.element_type, rank, i, seed));
  }
  return bytes;
}

// What rank `me`'s recv buffer must hold after `op`.
std::vector<uint8_t> ExpectedRecv(const CollectiveOp& op, uint64_t n, int count, int me,
                                  uint64_t seed) {
  const CollectiveCounts counts = Unwrap(CollectiveBufferCounts(op, n, count));
  const size_t size = ElementByteSize(op.element_type);
  const ElementType type = op.element_type;
  std::vector<uint8_t> bytes(counts.recv * size);
  for (uint64_t i = 0; i < counts.recv; ++i) {
    uint64_t bits = 0;
    switch (op.kind) {
      case CollectiveKind::kAllReduce:
        bits = ReduceBits(op.reduction, type, count,
                          [&](int r) { return InputBits(type, r, i, seed); });
        break;
      case CollectiveKind::kReduceScatter:
        bits = ReduceBits(op.reduction, type, count,
                          [&](int r) { return InputBits(type, r, me * n + i, seed); });
        break;
      case CollectiveKind::kAllGather:
        bits = InputBits(type, static_cast<int>(i / n), i % n, seed);
        break;
      case CollectiveKind::kAllToAll: {
        const uint64_t chunk = n / count;
        bits = InputBits(type, static_cast<int>(i / chunk), me * chunk + i % chunk, seed);
        break;
      }
      case CollectiveKind::kSendRecv:
        bits = op.recv_rank < 0 ? 0 : InputBits(type, op.recv_rank, i, seed);
        break;
    }
    PutElement(bytes, i, size, bits);
  }
  return bytes;
}

std::string FirstDifference(const std::vector<uint8_t>& got, const std::vector<uint8_t>& want,
                            size_t element_size) {
  if (got.size() != want.size()) {
    return std::to_string(got.size()) + " bytes, expected " + std::to_string(want.size());
  }
  for (size_t i = 0; i < got.size(); i += element_size) {
    if (std::memcmp(got.data() + i, want.data() + i, element_size) == 0) continue;
    uint64_t g = 0, w = 0;
    std::memcpy(&g, got.data() + i, element_size);
    std::memcpy(&w, want.data() + i, element_size);
    char text[128];
    std::snprintf(text, sizeof(text), "element %zu is 0x%llx, expected 0x%llx", i / element_size,
                  static_cast<unsigned long long>(g), static_cast<unsigned long long>(w));
    return text;
  }
  return "";
}

// --- One participant: a device, a rendezvous and a channel ---

struct Participant {
  Ref<cpu::CpuDevice> device;
  Ref<Rendezvous> rendezvous;
  Ref<Channel> channel;
};

struct JoinOptions {
  bool asynchronous = false;
  std::chrono::milliseconds collective_timeout = 20s;
  std::string group = "test";
};

Result<Participant> Join(const std::string& spec, int rank, int count,
                         const JoinOptions& options = {}) {
  Participant p;
  cpu::CpuDeviceOptions device_options;
  device_options.asynchronous = options.asynchronous;
  device_options.thread_count = 2;
  device_options.library_calls = false;
  device_options.collective_timeout = options.collective_timeout;
  KILN_ASSIGN_OR_RETURN(p.device, cpu::CpuDevice::Create(device_options));
  KILN_ASSIGN_OR_RETURN(p.rendezvous, Rendezvous::Open(spec, rank, count, 20s));
  ChannelParams params;
  params.group = options.group;
  params.rank = rank;
  params.count = count;
  params.rendezvous = p.rendezvous;
  KILN_ASSIGN_OR_RETURN(p.channel, p.device->CreateChannel(params));
  return p;
}

Result<Ref<Buffer>> Upload(Device& device, const std::vector<uint8_t>& bytes) {
  KILN_ASSIGN_OR_RETURN(Ref<Buffer> buffer,
                        device.allocator().Allocate({}, bytes.empty() ? 1 : bytes.size()));
  KILN_RETURN_IF_ERROR(buffer->WriteData(0, bytes));
  return buffer;
}

Result<std::vector<uint8_t>> Download(Buffer& buffer, size_t length) {
  std::vector<uint8_t> bytes(length);
  KILN_RETURN_IF_ERROR(buffer.ReadData(0, bytes));
  return bytes;
}

// Runs `op` once through a one-shot command buffer; returns recv's bytes.
Result<std::vector<uint8_t>> RunOnce(Device& device, const Ref<Channel>& channel,
                                     const CollectiveOp& op, uint64_t n,
                                     const std::vector<uint8_t>& send) {
  KILN_ASSIGN_OR_RETURN(CollectiveCounts counts, CollectiveBufferCounts(op, n, channel->count()));
  const size_t recv_bytes = counts.recv * ElementByteSize(op.element_type);
  KILN_ASSIGN_OR_RETURN(Ref<Buffer> send_buffer, Upload(device, send));
  // Garbage in recv: zero-fills and copies must overwrite it.
  KILN_ASSIGN_OR_RETURN(Ref<Buffer> recv_buffer,
                        Upload(device, std::vector<uint8_t>(recv_bytes, 0xA5)));
  KILN_ASSIGN_OR_RETURN(Ref<CommandBuffer> command_buffer,
                        device.CreateCommandBuffer(CommandBufferMode::kOneShot));
  KILN_RETURN_IF_ERROR(command_buffer->Begin());
  KILN_RETURN_IF_ERROR(command_buffer->Collective(channel, op,
                                                  BufferRef::Of(send_buffer, 0, send.size()),
                                                  BufferRef::Of(recv_buffer, 0, recv_bytes), n));
  KILN_RETURN_IF_ERROR(command_buffer->End());
  KILN_RETURN_IF_ERROR(testing::SubmitAndWait(device, command_buffer));
  return Download(*recv_buffer, recv_bytes);
}

// Runs `op` on `channel` with this rank's inputs and checks the result.
std::string CheckCollective(Device& device, const Ref<Channel>& channel, const CollectiveOp& op,
                            uint64_t n, uint64_t seed) {
  const int me = channel->rank();
  const int count = channel->count();
  Result<std::vector<uint8_t>> got =
      RunOnce(device, channel, op, n, SendBuffer(op, n, count, me, seed));
  const std::string what = DescribeCollective(op) + " of " + std::to_string(n) + " on " +
                           std::to_string(count) + " ranks";
  if (!got.ok()) return what + ": " + got.status().ToString();
  const std::string difference =
      FirstDifference(*got, ExpectedRecv(op, n, count, me, seed), ElementByteSize(op.element_type));
  return difference.empty() ? "" : what + ": " + difference;
}

const ElementType kTypes[] = {ElementType::kSint8,   ElementType::kUint8,   ElementType::kSint32,
                              ElementType::kSint64,  ElementType::kFloat16, ElementType::kBFloat16,
                              ElementType::kFloat32, ElementType::kFloat64};
const CollectiveReduction kReductions[] = {
    CollectiveReduction::kSum, CollectiveReduction::kProduct, CollectiveReduction::kMinimum,
    CollectiveReduction::kMaximum, CollectiveReduction::kAverage};

// --- Every kind x reduction x type, on 2 and 3 processes ---

class CollectiveMatrixTest : public ::testing::TestWithParam<std::tuple<int, CollectiveKind>> {
 protected:
  ScratchDirectory scratch_;
};

TEST_P(CollectiveMatrixTest, MatchesTheReference) {
  const auto [count, kind] = GetParam();
  const std::string spec = scratch_.Sub("rendezvous");
  KILN_EXPECT_RANKS_OK(RunRanks(count, [&, count = count, kind = kind](int rank) -> std::string {
    CHILD_ASSIGN(p, Join(spec, rank, count));
    uint64_t seed = 1;
    for (ElementType type : kTypes) {
      std::vector<CollectiveOp> ops;
      if (kind == CollectiveKind::kAllReduce || kind == CollectiveKind::kReduceScatter) {
        for (CollectiveReduction reduction : kReductions)
          ops.push_back(CollectiveOp{kind, reduction, type});
      } else if (kind == CollectiveKind::kSendRecv) {
        // A ring: send to the next rank, receive from the previous one.
        ops.push_back(CollectiveOp{kind, CollectiveReduction::kNone, type, (rank + 1) % count,
                                   (rank + count - 1) % count});
      } else {
        ops.push_back(CollectiveOp{kind, CollectiveReduction::kNone, type});
      }
      for (const CollectiveOp& op : ops) {
        // Uneven segments (61), and fewer elements than ranks (1).
        for (uint64_t n : {uint64_t{61}, uint64_t{1}}) {
          const uint64_t elements = kind == CollectiveKind::kAllToAll ? n - 1 : n;  // 60, 0.
          std::string failure = CheckCollective(*p.device, p.channel, op, elements, seed++);
          if (!failure.empty()) return failure;
        }
      }
    }
    return "";
  }));
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, CollectiveMatrixTest,
    ::testing::Combine(::testing::Values(2, 3),
                       ::testing::Values(CollectiveKind::kAllReduce, CollectiveKind::kReduceScatter,
                                         CollectiveKind::kAllGather, CollectiveKind::kAllToAll,
                                         CollectiveKind::kSendRecv)),
    [](const ::testing::TestParamInfo<std::tuple<int, CollectiveKind>>& info) {
      std::string name(CollectiveKindName(std::get<1>(info.param)));
      name.erase(std::remove(name.begin(), name.end(), '_'), name.end());
      return name + "On" + std::to_string(std::get<0>(info.param)) + "Ranks";
    });

// The reference itself, on values worked out by hand, so that a reference
// that agreed with a wrong driver would be caught.
TEST(CollectiveReferenceTest, HandWorkedValues) {
  auto bits = [](std::vector<uint64_t> values) {
    return [values](int r) { return values[static_cast<size_t>(r)]; };
  };
  // si8: 100 + 100 + 100 = 300 wraps to 44; average 44 / 3 = 14.
  EXPECT_EQ(ReduceBits(CollectiveReduction::kSum, ElementType::kSint8, 3, bits({100, 100, 100})),
            44u);
  EXPECT_EQ(
      ReduceBits(CollectiveReduction::kAverage, ElementType::kSint8, 3, bits({100, 100, 100})),
      14u);
  // si8 reads 0xFF as -1: the minimum of -1 and 1 is -1; ui8 reads 255.
  EXPECT_EQ(ReduceBits(CollectiveReduction::kMinimum, ElementType::kSint8, 2, bits({0xFF, 1})),
            0xFFu);
  EXPECT_EQ(ReduceBits(CollectiveReduction::kMinimum, ElementType::kUint8, 2, bits({0xFF, 1})), 1u);
  // si8 average truncates toward zero: (-7 + 0) / 2 = -3.
  EXPECT_EQ(ReduceBits(CollectiveReduction::kAverage, ElementType::kSint8, 2, bits({0xF9, 0})),
            0xFDu);
  // bf16: 1 + 2^-8 is a tie between 1 and 1 + 2^-7; to even gives 1.
  EXPECT_EQ(
      ReduceBits(CollectiveReduction::kSum, ElementType::kBFloat16, 2, bits({0x3F80, 0x3B80})),
      0x3F80u);
  // bf16: 1 + 3 * 2^-8 ties between 1 + 2^-7 and 1 + 2^-6: to even, up.
  EXPECT_EQ(
      ReduceBits(CollectiveReduction::kSum, ElementType::kBFloat16, 2, bits({0x3F81, 0x3B80})),
      0x3F82u);
  // f16: 2048 + 1 ties between 2048 and 2050: to even gives 2048 (0x6800).
  EXPECT_EQ(ReduceBits(CollectiveReduction::kSum, ElementType::kFloat16, 2, bits({0x6800, 0x3C00})),
            0x6800u);
  // f16: 65504 + 16 rounds to infinity.
  EXPECT_EQ(ReduceBits(CollectiveReduction::kSum, ElementType::kFloat16, 2, bits({0x7BFF, 0x4C00})),
            0x7C00u);
}

// --- Record once, replay with new inputs ---

class ChannelTest : public ::testing::TestWithParam<int> {
 protected:
  ScratchDirectory scratch_;
};

TEST_P(ChannelTest, ReusableCommandBufferReplaysWithNewInputs) {
  const int count = GetParam();
  const std::string spec = scratch_.Sub("rendezvous");
  KILN_EXPECT_RANKS_OK(RunRanks(count, [&](int rank) -> std::string {
    JoinOptions options;
    options.asynchronous = true;  // The queue's own thread runs them.
    CHILD_ASSIGN(p, Join(spec, rank, count, options));
    const uint64_t n = 100;
    const std::vector<CollectiveOp> ops = {
        CollectiveOp{CollectiveKind::kAllReduce, CollectiveReduction::kSum, ElementType::kFloat32},
        CollectiveOp{CollectiveKind::kAllGather, CollectiveReduction::kNone, ElementType::kSint32},
        CollectiveOp{CollectiveKind::kSendRecv, CollectiveReduction::kNone, ElementType::kBFloat16,
                     (rank + 1) % count, (rank + count - 1) % count},
        CollectiveOp{CollectiveKind::kReduceScatter, CollectiveReduction::kMaximum,
                     ElementType::kSint64},
    };
    CHILD_ASSIGN(command_buffer, p.device->CreateCommandBuffer(CommandBufferMode::kReusable));
    CHILD_OK(command_buffer->Begin());
    for (size_t i = 0; i < ops.size(); ++i) {
      // Slot 2i is the op's send buffer, slot 2i+1 its recv buffer, the
      // recv at an offset (the table's buffers are only known at submit).
      CHILD_OK(command_buffer->Collective(p.channel, ops[i], BufferRef::Slot(2 * i),
                                          BufferRef::Slot(2 * i + 1, 16), n));
      CHILD_OK(command_buffer->ExecutionBarrier());
    }
    CHILD_OK(command_buffer->End());
    for (uint64_t replay = 0; replay < 4; ++replay) {
      std::vector<Ref<Buffer>> table;
      std::vector<std::vector<uint8_t>> expected;
      for (size_t i = 0; i < ops.size(); ++i) {
        const uint64_t seed = 100 * replay + i;
        CHILD_ASSIGN(send, Upload(*p.device, SendBuffer(ops[i], n, count, rank, seed)));
        expected.push_back(ExpectedRecv(ops[i], n, count, rank, seed));
        CHILD_ASSIGN(recv,
                     Upload(*p.device, std::vector<uint8_t>(16 + expected.back().size(), 0x5A)));
        table.push_back(send);
        table.push_back(recv);
      }
      CHILD_OK(testing::SubmitAndWait(*p.device, command_buffer, table));
      for (size_t i = 0; i < ops.size(); ++i) {
        std::vector<uint8_t> got(expected[i].size());
        CHILD_OK(table[2 * i + 1]->ReadData(16, got));
        const std::string difference =
            FirstDifference(got, expected[i], ElementByteSize(ops[i].element_type));
        CHILD_CHECK(difference.empty(), "replay " + std::to_string(replay) + ", " +
                                            DescribeCollective(ops[i]) + ": " + difference);
      }
    }
    return "";
  }));
}

TEST_P(ChannelTest, InPlaceAllReduce) {
  const int count = GetParam();
  const std::string spec = scratch_.Sub("rendezvous");
  KILN_EXPECT_RANKS_OK(RunRanks(count, [&](int rank) -> std::string {
    CHILD_ASSIGN(p, Join(spec, rank, count));
    const uint64_t n = 1000;
    for (const CollectiveOp& op :
         {CollectiveOp{CollectiveKind::kAllReduce, CollectiveReduction::kSum,
                       ElementType::kFloat32},
          CollectiveOp{CollectiveKind::kAllReduce, CollectiveReduction::kMaximum,
                       ElementType::kSint8},
          CollectiveOp{CollectiveKind::kAllReduce, CollectiveReduction::kAverage,
                       ElementType::kBFloat16}}) {
      const size_t bytes = n * ElementByteSize(op.element_type);
      // The same range of one buffer (at an offset) is send and recv...
      std::vector<uint8_t> contents(bytes + 8, 0x11);
      std::vector<uint8_t> send = SendBuffer(op, n, count, rank, 7);
      std::copy(send.begin(), send.end(), contents.begin() + 8);
      CHILD_ASSIGN(buffer, Upload(*p.device, contents));
      CHILD_ASSIGN(command_buffer, p.device->CreateCommandBuffer(CommandBufferMode::kOneShot));
      CHILD_OK(command_buffer->Begin());
      CHILD_OK(command_buffer->Collective(p.channel, op, BufferRef::Of(buffer, 8, bytes),
                                          BufferRef::Of(buffer, 8, bytes), n));
      CHILD_OK(command_buffer->End());
      CHILD_OK(testing::SubmitAndWait(*p.device, command_buffer));
      CHILD_ASSIGN(got, Download(*buffer, bytes + 8));
      CHILD_CHECK(std::all_of(got.begin(), got.begin() + 8, [](uint8_t b) { return b == 0x11; }),
                  "bytes before the range changed");
      std::vector<uint8_t> result(got.begin() + 8, got.end());
      std::string difference = FirstDifference(result, ExpectedRecv(op, n, count, rank, 7),
                                               ElementByteSize(op.element_type));
      CHILD_CHECK(difference.empty(), DescribeCollective(op) + " in place: " + difference);
      // ... and one binding-table slot used for both.
      CHILD_ASSIGN(slot_buffer, Upload(*p.device, SendBuffer(op, n, count, rank, 8)));
      CHILD_ASSIGN(reusable, p.device->CreateCommandBuffer(CommandBufferMode::kReusable));
      CHILD_OK(reusable->Begin());
      CHILD_OK(reusable->Collective(p.channel, op, BufferRef::Slot(0), BufferRef::Slot(0), n));
      CHILD_OK(reusable->End());
      std::vector<Ref<Buffer>> table = {slot_buffer};
      CHILD_OK(testing::SubmitAndWait(*p.device, reusable, table));
      CHILD_ASSIGN(slot_result, Download(*slot_buffer, bytes));
      difference = FirstDifference(slot_result, ExpectedRecv(op, n, count, rank, 8),
                                   ElementByteSize(op.element_type));
      CHILD_CHECK(difference.empty(), DescribeCollective(op) + " in place (slot): " + difference);
    }
    return "";
  }));
}

// A ring over a tcp:// rendezvous: the channel's sockets are TCP.
TEST_P(ChannelTest, OverTcp) {
  const int count = GetParam();
  const std::string spec = "tcp://127.0.0.1:" + std::to_string(FreePort());
  KILN_EXPECT_RANKS_OK(RunRanks(count, [&](int rank) -> std::string {
    CHILD_ASSIGN(p, Join(spec, rank, count));
    for (const CollectiveOp& op :
         {CollectiveOp{CollectiveKind::kAllReduce, CollectiveReduction::kSum,
                       ElementType::kFloat64},
          CollectiveOp{CollectiveKind::kAllGather, CollectiveReduction::kNone, ElementType::kUint8},
          CollectiveOp{CollectiveKind::kAllToAll, CollectiveReduction::kNone,
                       ElementType::kFloat16}}) {
      std::string failure = CheckCollective(*p.device, p.channel, op, 3 * 1024, 3);
      if (!failure.empty()) return failure;
    }
    return "";
  }));
}

INSTANTIATE_TEST_SUITE_P(Ranks, ChannelTest, ::testing::Values(2, 3),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return std::to_string(info.param) + "Ranks";
                         });

// --- send_recv with -1 on either side, and to itself ---

TEST(CpuChannelTest, SendRecvWithoutPeers) {
  ScratchDirectory scratch;
  const std::string spec = scratch.Sub("rendezvous");
  KILN_EXPECT_RANKS_OK(RunRanks(3, [&](int rank) -> std::string {
    CHILD_ASSIGN(p, Join(spec, rank, 3));
    // Rank 0 sends to 1 and receives nothing (zeros); rank 1 receives from
    // 0 and sends nothing; rank 2 sends to and receives from itself.
    const int32_t sends[] = {1, -1, 2};
    const int32_t recvs[] = {-1, 0, 2};
    for (ElementType type : {ElementType::kSint32, ElementType::kFloat16}) {
      const CollectiveOp op = CollectiveOp{CollectiveKind::kSendRecv, CollectiveReduction::kNone,
                                           type, sends[rank], recvs[rank]};
      std::string failure = CheckCollective(*p.device, p.channel, op, 77, 5);
      if (!failure.empty()) return failure;
      // The -1 on both sides: zeros, no message.
      const CollectiveOp nothing =
          CollectiveOp{CollectiveKind::kSendRecv, CollectiveReduction::kNone, type, -1, -1};
      failure = CheckCollective(*p.device, p.channel, nothing, 5, 6);
      if (!failure.empty()) return failure;
    }
    return "";
  }));
}

// --- Split ---

TEST(CpuChannelTest, SplitIntoColorsAndOut) {
  ScratchDirectory scratch;
  const std::string spec = scratch.Sub("rendezvous");
  KILN_EXPECT_RANKS_OK(RunRanks(3, [&](int rank) -> std::string {
    CHILD_ASSIGN(p, Join(spec, rank, 3));
    const CollectiveOp gather =
        CollectiveOp{CollectiveKind::kAllGather, CollectiveReduction::kNone, ElementType::kSint32};
    // Two colors: {0, 1} (ranked by key: 1 before 0) and {2} alone.
    const int32_t colors[] = {0, 0, 1};
    const int32_t keys[] = {9, 3, 0};
    CHILD_ASSIGN(split, p.channel->Split(colors[rank], keys[rank]));
    CHILD_CHECK(split != nullptr, "no channel for a color");
    const int expected_count = rank == 2 ? 1 : 2;
    const int expected_rank = rank == 0 ? 1 : 0;
    CHILD_CHECK(
        split->count() == expected_count && split->rank() == expected_rank,
        "split rank " + std::to_string(split->rank()) + " of " + std::to_string(split->count()));
    // An all_gather in the sub-channel: rank r contributes r * 10 + 1.
    std::vector<int32_t> mine = {rank * 10 + 1, rank * 10 + 2};
    std::vector<uint8_t> send(reinterpret_cast<uint8_t*>(mine.data()),
                              reinterpret_cast<uint8_t*>(mine.data()) + 8);
    CHILD_ASSIGN(gathered, RunOnce(*p.device, split, gather, 2, send));
    std::vector<int32_t> values(gathered.size() / 4);
    std::memcpy(values.data(), gathered.data(), gathered.size());
    const std::vector<int32_t> want =
        rank == 2 ? std::vector<int32_t>{21, 22} : std::vector<int32_t>{11, 12, 1, 2};
    CHILD_CHECK(values == want, "split all_gather gave " + ::testing::PrintToString(values));

    // Interleaved with the parent: the parent's sockets stay in step.
    std::string failure = CheckCollective(
        *p.device, p.channel,
        CollectiveOp{CollectiveKind::kAllReduce, CollectiveReduction::kSum, ElementType::kSint64},
        10, 11);
    if (!failure.empty()) return "parent after split: " + failure;

    // A second split: rank 1 stays out; ranks 0 and 2 with equal keys are
    // ranked by their rank in the parent.
    const int32_t colors2[] = {4, -1, 4};
    CHILD_ASSIGN(second, p.channel->Split(colors2[rank], 0));
    if (rank == 1) {
      CHILD_CHECK(second == nullptr, "color -1 got a channel");
    } else {
      CHILD_CHECK(second != nullptr && second->count() == 2 && second->rank() == rank / 2,
                  "second split rank");
      failure = CheckCollective(*p.device, second,
                                CollectiveOp{CollectiveKind::kAllReduce,
                                             CollectiveReduction::kProduct, ElementType::kFloat32},
                                33, 12);
      if (!failure.empty()) return "second split: " + failure;
      // A split of a split.
      CHILD_ASSIGN(third, second->Split(0, -rank));
      CHILD_CHECK(third != nullptr && third->rank() == (rank == 0 ? 1 : 0), "split of a split");
      failure = CheckCollective(
          *p.device, third,
          CollectiveOp{CollectiveKind::kAllToAll, CollectiveReduction::kNone, ElementType::kUint8},
          8, 13);
      if (!failure.empty()) return "split of a split: " + failure;
    }
    // The first split's channels still work after the parent split again.
    failure = CheckCollective(*p.device, split,
                              CollectiveOp{CollectiveKind::kAllReduce,
                                           CollectiveReduction::kMinimum, ElementType::kFloat64},
                              9, 14);
    if (!failure.empty()) return "first split, again: " + failure;
    return "";
  }));
}

TEST(CpuChannelTest, BadColorOrGroupFailsEverywhere) {
  ScratchDirectory scratch;
  const std::string spec = scratch.Sub("rendezvous");
  KILN_EXPECT_RANKS_OK(RunRanks(2, [&](int rank) -> std::string {
    CHILD_ASSIGN(p, Join(spec, rank, 2));
    Result<Ref<Channel>> split = p.channel->Split(rank == 1 ? -5 : 0, 0);
    CHILD_CHECK(!split.ok() && split.status().code() == StatusCode::kInvalidArgument &&
                    split.status().message().find("rank 1 passed color -5") != std::string::npos,
                split.status().ToString());
    // One rendezvous makes one channel per group name.
    ChannelParams again;
    again.group = "test";
    again.rank = rank;
    again.count = 2;
    again.rendezvous = p.rendezvous;
    Result<Ref<Channel>> duplicate = p.device->CreateChannel(again);
    CHILD_CHECK(!duplicate.ok() && duplicate.status().code() == StatusCode::kAlreadyExists,
                duplicate.ok() ? std::string("a second channel of group 'test'")
                               : duplicate.status().ToString());
    // The exchange completed: the channel still works.
    return CheckCollective(
        *p.device, p.channel,
        CollectiveOp{CollectiveKind::kAllGather, CollectiveReduction::kNone, ElementType::kSint8},
        4, 1);
  }));
}

// --- Large buffers ---

TEST(CpuChannelTest, AllReduceOf32MiB) {
  ScratchDirectory scratch;
  const std::string spec = scratch.Sub("rendezvous");
  KILN_EXPECT_RANKS_OK(RunRanks(3, [&](int rank) -> std::string {
    CHILD_ASSIGN(p, Join(spec, rank, 3));
    const uint64_t n = (32u << 20) / sizeof(float);
    std::vector<float> values(n);
    for (uint64_t i = 0; i < n; ++i) values[i] = static_cast<float>((i % 4096) * (rank + 1));
    std::vector<uint8_t> send(n * sizeof(float));
    std::memcpy(send.data(), values.data(), send.size());
    CHILD_ASSIGN(got, RunOnce(*p.device, p.channel,
                              CollectiveOp{CollectiveKind::kAllReduce, CollectiveReduction::kSum,
                                           ElementType::kFloat32},
                              n, send));
    std::memcpy(values.data(), got.data(), got.size());
    for (uint64_t i = 0; i < n; ++i) {
      // (1 + 2 + 3) times the pattern: exact in f32.
      CHILD_CHECK(values[i] == static_cast<float>((i % 4096) * 6),
                  "element " + std::to_string(i) + " is " + std::to_string(values[i]));
    }
    return "";
  }));
}

// --- Failures: a peer that dies, hangs, or runs another program ---

TEST(CpuChannelTest, PeerThatExitsIsAnErrorNotAHang) {
  ScratchDirectory scratch;
  const std::string spec = scratch.Sub("rendezvous");
  const CollectiveOp sum =
      CollectiveOp{CollectiveKind::kAllReduce, CollectiveReduction::kSum, ElementType::kFloat32};
  std::vector<testing::ChildOutcome> outcomes = RunRanks(2, [&](int rank) -> std::string {
    CHILD_ASSIGN(p, Join(spec, rank, 2));
    std::string failure = CheckCollective(*p.device, p.channel, sum, 1000, 1);
    if (!failure.empty()) return failure;
    if (rank == 1) _exit(0);  // Gone, mid-program: the kernel closes its sockets.
    Result<std::vector<uint8_t>> got =
        RunOnce(*p.device, p.channel, sum, 1 << 20, SendBuffer(sum, 1 << 20, 2, rank, 2));
    CHILD_CHECK(!got.ok(), "a collective with a dead peer succeeded");
    CHILD_CHECK(got.status().code() == StatusCode::kUnavailable &&
                    got.status().message().find("group rank 1 closed its connection") !=
                        std::string::npos &&
                    got.status().message().find("all_reduce sum f32") != std::string::npos,
                got.status().ToString());
    // UNAVAILABLE from the closed socket, not the collective timeout's
    // DEADLINE_EXCEEDED: found at once, without timing the test.
    // The channel stays failed.
    Result<std::vector<uint8_t>> again =
        RunOnce(*p.device, p.channel, sum, 4, SendBuffer(sum, 4, 2, rank, 3));
    CHILD_CHECK(!again.ok() && again.status().message().find("failed earlier") != std::string::npos,
                again.status().ToString());
    return "";
  });
  KILN_EXPECT_RANKS_OK(outcomes);
}

TEST(CpuChannelTest, PeerThatNeverComesTimesOut) {
  ScratchDirectory scratch;
  const std::string spec = scratch.Sub("rendezvous");
  KILN_EXPECT_RANKS_OK(RunRanks(2, [&](int rank) -> std::string {
    JoinOptions options;
    options.collective_timeout = 1000ms;
    CHILD_ASSIGN(p, Join(spec, rank, 2, options));
    const CollectiveOp gather =
        CollectiveOp{CollectiveKind::kAllGather, CollectiveReduction::kNone, ElementType::kFloat32};
    if (rank == 1) {
      std::this_thread::sleep_for(2500ms);  // Alive, but not taking part.
      return "";
    }
    Result<std::vector<uint8_t>> got =
        RunOnce(*p.device, p.channel, gather, 8, SendBuffer(gather, 8, 2, 0, 1));
    CHILD_CHECK(!got.ok() && got.status().code() == StatusCode::kDeadlineExceeded &&
                    got.status().message().find("no progress for 1000 ms receiving from group "
                                                "ranks 1") != std::string::npos,
                got.ok() ? std::string("succeeded") : got.status().ToString());
    return "";
  }));
}

TEST(CpuChannelTest, MismatchedCollectivesAreNamed) {
  ScratchDirectory scratch;
  const std::string spec = scratch.Sub("rendezvous");
  std::vector<testing::ChildOutcome> outcomes = RunRanks(2, [&](int rank) -> std::string {
    CHILD_ASSIGN(p, Join(spec, rank, 2));
    const CollectiveOp op = rank == 0
                                ? CollectiveOp{CollectiveKind::kAllGather,
                                               CollectiveReduction::kNone, ElementType::kFloat32}
                                : CollectiveOp{CollectiveKind::kAllReduce,
                                               CollectiveReduction::kSum, ElementType::kFloat32};
    Result<std::vector<uint8_t>> got =
        RunOnce(*p.device, p.channel, op, 16, SendBuffer(op, 16, 2, rank, 1));
    CHILD_CHECK(!got.ok(), "mismatched collectives succeeded");
    const std::string& message = got.status().message();
    CHILD_CHECK(got.status().code() == StatusCode::kFailedPrecondition &&
                    message.find("do not run the same collectives") != std::string::npos &&
                    message.find("all_gather f32") != std::string::npos &&
                    message.find("all_reduce sum f32") != std::string::npos,
                got.status().ToString());
    return "";
  });
  KILN_EXPECT_RANKS_OK(outcomes);
}

// Rank 0 sends to rank 1, which does not receive: the message waits in
// rank 1's socket, and rank 1's next collective finds it instead of what it
// expects, and says so (it never takes those bytes for its own).
TEST(CpuChannelTest, UnreceivedMessageIsNotTakenForTheNext) {
  ScratchDirectory scratch;
  const std::string spec = scratch.Sub("rendezvous");
  std::vector<testing::ChildOutcome> outcomes = RunRanks(2, [&](int rank) -> std::string {
    CHILD_ASSIGN(p, Join(spec, rank, 2));
    const CollectiveOp send_recv =
        CollectiveOp{CollectiveKind::kSendRecv, CollectiveReduction::kNone, ElementType::kSint32,
                     rank == 0 ? 1 : -1, -1};
    CHILD_ASSIGN(first,
                 RunOnce(*p.device, p.channel, send_recv, 8, SendBuffer(send_recv, 8, 2, rank, 1)));
    const CollectiveOp sum =
        CollectiveOp{CollectiveKind::kAllReduce, CollectiveReduction::kSum, ElementType::kSint32};
    Result<std::vector<uint8_t>> got =
        RunOnce(*p.device, p.channel, sum, 8, SendBuffer(sum, 8, 2, rank, 2));
    if (rank == 0) {
      // Rank 1 stops at its error and exits: rank 0 fails too, not hangs.
      CHILD_CHECK(!got.ok(), "rank 0's all_reduce succeeded");
      return "";
    }
    CHILD_CHECK(
        !got.ok() && got.status().code() == StatusCode::kFailedPrecondition &&
            got.status().message().find("group rank 0 sent operation #1") != std::string::npos &&
            got.status().message().find("send_recv si32") != std::string::npos &&
            got.status().message().find("expected operation #2") != std::string::npos,
        got.ok() ? std::string("succeeded") : got.status().ToString());
    return "";
  });
  KILN_EXPECT_RANKS_OK(outcomes);
}

TEST(CpuChannelTest, SendToItselfMustReceiveFromItself) {
  cpu::CpuDeviceOptions options;
  options.asynchronous = false;
  Ref<cpu::CpuDevice> device = Unwrap(cpu::CpuDevice::Create(options));
  Ref<Channel> channel = Unwrap(device->CreateChannel(ChannelParams{}));
  const CollectiveOp op = CollectiveOp{CollectiveKind::kSendRecv, CollectiveReduction::kNone,
                                       ElementType::kSint32, 0, -1};
  Result<std::vector<uint8_t>> got = RunOnce(*device, channel, op, 4, SendBuffer(op, 4, 1, 0, 1));
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kFailedPrecondition) << got.status().ToString();
  EXPECT_NE(got.status().message().find("sends to itself but receives from rank -1"),
            std::string::npos)
      << got.status().ToString();
}

// --- A group of one: no rendezvous, no sockets ---

TEST(CpuChannelTest, GroupOfOneCopies) {
  cpu::CpuDeviceOptions options;
  options.asynchronous = false;
  Ref<cpu::CpuDevice> device = Unwrap(cpu::CpuDevice::Create(options));
  ChannelParams params;
  params.group = "solo";
  Ref<Channel> channel = Unwrap(device->CreateChannel(params));
  EXPECT_EQ(channel->rank(), 0);
  EXPECT_EQ(channel->count(), 1);
  for (ElementType type : kTypes) {
    std::vector<CollectiveOp> ops = {
        CollectiveOp{CollectiveKind::kAllGather, CollectiveReduction::kNone, type},
        CollectiveOp{CollectiveKind::kAllToAll, CollectiveReduction::kNone, type},
        CollectiveOp{CollectiveKind::kSendRecv, CollectiveReduction::kNone, type, 0, 0},
        CollectiveOp{CollectiveKind::kSendRecv, CollectiveReduction::kNone, type, -1, -1},
    };
    for (CollectiveReduction reduction : kReductions) {
      ops.push_back(CollectiveOp{CollectiveKind::kAllReduce, reduction, type});
      ops.push_back(CollectiveOp{CollectiveKind::kReduceScatter, reduction, type});
    }
    for (const CollectiveOp& op : ops) {
      EXPECT_EQ(CheckCollective(*device, channel, op, 17, 4), "");
    }
  }
  Ref<Channel> same = Unwrap(channel->Split(3, 0));
  ASSERT_NE(same, nullptr);
  EXPECT_EQ(same->count(), 1);
  EXPECT_EQ(CheckCollective(*device, same,
                            CollectiveOp{CollectiveKind::kAllReduce, CollectiveReduction::kSum,
                                         ElementType::kFloat32},
                            5, 1),
            "");
  EXPECT_EQ(Unwrap(channel->Split(-1, 0)), nullptr);
  Result<Ref<Channel>> bad = channel->Split(-2, 0);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
}

// Participants may be threads of one process, each with its own device,
// rendezvous and channel: nothing is shared between them but sockets.
TEST(CpuChannelTest, ThreadsAsParticipants) {
  ScratchDirectory scratch;
  const std::string spec = scratch.Sub("rendezvous");
  constexpr int kCount = 3;
  std::vector<std::string> failures(kCount);
  std::vector<std::thread> threads;
  for (int rank = 0; rank < kCount; ++rank) {
    threads.emplace_back([&, rank] {
      failures[rank] = [&]() -> std::string {
        JoinOptions options;
        options.asynchronous = rank != 1;
        CHILD_ASSIGN(p, Join(spec, rank, kCount, options));
        for (const CollectiveOp& op :
             {CollectiveOp{CollectiveKind::kAllReduce, CollectiveReduction::kAverage,
                           ElementType::kFloat16},
              CollectiveOp{CollectiveKind::kReduceScatter, CollectiveReduction::kSum,
                           ElementType::kSint32}}) {
          std::string failure = CheckCollective(*p.device, p.channel, op, 300, 21);
          if (!failure.empty()) return failure;
        }
        return "";
      }();
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int rank = 0; rank < kCount; ++rank) EXPECT_EQ(failures[rank], "") << "rank " << rank;
}

TEST(CpuChannelTest, TracedCollectiveIsADeviceSpan) {
  cpu::CpuDeviceOptions options;
  options.asynchronous = false;
  Ref<cpu::CpuDevice> device = Unwrap(cpu::CpuDevice::Create(options));
  Ref<Channel> channel = Unwrap(device->CreateChannel(ChannelParams{}));
  Ref<Trace> trace = Trace::Create(/*record_spans=*/true);
  device->AttachTrace(trace);
  EXPECT_EQ(CheckCollective(*device, channel,
                            CollectiveOp{CollectiveKind::kAllReduce, CollectiveReduction::kSum,
                                         ElementType::kFloat32},
                            6, 1),
            "");
  device->AttachTrace(nullptr);
  std::vector<Trace::Span> spans = trace->Spans();
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0].name, "collective all_reduce sum f32");
  EXPECT_EQ(spans[0].category, "device");
  EXPECT_EQ(spans[0].detail, "6 elements, rank 0 of 1");
}

TEST(CpuChannelTest, CreateChannelChecksItsParameters) {
  cpu::CpuDeviceOptions options;
  options.asynchronous = false;
  Ref<cpu::CpuDevice> device = Unwrap(cpu::CpuDevice::Create(options));
  auto expect = [&](const ChannelParams& params, const std::string& fragment) {
    Result<Ref<Channel>> channel = device->CreateChannel(params);
    ASSERT_FALSE(channel.ok()) << fragment;
    EXPECT_EQ(channel.status().code(), StatusCode::kInvalidArgument) << channel.status().ToString();
    EXPECT_NE(channel.status().message().find(fragment), std::string::npos)
        << channel.status().ToString();
  };
  ChannelParams params;
  params.count = 0;
  expect(params, "a channel of 0 participants");
  params.count = 2;
  params.rank = 2;
  expect(params, "rank 2 is not in [0, 2)");
  params.rank = -1;
  expect(params, "rank -1 is not in [0, 2)");
  params.rank = 0;
  expect(params, "needs a rendezvous");
  ScratchDirectory scratch;
  params.rendezvous = Unwrap(Rendezvous::Open(scratch.path(), 0, 3, 1s));
  expect(params, "has world size 3 but the channel 2 participants");
  params.count = 3;
  params.rank = 1;
  expect(params, "was opened as rank 0 but the channel's rank is 1");
}

}  // namespace
}  // namespace kiln::hal
