// NCCL channels in the CUDA driver (hal/cuda/nccl_channel.h): collectives
// recorded into command buffers and run by both executors (graphs, with the
// collectives captured into child nodes, and direct stream launches).
//
// Three suites, one ctest test each (tests/hal/cuda/CMakeLists.txt):
//   - NcclLoaderTest (no GPU): libnccl that is missing or too old is a
//     clear UNAVAILABLE error, versions are read in both of NCCL's
//     encodings, element types map to NCCL's;
//   - NcclChannelTest (one GPU): channels of one participant: every kind,
//     reduction and type, reusable command buffers whose slots change
//     between submits and one-shot ones that adopt a cached graph, a ring of
//     send_recv over barriers, 200 replays with changing inputs, device
//     spans, what recording refuses, and a failed (aborted) channel;
//   - NcclMultiProcessTest (two GPUs or more): the binary runs itself once
//     per visible GPU (rank r on GPU r, NCCL_NVLS_ENABLE=0), the processes
//     meeting through a file rendezvous in a temporary folder, and each
//     process checks exact results of the same suites against every rank's
//     inputs, splits, and a memoized command buffer replayed 1,000 times
//     in graph mode with changing inputs (every element checked). The
//     parent checks every process's exit status and shows its output when
//     one fails.
//
// Values are small integers (or, for averages over a count that is not a
// power of two, within a tolerance), so float sums are exact whatever
// order NCCL adds in.
#include "hal/cuda/nccl_channel.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "base/file_io.h"
#include "hal/cuda/cuda_device.h"
#include "hal/cuda/cuda_symbols.h"
#include "hal/cuda/graph_command_buffer.h"
#include "hal/cuda/nccl_symbols.h"
#include "hal/rendezvous.h"
#include "hal/trace.h"
#include "tests/hal/trace_test_util.h"

extern char** environ;

namespace kiln::hal::cuda {
namespace {

constexpr auto kWaitTimeout = std::chrono::seconds(60);
// How long the processes of one multi-process group may take together.
constexpr auto kGroupTimeout = std::chrono::seconds(400);

// The environment a child process of NcclMultiProcessTest reads.
constexpr char kScenarioVariable[] = "KILN_NCCL_TEST_SCENARIO";
constexpr char kRankVariable[] = "KILN_NCCL_TEST_RANK";
constexpr char kWorldVariable[] = "KILN_NCCL_TEST_WORLD";
constexpr char kRendezvousVariable[] = "KILN_NCCL_TEST_RENDEZVOUS";

// ---------------------------------------------------------------------------
// Reporting: the suites below run inside gtest (one process) and inside the
// child processes (no gtest there), so they report through a Checker.

class Checker {
 public:
  explicit Checker(std::function<void(const std::string&)> report) : report_(std::move(report)) {}

  bool Expect(bool ok, const std::string& what) {
    if (!ok) Fail(what);
    return ok;
  }
  bool Ok(const Status& status, const std::string& what) {
    return Expect(status.ok(), what + ": " + status.ToString());
  }
  void Fail(const std::string& what) {
    // The first few say what is wrong; the count says how much.
    if (++failures_ <= kReported) report_(what);
  }
  int failures() const { return failures_; }

