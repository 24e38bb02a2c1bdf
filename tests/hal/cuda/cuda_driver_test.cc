// The CUDA driver on a real GPU (label `gpu`): memory, PTX executables,
// graph and stream command buffers, binding-table replay, semaphores and the
// errors users meet. Every test skips, saying why, where there is no CUDA
// device (no NVIDIA driver, or no GPU).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <thread>

#include "hal/cpu/cpu_device.h"
#include "hal/cuda/cuda_buffer.h"
#include "hal/cuda/cuda_device.h"
#include "hal/cuda/graph_cache.h"
#include "hal/cuda/graph_command_buffer.h"
#include "hal/trace.h"
#include "tests/hal/cuda/cuda_test_util.h"
#include "tests/hal/trace_test_util.h"

namespace kiln::hal::cuda {
namespace {

using testing::BuildCudaExecutable;
using testing::CudaExportSpec;
using testing::Download;
using testing::SubmitAndWait;
using testing::Upload;

uint32_t FloatBits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return bits;
}

// The exports of test_kernels.cu, ordinals in this order.
std::vector<CudaExportSpec> TestExports() {
  return {{"add_one_inplace", "add_one_inplace", 256, {false}, 1},
          {"mul_add", "mul_add", 256, {true, true, false}, 2},
          {"reverse_blocks", "reverse_blocks", 64, {true, false}, 0, 64 * sizeof(float)}};
}
constexpr uint32_t kAddOne = 0, kMulAdd = 1, kReverse = 2;

TEST(StreamOrderedBlockCacheTest, KeepsBlocksBySizeUpToItsLimit) {
  EXPECT_EQ(StreamOrderedBlockCache::RoundSize(1), 512u);
  EXPECT_EQ(StreamOrderedBlockCache::RoundSize(512), 512u);
  EXPECT_EQ(StreamOrderedBlockCache::RoundSize(513), 1024u);
  EXPECT_EQ(StreamOrderedBlockCache::RoundSize((1 << 20) + 1), (1u << 20) + (128u << 10));
  StreamOrderedBlockCache cache;
  EXPECT_EQ(cache.Take(512), 0u);
  EXPECT_TRUE(cache.Give(0x1000, 512));
  EXPECT_TRUE(cache.Give(0x2000, 512));
  EXPECT_EQ(cache.Take(1024), 0u);  // Exact rounded sizes only.
  EXPECT_EQ(cache.cached_bytes(), 1024u);
  const CUdeviceptr a = cache.Take(512), b = cache.Take(512);
  EXPECT_TRUE((a == 0x1000 && b == 0x2000) || (a == 0x2000 && b == 0x1000));
  EXPECT_EQ(cache.Take(512), 0u);
  // Beyond the limit the caller frees the block itself.
  EXPECT_TRUE(cache.Give(0x3000, StreamOrderedBlockCache::kMaxCachedBytes));
  EXPECT_FALSE(cache.Give(0x4000, 512));
  EXPECT_EQ(cache.TakeAll(), std::vector<CUdeviceptr>{0x3000});
  EXPECT_EQ(cache.cached_bytes(), 0u);
}

// The list used last is found without a lookup: switching between sizes,
// and emptying the cache, must never hand out a block of another size.
TEST(StreamOrderedBlockCacheTest, SwitchingSizesKeepsEachSizesBlocks) {
  StreamOrderedBlockCache cache;
  EXPECT_TRUE(cache.Give(0x1000, 512));
  EXPECT_TRUE(cache.Give(0x2000, 1024));
  EXPECT_EQ(cache.Take(512), 0x1000u);
  EXPECT_EQ(cache.Take(512), 0u);
  EXPECT_EQ(cache.Take(1024), 0x2000u);
  EXPECT_TRUE(cache.Give(0x1000, 512));
  EXPECT_EQ(cache.Take(1024), 0u);
  EXPECT_EQ(cache.Take(1536), 0u);  // Never given: no list.
  EXPECT_EQ(cache.Take(512), 0x1000u);
  EXPECT_TRUE(cache.Give(0x1000, 512));
  EXPECT_TRUE(cache.Give(0x2000, 1024));
  std::vector<CUdeviceptr> all = cache.TakeAll();
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, (std::vector<CUdeviceptr>{0x1000, 0x2000}));
  // The lists are gone; the same sizes start afresh.
  EXPECT_EQ(cache.Take(512), 0u);
  EXPECT_TRUE(cache.Give(0x3000, 512));
  EXPECT_EQ(cache.Take(1024), 0u);
  EXPECT_EQ(cache.Take(512), 0x3000u);
  EXPECT_EQ(cache.cached_bytes(), 0u);
}

// A cached graph in the GraphCache tests: counts its destruction.
class CountedEntry : public GraphCache::Entry {
 public:
  CountedEntry(int id, std::vector<int>* destroyed) : id_(id), destroyed_(destroyed) {}
  ~CountedEntry() override { destroyed_->push_back(id_); }
  int id() const { return id_; }

 private:
  int id_;
  std::vector<int>* destroyed_;
};

GraphCache::Key KeyOf(std::initializer_list<uint64_t> words) {
  GraphCache::Key key;
  for (uint64_t word : words) key.Add(word);
  return key;
}

int IdOf(const std::unique_ptr<GraphCache::Entry>& entry) {
  return entry ? static_cast<const CountedEntry&>(*entry).id() : -1;
}

TEST(GraphCacheTest, TakeRemovesTheGraphOfAnEqualKey) {
  std::vector<int> destroyed;
  GraphCache cache(4);
  EXPECT_EQ(cache.Take(KeyOf({1, 2})), nullptr);
  cache.Put(KeyOf({1, 2}), std::make_unique<CountedEntry>(7, &destroyed));
  // Another structure (also a prefix of it) misses.
  EXPECT_EQ(cache.Take(KeyOf({1, 3})), nullptr);
  EXPECT_EQ(cache.Take(KeyOf({1})), nullptr);
  std::unique_ptr<GraphCache::Entry> taken = cache.Take(KeyOf({1, 2}));
  EXPECT_EQ(IdOf(taken), 7);
  // Held by one taker at a time: a second Take of the structure misses.
  EXPECT_EQ(cache.Take(KeyOf({1, 2})), nullptr);
  GraphCache::Statistics statistics = cache.statistics();
  EXPECT_EQ(statistics.hits, 1u);
  EXPECT_EQ(statistics.misses, 4u);
  EXPECT_EQ(statistics.size, 0u);
  cache.Put(KeyOf({1, 2}), std::move(taken));
  EXPECT_EQ(cache.statistics().size, 1u);
  EXPECT_TRUE(destroyed.empty());
  cache.Clear();
  EXPECT_EQ(destroyed, std::vector<int>{7});
  EXPECT_EQ(cache.statistics().size, 0u);
}

TEST(GraphCacheTest, EvictsTheLeastRecentlyUsedBeyondItsCapacity) {
  std::vector<int> destroyed;
  {
    GraphCache cache(2);
    cache.Put(KeyOf({1}), std::make_unique<CountedEntry>(1, &destroyed));
    cache.Put(KeyOf({2}), std::make_unique<CountedEntry>(2, &destroyed));
    // Taking and giving back 1 makes 2 the least recently used.
    std::unique_ptr<GraphCache::Entry> one = cache.Take(KeyOf({1}));
    ASSERT_EQ(IdOf(one), 1);
    cache.Put(KeyOf({1}), std::move(one));
    cache.Put(KeyOf({3}), std::make_unique<CountedEntry>(3, &destroyed));
    EXPECT_EQ(destroyed, std::vector<int>{2});
    EXPECT_EQ(cache.Take(KeyOf({2})), nullptr);
    EXPECT_EQ(IdOf(cache.Take(KeyOf({3}))), 3);  // Destroyed here, taken and dropped.
    const GraphCache::Statistics statistics = cache.statistics();
    EXPECT_EQ(statistics.evictions, 1u);
    EXPECT_EQ(statistics.size, 1u);
  }
  // The cache destroys what it keeps.
  EXPECT_EQ(destroyed, (std::vector<int>{2, 3, 1}));
}