 private:
  static constexpr int kReported = 25;
  std::function<void(const std::string&)> report_;
  int failures_ = 0;
};

Checker GtestChecker() {
  return Checker([](const std::string& what) { ADD_FAILURE() << what; });
}

// ---------------------------------------------------------------------------
// Element values on the host. Every input is an integer that each type holds
// exactly; results are compared exactly, except averages of floats.

uint16_t HalfBits(float value) {
  // Exact for the normal (or zero) halves the tests use.
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  if ((bits & 0x7fffffffu) == 0) return sign;
  const int exponent = static_cast<int>((bits >> 23) & 0xffu) - 127 + 15;
  return static_cast<uint16_t>(sign | (exponent << 10) | ((bits & 0x7fffffu) >> 13));
}

double FromHalfBits(uint16_t half) {
  const double sign = (half & 0x8000u) ? -1.0 : 1.0;
  const int exponent = (half >> 10) & 0x1f;
  const int mantissa = half & 0x3ff;
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);
  if (exponent == 31) return mantissa ? NAN : sign * INFINITY;
  return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

void Encode(ElementType type, double value, uint8_t* out) {
  const size_t size = ElementByteSize(type);
  if (type == ElementType::kFloat32) {
    const float v = static_cast<float>(value);
    std::memcpy(out, &v, 4);
  } else if (type == ElementType::kFloat64) {
    std::memcpy(out, &value, 8);
  } else if (type == ElementType::kFloat16) {
    const uint16_t v = HalfBits(static_cast<float>(value));
    std::memcpy(out, &v, 2);
  } else if (type == ElementType::kBFloat16) {
    const float f = static_cast<float>(value);
    uint32_t bits;
    std::memcpy(&bits, &f, 4);
    const uint16_t v = static_cast<uint16_t>(bits >> 16);  // Exact for the tests' values.
    std::memcpy(out, &v, 2);
  } else {
    // Two's complement, truncated to the width: integer results wrap alike.
    const int64_t v = static_cast<int64_t>(value);
    std::memcpy(out, &v, size);  // Little-endian: the low bytes.
  }
}

double Decode(ElementType type, const uint8_t* in) {
  if (type == ElementType::kFloat32) {
    float v;
    std::memcpy(&v, in, 4);
    return v;
  }
  if (type == ElementType::kFloat64) {
    double v;
    std::memcpy(&v, in, 8);
    return v;
  }
  if (type == ElementType::kFloat16) {
    uint16_t v;
    std::memcpy(&v, in, 2);
    return FromHalfBits(v);
  }
  if (type == ElementType::kBFloat16) {
    uint16_t v;
    std::memcpy(&v, in, 2);
    const uint32_t bits = uint32_t{v} << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  const size_t size = ElementByteSize(type);
  uint64_t raw = 0;
  std::memcpy(&raw, in, size);
  if (ElementKind(type) == NumericalKind::kIntegerUnsigned) return static_cast<double>(raw);
  // Signed or signless (read as signed): sign-extended.
  const int shift = 64 - static_cast<int>(size * 8);
  return static_cast<double>(static_cast<int64_t>(raw << shift) >> shift);
}

// ---------------------------------------------------------------------------
// The collectives a suite records, and what each rank expects of them.

struct Case {
  CollectiveOp op;
  uint64_t n = 0;  // The command's element_count.
  bool in_place = false;
  uint32_t id = 0;  // Varies the inputs from case to case.
};

bool Reduces(CollectiveKind kind) {
  return kind == CollectiveKind::kAllReduce || kind == CollectiveKind::kReduceScatter;
}

// The same list, in the same order, on every rank (their send_recv peers
// differ); `world` participants.
std::vector<Case> SuiteCases(int rank, int world) {
  using K = CollectiveKind;
  using R = CollectiveReduction;
  using T = ElementType;
  std::vector<Case> cases;
  auto add = [&](CollectiveOp op, uint64_t n, bool in_place = false) {
    cases.push_back(Case{op, n, in_place, static_cast<uint32_t>(cases.size())});
  };
  // all_reduce: every reduction on a signed integer and a float, then sums
  // of every type (signless integers read as signed), in place, and one
  // large enough for NCCL's multi-channel paths.
  for (R r : {R::kSum, R::kProduct, R::kMinimum, R::kMaximum, R::kAverage}) {
    add(CollectiveOp{K::kAllReduce, r, T::kSint32}, 333);
    add(CollectiveOp{K::kAllReduce, r, T::kFloat32}, 257);
  }
  add(CollectiveOp{K::kAllReduce, R::kAverage, T::kUint32}, 101);
  add(CollectiveOp{K::kAllReduce, R::kMaximum, T::kFloat64}, 101);
  add(CollectiveOp{K::kAllReduce, R::kMinimum, T::kSint64}, 101);
  for (T t : {T::kSint8, T::kUint8, T::kInt8, T::kInt32, T::kUint32, T::kSint64, T::kUint64,
              T::kInt64, T::kFloat16, T::kBFloat16, T::kFloat64}) {
    add(CollectiveOp{K::kAllReduce, R::kSum, t}, 101);
  }
  add(CollectiveOp{K::kAllReduce, R::kSum, T::kFloat32}, 513, /*in_place=*/true);
  add(CollectiveOp{K::kAllReduce, R::kSum, T::kFloat32}, 1u << 20);
  // reduce_scatter (NCCL's recvcount: n per participant).
  add(CollectiveOp{K::kReduceScatter, R::kSum, T::kSint32}, 37);
  add(CollectiveOp{K::kReduceScatter, R::kMaximum, T::kFloat32}, 37);
  add(CollectiveOp{K::kReduceScatter, R::kAverage, T::kFloat32}, 37);
  add(CollectiveOp{K::kReduceScatter, R::kMinimum, T::kSint64}, 37);
  add(CollectiveOp{K::kReduceScatter, R::kSum, T::kFloat16}, 37);
  add(CollectiveOp{K::kReduceScatter, R::kSum, T::kBFloat16}, 37);
  // all_gather, 16-bit integers included (moved as 16-bit floats).
  for (T t : {T::kSint32, T::kFloat64, T::kSint16, T::kBFloat16, T::kUint8}) {
    add(CollectiveOp{K::kAllGather, R::kNone, t}, 41);
  }
  // all_to_all: chunks of a few elements per participant.
  add(CollectiveOp{K::kAllToAll, R::kNone, T::kSint32}, 13u * static_cast<uint64_t>(world));
  add(CollectiveOp{K::kAllToAll, R::kNone, T::kFloat32}, 7u * static_cast<uint64_t>(world));
  add(CollectiveOp{K::kAllToAll, R::kNone, T::kUint16}, 5u * static_cast<uint64_t>(world));
  add(CollectiveOp{K::kAllToAll, R::kNone, T::kSint64}, 3u * static_cast<uint64_t>(world));
  // send_recv: a ring (to the next rank, from the previous one), then a
  // chain whose ends send to or receive from no rank (zeros arrive).
  const int next = (rank + 1) % world;
  const int previous = (rank + world - 1) % world;
  for (T t : {T::kFloat32, T::kSint64, T::kUint16}) {
    add(CollectiveOp{K::kSendRecv, R::kNone, t, next, previous}, 100);
  }
  add(CollectiveOp{K::kSendRecv, R::kNone, T::kFloat32, rank + 1 < world ? rank + 1 : -1,
                   rank > 0 ? rank - 1 : -1},
      64);
  return cases;
}

// Element `j` of rank `rank`'s send range for case `c` in round `seed`.
double InputValue(const Case& c, int rank, uint64_t j, uint64_t seed) {
  const bool is_unsigned = ElementKind(c.op.element_type) == NumericalKind::kIntegerUnsigned;
  const uint64_t mix = j + 7 * uint64_t{c.id} + 13 * seed;
  if (!Reduces(c.op.kind)) {
    // Data only moves: values that differ from element to element, so that
    // a misplaced chunk shows (every 8-bit and 16-bit type holds them; bit
    // patterns of 16-bit integers that are NaNs as halves included).
    const int64_t v = static_cast<int64_t>((mix * 131 + static_cast<uint64_t>(rank) * 1009) % 251);
    return static_cast<double>(is_unsigned ? v : v - 125);
  }
  if (c.op.reduction == CollectiveReduction::kProduct) {
    // |product| <= 2^count.
    const int m = static_cast<int>((mix + static_cast<uint64_t>(rank)) % 3);
    if (is_unsigned) return m == 0 ? 1 : 2;
    return m == 0 ? -1 : m == 1 ? 1 : 2;
  }
  const int64_t v = static_cast<int64_t>((mix * 3 + static_cast<uint64_t>(rank) * 5) % 9);
  return static_cast<double>(is_unsigned ? v : v - 4);
}

double Reduce(const Case& c, const std::vector<double>& values) {
  const bool integer = IsIntegerType(c.op.element_type);
  double out = values[0];
  for (size_t i = 1; i < values.size(); ++i) {
    switch (c.op.reduction) {
      case CollectiveReduction::kProduct:
        out *= values[i];
        break;
      case CollectiveReduction::kMinimum:
        out = std::min(out, values[i]);
        break;
      case CollectiveReduction::kMaximum:
        out = std::max(out, values[i]);
        break;
      default:
        out += values[i];
    }
  }
  if (c.op.reduction == CollectiveReduction::kAverage) {
    const double count = static_cast<double>(values.size());
    // Integers: the sum divided, truncated toward zero.
    out = integer ? std::trunc(out / count) : out / count;
  }
  return out;
}

// What rank `rank` of `world` finds in its recv range after case `c` in
// round `seed`, and how far a float may be from it (averages: NCCL
// multiplies by 1/count, which a count other than a power of two rounds).
std::vector<double> ExpectedRecv(const Case& c, int rank, int world, uint64_t seed,
                                 double* tolerance) {
  const CollectiveCounts counts = *CollectiveBufferCounts(c.op, c.n, world);
  std::vector<double> out(counts.recv, 0.0);
  std::vector<double> contributions(static_cast<size_t>(world));
  auto reduce_at = [&](uint64_t index) {
    for (int q = 0; q < world; ++q) contributions[q] = InputValue(c, q, index, seed);
    return Reduce(c, contributions);
  };
  const uint64_t n = c.n;
  switch (c.op.kind) {
    case CollectiveKind::kAllReduce:
      for (uint64_t j = 0; j < n; ++j) out[j] = reduce_at(j);
      break;
    case CollectiveKind::kReduceScatter:
      for (uint64_t j = 0; j < n; ++j) out[j] = reduce_at(static_cast<uint64_t>(rank) * n + j);
      break;
    case CollectiveKind::kAllGather:
      for (int q = 0; q < world; ++q) {
        for (uint64_t j = 0; j < n; ++j) out[q * n + j] = InputValue(c, q, j, seed);
      }
      break;
    case CollectiveKind::kAllToAll: {
      const uint64_t chunk = n / static_cast<uint64_t>(world);
      for (int q = 0; q < world; ++q) {
        for (uint64_t j = 0; j < chunk; ++j) {
          out[q * chunk + j] = InputValue(c, q, static_cast<uint64_t>(rank) * chunk + j, seed);
        }
      }
      break;
    }
    case CollectiveKind::kSendRecv:
      for (uint64_t j = 0; j < n; ++j) {
        out[j] = c.op.recv_rank >= 0 ? InputValue(c, c.op.recv_rank, j, seed) : 0.0;
      }
      break;
  }
  *tolerance = 0;
  if (c.op.reduction == CollectiveReduction::kAverage && IsFloatType(c.op.element_type)) {
    const uint32_t bits = ElementBitWidth(c.op.element_type);
    *tolerance = bits == 16 ? 2e-2 : bits == 32 ? 1e-5 : 1e-12;
  }
  return out;
}

// Compares `got` (the recv range's bytes) with `expected`; integers after
// wrapping to the type, floats within `tolerance` relative to max(1, |e|).
void CheckValues(Checker& check, const std::string& what, ElementType type,
                 const std::vector<uint8_t>& got, const std::vector<double>& expected,
                 double tolerance) {
  const size_t size = ElementByteSize(type);
  if (!check.Expect(got.size() == expected.size() * size,
                    what + ": " + std::to_string(got.size()) + " bytes read, expected " +
                        std::to_string(expected.size() * size))) {
    return;
  }
  std::vector<uint8_t> encoded(size);
  size_t wrong = 0, first = 0;
  double first_got = 0, first_expected = 0;
  for (size_t j = 0; j < expected.size(); ++j) {
    const double value = Decode(type, got.data() + j * size);
    double want = expected[j];
    bool ok;
    if (IsFloatType(type)) {
      ok = std::fabs(value - want) <= tolerance * std::max(1.0, std::fabs(want));
    } else {
      Encode(type, want, encoded.data());
      want = Decode(type, encoded.data());
      ok = value == want;
    }
    if (!ok && wrong++ == 0) {
      first = j;
      first_got = value;
      first_expected = want;
    }
  }
  check.Expect(wrong == 0, what + ": " + std::to_string(wrong) + " of " +
                               std::to_string(expected.size()) + " elements wrong, the first at " +
                               std::to_string(first) + ": " + std::to_string(first_got) +
                               " instead of " + std::to_string(first_expected));
}

// ---------------------------------------------------------------------------
// Device helpers.

Result<Ref<Buffer>> Allocate(Device& device, size_t bytes) {
  return device.allocator().Allocate(BufferParams{}, bytes);
}

Status Write(Buffer& buffer, const std::vector<uint8_t>& bytes) {
  return buffer.WriteData(0, bytes);
}

Result<std::vector<uint8_t>> Read(Buffer& buffer, size_t bytes) {
  std::vector<uint8_t> out(bytes);
  KILN_RETURN_IF_ERROR(buffer.ReadData(0, out));
  return out;
}

Status SubmitAndWait(Device& device, const Ref<CommandBuffer>& command_buffer,
                     std::span<const Ref<Buffer>> table = {}) {
  KILN_ASSIGN_OR_RETURN(Ref<Semaphore> semaphore, device.CreateSemaphore(0));
  Fence signal({{semaphore, 1}});
  const Ref<CommandBuffer> list[] = {command_buffer};
  KILN_RETURN_IF_ERROR(device.QueueExecute(Fence(), signal, list, table));
  return signal.Wait(kWaitTimeout);
}

// The send bytes of case `c` for rank `rank` in round `seed`.
std::vector<uint8_t> SendBytes(const Case& c, int rank, int world, uint64_t seed) {
  const CollectiveCounts counts = *CollectiveBufferCounts(c.op, c.n, world);
  const size_t size = ElementByteSize(c.op.element_type);
  std::vector<uint8_t> bytes(counts.send * size);
  for (uint64_t j = 0; j < counts.send; ++j) {
    Encode(c.op.element_type, InputValue(c, rank, j, seed), bytes.data() + j * size);
  }
  return bytes;
}

// Bytes no collective writes, so that a recv range left alone shows.
std::vector<uint8_t> Sentinel(size_t bytes) { return std::vector<uint8_t>(bytes, 0xA5); }

GraphCommandBuffer* AsGraph(const Ref<CommandBuffer>& command_buffer) {
  return dynamic_cast<GraphCommandBuffer*>(command_buffer.get());
}

// The `cuda` device on GPU `ordinal`, or null with the reason in *skip (no
// NVIDIA driver, no such GPU, no usable libnccl).
Ref<CudaDevice> CreateDevice(int ordinal, bool use_streams, std::string* skip) {
  Result<Ref<CudaSymbols>> symbols = CudaSymbols::Load();
  if (!symbols.ok()) {
    *skip = "no CUDA driver here: " + symbols.status().ToString();
    return nullptr;
  }
  int count = 0;
  if ((*symbols)->cuDeviceGetCount(&count) != CUDA_SUCCESS || count <= ordinal) {
    *skip = "no GPU " + std::to_string(ordinal) + " here (" + std::to_string(count) + " GPUs)";
    return nullptr;
  }
  Result<Ref<NcclSymbols>> nccl = NcclSymbols::Load();
  if (!nccl.ok()) {
    *skip = "no usable NCCL here: " + nccl.status().ToString();
    return nullptr;
  }
  CudaDeviceOptions options;
  options.use_streams = use_streams;
  Result<Ref<CudaDevice>> device = CudaDevice::Create(*symbols, ordinal, options);
  if (!device.ok()) {
    *skip = "cuda://" + std::to_string(ordinal) + " is not usable: " + device.status().ToString();
    return nullptr;
  }
  return *device;
}

// ---------------------------------------------------------------------------
// The suites, shared by the one-process tests and the child processes.

// Records every case of SuiteCases into one command buffer, without
// barriers (a graph chains the collectives itself), and checks each rank's
// results over several rounds with new inputs:
//   - reusable: every range a binding-table slot; the recv ranges move
//     between two sets of buffers (A, B, then A again: the graph command
//     buffer then keeps one graph per table, captures each collective once
//     per set, the in-place one, whose addresses stay, once, and replays
//     the third round without patching);
//   - one-shot: a command buffer per round on concrete buffers (A, then B:
//     in graph mode the second adopts the first's cached graph, whose
//     collective nodes are captured again for B's addresses, all but the
//     in-place one).
void CheckSuite(Device& device, const Ref<Channel>& channel, CommandBufferMode mode, Checker& check,
                const std::string& label) {
  const int rank = channel->rank();
  const int world = channel->count();
  const std::vector<Case> cases = SuiteCases(rank, world);
  const size_t moved = static_cast<size_t>(
      std::count_if(cases.begin(), cases.end(), [](const Case& c) { return !c.in_place; }));
  // Buffers: one send per case (the in-place case's recv too), two recv sets.
  std::vector<Ref<Buffer>> send(cases.size());
  std::vector<Ref<Buffer>> recv[2];
  for (std::vector<Ref<Buffer>>& set : recv) set.resize(cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    const CollectiveCounts counts = *CollectiveBufferCounts(cases[i].op, cases[i].n, world);
    const size_t size = ElementByteSize(cases[i].op.element_type);
    Result<Ref<Buffer>> buffer = Allocate(device, counts.send * size);
    if (!check.Ok(buffer.status(), label + ": allocating")) return;
    send[i] = *buffer;
    for (std::vector<Ref<Buffer>>& set : recv) {
      if (cases[i].in_place) {
        set[i] = send[i];
        continue;
      }
      buffer = Allocate(device, counts.recv * size);
      if (!check.Ok(buffer.status(), label + ": allocating")) return;
      set[i] = *buffer;
    }
  }
  auto record = [&](int set) -> Result<Ref<CommandBuffer>> {
    KILN_ASSIGN_OR_RETURN(Ref<CommandBuffer> command_buffer, device.CreateCommandBuffer(mode));
    KILN_RETURN_IF_ERROR(command_buffer->Begin());
    for (size_t i = 0; i < cases.size(); ++i) {
      const uint32_t slot = static_cast<uint32_t>(2 * i);
      const BufferRef send_ref =
          mode == CommandBufferMode::kReusable ? BufferRef::Slot(slot) : BufferRef::Of(send[i]);
      BufferRef recv_ref = mode == CommandBufferMode::kReusable
                               ? BufferRef::Slot(cases[i].in_place ? slot : slot + 1)
                               : BufferRef::Of(recv[set][i]);
      KILN_RETURN_IF_ERROR(
          command_buffer->Collective(channel, cases[i].op, send_ref, recv_ref, cases[i].n));
    }
    KILN_RETURN_IF_ERROR(command_buffer->End());
    return command_buffer;
  };
  auto table = [&](int set) {
    std::vector<Ref<Buffer>> out;
    for (size_t i = 0; i < cases.size(); ++i) {
      out.push_back(send[i]);
      out.push_back(recv[set][i]);
    }
    return out;
  };
  // Writes the round's inputs and sentinels, submits, checks every case.
  auto round = [&](const Ref<CommandBuffer>& command_buffer, int set, uint64_t seed) -> bool {
    const std::string where = label + " round " + std::to_string(seed);
    for (size_t i = 0; i < cases.size(); ++i) {
      if (!check.Ok(Write(*send[i], SendBytes(cases[i], rank, world, seed)), where + ": writing")) {
        return false;
      }
      if (!cases[i].in_place &&
          !check.Ok(Write(*recv[set][i], Sentinel(recv[set][i]->byte_length())),
                    where + ": writing")) {
        return false;
      }
    }
    const std::vector<Ref<Buffer>> bindings =
        mode == CommandBufferMode::kReusable ? table(set) : std::vector<Ref<Buffer>>();
    if (!check.Ok(SubmitAndWait(device, command_buffer, bindings), where + ": submitting")) {
      return false;
    }
    for (size_t i = 0; i < cases.size(); ++i) {
      const Case& c = cases[i];
      double tolerance = 0;
      const std::vector<double> expected = ExpectedRecv(c, rank, world, seed, &tolerance);
      Result<std::vector<uint8_t>> got =
          Read(*recv[set][i], expected.size() * ElementByteSize(c.op.element_type));
      if (!check.Ok(got.status(), where + ": reading")) return false;
      CheckValues(check,
                  where + ": case " + std::to_string(i) + " " + DescribeCollective(c.op) + " of " +
                      std::to_string(c.n) + (c.in_place ? " in place" : "") + " (rank " +
                      std::to_string(rank) + " of " + std::to_string(world) + ")",
                  c.op.element_type, *got, expected, tolerance);
    }
    return true;
  };

  if (mode == CommandBufferMode::kReusable) {
    Result<Ref<CommandBuffer>> command_buffer = record(0);
    if (!check.Ok(command_buffer.status(), label + ": recording")) return;
    if (!round(*command_buffer, 0, 1) || !round(*command_buffer, 1, 2) ||
        !round(*command_buffer, 0, 3)) {
      return;
    }
    if (GraphCommandBuffer* graph = AsGraph(*command_buffer)) {
      // One graph per table, each collective captured once per recv set;
      // the third round found the first graph as it was.
      check.Expect(graph->instantiation_count() == 2,
                   label + ": " + std::to_string(graph->instantiation_count()) +
                       " graphs instantiated, expected 2 (one per table)");
      check.Expect(graph->collective_capture_count() == cases.size() + moved,
                   label + ": " + std::to_string(graph->collective_capture_count()) +
                       " collective captures, expected " + std::to_string(cases.size() + moved));
    }
    return;
  }
  Result<Ref<CommandBuffer>> first = record(0);
  if (!check.Ok(first.status(), label + ": recording")) return;
  if (!round(*first, 0, 1)) return;
  Result<Ref<CommandBuffer>> second = record(1);
  if (!check.Ok(second.status(), label + ": recording")) return;
  if (!round(*second, 1, 2)) return;
  if (GraphCommandBuffer* graph = AsGraph(*second)) {
    check.Expect(graph->adopted_cached_graph(),
                 label +
                     ": the second one-shot command buffer built its own graph instead of "
                     "patching the first's");
    check.Expect(graph->collective_capture_count() == moved,
                 label + ": " + std::to_string(graph->collective_capture_count()) +
                     " collectives captured for the new addresses, expected " +
                     std::to_string(moved));
  }
}

// A value passed around the ring over barriers: step s sends buffer s to
// the next rank and receives buffer s + 1 from the previous one, so after
// `world` steps buffer k holds the values of rank (rank - k) mod world,
// the last one this rank's own.
void CheckRing(Device& device, const Ref<Channel>& channel, Checker& check,
               const std::string& label) {
  const int rank = channel->rank();
  const int world = channel->count();
  constexpr uint64_t kCount = 64;
  auto values = [](int owner) {
    std::vector<uint8_t> bytes(kCount * 4);
    for (uint64_t j = 0; j < kCount; ++j) {
      Encode(ElementType::kFloat32, owner * 1000.0 + static_cast<double>(j), &bytes[j * 4]);
    }
    return bytes;
  };
  std::vector<Ref<Buffer>> buffers;
  for (int k = 0; k <= world; ++k) {
    Result<Ref<Buffer>> buffer = Allocate(device, kCount * 4);
    if (!check.Ok(buffer.status(), label + ": allocating")) return;
    if (!check.Ok(Write(**buffer, k == 0 ? values(rank) : Sentinel(kCount * 4)),
                  label + ": writing")) {
      return;
    }
    buffers.push_back(*buffer);
  }
  Result<Ref<CommandBuffer>> command_buffer =
      device.CreateCommandBuffer(CommandBufferMode::kOneShot);
  if (!check.Ok(command_buffer.status(), label + ": creating")) return;
  Status recorded = (*command_buffer)->Begin();
  const CollectiveOp op =
      CollectiveOp{CollectiveKind::kSendRecv, CollectiveReduction::kNone, ElementType::kFloat32,
                   (rank + 1) % world, (rank + world - 1) % world};
  for (int s = 0; recorded.ok() && s < world; ++s) {
    recorded = (*command_buffer)
                   ->Collective(channel, op, BufferRef::Of(buffers[s]),
                                BufferRef::Of(buffers[s + 1]), kCount);
    if (recorded.ok()) recorded = (*command_buffer)->ExecutionBarrier();
  }
  if (recorded.ok()) recorded = (*command_buffer)->End();
  if (!check.Ok(recorded, label + ": recording")) return;
  if (!check.Ok(SubmitAndWait(device, *command_buffer), label + ": submitting")) return;
  for (int k = 1; k <= world; ++k) {
    Result<std::vector<uint8_t>> got = Read(*buffers[k], kCount * 4);
    if (!check.Ok(got.status(), label + ": reading")) return;
    const int owner = (rank - k % world + world) % world;
    std::vector<double> expected(kCount);
    for (uint64_t j = 0; j < kCount; ++j) expected[j] = owner * 1000.0 + static_cast<double>(j);
    CheckValues(check, label + ": buffer " + std::to_string(k) + " of the ring",
                ElementType::kFloat32, *got, expected, 0);
  }
}

// A memoized (reusable) command buffer with an all_reduce and an all_gather
// on binding-table slots, replayed `iterations` times: each replay writes
// new inputs into one of three send buffers and takes one of two recv
// buffers (the addresses cycle through six combinations), and every
// element of both results is checked. In graph mode the collectives'
// captures are cached by address: each combination is captured once, and
// no replay builds a third graph.
void CheckReplay(Device& device, const Ref<Channel>& channel, int iterations, Checker& check,
                 const std::string& label) {
  const int rank = channel->rank();
  const int world = channel->count();
  constexpr uint64_t kReduced = 1024;  // f32 elements summed.
  constexpr uint64_t kGathered = 256;  // si32 elements per rank gathered.
  auto reduced_value = [](int iteration, int owner, uint64_t j) {
    return static_cast<double>(
        (static_cast<uint64_t>(iteration) * 13 + static_cast<uint64_t>(owner) * 7 + j) % 64);
  };
  auto gathered_value = [](int iteration, int owner, uint64_t j) {
    return static_cast<double>(static_cast<int64_t>(iteration) * 100003 + owner * 1009 +
                               static_cast<int64_t>(j));
  };
  std::vector<Ref<Buffer>> reduce_send, reduce_recv, gather_send, gather_recv;
  auto allocate = [&](std::vector<Ref<Buffer>>& pool, int count, size_t bytes) {
    for (int i = 0; i < count; ++i) {
      Result<Ref<Buffer>> buffer = Allocate(device, bytes);
      if (!check.Ok(buffer.status(), label + ": allocating")) return false;
      pool.push_back(*buffer);
    }
    return true;
  };
  if (!allocate(reduce_send, 3, kReduced * 4) || !allocate(reduce_recv, 2, kReduced * 4) ||
      !allocate(gather_send, 3, kGathered * 4) ||
      !allocate(gather_recv, 2, kGathered * 4 * static_cast<size_t>(world))) {
    return;
  }
  Result<Ref<CommandBuffer>> command_buffer =
      device.CreateCommandBuffer(CommandBufferMode::kReusable);
  if (!check.Ok(command_buffer.status(), label + ": creating")) return;
  Ref<CommandBuffer> cb = *command_buffer;
  Status recorded = cb->Begin();
  if (recorded.ok()) {
    recorded = cb->Collective(
        channel,
        CollectiveOp{CollectiveKind::kAllReduce, CollectiveReduction::kSum, ElementType::kFloat32},
        BufferRef::Slot(0), BufferRef::Slot(1), kReduced);
  }
  if (recorded.ok()) recorded = cb->ExecutionBarrier();
  if (recorded.ok()) {
    recorded = cb->Collective(
        channel,
        CollectiveOp{CollectiveKind::kAllGather, CollectiveReduction::kNone, ElementType::kSint32},
        BufferRef::Slot(2), BufferRef::Slot(3), kGathered);
  }
  if (recorded.ok()) recorded = cb->End();
  if (!check.Ok(recorded, label + ": recording")) return;

  std::vector<uint8_t> reduce_bytes(kReduced * 4), gather_bytes(kGathered * 4);
  std::vector<double> reduce_expected(kReduced), gather_expected(kGathered * world);
  for (int i = 0; i < iterations; ++i) {
    const int s = i % 3, o = i % 2;
    for (uint64_t j = 0; j < kReduced; ++j) {
      Encode(ElementType::kFloat32, reduced_value(i, rank, j), &reduce_bytes[j * 4]);
    }
    for (uint64_t j = 0; j < kGathered; ++j) {
      Encode(ElementType::kSint32, gathered_value(i, rank, j), &gather_bytes[j * 4]);
    }
    const std::string where = label + " replay " + std::to_string(i);
    if (!check.Ok(Write(*reduce_send[s], reduce_bytes), where + ": writing") ||
        !check.Ok(Write(*gather_send[s], gather_bytes), where + ": writing")) {
      return;
    }
    const Ref<Buffer> table[] = {reduce_send[s], reduce_recv[o], gather_send[s], gather_recv[o]};
    if (!check.Ok(SubmitAndWait(device, cb, table), where + ": submitting")) return;
    for (uint64_t j = 0; j < kReduced; ++j) {
      double sum = 0;
      for (int q = 0; q < world; ++q) sum += reduced_value(i, q, j);
      reduce_expected[j] = sum;
    }
    for (int q = 0; q < world; ++q) {
      for (uint64_t j = 0; j < kGathered; ++j) {
        gather_expected[q * kGathered + j] = gathered_value(i, q, j);
      }
    }
    Result<std::vector<uint8_t>> reduced = Read(*reduce_recv[o], kReduced * 4);
    Result<std::vector<uint8_t>> gathered = Read(*gather_recv[o], gather_expected.size() * 4);
    if (!check.Ok(reduced.status(), where + ": reading") ||
        !check.Ok(gathered.status(), where + ": reading")) {
      return;
    }
    const int before = check.failures();
    CheckValues(check, where + ": all_reduce sum f32", ElementType::kFloat32, *reduced,
                reduce_expected, 0);
    CheckValues(check, where + ": all_gather si32", ElementType::kSint32, *gathered,
                gather_expected, 0);
    if (check.failures() != before) return;  // One replay's report is enough.
  }
  if (GraphCommandBuffer* graph = AsGraph(cb)) {
    check.Expect(graph->instantiation_count() <= 2,
                 label + ": " + std::to_string(graph->instantiation_count()) +
                     " graphs instantiated for two tables (a refused patch rebuilt one)");
    check.Expect(graph->collective_capture_count() <= 12,
                 label + ": " + std::to_string(graph->collective_capture_count()) +
                     " collective captures for 6 address combinations of 2 collectives");
    check.Expect(iterations < 3 || graph->patched_node_count() > 0,
                 label + ": no node was patched although the addresses changed");
  }
}

// The result of one collective on a one-shot command buffer: `send`
// uploaded, `recv_bytes` read back.
Result<std::vector<uint8_t>> RunOne(Device& device, const Ref<Channel>& channel,
                                    const CollectiveOp& op, uint64_t n,
                                    const std::vector<uint8_t>& send, size_t recv_bytes) {
  KILN_ASSIGN_OR_RETURN(Ref<Buffer> send_buffer, Allocate(device, send.size()));
  KILN_ASSIGN_OR_RETURN(Ref<Buffer> recv_buffer, Allocate(device, recv_bytes));
  KILN_RETURN_IF_ERROR(Write(*send_buffer, send));
  KILN_ASSIGN_OR_RETURN(Ref<CommandBuffer> command_buffer,
                        device.CreateCommandBuffer(CommandBufferMode::kOneShot));
  KILN_RETURN_IF_ERROR(command_buffer->Begin());
  KILN_RETURN_IF_ERROR(command_buffer->Collective(channel, op, BufferRef::Of(send_buffer),
                                                  BufferRef::Of(recv_buffer), n));
  KILN_RETURN_IF_ERROR(command_buffer->End());
  KILN_RETURN_IF_ERROR(SubmitAndWait(device, command_buffer));
  return Read(*recv_buffer, recv_bytes);
}

std::vector<uint8_t> Int32Bytes(const std::vector<int32_t>& values) {
  std::vector<uint8_t> bytes(values.size() * 4);
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

std::vector<double> Int32Values(const std::vector<int32_t>& values) {
  return std::vector<double>(values.begin(), values.end());
}

// Split (collective over `channel`): everyone in one group ranked in
// reverse, then groups by parity with the last rank left out (a null
// channel); collectives on the subchannels, then on the parent again.
void CheckSplit(Device& device, const Ref<Channel>& channel, Checker& check) {
  const int rank = channel->rank();
  const int world = channel->count();
  const CollectiveOp gather =
      CollectiveOp{CollectiveKind::kAllGather, CollectiveReduction::kNone, ElementType::kSint32};
  const CollectiveOp sum =
      CollectiveOp{CollectiveKind::kAllReduce, CollectiveReduction::kSum, ElementType::kSint32};

  Result<Ref<Channel>> reversed = channel->Split(0, world - rank);
  if (!check.Ok(reversed.status(), "Split(0, world - rank)")) return;
  if (!check.Expect(*reversed != nullptr, "Split(0, ...) gave no channel")) return;
  check.Expect((*reversed)->count() == world && (*reversed)->rank() == world - 1 - rank,
               "the reversed channel is rank " + std::to_string((*reversed)->rank()) + " of " +
                   std::to_string((*reversed)->count()) + ", expected " +
                   std::to_string(world - 1 - rank) + " of " + std::to_string(world));
  Result<std::vector<uint8_t>> order =
      RunOne(device, *reversed, gather, 1, Int32Bytes({rank}), 4 * static_cast<size_t>(world));
  if (check.Ok(order.status(), "all_gather on the reversed channel")) {
    std::vector<int32_t> expected;
    for (int j = 0; j < world; ++j) expected.push_back(world - 1 - j);
    CheckValues(check, "all_gather of the parent ranks on the reversed channel",
                ElementType::kSint32, *order, Int32Values(expected), 0);
  }

  const int color = rank == world - 1 ? -1 : rank % 2;
  Result<Ref<Channel>> parity = channel->Split(color, rank);
  if (!check.Ok(parity.status(), "Split(rank % 2, rank)")) return;
  if (color < 0) {
    check.Expect(*parity == nullptr, "the rank left out (color -1) got a channel");
  } else if (check.Expect(*parity != nullptr, "Split(rank % 2) gave no channel")) {
    std::vector<int> members;
    for (int q = 0; q < world - 1; ++q) {
      if (q % 2 == color) members.push_back(q);
    }
    const int position =
        static_cast<int>(std::find(members.begin(), members.end(), rank) - members.begin());
    check.Expect(
        (*parity)->count() == static_cast<int>(members.size()) && (*parity)->rank() == position,
        "the parity channel is rank " + std::to_string((*parity)->rank()) + " of " +
            std::to_string((*parity)->count()) + ", expected " + std::to_string(position) + " of " +
            std::to_string(members.size()));
    Result<std::vector<uint8_t>> summed =
        RunOne(device, *parity, sum, 3, Int32Bytes({rank + 1, 2 * (rank + 1), 3 * (rank + 1)}), 12);
    if (check.Ok(summed.status(), "all_reduce on the parity channel")) {
      int32_t total = 0;
      for (int q : members) total += q + 1;
      CheckValues(check, "all_reduce sum over the parity channel", ElementType::kSint32, *summed,
                  Int32Values({total, 2 * total, 3 * total}), 0);
    }
  }

  // The parent still works after its splits.
  Result<std::vector<uint8_t>> parent = RunOne(device, channel, sum, 1, Int32Bytes({rank}), 4);
  if (check.Ok(parent.status(), "all_reduce on the parent after the splits")) {
    CheckValues(check, "all_reduce sum on the parent after the splits", ElementType::kSint32,
                *parent, {static_cast<double>(world * (world - 1) / 2)}, 0);
  }
}

// A collective in flight that cannot finish, whose channel is aborted: the
// submission fails with the abort's status (NcclWatchdog fails it before
// NCCL's abort flag cuts its kernel short) instead of hanging or passing.
// Every rank receives from the previous one, which sends nothing, so no
// rank's collective can finish. Rank 0 aborts first, the others a second
// later: their submissions may fail before that with NCCL's report of rank
// 0's abort. A first exchange with the same peers connects the ranks, so
// that the second collective enqueues without waiting for its peers.
void CheckAbortInFlight(Device& device, const Ref<Channel>& channel, Checker& check,
                        const std::string& label) {
  const int rank = channel->rank();
  const int world = channel->count();
  constexpr uint64_t kCount = 4096;
  const int next = (rank + 1) % world;
  const int previous = (rank + world - 1) % world;
  const CollectiveOp exchange = CollectiveOp{CollectiveKind::kSendRecv, CollectiveReduction::kNone,
                                             ElementType::kFloat32, next, previous};
  const CollectiveOp receive = CollectiveOp{CollectiveKind::kSendRecv, CollectiveReduction::kNone,
                                            ElementType::kFloat32, -1, previous};
  Result<Ref<Buffer>> send = Allocate(device, kCount * 4);
  Result<Ref<Buffer>> recv = Allocate(device, kCount * 4);
  if (!check.Ok(send.status(), label + ": allocating") ||
      !check.Ok(recv.status(), label + ": allocating")) {
    return;
  }
  auto record = [&](const CollectiveOp& op) -> Result<Ref<CommandBuffer>> {
    KILN_ASSIGN_OR_RETURN(Ref<CommandBuffer> command_buffer,
                          device.CreateCommandBuffer(CommandBufferMode::kOneShot));
    KILN_RETURN_IF_ERROR(command_buffer->Begin());
    KILN_RETURN_IF_ERROR(command_buffer->Collective(channel, op, BufferRef::Of(*send),
                                                    BufferRef::Of(*recv), kCount));
    KILN_RETURN_IF_ERROR(command_buffer->End());
    return command_buffer;
  };
  Result<Ref<CommandBuffer>> warm = record(exchange);
  if (!check.Ok(warm.status(), label + ": recording") ||
      !check.Ok(SubmitAndWait(device, *warm), label + ": the connecting exchange")) {
    return;
  }
  Result<Ref<CommandBuffer>> stuck = record(receive);
  if (!check.Ok(stuck.status(), label + ": recording")) return;
  Result<Ref<Semaphore>> semaphore = device.CreateSemaphore(0);
  if (!check.Ok(semaphore.status(), label + ": CreateSemaphore")) return;
  Fence signal({{*semaphore, 1}});
  const Ref<CommandBuffer> list[] = {*stuck};
  if (!check.Ok(device.QueueExecute(Fence(), signal, list, {}), label + ": submitting")) return;
  std::this_thread::sleep_for(std::chrono::milliseconds(rank == 0 ? 300 : 1300));
  Result<uint64_t> reached = (*semaphore)->Query();
  check.Expect(!reached.ok() || *reached == 0,
               label + ": a receive from a rank that sends nothing finished");
  const std::string reason = "rank " + std::to_string(rank) + " aborts its channel";
  const auto start = std::chrono::steady_clock::now();
  static_cast<const NcclChannel&>(*channel).Abort(UnavailableError(reason));
  Status waited = signal.Wait(std::chrono::seconds(30));
  const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start);
  if (!check.Expect(!waited.ok(), label + ": the aborted collective's submission succeeded")) {
    return;
  }
  check.Expect(seconds.count() < 20, label + ": the submission failed only after " +
                                         std::to_string(seconds.count()) + " s");
  const bool own_reason = waited.message().find(reason) != std::string::npos;
  check.Expect(own_reason || (rank != 0 && waited.message().find("NCCL") != std::string::npos),
               label + ": the submission failed with " + waited.ToString() +
                   ", not with the abort's status");
  // The channel stays failed with what failed it.
  Result<Ref<CommandBuffer>> later = record(exchange);
  check.Expect(!later.ok() &&
                   later.status().message().find(own_reason ? reason : "NCCL") != std::string::npos,
               label + ": recording on the aborted channel gave " + later.status().ToString());
}

// ---------------------------------------------------------------------------
// NcclLoaderTest: no GPU needed.

TEST(NcclLoaderTest, MissingLibraryIsUnavailable) {
  Result<Ref<NcclSymbols>> nccl = NcclSymbols::Load("libkiln-no-such-nccl.so.2");
  ASSERT_FALSE(nccl.ok());
  EXPECT_EQ(nccl.status().code(), StatusCode::kUnavailable) << nccl.status().ToString();
  EXPECT_NE(nccl.status().message().find("the NCCL library libkiln-no-such-nccl.so.2 could not "
                                         "be opened"),
            std::string::npos)
      << nccl.status().ToString();
  EXPECT_NE(nccl.status().message().find("libnccl2"), std::string::npos)
      << nccl.status().ToString();
}

TEST(NcclLoaderTest, TooOldLibraryNamesBothVersions) {
  const std::string path = ExecutableDirectory() + "libkiln_test_nccl_2_17.so";
  Result<Ref<NcclSymbols>> nccl = NcclSymbols::Load(path.c_str());
  ASSERT_FALSE(nccl.ok()) << path << " was accepted";
  EXPECT_EQ(nccl.status().code(), StatusCode::kUnavailable) << nccl.status().ToString();
  const std::string& message = nccl.status().message();
  EXPECT_NE(message.find("is NCCL 2.17.1, which is too old: kiln needs 2.18 or newer"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("built with the headers of NCCL " + std::to_string(NCCL_MAJOR) + "." +
                         std::to_string(NCCL_MINOR)),
            std::string::npos)
      << message;
}

TEST(NcclLoaderTest, ReadsBothVersionEncodings) {
  EXPECT_EQ(FormatNcclVersion(2804), "2.8.4");    // Up to 2.8: X * 1000 + Y * 100 + Z.
  EXPECT_EQ(FormatNcclVersion(21800), "2.18.0");  // Since 2.9: X * 10000 + Y * 100 + Z.
  EXPECT_EQ(FormatNcclVersion(22803), "2.28.3");
}

TEST(NcclLoaderTest, ProbeSaysWhatWasFound) {
  Result<Ref<NcclSymbols>> nccl = NcclSymbols::Load();
  const std::string probe = NcclSymbols::Probe();
  if (nccl.ok()) {
    EXPECT_EQ(probe, "collectives: " + (*nccl)->Describe());
    EXPECT_EQ((*nccl)->Describe().rfind("NCCL 2.", 0), 0u) << (*nccl)->Describe();
  } else {
    EXPECT_EQ(probe, "collectives: NCCL not found (" + nccl.status().message() + ")");
  }
}

TEST(NcclLoaderTest, ElementTypesMapToNccl) {
  using K = CollectiveKind;
  using R = CollectiveReduction;
  using T = ElementType;
  const struct {
    CollectiveOp op;
    ncclDataType_t type;
  } mapped[] = {
      {CollectiveOp{K::kAllReduce, R::kSum, T::kInt8}, ncclInt8},
      {CollectiveOp{K::kAllReduce, R::kSum, T::kSint8}, ncclInt8},
      {CollectiveOp{K::kAllReduce, R::kSum, T::kUint8}, ncclUint8},
      {CollectiveOp{K::kAllReduce, R::kSum, T::kInt32}, ncclInt32},
      {CollectiveOp{K::kAllReduce, R::kSum, T::kUint32}, ncclUint32},
      {CollectiveOp{K::kAllReduce, R::kSum, T::kSint64}, ncclInt64},
      {CollectiveOp{K::kAllReduce, R::kSum, T::kUint64}, ncclUint64},
      {CollectiveOp{K::kAllReduce, R::kSum, T::kFloat16}, ncclFloat16},
      {CollectiveOp{K::kAllReduce, R::kSum, T::kBFloat16}, ncclBfloat16},
      {CollectiveOp{K::kAllReduce, R::kSum, T::kFloat32}, ncclFloat32},
      {CollectiveOp{K::kAllReduce, R::kSum, T::kFloat64}, ncclFloat64},
      // 16-bit integers only move: carried as 16-bit floats.
      {CollectiveOp{K::kAllGather, R::kNone, T::kSint16}, ncclFloat16},
      {CollectiveOp{K::kAllToAll, R::kNone, T::kUint16}, ncclFloat16},
      {CollectiveOp{K::kSendRecv, R::kNone, T::kInt16, 0, 0}, ncclFloat16},
  };
  for (const auto& m : mapped) {
    Result<ncclDataType_t> type = NcclDataType(m.op);
    ASSERT_TRUE(type.ok()) << DescribeCollective(m.op) << ": " << type.status().ToString();
    EXPECT_EQ(*type, m.type) << DescribeCollective(m.op);
  }
  for (CollectiveOp op : {CollectiveOp{K::kAllReduce, R::kSum, T::kSint16},
                          CollectiveOp{K::kReduceScatter, R::kMaximum, T::kUint16}}) {
    Status refused = NcclChannel::CheckOp(op);
    ASSERT_FALSE(refused.ok()) << DescribeCollective(op);
    EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument) << refused.ToString();
    EXPECT_NE(refused.message().find("Collective " + DescribeCollective(op) + ": NCCL has no " +
                                     std::string(FormatElementType(op.element_type)) + " type"),
              std::string::npos)
        << refused.ToString();
  }
}

// ---------------------------------------------------------------------------
// NcclChannelTest: channels of one participant on GPU 0, each executor.

// A channel of no driver: what a CUDA command buffer must refuse.
class ForeignChannel final : public Channel {
 public:
  ForeignChannel() : Channel(0, 1) {}
  Result<Ref<Channel>> Split(int32_t, int32_t) override {
    return UnavailableError("a test channel does not split");
  }
};

class NcclChannelTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    std::string skip;
    device_ = CreateDevice(0, /*use_streams=*/GetParam(), &skip);
    if (!device_) GTEST_SKIP() << skip;
    ChannelParams params;
    params.group = "single";
    params.rank = 0;
    params.count = 1;
    Result<Ref<Channel>> channel = device_->CreateChannel(params);
    ASSERT_TRUE(channel.ok()) << channel.status().ToString();
    channel_ = *channel;
    ASSERT_NE(dynamic_cast<NcclChannel*>(channel_.get()), nullptr);
  }

  std::string label() const { return GetParam() ? "stream" : "graph"; }

  // A one-shot command buffer with one all_reduce sum f32 of `n` elements.
  Result<Ref<CommandBuffer>> RecordAllReduce(const Ref<Buffer>& send, const Ref<Buffer>& recv,
                                             uint64_t n) {
    KILN_ASSIGN_OR_RETURN(Ref<CommandBuffer> command_buffer,
                          device_->CreateCommandBuffer(CommandBufferMode::kOneShot));
    KILN_RETURN_IF_ERROR(command_buffer->Begin());
    KILN_RETURN_IF_ERROR(command_buffer->Collective(
        channel_,
        CollectiveOp{CollectiveKind::kAllReduce, CollectiveReduction::kSum, ElementType::kFloat32},
        BufferRef::Of(send), BufferRef::Of(recv), n));
    KILN_RETURN_IF_ERROR(command_buffer->End());
    return command_buffer;
  }

  Ref<CudaDevice> device_;
  Ref<Channel> channel_;
};

TEST_P(NcclChannelTest, EveryKindInAReusableCommandBuffer) {
  Checker check = GtestChecker();
  CheckSuite(*device_, channel_, CommandBufferMode::kReusable, check, label() + " reusable");
}

TEST_P(NcclChannelTest, EveryKindInOneShotCommandBuffers) {
  Checker check = GtestChecker();
  CheckSuite(*device_, channel_, CommandBufferMode::kOneShot, check, label() + " one-shot");
}

TEST_P(NcclChannelTest, RingOverBarriers) {
  Checker check = GtestChecker();
  CheckRing(*device_, channel_, check, label());
}

TEST_P(NcclChannelTest, ReplaysWithChangingInputs) {
  Checker check = GtestChecker();
  CheckReplay(*device_, channel_, 200, check, label());
}

TEST_P(NcclChannelTest, TracedCollectiveHasADeviceSpan) {
  constexpr uint64_t kCount = 256;
  Result<Ref<Buffer>> send = Allocate(*device_, kCount * 4);
  Result<Ref<Buffer>> recv = Allocate(*device_, kCount * 4);
  ASSERT_TRUE(send.ok() && recv.ok());
  Result<Ref<CommandBuffer>> command_buffer = RecordAllReduce(*send, *recv, kCount);
  ASSERT_TRUE(command_buffer.ok()) << command_buffer.status().ToString();
  Ref<Trace> trace = Trace::Create(/*record_spans=*/true);
  device_->AttachTrace(trace);
  const int64_t begin_ns = trace->Now();
  Status done = SubmitAndWait(*device_, *command_buffer);
  const int64_t end_ns = trace->Now();
  device_->FlushTrace();
  device_->AttachTrace(nullptr);
  ASSERT_TRUE(done.ok()) << done.ToString();
  testing::ExpectDispatchSpans(*trace, {"all_reduce sum f32"}, begin_ns, end_ns);
}

TEST_P(NcclChannelTest, WatchdogLetsCompletedSubmissionsGo) {
  constexpr uint64_t kCount = 1024;
  Result<Ref<Buffer>> send = Allocate(*device_, kCount * 4);
  Result<Ref<Buffer>> recv = Allocate(*device_, kCount * 4);
  ASSERT_TRUE(send.ok() && recv.ok());
  for (int i = 0; i < 3; ++i) {
    Result<Ref<CommandBuffer>> command_buffer = RecordAllReduce(*send, *recv, kCount);
    ASSERT_TRUE(command_buffer.ok()) << command_buffer.status().ToString();
    Status done = SubmitAndWait(*device_, *command_buffer);
    ASSERT_TRUE(done.ok()) << done.ToString();
  }
  // The watchdog lets a submission go at its first poll after it completed.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (device_->nccl_watchdog().in_flight() != 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(device_->nccl_watchdog().in_flight(), 0u);
}

TEST_P(NcclChannelTest, AbortedChannelFailsEveryLaterUse) {
  constexpr uint64_t kCount = 64;
  Result<Ref<Buffer>> send = Allocate(*device_, kCount * 4);
  Result<Ref<Buffer>> recv = Allocate(*device_, kCount * 4);
  ASSERT_TRUE(send.ok() && recv.ok());
  // Recorded (graph mode: built, with the collective captured) before the
  // channel fails.
  Result<Ref<CommandBuffer>> recorded = RecordAllReduce(*send, *recv, kCount);
  ASSERT_TRUE(recorded.ok()) << recorded.status().ToString();
  static_cast<NcclChannel&>(*channel_).Abort(UnavailableError("the test aborted the channel"));

  Status health = static_cast<NcclChannel&>(*channel_).health();
  EXPECT_NE(health.message().find("the test aborted the channel"), std::string::npos)
      << health.ToString();
  Status submitted = SubmitAndWait(*device_, *recorded);
  ASSERT_FALSE(submitted.ok());
  EXPECT_NE(submitted.message().find("the test aborted the channel"), std::string::npos)
      << submitted.ToString();
  Result<Ref<CommandBuffer>> again = RecordAllReduce(*send, *recv, kCount);
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.status().message().find("the test aborted the channel"), std::string::npos)
      << again.status().ToString();
  Result<Ref<Channel>> split = channel_->Split(0, 0);
  ASSERT_FALSE(split.ok());
  EXPECT_NE(split.status().message().find("the test aborted the channel"), std::string::npos)
      << split.status().ToString();
  // The device itself is fine: a new channel works.
  ChannelParams params;
  params.group = "after-abort";
  Result<Ref<Channel>> fresh = device_->CreateChannel(params);
  ASSERT_TRUE(fresh.ok()) << fresh.status().ToString();
  channel_ = *fresh;
  Checker check = GtestChecker();
  CheckRing(*device_, channel_, check, label() + " after an abort");
}