TEST(GraphCacheTest, KeepsEveryGraphOfOneStructureGivenBack) {
  std::vector<int> destroyed;
  GraphCache cache(4);
  // Two command buffers of one structure built a graph each.
  cache.Put(KeyOf({5}), std::make_unique<CountedEntry>(1, &destroyed));
  cache.Put(KeyOf({5}), std::make_unique<CountedEntry>(2, &destroyed));
  EXPECT_EQ(cache.statistics().size, 2u);
  // The most recently given back first.
  EXPECT_EQ(IdOf(cache.Take(KeyOf({5}))), 2);
  EXPECT_EQ(IdOf(cache.Take(KeyOf({5}))), 1);
  EXPECT_EQ(cache.Take(KeyOf({5})), nullptr);
}

TEST(GraphCacheTest, WorkspaceIdsAreDistinctAndNeverZero) {
  GraphCache cache;
  const uint64_t first = cache.NewWorkspaceId(), second = cache.NewWorkspaceId();
  EXPECT_NE(first, 0u);
  EXPECT_NE(second, 0u);
  EXPECT_NE(first, second);
  EXPECT_EQ(cache.capacity(), GraphCache::kDefaultCapacity);
}

class CudaDriverTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    std::string skip;
    device_ = testing::CreateCudaDevice(/*use_streams=*/GetParam(), &skip);
    if (!device_) GTEST_SKIP() << skip;
    ptx_ = testing::ReadTestPtx();
    Result<Ref<Executable>> executable = device_->CreateExecutable(
        "cuda-nvptx-fb", BuildCudaExecutable({{"sm_75", ptx_}}, TestExports()));
    ASSERT_TRUE(executable.ok()) << executable.status().ToString();
    executable_ = *executable;
  }

  Ref<CommandBuffer> NewCommandBuffer(CommandBufferMode mode = CommandBufferMode::kOneShot) {
    Result<Ref<CommandBuffer>> command_buffer = device_->CreateCommandBuffer(mode);
    EXPECT_TRUE(command_buffer.ok());
    EXPECT_TRUE((*command_buffer)->Begin().ok());
    return *command_buffer;
  }

  // The device's one-shot graph cache statistics (all zero with streams).
  GraphCache::Statistics GraphCacheStatistics() const {
    return static_cast<const CudaDevice&>(*device_).graph_cache().statistics();
  }
  bool graphs() const { return !GetParam(); }

  Ref<Device> device_;
  std::string ptx_;
  Ref<Executable> executable_;
};

TEST_P(CudaDriverTest, PropertiesNameTheGpu) {
  const DeviceProperties& p = device_->properties();
  EXPECT_EQ(p.driver, "cuda");
  EXPECT_EQ(p.uri, "cuda://0");
  EXPECT_EQ(p.kind, "gpu");
  EXPECT_FALSE(p.name.empty());
  EXPECT_EQ(p.executable_formats, std::vector<std::string>{"cuda-nvptx-fb"});
}

TEST_P(CudaDriverTest, EveryMemoryTypeReadsAndWrites) {
  const std::vector<float> values = {1, 2, 3, 4, 5};
  for (MemoryTypeBits type :
       {MemoryTypeBits{kMemoryTypeDeviceLocal}, MemoryTypeBits{kMemoryTypeHostVisible},
        MemoryTypeBits{kMemoryTypeDeviceLocal | kMemoryTypeHostVisible}}) {
    SCOPED_TRACE(FormatMemoryType(type));
    Result<Ref<Buffer>> buffer = device_->allocator().Allocate({type, kBufferUsageDefault}, 20);
    ASSERT_TRUE(buffer.ok()) << buffer.status().ToString();
    EXPECT_EQ((*buffer)->memory_type() & type, type);
    ASSERT_TRUE((*buffer)
                    ->WriteData(0, std::span<const uint8_t>(
                                       reinterpret_cast<const uint8_t*>(values.data()), 20))
                    .ok());
    EXPECT_EQ(Download(**buffer), values);
    Result<std::span<uint8_t>> mapped = (*buffer)->Map();
    EXPECT_EQ(mapped.ok(), (type & kMemoryTypeHostVisible) != 0);
    if (!mapped.ok()) {
      EXPECT_NE(mapped.status().message().find("not host-visible"), std::string::npos);
    }
  }
  // Empty buffers are allowed.
  EXPECT_TRUE(device_->allocator().Allocate({}, 0).ok());
}

// Allocator::ImportBuffer / ExportBuffer: a device address (here one kiln
// exported itself, as a PyTorch tensor's would be) used in place, released
// through the callback; host memory is refused.
// Device memory (Allocate, QueueAlloca) counts as the device's, pinned host
// memory as the host's; imports are not counted.
TEST_P(CudaDriverTest, AllocatorStatisticsCountDeviceAndPinnedHostMemory) {
  Allocator& allocator = device_->allocator();
  const AllocatorStatistics before = allocator.statistics();
  Ref<Buffer> device_memory =
      *allocator.Allocate({kMemoryTypeDeviceLocal, kBufferUsageDefault}, 4096);
  Ref<Buffer> pinned = *allocator.Allocate({kMemoryTypeHostVisible, kBufferUsageDefault}, 100);
  Result<Ref<Semaphore>> semaphore = device_->CreateSemaphore(0);
  ASSERT_TRUE(semaphore.ok()) << semaphore.status().ToString();
  Ref<Buffer> queued = *device_->QueueAlloca(Fence(), Fence({{*semaphore, 1}}), {}, 512);
  Result<ExternalBuffer> exported = allocator.ExportBuffer(*device_memory);
  ASSERT_TRUE(exported.ok()) << exported.status().ToString();
  Ref<Buffer> imported = *allocator.ImportBuffer({}, *exported, nullptr);
  const AllocatorStatistics during = allocator.statistics();
  EXPECT_EQ(during.device.allocated_bytes - before.device.allocated_bytes, 4096u + 512u);
  EXPECT_EQ(during.host.allocated_bytes - before.host.allocated_bytes, 100u);
  EXPECT_GE(during.device.peak_bytes, during.device.live_bytes());
  ASSERT_TRUE((*semaphore)->Wait(1, std::chrono::seconds(10)).ok());
  imported = nullptr;
  device_memory = nullptr;
  pinned = nullptr;
  queued = nullptr;
  const AllocatorStatistics after = allocator.statistics();
  EXPECT_EQ(after.device.live_bytes(), before.device.live_bytes());
  EXPECT_EQ(after.host.live_bytes(), before.host.live_bytes());
}

TEST_P(CudaDriverTest, ImportUsesDeviceMemoryInPlace) {
  Allocator& allocator = device_->allocator();
  Ref<Buffer> owner = *allocator.Allocate({kMemoryTypeDeviceLocal, kBufferUsageDefault}, 64);
  Ref<Buffer> tail = *Buffer::Subspan(owner, 16, 32);
  Result<ExternalBuffer> exported = allocator.ExportBuffer(*tail);
  ASSERT_TRUE(exported.ok()) << exported.status().ToString();
  EXPECT_EQ(exported->type, ExternalBuffer::Type::kDeviceAllocation);
  EXPECT_EQ(exported->size, 32u);
  int released = 0;
  Result<Ref<Buffer>> imported = allocator.ImportBuffer({}, *exported, [&released] { ++released; });
  ASSERT_TRUE(imported.ok()) << imported.status().ToString();
  const uint8_t data[] = {1, 2, 3, 4};
  ASSERT_TRUE((*imported)->WriteData(0, data).ok());
  uint8_t read[4] = {};
  ASSERT_TRUE(owner->ReadData(16, read).ok());
  EXPECT_EQ(read[3], 4);
  EXPECT_EQ(allocator.ExportBuffer(**imported)->device_pointer, exported->device_pointer);
  *imported = nullptr;
  EXPECT_EQ(released, 1);

  uint8_t host[16];
  ExternalBuffer not_device;
  not_device.type = ExternalBuffer::Type::kDeviceAllocation;
  not_device.device_pointer = reinterpret_cast<uintptr_t>(host);
  not_device.size = sizeof(host);
  Result<Ref<Buffer>> refused = allocator.ImportBuffer({}, not_device, [&released] { ++released; });
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("CUDA does not know"), std::string::npos)
      << refused.status().ToString();
  EXPECT_EQ(released, 1);
}

TEST_P(CudaDriverTest, OutOfMemoryIsACleanError) {
  Result<Ref<Buffer>> huge = device_->allocator().Allocate({}, size_t{1} << 50);
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().code(), StatusCode::kResourceExhausted) << huge.status().ToString();
  EXPECT_NE(huge.status().message().find("CUDA_ERROR_OUT_OF_MEMORY"), std::string::npos);
}

TEST_P(CudaDriverTest, DispatchComputesWithBindingsAndConstants) {
  const uint32_t n = 1000;
  std::vector<float> a(n), b(n);
  for (uint32_t i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i);
    b[i] = 0.5f;
  }
  Ref<Buffer> ab = Upload(*device_, a), bb = Upload(*device_, b);
  Ref<Buffer> cb = Upload(*device_, std::vector<float>(n, -1.0f));
  Ref<CommandBuffer> command_buffer = NewCommandBuffer();
  const uint32_t constants[] = {n, FloatBits(3.0f)};
  const BufferRef bindings[] = {BufferRef::Of(ab), BufferRef::Of(bb), BufferRef::Of(cb)};
  ASSERT_TRUE(command_buffer->Dispatch(executable_, kMulAdd, {4, 1, 1}, constants, bindings).ok());
  ASSERT_TRUE(command_buffer->End().ok());
  ASSERT_TRUE(SubmitAndWait(*device_, command_buffer).ok());
  std::vector<float> c = Download(*cb);
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(c[i], a[i] * 0.5f + 3.0f) << i;
  // A one-shot command buffer runs once.
  Status again = SubmitAndWait(*device_, command_buffer);
  EXPECT_EQ(again.code(), StatusCode::kFailedPrecondition) << again.ToString();
}

TEST_P(CudaDriverTest, DynamicSharedMemory) {
  std::vector<float> in(128);
  for (int i = 0; i < 128; ++i) in[i] = static_cast<float>(i);
  Ref<Buffer> ib = Upload(*device_, in), ob = Upload(*device_, std::vector<float>(128, 0));
  Ref<CommandBuffer> command_buffer = NewCommandBuffer();
  const BufferRef bindings[] = {BufferRef::Of(ib), BufferRef::Of(ob)};
  ASSERT_TRUE(command_buffer->Dispatch(executable_, kReverse, {2, 1, 1}, {}, bindings).ok());
  ASSERT_TRUE(command_buffer->End().ok());
  ASSERT_TRUE(SubmitAndWait(*device_, command_buffer).ok());
  std::vector<float> out = Download(*ob);
  EXPECT_EQ(out[0], 63.0f);
  EXPECT_EQ(out[63], 0.0f);
  EXPECT_EQ(out[64], 127.0f);
  EXPECT_EQ(out[127], 64.0f);
}

// Dependent dispatches separated by barriers run in order; independent ones
// between two barriers (on different buffers) may overlap and both finish.
TEST_P(CudaDriverTest, BarriersOrderDependentDispatches) {
  const uint32_t n = 4096;
  Ref<Buffer> x = Upload(*device_, std::vector<float>(n, 0.0f));
  Ref<Buffer> y = Upload(*device_, std::vector<float>(n, 10.0f));
  Ref<CommandBuffer> command_buffer = NewCommandBuffer();
  const uint32_t constants[] = {n};
  for (int step = 0; step < 5; ++step) {
    const BufferRef on_x[] = {BufferRef::Of(x)};
    const BufferRef on_y[] = {BufferRef::Of(y)};
    ASSERT_TRUE(command_buffer->Dispatch(executable_, kAddOne, {16, 1, 1}, constants, on_x).ok());
    ASSERT_TRUE(command_buffer->Dispatch(executable_, kAddOne, {16, 1, 1}, constants, on_y).ok());
    ASSERT_TRUE(command_buffer->ExecutionBarrier().ok());
  }
  ASSERT_TRUE(command_buffer->End().ok());
  ASSERT_TRUE(SubmitAndWait(*device_, command_buffer).ok());
  EXPECT_EQ(Download(*x), std::vector<float>(n, 5.0f));
  EXPECT_EQ(Download(*y), std::vector<float>(n, 15.0f));
}

// With a trace attached, each kernel of a submission becomes a device span
// from its timing events (a graph command buffer launches its traced graph,
// with event-record nodes around each kernel: cuda_dispatch_timer.h);
// without one, none. The reusable command buffer replays its plain graph
// before, between and after the traced runs.
TEST_P(CudaDriverTest, TracedSubmissionsHaveADeviceSpanPerDispatch) {
  executable_->set_name("ex");
  const uint32_t n = 4096;
  Ref<Buffer> x = Upload(*device_, std::vector<float>(n, 0.0f));
  Ref<CommandBuffer> command_buffer = NewCommandBuffer(CommandBufferMode::kReusable);
  const uint32_t constants[] = {n};
  const BufferRef on_x[] = {BufferRef::Of(x)};
  for (int step = 0; step < 3; ++step) {
    ASSERT_TRUE(command_buffer->Dispatch(executable_, kAddOne, {16, 1, 1}, constants, on_x).ok());
    ASSERT_TRUE(command_buffer->ExecutionBarrier().ok());
  }
  ASSERT_TRUE(command_buffer->End().ok());
  Ref<Trace> trace = Trace::Create(/*record_spans=*/true);
  ASSERT_TRUE(SubmitAndWait(*device_, command_buffer).ok());

  device_->AttachTrace(trace);
  const int64_t begin_ns = trace->Now();
  ASSERT_TRUE(SubmitAndWait(*device_, command_buffer).ok());
  ASSERT_TRUE(SubmitAndWait(*device_, command_buffer).ok());
  const int64_t end_ns = trace->Now();
  device_->FlushTrace();
  hal::testing::ExpectDispatchSpans(
      *trace, std::vector<std::string>(6, "dispatch @ex::@add_one_inplace"), begin_ns, end_ns);

  device_->AttachTrace(nullptr);
  ASSERT_TRUE(SubmitAndWait(*device_, command_buffer).ok());
  device_->FlushTrace();
  EXPECT_EQ(hal::testing::DeviceSpans(*trace).size(), 6u);
  EXPECT_EQ(Download(*x), std::vector<float>(n, 12.0f));
  if (auto* graph = dynamic_cast<GraphCommandBuffer*>(command_buffer.get())) {
    EXPECT_EQ(graph->instantiation_count(), 1u);
    EXPECT_EQ(graph->traced_instantiation_count(), 1u);
  }
}

// A traced graph command buffer of three dispatches of three exports, with
// barriers between them, submitted twice and issued together: each
// dispatch of each submission has its span, named after its export, with
// a positive duration; the two submissions in flight at once record into
// two event sets, and the results are right.
TEST_P(CudaDriverTest, TracedGraphTimesEachDispatchOfEachExport) {
  executable_->set_name("ex");
  // Large enough that each kernel takes microseconds (event resolution is
  // about half of one).
  const uint32_t n = 1u << 20;
  std::vector<float> a(n);
  for (uint32_t i = 0; i < n; ++i) a[i] = static_cast<float>(i);
  Ref<Buffer> ab = Upload(*device_, a), bb = Upload(*device_, std::vector<float>(n, 0.5f));
  Ref<Buffer> cb = Upload(*device_, std::vector<float>(n, 0.0f));
  Ref<Buffer> db = Upload(*device_, std::vector<float>(n, 0.0f));
  Ref<CommandBuffer> command_buffer = NewCommandBuffer(CommandBufferMode::kReusable);
  // c = a * 0.5 + 3; c += 1; d = c reversed in blocks of 64.
  const uint32_t mul_constants[] = {n, FloatBits(3.0f)};
  const uint32_t add_constants[] = {n};
  const BufferRef mul_bindings[] = {BufferRef::Of(ab), BufferRef::Of(bb), BufferRef::Of(cb)};
  const BufferRef add_bindings[] = {BufferRef::Of(cb)};
  const BufferRef reverse_bindings[] = {BufferRef::Of(cb), BufferRef::Of(db)};
  ASSERT_TRUE(
      command_buffer->Dispatch(executable_, kMulAdd, {n / 256, 1, 1}, mul_constants, mul_bindings)
          .ok());
  ASSERT_TRUE(command_buffer->ExecutionBarrier().ok());
  ASSERT_TRUE(
      command_buffer->Dispatch(executable_, kAddOne, {n / 256, 1, 1}, add_constants, add_bindings)
          .ok());
  ASSERT_TRUE(command_buffer->ExecutionBarrier().ok());
  ASSERT_TRUE(
      command_buffer->Dispatch(executable_, kReverse, {n / 64, 1, 1}, {}, reverse_bindings).ok());
  ASSERT_TRUE(command_buffer->End().ok());

  Ref<Trace> trace = Trace::Create(/*record_spans=*/true);
  device_->AttachTrace(trace);
  const int64_t begin_ns = trace->Now();
  // Both held back by a host-signaled gate, then issued together: the
  // first's times cannot have been read when the second is issued.
  Result<Ref<Semaphore>> gate = device_->CreateSemaphore(0);
  Result<Ref<Semaphore>> done = device_->CreateSemaphore(0);
  ASSERT_TRUE(gate.ok() && done.ok());
  const Ref<CommandBuffer> list[] = {command_buffer};
  for (uint64_t submit = 1; submit <= 2; ++submit) {
    Fence wait = submit == 1 ? Fence({{*gate, 1}}) : Fence();
    Status submitted = device_->QueueExecute(wait, Fence({{*done, submit}}), list, {});
    ASSERT_TRUE(submitted.ok()) << submitted.ToString();
  }
  ASSERT_TRUE((*gate)->Signal(1).ok());
  ASSERT_TRUE((*done)->Wait(2, std::chrono::seconds(20)).ok());
  const int64_t end_ns = trace->Now();
  device_->FlushTrace();
  device_->AttachTrace(nullptr);

  const std::vector<std::string> once = {"dispatch @ex::@mul_add", "dispatch @ex::@add_one_inplace",
                                         "dispatch @ex::@reverse_blocks"};
  std::vector<std::string> names = once;
  names.insert(names.end(), once.begin(), once.end());
  hal::testing::ExpectDispatchSpans(*trace, names, begin_ns, end_ns);
  for (const Trace::Span& span : hal::testing::DeviceSpans(*trace)) {
    EXPECT_GT(span.duration_ns, 0) << span.name;
  }
  std::vector<float> d = Download(*db);
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t source = i / 64 * 64 + (63 - i % 64);
    ASSERT_EQ(d[i], static_cast<float>(source) * 0.5f + 4.0f) << i;
  }
  if (auto* graph = dynamic_cast<GraphCommandBuffer*>(command_buffer.get())) {
    EXPECT_EQ(graph->instantiation_count(), 1u);  // At End; never launched.
    EXPECT_EQ(graph->traced_instantiation_count(), 1u);
    // The second submission could not reuse the first's events: their
    // times were unread until both had run.
    EXPECT_EQ(graph->timing_event_set_count(), 2u);
  }
}