TEST_P(NcclChannelTest, RecordingRefuses16BitIntegerReductions) {
  Result<Ref<Buffer>> buffer = Allocate(*device_, 64);
  ASSERT_TRUE(buffer.ok());
  Result<Ref<CommandBuffer>> command_buffer =
      device_->CreateCommandBuffer(CommandBufferMode::kOneShot);
  ASSERT_TRUE(command_buffer.ok());
  ASSERT_TRUE((*command_buffer)->Begin().ok());
  const CollectiveOp op =
      CollectiveOp{CollectiveKind::kAllReduce, CollectiveReduction::kSum, ElementType::kSint16};
  Status refused = (*command_buffer)
                       ->Collective(channel_, op, BufferRef::Of(*buffer, 0, 32),
                                    BufferRef::Of(*buffer, 32, 32), 16);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument) << refused.ToString();
  EXPECT_NE(refused.message().find("all_reduce sum si16: NCCL has no si16 type"), std::string::npos)
      << refused.ToString();
  // Moving 16-bit integers is fine.
  const CollectiveOp gather =
      CollectiveOp{CollectiveKind::kAllGather, CollectiveReduction::kNone, ElementType::kSint16};
  Status moved = (*command_buffer)
                     ->Collective(channel_, gather, BufferRef::Of(*buffer, 0, 32),
                                  BufferRef::Of(*buffer, 32, 32), 16);
  EXPECT_TRUE(moved.ok()) << moved.ToString();
}