// A reusable command buffer is recorded (and, in graph mode, instantiated)
// once and replayed on different buffers through binding-table slots; only
// the nodes whose addresses change are patched.
TEST_P(CudaDriverTest, ReusableCommandBufferReplaysOnNewBuffers) {
  const uint32_t n = 512;
  Ref<Buffer> constant_b = Upload(*device_, std::vector<float>(n, 2.0f));
  Ref<CommandBuffer> command_buffer = NewCommandBuffer(CommandBufferMode::kReusable);
  const uint32_t mul_constants[] = {n, FloatBits(1.0f)};
  const uint32_t add_constants[] = {n};
  // out = in * 2 + 1 (slots 0 → 1), then out += 1, twice.
  const BufferRef mul_bindings[] = {BufferRef::Slot(0), BufferRef::Of(constant_b),
                                    BufferRef::Slot(1)};
  const BufferRef add_bindings[] = {BufferRef::Slot(1)};
  ASSERT_TRUE(
      command_buffer->Dispatch(executable_, kMulAdd, {2, 1, 1}, mul_constants, mul_bindings).ok());
  ASSERT_TRUE(command_buffer->ExecutionBarrier().ok());
  ASSERT_TRUE(
      command_buffer->Dispatch(executable_, kAddOne, {2, 1, 1}, add_constants, add_bindings).ok());
  ASSERT_TRUE(command_buffer->ExecutionBarrier().ok());
  ASSERT_TRUE(
      command_buffer->Dispatch(executable_, kAddOne, {2, 1, 1}, add_constants, add_bindings).ok());
  ASSERT_TRUE(command_buffer->End().ok());

  Ref<Buffer> in1 = Upload(*device_, std::vector<float>(n, 1.0f));
  Ref<Buffer> out1 = Upload(*device_, std::vector<float>(n, 0.0f));
  Ref<Buffer> in2 = Upload(*device_, std::vector<float>(n, 10.0f));
  Ref<Buffer> out2 = Upload(*device_, std::vector<float>(n, 0.0f));
  const Ref<Buffer> table1[] = {in1, out1};
  const Ref<Buffer> table2[] = {in2, out2};
  ASSERT_TRUE(SubmitAndWait(*device_, command_buffer, table1).ok());
  EXPECT_EQ(Download(*out1), std::vector<float>(n, 5.0f));
  ASSERT_TRUE(SubmitAndWait(*device_, command_buffer, table2).ok());
  EXPECT_EQ(Download(*out2), std::vector<float>(n, 23.0f));
  // Same table again: out2 = 10 * 2 + 1 + 2 again.
  ASSERT_TRUE(SubmitAndWait(*device_, command_buffer, table2).ok());
  EXPECT_EQ(Download(*out2), std::vector<float>(n, 23.0f));
  // Only the input changes: only the first node is patched.
  const Ref<Buffer> table3[] = {in1, out2};
  ASSERT_TRUE(SubmitAndWait(*device_, command_buffer, table3).ok());
  EXPECT_EQ(Download(*out2), std::vector<float>(n, 5.0f));

  // Back to table1 (table3 still holds out2's addresses in slot 1 only):
  // out1 = 1 * 2 + 1 + 2.
  ASSERT_TRUE(SubmitAndWait(*device_, command_buffer, table1).ok());
  EXPECT_EQ(Download(*out1), std::vector<float>(n, 5.0f));
  ASSERT_TRUE(SubmitAndWait(*device_, command_buffer, table2).ok());
  EXPECT_EQ(Download(*out2), std::vector<float>(n, 23.0f));

  if (auto* graph = dynamic_cast<GraphCommandBuffer*>(command_buffer.get())) {
    // Built at End; a second graph for the first change of addresses.
    EXPECT_EQ(graph->instantiation_count(), 2u);
    EXPECT_EQ(graph->node_count(), 3u);
    // First submit: 3 nodes get real addresses; table2: a graph of its
    // own, 0; table2 again: 0; table3: the table2 graph (one slot off like
    // the other, and run last) patches 1; table1: the first graph as it
    // is, 0; table2: the other graph (one slot off) patches 1, not the
    // table1 graph (3).
    EXPECT_EQ(graph->patched_node_count(), 5u);
  }
  // A table missing a slot is refused at submit, naming the slot.
  const Ref<Buffer> short_table[] = {in1};
  Status missing = SubmitAndWait(*device_, command_buffer, short_table);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("slot 1"), std::string::npos) << missing.ToString();
}

TEST_P(CudaDriverTest, FillCopyAndUpdate) {
  Ref<Buffer> a = Upload(*device_, std::vector<float>(64, 0.0f));
  Ref<Buffer> b = Upload(*device_, std::vector<float>(64, 0.0f));
  Ref<CommandBuffer> command_buffer = NewCommandBuffer(CommandBufferMode::kReusable);
  ASSERT_TRUE(command_buffer->FillBuffer(BufferRef::Of(a), FloatBits(7.0f), 4).ok());
  ASSERT_TRUE(command_buffer->ExecutionBarrier().ok());
  const std::vector<float> update = {1, 2, 3, 4};
  ASSERT_TRUE(command_buffer
                  ->UpdateBuffer(
                      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(update.data()), 16),
                      BufferRef::Of(a, 8 * sizeof(float), 16))
                  .ok());
  ASSERT_TRUE(command_buffer->ExecutionBarrier().ok());
  ASSERT_TRUE(command_buffer->CopyBuffer(BufferRef::Of(a), BufferRef::Slot(0), kWholeBuffer).ok());
  ASSERT_TRUE(command_buffer->ExecutionBarrier().ok());
  // One byte pattern over the last 16 bytes of the slot.
  ASSERT_TRUE(command_buffer->FillBuffer(BufferRef::Slot(0, 60 * sizeof(float)), 0, 1).ok());
  ASSERT_TRUE(command_buffer->End().ok());
  const Ref<Buffer> table[] = {b};
  ASSERT_TRUE(SubmitAndWait(*device_, command_buffer, table).ok());
  std::vector<float> expected(64, 7.0f);
  for (int i = 0; i < 4; ++i) expected[8 + i] = update[i];
  EXPECT_EQ(Download(*a), expected);
  for (int i = 60; i < 64; ++i) expected[i] = 0.0f;
  EXPECT_EQ(Download(*b), expected);
  // Replayed onto another buffer.
  Ref<Buffer> c = Upload(*device_, std::vector<float>(64, -1.0f));
  const Ref<Buffer> table2[] = {c};
  ASSERT_TRUE(SubmitAndWait(*device_, command_buffer, table2).ok());
  EXPECT_EQ(Download(*c), expected);
}