TEST_P(NcclChannelTest, RecordingRefusesAChannelOfAnotherDriver) {
  Result<Ref<Buffer>> buffer = Allocate(*device_, 64);
  ASSERT_TRUE(buffer.ok());
  Result<Ref<CommandBuffer>> command_buffer =
      device_->CreateCommandBuffer(CommandBufferMode::kOneShot);
  ASSERT_TRUE(command_buffer.ok());
  ASSERT_TRUE((*command_buffer)->Begin().ok());
  Status refused =
      (*command_buffer)
          ->Collective(MakeRef<ForeignChannel>(),
                       CollectiveOp{CollectiveKind::kAllReduce, CollectiveReduction::kSum,
                                    ElementType::kFloat32},
                       BufferRef::Of(*buffer, 0, 32), BufferRef::Of(*buffer, 32, 32), 8);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument) << refused.ToString();
  EXPECT_NE(refused.message().find("the channel was not made by this CUDA device (cuda://0"),
            std::string::npos)
      << refused.ToString();
}

TEST_P(NcclChannelTest, CreateChannelChecksItsParams) {
  ChannelParams params;
  params.group = "bad";
  params.rank = 0;
  params.count = 2;  // No rendezvous to meet the other.
  Result<Ref<Channel>> lonely = device_->CreateChannel(params);
  ASSERT_FALSE(lonely.ok());
  EXPECT_EQ(lonely.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(lonely.status().message().find(
                "CreateChannel: channel 'bad' (rank 0 of 2, cuda://0): a group of 2 participants "
                "needs a rendezvous"),
            std::string::npos)
      << lonely.status().ToString();
  params.rank = 2;
  Result<Ref<Channel>> outside = device_->CreateChannel(params);
  ASSERT_FALSE(outside.ok());
  EXPECT_NE(outside.status().message().find("the rank is not in [0, 2)"), std::string::npos)
      << outside.status().ToString();
}

INSTANTIATE_TEST_SUITE_P(Executors, NcclChannelTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return std::string(info.param ? "Stream" : "Graph");
                         });