// A submission that waits for a value the host has yet to signal runs once
// it is signaled; the one behind it keeps its place.
TEST_P(CudaDriverTest, QueueHonoursHostSignaledWaits) {
  const uint32_t n = 256;
  Ref<Buffer> x = Upload(*device_, std::vector<float>(n, 0.0f));
  Result<Ref<Semaphore>> gate = device_->CreateSemaphore(0);
  Result<Ref<Semaphore>> done = device_->CreateSemaphore(0);
  ASSERT_TRUE(gate.ok() && done.ok());
  const uint32_t constants[] = {n};
  const BufferRef bindings[] = {BufferRef::Of(x)};
  for (uint64_t step = 1; step <= 2; ++step) {
    Ref<CommandBuffer> command_buffer = NewCommandBuffer();
    ASSERT_TRUE(
        command_buffer->Dispatch(executable_, kAddOne, {1, 1, 1}, constants, bindings).ok());
    ASSERT_TRUE(command_buffer->End().ok());
    const Ref<CommandBuffer> list[] = {command_buffer};
    // The first waits on the gate; the second only on the first.
    Fence wait = step == 1 ? Fence({{*gate, 1}}) : Fence({{*done, 1}});
    ASSERT_TRUE(device_->QueueExecute(wait, Fence({{*done, step}}), list, {}).ok());
  }
  Status early = (*done)->Wait(2, std::chrono::milliseconds(20));
  EXPECT_EQ(early.code(), StatusCode::kDeadlineExceeded) << early.ToString();
  EXPECT_EQ(*(*done)->Query(), 0u);
  std::thread signaler([&] { EXPECT_TRUE((*gate)->Signal(1).ok()); });
  ASSERT_TRUE((*done)->Wait(2, std::chrono::seconds(20)).ok());
  signaler.join();
  EXPECT_EQ(Download(*x), std::vector<float>(n, 2.0f));
}

// A semaphore keeps the event of its last completed signal for its next
// one (CudaSemaphore::RecordSignal): signaled at every call, by one or two
// submissions of a call, each signal still completes in order, and a signal
// that does not advance the value still fails the semaphore.
TEST_P(CudaDriverTest, SemaphoresSignaledAtEveryCallReuseTheirEvents) {
  const uint32_t n = 256;
  Ref<Buffer> x = Upload(*device_, std::vector<float>(n, 0.0f));
  Result<Ref<Semaphore>> a = device_->CreateSemaphore(0);
  Result<Ref<Semaphore>> b = device_->CreateSemaphore(0);
  ASSERT_TRUE(a.ok() && b.ok());
  Ref<CommandBuffer> command_buffer = NewCommandBuffer(CommandBufferMode::kReusable);
  const uint32_t constants[] = {n};
  const BufferRef bindings[] = {BufferRef::Of(x)};
  ASSERT_TRUE(command_buffer->Dispatch(executable_, kAddOne, {1, 1, 1}, constants, bindings).ok());
  ASSERT_TRUE(command_buffer->End().ok());
  const Ref<CommandBuffer> list[] = {command_buffer};
  for (uint64_t call = 1; call <= 20; ++call) {
    // As a program's call: an empty submission signals a, the work waits on
    // it and signals a again and b; the host waits on a.
    ASSERT_TRUE(device_->QueueExecute(Fence(), Fence({{*a, 2 * call - 1}}), {}, {}).ok());
    ASSERT_TRUE(device_
                    ->QueueExecute(Fence({{*a, 2 * call - 1}}), Fence({{*a, 2 * call}, {*b, call}}),
                                   list, {})
                    .ok());
    ASSERT_TRUE((*a)->Wait(2 * call, std::chrono::seconds(20)).ok());
    ASSERT_TRUE((*b)->Wait(call, std::chrono::seconds(20)).ok());
    EXPECT_EQ(*(*a)->Query(), 2 * call);
    EXPECT_EQ(*(*b)->Query(), call);
  }
  EXPECT_EQ(Download(*x), std::vector<float>(n, 20.0f));
  // A queue signal at or below the value fails the semaphore (the submission
  // itself is accepted), whatever event it held.
  ASSERT_TRUE(device_->QueueExecute(Fence(), Fence({{*b, 5}}), list, {}).ok());
  Status failed = (*b)->Wait(21, std::chrono::seconds(5));
  EXPECT_EQ(failed.code(), StatusCode::kInvalidArgument) << failed.ToString();
  EXPECT_NE(failed.message().find("does not advance it"), std::string::npos) << failed.ToString();
  // The other semaphore goes on.
  ASSERT_TRUE(device_->QueueExecute(Fence(), Fence({{*a, 41}}), list, {}).ok());
  ASSERT_TRUE((*a)->Wait(41, std::chrono::seconds(20)).ok());
  EXPECT_EQ(Download(*x), std::vector<float>(n, 22.0f));
}

TEST_P(CudaDriverTest, FailedWaitFailsTheSignals) {
  Result<Ref<Semaphore>> gate = device_->CreateSemaphore(0);
  Result<Ref<Semaphore>> done = device_->CreateSemaphore(0);
  Ref<CommandBuffer> command_buffer = NewCommandBuffer();
  ASSERT_TRUE(command_buffer->End().ok());
  const Ref<CommandBuffer> list[] = {command_buffer};
  ASSERT_TRUE(device_->QueueExecute(Fence({{*gate, 1}}), Fence({{*done, 1}}), list, {}).ok());
  (*gate)->Fail(AbortedError("upstream work failed"));
  Status waited = (*done)->Wait(1, std::chrono::seconds(5));
  EXPECT_EQ(waited.code(), StatusCode::kAborted) << waited.ToString();
}

TEST_P(CudaDriverTest, DroppingTheDeviceAbortsWaitsNothingWillSatisfy) {
  Result<Ref<Semaphore>> never = device_->CreateSemaphore(0);
  Result<Ref<Semaphore>> done = device_->CreateSemaphore(0);
  ASSERT_TRUE(never.ok() && done.ok());
  ASSERT_TRUE(device_->QueueExecute(Fence({{*never, 1}}), Fence({{*done, 1}}), {}, {}).ok());
  executable_ = nullptr;
  device_ = nullptr;
  Status waited = (*done)->Wait(1, std::chrono::seconds(5));
  EXPECT_EQ(waited.code(), StatusCode::kAborted) << waited.ToString();
  EXPECT_NE(waited.message().find("the CUDA device was destroyed"), std::string::npos)
      << waited.ToString();
}

TEST_P(CudaDriverTest, QueueAllocaAndDealloca) {
  Result<Ref<Semaphore>> semaphore = device_->CreateSemaphore(0);
  Result<Ref<Buffer>> buffer = device_->QueueAlloca(Fence(), Fence({{*semaphore, 1}}), {}, 4096);
  ASSERT_TRUE(buffer.ok()) << buffer.status().ToString();
  Ref<CommandBuffer> command_buffer = NewCommandBuffer();
  ASSERT_TRUE(command_buffer->FillBuffer(BufferRef::Of(*buffer), FloatBits(3.0f), 4).ok());
  ASSERT_TRUE(command_buffer->End().ok());
  const Ref<CommandBuffer> list[] = {command_buffer};
  ASSERT_TRUE(
      device_->QueueExecute(Fence({{*semaphore, 1}}), Fence({{*semaphore, 2}}), list, {}).ok());
  ASSERT_TRUE((*semaphore)->Wait(2, std::chrono::seconds(20)).ok());
  EXPECT_EQ(Download(**buffer), std::vector<float>(1024, 3.0f));
  ASSERT_TRUE(
      device_->QueueDealloca(Fence({{*semaphore, 2}}), Fence({{*semaphore, 3}}), *buffer).ok());
  EXPECT_TRUE((*semaphore)->Wait(3, std::chrono::seconds(20)).ok());
}