// ---------------------------------------------------------------------------
// NcclMultiProcessTest: one process per visible GPU.

// The GPUs the CUDA driver shows this process (CUDA_VISIBLE_DEVICES
// applies); 0 with the reason in *why.
int VisibleGpus(std::string* why) {
  Result<Ref<CudaSymbols>> symbols = CudaSymbols::Load();
  if (!symbols.ok()) {
    *why = symbols.status().ToString();
    return 0;
  }
  int count = 0;
  if ((*symbols)->cuDeviceGetCount(&count) != CUDA_SUCCESS) count = 0;
  if (count == 0) *why = "the NVIDIA driver sees no GPU";
  return count;
}

std::string ReadText(const std::string& path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// Runs `scenario` in one child process per visible GPU and checks that each
// succeeds.
void RunGroup(const std::string& scenario) {
  std::string why;
  const int gpus = VisibleGpus(&why);
  if (gpus < 2) {
    GTEST_SKIP() << "the multi-process NCCL tests need 2 GPUs or more (one per process); "
                 << (gpus == 0 ? why : "this machine shows 1");
  }
  Result<Ref<NcclSymbols>> nccl = NcclSymbols::Load();
  if (!nccl.ok()) GTEST_SKIP() << "no usable NCCL here: " << nccl.status().ToString();

  char folder_template[] = "/tmp/kiln_nccl_test_XXXXXX";
  ASSERT_NE(mkdtemp(folder_template), nullptr) << std::strerror(errno);
  const std::string folder = folder_template;
  char self[4096] = {};
  const ssize_t self_length = readlink("/proc/self/exe", self, sizeof(self) - 1);
  ASSERT_GT(self_length, 0) << std::strerror(errno);

  // The parent's environment, with the child's variables set.
  std::vector<std::string> base;
  const std::vector<std::string> ours = {kScenarioVariable, kRankVariable, kWorldVariable,
                                         kRendezvousVariable, "NCCL_NVLS_ENABLE"};
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text = *entry;
    const std::string name = text.substr(0, text.find('='));
    if (std::find(ours.begin(), ours.end(), name) == ours.end()) base.push_back(text);
  }
  struct Child {
    pid_t pid = -1;
    std::string log;
    int status = 0;
    bool done = false;
  };
  std::vector<Child> children(static_cast<size_t>(gpus));
  for (int rank = 0; rank < gpus; ++rank) {
    Child& child = children[rank];
    child.log = folder + "/rank" + std::to_string(rank) + ".log";
    std::vector<std::string> environment = base;
    environment.push_back(std::string(kScenarioVariable) + "=" + scenario);
    environment.push_back(std::string(kRankVariable) + "=" + std::to_string(rank));
    environment.push_back(std::string(kWorldVariable) + "=" + std::to_string(gpus));
    environment.push_back(std::string(kRendezvousVariable) + "=" + folder + "/rendezvous");
    environment.push_back("NCCL_NVLS_ENABLE=0");  // NVLink multicast stays off (shared machines).
    std::vector<char*> envp;
    for (std::string& entry : environment) envp.push_back(entry.data());
    envp.push_back(nullptr);
    char* argv[] = {self, nullptr};
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, child.log.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    const int spawned = posix_spawn(&child.pid, self, &actions, nullptr, argv, envp.data());
    posix_spawn_file_actions_destroy(&actions);
    ASSERT_EQ(spawned, 0) << "posix_spawn: " << std::strerror(spawned);
  }
  const auto deadline = std::chrono::steady_clock::now() + kGroupTimeout;
  size_t running = children.size();
  while (running > 0 && std::chrono::steady_clock::now() < deadline) {
    for (Child& child : children) {
      if (child.done) continue;
      if (waitpid(child.pid, &child.status, WNOHANG) == child.pid) {
        child.done = true;
        --running;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (size_t rank = 0; rank < children.size(); ++rank) {
    Child& child = children[rank];
    if (!child.done) {
      // Only the processes this test started.
      kill(child.pid, SIGKILL);
      waitpid(child.pid, &child.status, 0);
      ADD_FAILURE() << scenario << ": rank " << rank << " did not finish within "
                    << kGroupTimeout.count() << " s; its output:\n"
                    << ReadText(child.log);
      continue;
    }
    const bool passed = WIFEXITED(child.status) && WEXITSTATUS(child.status) == 0;
    const std::string output = ReadText(child.log);
    if (!passed) {
      ADD_FAILURE() << scenario << ": rank " << rank << " of " << gpus << " failed ("
                    << (WIFEXITED(child.status)
                            ? "exit " + std::to_string(WEXITSTATUS(child.status))
                            : "signal " + std::to_string(WTERMSIG(child.status)))
                    << "); its output:\n"
                    << output;
    } else {
      std::printf("%s", output.c_str());
    }
  }
  std::error_code ignored;
  std::filesystem::remove_all(folder, ignored);
}

TEST(NcclMultiProcessTest, EveryKindOnEveryGpu) { RunGroup("collectives"); }
TEST(NcclMultiProcessTest, Split) { RunGroup("split"); }
TEST(NcclMultiProcessTest, MemoizedCollectiveReplayedAThousandTimes) { RunGroup("replay"); }
TEST(NcclMultiProcessTest, AbortFailsTheCollectiveInFlight) { RunGroup("abort"); }

// A child process: rank `KILN_NCCL_TEST_RANK` on GPU of that ordinal.
int RunChild(const std::string& scenario) {
  const int rank = std::atoi(std::getenv(kRankVariable) ? std::getenv(kRankVariable) : "-1");
  const int world = std::atoi(std::getenv(kWorldVariable) ? std::getenv(kWorldVariable) : "0");
  const char* folder = std::getenv(kRendezvousVariable);
  Checker check([rank](const std::string& what) {
    std::fprintf(stderr, "rank %d: FAILED: %s\n", rank, what.c_str());
  });
  if (rank < 0 || world < 1 || folder == nullptr) {
    std::fprintf(stderr, "rank %d of %d: the child's environment is incomplete\n", rank, world);
    return 2;
  }
  Result<Ref<Rendezvous>> rendezvous =
      Rendezvous::Open(folder, rank, world, std::chrono::seconds(120));
  if (!check.Ok(rendezvous.status(), "Rendezvous::Open")) return 1;
  // Runs `body` on a device of this rank's GPU with a channel of `group`.
  auto with_channel = [&](bool use_streams, const std::string& group,
                          const std::function<void(CudaDevice&, const Ref<Channel>&)>& body) {
    std::string skip;
    Ref<CudaDevice> device = CreateDevice(rank, use_streams, &skip);
    if (!check.Expect(device != nullptr, "no device: " + skip)) return;
    ChannelParams params;
    params.group = group;
    params.rank = rank;
    params.count = world;
    params.rendezvous = *rendezvous;
    Result<Ref<Channel>> channel = device->CreateChannel(params);
    if (!check.Ok(channel.status(), "CreateChannel '" + group + "'")) return;
    body(*device, *channel);
  };
  const auto start = std::chrono::steady_clock::now();
  if (scenario == "collectives") {
    for (bool use_streams : {false, true}) {
      const std::string label = use_streams ? "stream" : "graph";
      with_channel(use_streams, label, [&](CudaDevice& device, const Ref<Channel>& channel) {
        CheckSuite(device, channel, CommandBufferMode::kReusable, check, label + " reusable");
        CheckSuite(device, channel, CommandBufferMode::kOneShot, check, label + " one-shot");
        CheckRing(device, channel, check, label);
      });
    }
  } else if (scenario == "split") {
    with_channel(false, "split", [&](CudaDevice& device, const Ref<Channel>& channel) {
      CheckSplit(device, channel, check);
    });
  } else if (scenario == "replay") {
    with_channel(false, "replay-graph", [&](CudaDevice& device, const Ref<Channel>& channel) {
      CheckReplay(device, channel, 1000, check, "graph");
    });
    with_channel(true, "replay-stream", [&](CudaDevice& device, const Ref<Channel>& channel) {
      CheckReplay(device, channel, 100, check, "stream");
    });
  } else if (scenario == "abort") {
    for (bool use_streams : {false, true}) {
      const std::string label = use_streams ? "abort-stream" : "abort-graph";
      with_channel(use_streams, label, [&](CudaDevice& device, const Ref<Channel>& channel) {
        CheckAbortInFlight(device, channel, check, label);
      });
    }
  } else {
    check.Fail("unknown scenario '" + scenario + "'");
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("rank %d of %d: %s: %s (%.1f s)\n", rank, world, scenario.c_str(),
              check.failures() == 0 ? "passed" : "FAILED", seconds);
  return check.failures() == 0 ? 0 : 1;
}

}  // namespace
}  // namespace kiln::hal::cuda

int main(int argc, char** argv) {
  // Before any NCCL call, here and in every child: NVLink multicast stays
  // off on the shared multi-GPU machines.
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  if (const char* scenario = std::getenv(kiln::hal::cuda::kScenarioVariable)) {
    return kiln::hal::cuda::RunChild(scenario);
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