TEST_P(CudaDriverTest, ReleasedDeviceMemoryIsReusedInStreamOrder) {
  // A function's results are allocated on every call: the block a released
  // buffer held serves the next allocation of its rounded size, without
  // CUDA, and work ordered after the release sees the new owner's data.
  auto* cuda = static_cast<CudaDevice*>(device_.get());
  StreamOrderedBlockCache& cache = cuda->context().block_cache();
  const size_t cached_before = cache.cached_bytes();
  Result<Ref<Buffer>> first = device_->allocator().Allocate({}, 4000);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  const CUdeviceptr address = CudaAllocationOf(**first, cuda->context())->device_pointer();
  ASSERT_TRUE((*first)->WriteData(0, std::vector<uint8_t>(4000, 7)).ok());
  *first = nullptr;
  EXPECT_EQ(cache.cached_bytes(), cached_before + StreamOrderedBlockCache::RoundSize(4000));
  // 3999 bytes round to the same block size.
  Result<Ref<Buffer>> second = device_->allocator().Allocate({}, 3999);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(CudaAllocationOf(**second, cuda->context())->device_pointer(), address);
  EXPECT_EQ(cache.cached_bytes(), cached_before);
  EXPECT_EQ((*second)->byte_length(), 3999u);
  ASSERT_TRUE((*second)->WriteData(0, std::vector<uint8_t>(3999, 9)).ok());
  std::vector<uint8_t> read(3999);
  ASSERT_TRUE((*second)->ReadData(0, read).ok());
  EXPECT_EQ(read, std::vector<uint8_t>(3999, 9));
  // Another size gets another block.
  Result<Ref<Buffer>> third = device_->allocator().Allocate({}, 1 << 20);
  ASSERT_TRUE(third.ok()) << third.status().ToString();
  EXPECT_NE(CudaAllocationOf(**third, cuda->context())->device_pointer(), address);
}

TEST_P(CudaDriverTest, ModulesAreCachedPerDevice) {
  auto* cuda = static_cast<CudaDevice*>(device_.get());
  const size_t before = cuda->module_cache().size();
  Result<Ref<Executable>> again = device_->CreateExecutable(
      "cuda-nvptx-fb", BuildCudaExecutable({{"sm_75", ptx_}}, TestExports()));
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(cuda->module_cache().size(), before);
}

TEST_P(CudaDriverTest, PicksTheNewestImageTheDeviceRuns) {
  // sm_75 and sm_80 images both run on any newer GPU: the newer is chosen.
  Result<Ref<Executable>> executable = device_->CreateExecutable(
      "cuda-nvptx-fb", BuildCudaExecutable({{"sm_75", ptx_}, {"sm_80", ptx_}}, TestExports()));
  ASSERT_TRUE(executable.ok()) << executable.status().ToString();
  EXPECT_EQ(static_cast<CudaExecutable*>(executable->get())->target_arch(), "sm_80");
}

TEST_P(CudaDriverTest, PtxForANewerArchitectureIsRefused) {
  Result<Ref<Executable>> executable = device_->CreateExecutable(
      "cuda-nvptx-fb", BuildCudaExecutable({{"sm_990", ptx_}}, TestExports()));
  ASSERT_FALSE(executable.ok());
  EXPECT_NE(executable.status().message().find("no PTX image runs on this sm_"), std::string::npos)
      << executable.status().ToString();
  EXPECT_NE(executable.status().message().find("sm_990"), std::string::npos);
}

TEST_P(CudaDriverTest, MissingKernelIsNamed) {
  Result<Ref<Executable>> executable = device_->CreateExecutable(
      "cuda-nvptx-fb",
      BuildCudaExecutable({{"sm_75", ptx_}}, {{"nope", "no_such_kernel", 64, {false}, 0}}));
  ASSERT_FALSE(executable.ok());
  EXPECT_EQ(executable.status().code(), StatusCode::kNotFound);
  EXPECT_NE(executable.status().message().find("has no kernel 'no_such_kernel'"), std::string::npos)
      << executable.status().ToString();
}

TEST_P(CudaDriverTest, PtxThatDoesNotLoadReportsTheJitLog) {
  std::string broken = ptx_;
  const size_t entry = broken.find(".entry add_one_inplace");
  ASSERT_NE(entry, std::string::npos);
  broken.insert(broken.find('{', entry) + 1, "\n\tthis_is_not_an_instruction;\n");
  Result<Ref<Executable>> executable = device_->CreateExecutable(
      "cuda-nvptx-fb", BuildCudaExecutable({{"sm_75", broken}}, TestExports()));
  ASSERT_FALSE(executable.ok());
  EXPECT_NE(executable.status().message().find("cuModuleLoadDataEx"), std::string::npos)
      << executable.status().ToString();
  EXPECT_NE(executable.status().message().find("JIT log"), std::string::npos)
      << executable.status().ToString();
}

TEST_P(CudaDriverTest, BlockLargerThanTheKernelAllowsIsRefused) {
  Result<Ref<Executable>> executable = device_->CreateExecutable(
      "cuda-nvptx-fb",
      BuildCudaExecutable({{"sm_75", ptx_}}, {{"bounded", "bounded", 256, {false}, 0}}));
  ASSERT_FALSE(executable.ok());
  EXPECT_NE(executable.status().message().find("256 threads per block, more than the 128"),
            std::string::npos)
      << executable.status().ToString();
}

TEST_P(CudaDriverTest, BufferOfAnotherDeviceIsRefused) {
  Result<Ref<cpu::CpuDevice>> cpu = cpu::CpuDevice::Create({false, 1});
  ASSERT_TRUE(cpu.ok());
  Result<Ref<Buffer>> host_buffer = (*cpu)->allocator().Allocate({}, 1024);
  ASSERT_TRUE(host_buffer.ok());
  Ref<CommandBuffer> command_buffer = NewCommandBuffer();
  const uint32_t constants[] = {256};
  const BufferRef bindings[] = {BufferRef::Of(*host_buffer)};
  Status status = command_buffer->Dispatch(executable_, kAddOne, {1, 1, 1}, constants, bindings);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("binding 0 is a buffer of another device"), std::string::npos)
      << status.ToString();
  // And through a binding table at submit.
  Ref<CommandBuffer> reusable = NewCommandBuffer(CommandBufferMode::kReusable);
  const BufferRef slot[] = {BufferRef::Slot(0)};
  ASSERT_TRUE(reusable->Dispatch(executable_, kAddOne, {1, 1, 1}, constants, slot).ok());
  ASSERT_TRUE(reusable->End().ok());
  const Ref<Buffer> table[] = {*host_buffer};
  Status submitted = SubmitAndWait(*device_, reusable, table);
  ASSERT_FALSE(submitted.ok());
  EXPECT_NE(submitted.message().find("slot 0 is a buffer of another device"), std::string::npos)
      << submitted.ToString();
}

// What a function with dynamic shapes records at every call: one-shot
// command buffers of one structure on new buffers, with other constants and
// other update bytes. The second and third adopt the graph the first built
// and patch it: its concrete buffers' addresses, the kernel constants and
// the update's staged source.
TEST_P(CudaDriverTest, OneShotCommandBuffersOfOneStructureShareACachedGraph) {
  const uint32_t n = 512;
  Ref<Buffer> half = Upload(*device_, std::vector<float>(n, 0.5f));
  struct Call {
    std::vector<float> a;
    float addend = 0;
    std::vector<float> update;
    Ref<Buffer> ab, cb, db;  // Made by `record` unless given.
    Ref<CommandBuffer> command_buffer;
  };
  // c = -1; c = a * 0.5 + addend; c += 1; c[0, 4) = update; d = c.
  auto record = [&](Call& call) {
    if (!call.ab) {
      call.ab = Upload(*device_, call.a);
      call.cb = Upload(*device_, std::vector<float>(n, 0.0f));
      call.db = Upload(*device_, std::vector<float>(n, 0.0f));
    }
    call.command_buffer = NewCommandBuffer();
    CommandBuffer& cb = *call.command_buffer;
    ASSERT_TRUE(cb.FillBuffer(BufferRef::Of(call.cb), FloatBits(-1.0f), 4).ok());
    ASSERT_TRUE(cb.ExecutionBarrier().ok());
    const uint32_t mul_constants[] = {n, FloatBits(call.addend)};
    const BufferRef mul_bindings[] = {BufferRef::Of(call.ab), BufferRef::Of(half),
                                      BufferRef::Of(call.cb)};
    ASSERT_TRUE(cb.Dispatch(executable_, kMulAdd, {2, 1, 1}, mul_constants, mul_bindings).ok());
    ASSERT_TRUE(cb.ExecutionBarrier().ok());
    const uint32_t add_constants[] = {n};
    const BufferRef add_bindings[] = {BufferRef::Of(call.cb)};
    ASSERT_TRUE(cb.Dispatch(executable_, kAddOne, {2, 1, 1}, add_constants, add_bindings).ok());
    ASSERT_TRUE(cb.ExecutionBarrier().ok());
    const std::span<const uint8_t> update(reinterpret_cast<const uint8_t*>(call.update.data()),
                                          call.update.size() * sizeof(float));
    ASSERT_TRUE(cb.UpdateBuffer(update, BufferRef::Of(call.cb, 0, update.size())).ok());
    ASSERT_TRUE(cb.ExecutionBarrier().ok());
    ASSERT_TRUE(cb.CopyBuffer(BufferRef::Of(call.cb), BufferRef::Of(call.db), kWholeBuffer).ok());
    ASSERT_TRUE(cb.End().ok());
  };
  auto expect_results = [&](const Call& call) {
    std::vector<float> expected(n);
    for (uint32_t i = 0; i < n; ++i) {
      expected[i] = i < 4 ? call.update[i] : call.a[i] * 0.5f + call.addend + 1.0f;
    }
    EXPECT_EQ(Download(*call.cb), expected);
    EXPECT_EQ(Download(*call.db), expected);
  };
  std::vector<Call> calls(3);
  for (uint32_t i = 0; i < n; ++i) {
    calls[0].a.push_back(static_cast<float>(i));
    calls[1].a.push_back(static_cast<float>(2 * i));
  }
  calls[0].addend = 3.0f;
  calls[0].update = {1, 2, 3, 4};
  calls[1].addend = 5.0f;
  calls[1].update = {5, 6, 7, 8};
  // The third runs on the second's buffers: only the dispatch's constant
  // and the update's bytes differ.
  calls[2].a = calls[1].a;
  calls[2].addend = 7.0f;
  calls[2].update = {9, 10, 11, 12};
  for (size_t c = 0; c < calls.size(); ++c) {
    SCOPED_TRACE("call " + std::to_string(c));
    if (c == 2) {
      calls[2].ab = calls[1].ab;
      calls[2].cb = calls[1].cb;
      calls[2].db = calls[1].db;
    }
    record(calls[c]);
    ASSERT_TRUE(calls[c].command_buffer->is_ended());
    Status ran = SubmitAndWait(*device_, calls[c].command_buffer);
    ASSERT_TRUE(ran.ok()) << ran.ToString();
    expect_results(calls[c]);
    if (!graphs()) continue;
    const GraphCache::Statistics statistics = GraphCacheStatistics();
    EXPECT_EQ(statistics.misses, 1u);
    EXPECT_EQ(statistics.hits, c);
    EXPECT_EQ(statistics.size, 1u);  // Given back after each launch.
    auto* graph = dynamic_cast<GraphCommandBuffer*>(calls[c].command_buffer.get());
    ASSERT_NE(graph, nullptr);
    EXPECT_EQ(graph->node_count(), 5u);
    EXPECT_EQ(graph->instantiation_count(), c == 0 ? 1u : 0u);
    EXPECT_EQ(graph->adopted_cached_graph(), c != 0);
    // First: nothing to patch. Second: every node (the fill, both kernels,
    // the update's staged source and its target, the copy). Third: the
    // first kernel's constant and the update's staged source (the second
    // command buffer, alive, still holds its own).
    const uint64_t patched[] = {0, 5, 2};
    EXPECT_EQ(graph->patched_node_count(), patched[c]);
  }
  // The later patches left the first call's results alone.
  expect_results(calls[0]);
}

// What a patch cannot change is another structure: a workgroup count, a
// fill's length or pattern. Each builds its own graph; the same structure
// on another buffer then finds its graph.
TEST_P(CudaDriverTest, OneShotCommandBuffersOfAnotherStructureBuildTheirOwnGraph) {
  const uint32_t n = 1024;
  Ref<Buffer> x = Upload(*device_, std::vector<float>(n, 0.0f));
  const uint32_t constants[] = {n};
  const BufferRef on_x[] = {BufferRef::Of(x)};
  // 2 workgroups: x[0, 512) += 1; 4 workgroups: all of x += 1.
  for (uint32_t workgroups : {2u, 4u}) {
    Ref<CommandBuffer> command_buffer = NewCommandBuffer();
    ASSERT_TRUE(
        command_buffer->Dispatch(executable_, kAddOne, {workgroups, 1, 1}, constants, on_x).ok());
    ASSERT_TRUE(command_buffer->End().ok());
    ASSERT_TRUE(SubmitAndWait(*device_, command_buffer).ok());
  }
  std::vector<float> expected(n, 1.0f);
  std::fill(expected.begin(), expected.begin() + 512, 2.0f);
  EXPECT_EQ(Download(*x), expected);
  if (graphs()) {
    EXPECT_EQ(GraphCacheStatistics().misses, 2u);
    EXPECT_EQ(GraphCacheStatistics().hits, 0u);
  }

  Ref<Buffer> y = Upload(*device_, std::vector<float>(64, 0.0f));
  Ref<Buffer> z = Upload(*device_, std::vector<float>(64, 0.0f));
  struct Fill {
    Ref<Buffer> target;
    size_t length;
    float value;
    bool hit;
  };
  // 16 floats, 32 floats (another length), 32 floats of another value
  // (another pattern), then 32 floats of that value on another buffer
  // (the same structure: a hit).
  const Fill fills[] = {
      {y, 64, 7.0f, false}, {y, 128, 8.0f, false}, {y, 128, 9.0f, false}, {z, 128, 9.0f, true}};
  for (const Fill& fill : fills) {
    Ref<CommandBuffer> command_buffer = NewCommandBuffer();
    ASSERT_TRUE(
        command_buffer
            ->FillBuffer(BufferRef::Of(fill.target, 0, fill.length), FloatBits(fill.value), 4)
            .ok());
    ASSERT_TRUE(command_buffer->End().ok());
    const GraphCache::Statistics before = GraphCacheStatistics();
    ASSERT_TRUE(SubmitAndWait(*device_, command_buffer).ok());
    if (!graphs()) continue;
    const GraphCache::Statistics after = GraphCacheStatistics();
    EXPECT_EQ(after.hits - before.hits, fill.hit ? 1u : 0u) << fill.length << " " << fill.value;
    EXPECT_EQ(after.misses - before.misses, fill.hit ? 0u : 1u) << fill.length << " " << fill.value;
    auto* graph = dynamic_cast<GraphCommandBuffer*>(command_buffer.get());
    ASSERT_NE(graph, nullptr);
    EXPECT_EQ(graph->instantiation_count(), fill.hit ? 0u : 1u);
  }
  std::vector<float> y_expected(64, 0.0f), z_expected(64, 0.0f);
  std::fill(y_expected.begin(), y_expected.begin() + 32, 9.0f);
  std::fill(z_expected.begin(), z_expected.begin() + 32, 9.0f);
  EXPECT_EQ(Download(*y), y_expected);
  EXPECT_EQ(Download(*z), z_expected);
  if (graphs()) {
    EXPECT_EQ(GraphCacheStatistics().size, 5u);
  }
}

// Two one-shot command buffers of one structure, both recorded before
// either runs and submitted together: the first builds the graph, launches
// it and gives it back; the second takes it, patches it and launches it.
// The patch must not change the launch already enqueued (CUDA's rule), so
// each computes its own result.
TEST_P(CudaDriverTest, OneShotCommandBuffersOfOneStructureAliveAtOnce) {
  const uint32_t n = 4096;
  std::vector<float> a(n);
  for (uint32_t i = 0; i < n; ++i) a[i] = static_cast<float>(i);
  Ref<Buffer> ab = Upload(*device_, a), half = Upload(*device_, std::vector<float>(n, 0.5f));
  std::vector<Ref<Buffer>> outputs;
  std::vector<Ref<CommandBuffer>> command_buffers;
  const float addends[] = {3.0f, 5.0f, 7.0f};
  for (float addend : addends) {
    Ref<Buffer>& out = outputs.emplace_back(Upload(*device_, std::vector<float>(n, 0.0f)));
    Ref<CommandBuffer>& command_buffer = command_buffers.emplace_back(NewCommandBuffer());
    const uint32_t constants[] = {n, FloatBits(addend)};
    const BufferRef bindings[] = {BufferRef::Of(ab), BufferRef::Of(half), BufferRef::Of(out)};
    ASSERT_TRUE(
        command_buffer->Dispatch(executable_, kMulAdd, {n / 256, 1, 1}, constants, bindings).ok());
    ASSERT_TRUE(command_buffer->End().ok());
  }
  // The first two in one submission, the third in another after them.
  Result<Ref<Semaphore>> done = device_->CreateSemaphore(0);
  ASSERT_TRUE(done.ok());
  const Ref<CommandBuffer> together[] = {command_buffers[0], command_buffers[1]};
  ASSERT_TRUE(device_->QueueExecute(Fence(), Fence({{*done, 1}}), together, {}).ok());
  const Ref<CommandBuffer> after[] = {command_buffers[2]};
  ASSERT_TRUE(device_->QueueExecute(Fence(), Fence({{*done, 2}}), after, {}).ok());
  ASSERT_TRUE((*done)->Wait(2, std::chrono::seconds(20)).ok());
  for (size_t b = 0; b < outputs.size(); ++b) {
    std::vector<float> out = Download(*outputs[b]);
    for (uint32_t i = 0; i < n; ++i) {
      ASSERT_EQ(out[i], a[i] * 0.5f + addends[b]) << "command buffer " << b << " element " << i;
    }
  }
  if (!graphs()) return;
  const GraphCache::Statistics statistics = GraphCacheStatistics();
  EXPECT_EQ(statistics.misses, 1u);
  EXPECT_EQ(statistics.hits, 2u);
  EXPECT_EQ(statistics.size, 1u);
  for (size_t b = 0; b < command_buffers.size(); ++b) {
    auto* graph = dynamic_cast<GraphCommandBuffer*>(command_buffers[b].get());
    ASSERT_NE(graph, nullptr);
    EXPECT_EQ(graph->instantiation_count(), b == 0 ? 1u : 0u) << b;
  }
}

// A result read back into host memory (pinned host, managed): CUDA takes
// the patch of such a copy node to another allocation but the graph then
// faults, so these command lists build their own graph at each submit and
// never use the cache. Each call copies into a new host buffer, of each
// host memory type, and reads its own values.
TEST_P(CudaDriverTest, OneShotCopiesIntoHostMemoryNeverShareAGraph) {
  const uint32_t n = 256;
  for (MemoryTypeBits type : {MemoryTypeBits{kMemoryTypeHostVisible},
                              MemoryTypeBits{kMemoryTypeDeviceLocal | kMemoryTypeHostVisible}}) {
    SCOPED_TRACE(FormatMemoryType(type));
    for (int call = 0; call < 4; ++call) {
      SCOPED_TRACE("call " + std::to_string(call));
      std::vector<float> values(n);
      for (uint32_t i = 0; i < n; ++i) values[i] = static_cast<float>(call * 1000 + i);
      Ref<Buffer> source = Upload(*device_, values);
      Result<Ref<Buffer>> host =
          device_->allocator().Allocate({type, kBufferUsageDefault}, n * sizeof(float));
      ASSERT_TRUE(host.ok()) << host.status().ToString();
      Ref<CommandBuffer> command_buffer = NewCommandBuffer();
      const uint32_t constants[] = {n};
      const BufferRef bindings[] = {BufferRef::Of(source)};
      ASSERT_TRUE(
          command_buffer->Dispatch(executable_, kAddOne, {1, 1, 1}, constants, bindings).ok());
      ASSERT_TRUE(command_buffer->ExecutionBarrier().ok());
      ASSERT_TRUE(
          command_buffer->CopyBuffer(BufferRef::Of(source), BufferRef::Of(*host), kWholeBuffer)
              .ok());
      ASSERT_TRUE(command_buffer->End().ok());
      Status ran = SubmitAndWait(*device_, command_buffer);
      ASSERT_TRUE(ran.ok()) << ran.ToString();
      for (float& v : values) v += 1.0f;
      EXPECT_EQ(Download(**host), values);
      if (!graphs()) continue;
      const GraphCache::Statistics statistics = GraphCacheStatistics();
      EXPECT_EQ(statistics.hits, 0u);
      EXPECT_EQ(statistics.misses, 0u);
      EXPECT_EQ(statistics.size, 0u);
      auto* graph = dynamic_cast<GraphCommandBuffer*>(command_buffer.get());
      ASSERT_NE(graph, nullptr);
      EXPECT_FALSE(graph->adopted_cached_graph());
      EXPECT_EQ(graph->instantiation_count(), 1u);
    }
  }
}

// The cache keeps at most its capacity of graphs: one structure more evicts
// the least recently used, which then builds again; the most recent is
// still found.
TEST_P(CudaDriverTest, OneShotGraphCacheIsBounded) {
  const uint32_t structures = static_cast<uint32_t>(GraphCache::kDefaultCapacity) + 1;
  const uint32_t n = structures * 256;
  Ref<Buffer> x = Upload(*device_, std::vector<float>(n, 0.0f));
  const uint32_t constants[] = {n};
  const BufferRef on_x[] = {BufferRef::Of(x)};
  // Workgroup count w adds 1 to x[0, 256 w).
  std::vector<float> expected(n, 0.0f);
  auto run = [&](uint32_t workgroups) {
    Ref<CommandBuffer> command_buffer = NewCommandBuffer();
    ASSERT_TRUE(
        command_buffer->Dispatch(executable_, kAddOne, {workgroups, 1, 1}, constants, on_x).ok());
    ASSERT_TRUE(command_buffer->End().ok());
    ASSERT_TRUE(SubmitAndWait(*device_, command_buffer).ok());
    for (uint32_t i = 0; i < workgroups * 256; ++i) expected[i] += 1.0f;
  };
  for (uint32_t w = 1; w <= structures; ++w) run(w);
  if (graphs()) {
    const GraphCache::Statistics statistics = GraphCacheStatistics();
    EXPECT_EQ(statistics.misses, structures);
    EXPECT_EQ(statistics.hits, 0u);
    EXPECT_EQ(statistics.size, GraphCache::kDefaultCapacity);
    EXPECT_EQ(statistics.evictions, 1u);
  }
  // 1 was evicted (the least recently used): built again, evicting 2.
  run(1);
  // The most recent structure is still cached.
  run(structures);
  EXPECT_EQ(Download(*x), expected);
  if (graphs()) {
    const GraphCache::Statistics statistics = GraphCacheStatistics();
    EXPECT_EQ(statistics.misses, structures + 1);
    EXPECT_EQ(statistics.hits, 1u);
    EXPECT_EQ(statistics.size, GraphCache::kDefaultCapacity);
    EXPECT_EQ(statistics.evictions, 2u);
  }
}

// Reusable command buffers never use the cache.
TEST_P(CudaDriverTest, ReusableCommandBuffersKeepTheirOwnGraph) {
  const uint32_t n = 256;
  Ref<Buffer> x = Upload(*device_, std::vector<float>(n, 0.0f));
  const uint32_t constants[] = {n};
  const BufferRef on_x[] = {BufferRef::Of(x)};
  for (int i = 0; i < 2; ++i) {
    Ref<CommandBuffer> command_buffer = NewCommandBuffer(CommandBufferMode::kReusable);
    ASSERT_TRUE(command_buffer->Dispatch(executable_, kAddOne, {1, 1, 1}, constants, on_x).ok());
    ASSERT_TRUE(command_buffer->End().ok());
    ASSERT_TRUE(SubmitAndWait(*device_, command_buffer).ok());
    ASSERT_TRUE(SubmitAndWait(*device_, command_buffer).ok());
    if (auto* graph = dynamic_cast<GraphCommandBuffer*>(command_buffer.get())) {
      EXPECT_EQ(graph->instantiation_count(), 1u);
      EXPECT_FALSE(graph->adopted_cached_graph());
    }
  }
  EXPECT_EQ(Download(*x), std::vector<float>(n, 4.0f));
  const GraphCache::Statistics statistics = GraphCacheStatistics();
  EXPECT_EQ(statistics.hits + statistics.misses + statistics.size, 0u);
}

INSTANTIATE_TEST_SUITE_P(Modes, CudaDriverTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? std::string("Streams") : std::string("Graphs");
                         });

}  // namespace
}  // namespace kiln::hal::cuda
