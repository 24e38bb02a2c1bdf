// Dispatches, transfers and queue operations on the CPU devices: "cpu"
// (threaded queue and thread pool, default and 4 threads) and "cpu-sync"
// (inline), through an in-process executable that follows the kernel ABI.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "hal/trace.h"
#include "tests/hal/test_util.h"
#include "tests/hal/trace_test_util.h"

namespace kiln::hal {
namespace {

using namespace std::chrono_literals;
using testing::kFailIn;
using testing::kIncrement;
using testing::kMulAdd;
using testing::kRecordIds;
using testing::MakeBuffer;
using testing::ReadBuffer;
using testing::SubmitAndWait;
using testing::Unwrap;

constexpr Timeout kLongWait = std::chrono::seconds(30);

class CpuDispatchTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "cpu-4-threads") {
      device_ = Ref<Device>(Unwrap(cpu::CpuDevice::Create({true, 4})));
      EXPECT_EQ(device_->properties().thread_count, 4u);
    } else {
      device_ = testing::CreateDevice(GetParam());
    }
    executable_ = testing::MakeTestExecutable();
  }

  Ref<CommandBuffer> Begin(CommandBufferMode mode = CommandBufferMode::kOneShot) {
    Ref<CommandBuffer> cb = Unwrap(device_->CreateCommandBuffer(mode));
    EXPECT_TRUE(cb->Begin().ok());
    return cb;
  }
  Ref<Semaphore> NewSemaphore(uint64_t value = 0) {
    return Unwrap(device_->CreateSemaphore(value));
  }
  // Runs mul_add(in -> out) with constants (n, mul, add).
  Status RecordMulAdd(CommandBuffer& cb, BufferRef in, BufferRef out, uint32_t n, int32_t mul,
                      int32_t add) {
    const uint32_t constants[] = {n, static_cast<uint32_t>(mul), static_cast<uint32_t>(add)};
    const BufferRef bindings[] = {std::move(in), std::move(out)};
    return cb.Dispatch(executable_, kMulAdd, {(n + 3) / 4, 1, 1}, constants, bindings);
  }

  Ref<Device> device_;
  Ref<Executable> executable_;
};

TEST_P(CpuDispatchTest, EveryWorkgroupRunsOnceWithItsIdCountAndSize) {
  Ref<Buffer> out = MakeBuffer(*device_, std::vector<uint32_t>(5 * 3 * 2 * 4, 0));
  Ref<CommandBuffer> cb = Begin();
  const BufferRef bindings[] = {BufferRef::Of(out)};
  KILN_ASSERT_OK(cb->Dispatch(executable_, kRecordIds, {5, 3, 2}, {}, bindings));
  KILN_ASSERT_OK(cb->End());
  KILN_ASSERT_OK(SubmitAndWait(*device_, cb));
  std::vector<uint32_t> values = ReadBuffer<uint32_t>(*out);
  for (uint32_t z = 0; z < 2; ++z) {
    for (uint32_t y = 0; y < 3; ++y) {
      for (uint32_t x = 0; x < 5; ++x) {
        size_t linear = (x + 5 * (y + 3 * z)) * 4;
        EXPECT_EQ(values[linear + 0], x + 1);
        EXPECT_EQ(values[linear + 1], y + 1);
        EXPECT_EQ(values[linear + 2], z + 1);
        EXPECT_EQ(values[linear + 3], 30201u);  // Workgroup size (3, 2, 1).
      }
    }
  }
}

// With a trace attached, each dispatch of a submission becomes a device
// span named after the executable and export; without one, none.
TEST_P(CpuDispatchTest, TracedSubmissionHasADeviceSpanPerDispatch) {
  executable_->set_name("ex");
  Ref<Buffer> data = MakeBuffer(*device_, std::vector<int32_t>(64, 1));
  Ref<Buffer> counter = MakeBuffer(*device_, std::vector<uint32_t>(1, 0));
  auto record = [&] {
    Ref<CommandBuffer> cb = Begin();
    EXPECT_TRUE(RecordMulAdd(*cb, BufferRef::Of(data), BufferRef::Of(data), 64, 2, 1).ok());
    const BufferRef bindings[] = {BufferRef::Of(counter)};
    EXPECT_TRUE(cb->Dispatch(executable_, kIncrement, {1, 1, 1}, {}, bindings).ok());
    EXPECT_TRUE(RecordMulAdd(*cb, BufferRef::Of(data), BufferRef::Of(data), 64, 1, 3).ok());
    EXPECT_TRUE(cb->End().ok());
    return cb;
  };
  Ref<Trace> trace = Trace::Create(/*record_spans=*/true);
  KILN_ASSERT_OK(SubmitAndWait(*device_, record()));
  EXPECT_TRUE(trace->Spans().empty());  // Not attached yet.

  device_->AttachTrace(trace);
  const int64_t begin_ns = trace->Now();
  KILN_ASSERT_OK(SubmitAndWait(*device_, record()));
  const int64_t end_ns = trace->Now();
  device_->FlushTrace();
  testing::ExpectDispatchSpans(
      *trace, {"dispatch @ex::@mul_add", "dispatch @ex::@increment", "dispatch @ex::@mul_add"},
      begin_ns, end_ns);

  // Detached (a trace that records no spans detaches too): nothing more.
  device_->AttachTrace(Trace::Create(/*record_spans=*/false));
  EXPECT_FALSE(device_->attached_trace());
  KILN_ASSERT_OK(SubmitAndWait(*device_, record()));
  EXPECT_EQ(testing::DeviceSpans(*trace).size(), 3u);
  EXPECT_EQ(ReadBuffer<uint32_t>(*counter)[0], 3u);
}

TEST_P(CpuDispatchTest, ConstantsAndBindingsReachTheKernel) {
  std::vector<int32_t> input(1000);
  for (int32_t i = 0; i < 1000; ++i) input[i] = i;
  Ref<Buffer> in = MakeBuffer(*device_, input);
  Ref<Buffer> out = MakeBuffer(*device_, std::vector<int32_t>(1002, -1));
  Ref<CommandBuffer> cb = Begin();
  KILN_ASSERT_OK(RecordMulAdd(*cb, BufferRef::Of(in), BufferRef::Of(out), 1000, 3, -7));
  KILN_ASSERT_OK(cb->End());
  KILN_ASSERT_OK(SubmitAndWait(*device_, cb));
  std::vector<int32_t> values = ReadBuffer<int32_t>(*out);
  for (int32_t i = 0; i < 1000; ++i) ASSERT_EQ(values[i], 3 * i - 7) << i;
  EXPECT_EQ(values[1000], -1);  // Past n: untouched.
  EXPECT_EQ(values[1001], -1);
}

TEST_P(CpuDispatchTest, BindingOffsetsAndSubspans) {
  Ref<Buffer> data = MakeBuffer(*device_, std::vector<uint32_t>{0, 0, 0, 0, 0xABCD, 0x1234, 0, 0});
  Ref<Buffer> sub = Unwrap(Buffer::Subspan(data, 8, 24));  // Elements 2..7.
  Ref<Buffer> out = MakeBuffer(*device_, std::vector<uint64_t>(8, 0));
  Ref<CommandBuffer> cb = Begin();
  // Binding 0 is element 4 (offset 8 into the subspan, 8 bytes long);
  // binding 1 is the out buffer from byte 8.
  const BufferRef bindings[] = {BufferRef::Of(sub, 8, 8), BufferRef::Of(out, 8)};
  KILN_ASSERT_OK(cb->Dispatch(executable_, testing::kDescribe, {1, 1, 1}, {}, bindings));
  KILN_ASSERT_OK(cb->End());
  KILN_ASSERT_OK(SubmitAndWait(*device_, cb));
  std::vector<uint64_t> values = ReadBuffer<uint64_t>(*out);
  EXPECT_EQ(values[0], 0u);       // Before the binding's offset.
  EXPECT_EQ(values[1], 2u);       // binding_count
  EXPECT_EQ(values[2], 0u);       // constant_count
  EXPECT_EQ(values[3], 8u);       // binding 0 length
  EXPECT_EQ(values[4], 56u);      // binding 1 length: 64 - 8
  EXPECT_EQ(values[5], 0xABCDu);  // first word of binding 0
}

TEST_P(CpuDispatchTest, ReusableCommandBufferRunsOnEachSubmitsBindingTable) {
  Ref<CommandBuffer> cb = Begin(CommandBufferMode::kReusable);
  KILN_ASSERT_OK(RecordMulAdd(*cb, BufferRef::Slot(0), BufferRef::Slot(1, 4), 6, 10, 1));
  KILN_ASSERT_OK(cb->End());
  Ref<Buffer> in_a = MakeBuffer(*device_, std::vector<int32_t>{1, 2, 3, 4, 5, 6});
  Ref<Buffer> out_a = MakeBuffer(*device_, std::vector<int32_t>(7, 0));
  Ref<Buffer> in_b = MakeBuffer(*device_, std::vector<int32_t>{-1, -2, -3, -4, -5, -6, 99});
  Ref<Buffer> out_b = MakeBuffer(*device_, std::vector<int32_t>(8, 0));
  const Ref<Buffer> table_a[] = {in_a, out_a};
  const Ref<Buffer> table_b[] = {in_b, out_b};
  KILN_ASSERT_OK(SubmitAndWait(*device_, cb, table_a));
  KILN_ASSERT_OK(SubmitAndWait(*device_, cb, table_b));
  EXPECT_EQ(ReadBuffer<int32_t>(*out_a), (std::vector<int32_t>{0, 11, 21, 31, 41, 51, 61}));
  EXPECT_EQ(ReadBuffer<int32_t>(*out_b), (std::vector<int32_t>{0, -9, -19, -29, -39, -49, -59, 0}));
  // A third run on a subspan as a slot.
  Ref<Buffer> out_c = MakeBuffer(*device_, std::vector<int32_t>(9, 0));
  const Ref<Buffer> table_c[] = {in_a, Unwrap(Buffer::Subspan(out_c, 8, 28))};
  KILN_ASSERT_OK(SubmitAndWait(*device_, cb, table_c));
  EXPECT_EQ(ReadBuffer<int32_t>(*out_c), (std::vector<int32_t>{0, 0, 0, 11, 21, 31, 41, 51, 61}));
}

TEST_P(CpuDispatchTest, FillCopyAndUpdateInRecordedOrder) {
  Ref<Buffer> a = MakeBuffer(*device_, std::vector<uint8_t>(16, 0));
  Ref<Buffer> b = MakeBuffer(*device_, std::vector<uint8_t>(20, 0xEE));
  Ref<CommandBuffer> cb = Begin();
  KILN_ASSERT_OK(cb->FillBuffer(BufferRef::Of(a), 0x11, 1));
  std::vector<uint8_t> update = {1, 2, 3, 4};
  KILN_ASSERT_OK(cb->UpdateBuffer(update, BufferRef::Of(a, 4)));
  update = {9, 9, 9, 9};  // Taken at record time: later changes do not matter.
  KILN_ASSERT_OK(cb->ExecutionBarrier());
  KILN_ASSERT_OK(cb->CopyBuffer(BufferRef::Of(a), BufferRef::Of(b, 2), kWholeBuffer));
  KILN_ASSERT_OK(cb->ExecutionBarrier());
  KILN_ASSERT_OK(cb->FillBuffer(BufferRef::Of(b, 12, 4), 0xBEEF, 2));
  KILN_ASSERT_OK(cb->FillBuffer(BufferRef::Of(b, 16), 0xA1B2C3D4, 4));
  KILN_ASSERT_OK(cb->End());
  KILN_ASSERT_OK(SubmitAndWait(*device_, cb));
  std::vector<uint8_t> expected = {0xEE, 0xEE, 0x11, 0x11, 0x11, 0x11, 1,    2,    3,    4,
                                   0x11, 0x11, 0xEF, 0xBE, 0xEF, 0xBE, 0xD4, 0xC3, 0xB2, 0xA1};
  EXPECT_EQ(ReadBuffer<uint8_t>(*b), expected);
}

TEST_P(CpuDispatchTest, BarriersOrderDependentDispatches) {
  Ref<Buffer> counter = MakeBuffer(*device_, std::vector<int32_t>{0});
  Ref<Buffer> in = MakeBuffer(*device_, std::vector<int32_t>{1, 2, 3, 4, 5, 6, 7, 8, 9});
  Ref<Buffer> mid = MakeBuffer(*device_, std::vector<int32_t>(9, 0));
  Ref<Buffer> out = MakeBuffer(*device_, std::vector<int32_t>(9, 0));
  Ref<CommandBuffer> cb = Begin();
  const BufferRef bindings[] = {BufferRef::Of(counter)};
  for (int i = 0; i < 50; ++i) {
    KILN_ASSERT_OK(cb->Dispatch(executable_, kIncrement, {1, 1, 1}, {}, bindings));
    KILN_ASSERT_OK(cb->ExecutionBarrier());
  }
  KILN_ASSERT_OK(RecordMulAdd(*cb, BufferRef::Of(in), BufferRef::Of(mid), 9, 2, 0));
  KILN_ASSERT_OK(cb->ExecutionBarrier());
  KILN_ASSERT_OK(RecordMulAdd(*cb, BufferRef::Of(mid), BufferRef::Of(out), 9, 1, 100));
  KILN_ASSERT_OK(cb->End());
  KILN_ASSERT_OK(SubmitAndWait(*device_, cb));
  EXPECT_EQ(ReadBuffer<int32_t>(*counter)[0], 50);
  EXPECT_EQ(ReadBuffer<int32_t>(*out),
            (std::vector<int32_t>{102, 104, 106, 108, 110, 112, 114, 116, 118}));
}

TEST_P(CpuDispatchTest, FailingKernelFailsTheSubmissionWithAMessage) {
  Ref<Buffer> counter = MakeBuffer(*device_, std::vector<int32_t>{0});
  Ref<CommandBuffer> cb = Begin();
  const uint32_t constants[] = {7, 2};  // Return 7 from workgroup 2.
  KILN_ASSERT_OK(cb->Dispatch(executable_, kFailIn, {4, 1, 1}, constants, {}));
  // Commands after the failing one do not run.
  const BufferRef bindings[] = {BufferRef::Of(counter)};
  KILN_ASSERT_OK(cb->Dispatch(executable_, kIncrement, {1, 1, 1}, {}, bindings));
  KILN_ASSERT_OK(cb->End());
  Ref<Semaphore> done = NewSemaphore();
  Ref<Semaphore> after = NewSemaphore();
  Ref<Semaphore> independent = NewSemaphore();
  KILN_ASSERT_OK(device_->QueueExecute(Fence(), Fence{{done, 1}}, std::span(&cb, 1), {}));
  // A submission waiting on the failed one fails with the same status...
  Ref<CommandBuffer> next = Begin();
  KILN_ASSERT_OK(next->Dispatch(executable_, kIncrement, {1, 1, 1}, {}, bindings));
  KILN_ASSERT_OK(next->End());
  KILN_ASSERT_OK(
      device_->QueueExecute(Fence{{done, 1}}, Fence{{after, 1}}, std::span(&next, 1), {}));
  // ...while one that does not wait on it still runs.
  Ref<CommandBuffer> other = Begin();
  KILN_ASSERT_OK(other->Dispatch(executable_, kIncrement, {1, 1, 1}, {}, bindings));
  KILN_ASSERT_OK(other->End());
  KILN_ASSERT_OK(device_->QueueExecute(Fence(), Fence{{independent, 1}}, std::span(&other, 1), {}));

  Status status = Fence{{done, 1}}.Wait(kLongWait);
  EXPECT_EQ(status.code(), StatusCode::kInternal);
  for (const char* fragment :
       {"kernel 'fail_in'", "export 2", "workgroup (2, 0, 0) of (4, 1, 1)", "return code 7"}) {
    EXPECT_NE(status.message().find(fragment), std::string::npos)
        << "'" << fragment << "' not in " << status.message();
  }
  EXPECT_EQ(after->Wait(1, kLongWait).message(), status.message());
  KILN_ASSERT_OK(independent->Wait(1, kLongWait));
  EXPECT_EQ(ReadBuffer<int32_t>(*counter)[0], 1);  // Only `other` incremented.
}

TEST_P(CpuDispatchTest, QueueRunsInOrderAfterWaitSignalChains) {
  Ref<Buffer> counter = MakeBuffer(*device_, std::vector<int32_t>{5});
  Ref<Buffer> out = MakeBuffer(*device_, std::vector<int32_t>{0});
  Ref<Semaphore> host = NewSemaphore();
  Ref<Semaphore> first = NewSemaphore();
  Ref<Semaphore> second = NewSemaphore();
  Ref<Semaphore> third = NewSemaphore();
  Ref<CommandBuffer> increment = Begin();
  const BufferRef bindings[] = {BufferRef::Of(counter)};
  KILN_ASSERT_OK(increment->Dispatch(executable_, kIncrement, {1, 1, 1}, {}, bindings));
  KILN_ASSERT_OK(increment->End());
  Ref<CommandBuffer> scale = Begin();
  KILN_ASSERT_OK(RecordMulAdd(*scale, BufferRef::Of(counter), BufferRef::Of(out), 1, 10, 0));
  KILN_ASSERT_OK(scale->End());
  // increment waits for the host; scale waits for increment; a third
  // submission with no waits is still queued behind them (in order).
  KILN_ASSERT_OK(
      device_->QueueExecute(Fence{{host, 1}}, Fence{{first, 1}}, std::span(&increment, 1), {}));
  KILN_ASSERT_OK(
      device_->QueueExecute(Fence{{first, 1}}, Fence{{second, 1}}, std::span(&scale, 1), {}));
  KILN_ASSERT_OK(device_->QueueExecute(Fence(), Fence{{third, 1}}, {}, {}));
  EXPECT_EQ(third->Wait(1, 20ms).code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(second->Wait(1, 0ns).code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(ReadBuffer<int32_t>(*counter)[0], 5);
  KILN_ASSERT_OK(host->Signal(1));
  KILN_ASSERT_OK((Fence{{second, 1}, {third, 1}}.Wait(kLongWait)));
  EXPECT_EQ(*first->Query(), 1u);
  EXPECT_EQ(ReadBuffer<int32_t>(*out)[0], 60);
}

TEST_P(CpuDispatchTest, SignalFromAnotherThreadReleasesTheQueue) {
  Ref<Buffer> counter = MakeBuffer(*device_, std::vector<int32_t>{0});
  Ref<Semaphore> gate = NewSemaphore();
  Ref<Semaphore> done = NewSemaphore();
  const BufferRef bindings[] = {BufferRef::Of(counter)};
  for (uint64_t i = 1; i <= 20; ++i) {
    Ref<CommandBuffer> cb = Begin();
    KILN_ASSERT_OK(cb->Dispatch(executable_, kIncrement, {1, 1, 1}, {}, bindings));
    KILN_ASSERT_OK(cb->End());
    KILN_ASSERT_OK(
        device_->QueueExecute(Fence{{gate, i}}, Fence{{done, i}}, std::span(&cb, 1), {}));
  }
  std::thread signaler([&] {
    for (uint64_t i = 1; i <= 20; ++i) EXPECT_TRUE(gate->Signal(i).ok());
  });
  KILN_ASSERT_OK(done->Wait(20, kLongWait));
  signaler.join();
  EXPECT_EQ(ReadBuffer<int32_t>(*counter)[0], 20);
}

TEST_P(CpuDispatchTest, QueueAllocaAndDeallocaFollowQueueOrder) {
  Ref<Semaphore> host = NewSemaphore();
  Ref<Semaphore> allocated = NewSemaphore();
  Ref<Semaphore> computed = NewSemaphore();
  Ref<Semaphore> released = NewSemaphore();
  Ref<Buffer> buffer =
      Unwrap(device_->QueueAlloca(Fence{{host, 1}}, Fence{{allocated, 1}}, BufferParams{}, 16));
  EXPECT_EQ(buffer->byte_length(), 16u);
  EXPECT_EQ(allocated->Wait(1, 10ms).code(), StatusCode::kDeadlineExceeded);
  Ref<CommandBuffer> cb = Begin();
  KILN_ASSERT_OK(cb->FillBuffer(BufferRef::Of(buffer), 0x01020304, 4));
  KILN_ASSERT_OK(cb->End());
  KILN_ASSERT_OK(
      device_->QueueExecute(Fence{{allocated, 1}}, Fence{{computed, 1}}, std::span(&cb, 1), {}));
  KILN_ASSERT_OK(device_->QueueDealloca(Fence{{computed, 1}}, Fence{{released, 1}}, buffer));
  KILN_ASSERT_OK(host->Signal(1));
  KILN_ASSERT_OK(released->Wait(1, kLongWait));
  EXPECT_EQ(ReadBuffer<uint32_t>(*buffer), (std::vector<uint32_t>(4, 0x01020304)));
  EXPECT_EQ(device_->QueueDealloca(Fence(), Fence(), nullptr).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(
      device_->QueueAlloca(Fence(), Fence(), {1u << 8, kBufferUsageDefault}, 4).status().code(),
      StatusCode::kInvalidArgument);
}

TEST_P(CpuDispatchTest, DestroyingTheDeviceAbortsPendingSubmissions) {
  Ref<Semaphore> never = NewSemaphore();
  Ref<Semaphore> done = NewSemaphore();
  KILN_ASSERT_OK(device_->QueueExecute(Fence{{never, 1}}, Fence{{done, 1}}, {}, {}));
  device_ = nullptr;
  Status status = done->Wait(1, kLongWait);
  EXPECT_EQ(status.code(), StatusCode::kAborted);
  EXPECT_NE(status.message().find("destroyed"), std::string::npos) << status.message();
  KILN_ASSERT_OK(never->Signal(1));  // The queue is gone; nothing runs.
}

TEST_P(CpuDispatchTest, ManySubmissionsChainedFromSeveralThreads) {
  Ref<Buffer> counter = MakeBuffer(*device_, std::vector<int32_t>{0});
  Ref<Semaphore> timeline = NewSemaphore();
  Ref<CommandBuffer> cb = Begin(CommandBufferMode::kReusable);
  const BufferRef bindings[] = {BufferRef::Slot(0)};
  KILN_ASSERT_OK(cb->Dispatch(executable_, kIncrement, {1, 1, 1}, {}, bindings));
  KILN_ASSERT_OK(cb->End());
  const Ref<Buffer> table[] = {counter};
  // Each submission waits for the previous value and signals the next, so the
  // chain is a total order even though the submitting thread varies.
  std::mutex submit_mutex;
  uint64_t next_value = 1;
  auto submitter = [&] {
    for (int i = 0; i < 50; ++i) {
      std::lock_guard<std::mutex> lock(submit_mutex);
      uint64_t v = next_value++;
      EXPECT_TRUE(device_
                      ->QueueExecute(Fence{{timeline, v - 1}}, Fence{{timeline, v}},
                                     std::span(&cb, 1), table)
                      .ok());
    }
  };
  std::thread a(submitter), b(submitter);
  a.join();
  b.join();
  KILN_ASSERT_OK(timeline->Wait(100, kLongWait));
  EXPECT_EQ(ReadBuffer<int32_t>(*counter)[0], 100);
}

// Each workgroup arrives, then waits (bounded) until 4 have arrived: only a
// device running 4 workgroups at once passes. binding 0: uint32 counter.
int WaitForFourWorkgroups(const kiln_hal_dispatch_state_t* state) {
  uint32_t* counter = static_cast<uint32_t*>(state->bindings[0]);
  __atomic_fetch_add(counter, 1u, __ATOMIC_SEQ_CST);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (__atomic_load_n(counter, __ATOMIC_SEQ_CST) < 4) {
    if (std::chrono::steady_clock::now() > deadline) return 1;
    std::this_thread::yield();
  }
  return 0;
}

TEST(CpuParallelismTest, WorkgroupsRunConcurrentlyOnThePool) {
  Ref<Device> device = Ref<Device>(Unwrap(cpu::CpuDevice::Create({true, 4})));
  std::vector<cpu::CpuExport> exports = {
      {testing::MakeExport("rendezvous", {1, 1, 1}, 0, {false}), WaitForFourWorkgroups, nullptr}};
  Ref<Executable> executable =
      Ref<Executable>(Unwrap(cpu::CpuExecutable::Create("test-in-process", std::move(exports))));
  Ref<Buffer> counter = MakeBuffer(*device, std::vector<uint32_t>{0});
  Ref<CommandBuffer> cb = Unwrap(device->CreateCommandBuffer(CommandBufferMode::kOneShot));
  KILN_ASSERT_OK(cb->Begin());
  const BufferRef bindings[] = {BufferRef::Of(counter)};
  KILN_ASSERT_OK(cb->Dispatch(executable, 0, {2, 2, 1}, {}, bindings));
  KILN_ASSERT_OK(cb->End());
  KILN_ASSERT_OK(SubmitAndWait(*device, cb));
  EXPECT_EQ(ReadBuffer<uint32_t>(*counter)[0], 4u);
}

// A semaphore of some other driver: it records what it is signaled with.
class ForeignSemaphore final : public Semaphore {
 public:
  Result<uint64_t> Query() override { return signaled.load(); }
  Status Signal(uint64_t value) override {
    signaled.store(value);
    return OkStatus();
  }
  void Fail(Status) override {}
  Status Wait(uint64_t, Timeout) override { return OkStatus(); }
  std::atomic<uint64_t> signaled{0};
};

TEST_P(CpuDispatchTest, ForeignSemaphoresCanBeSignaledButNotWaitedOn) {
  Ref<ForeignSemaphore> foreign = MakeRef<ForeignSemaphore>();
  Status status = device_->QueueExecute(Fence{{foreign, 1}}, Fence(), {}, {});
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("wait semaphore was not created by a CPU device"),
            std::string::npos)
      << status.message();
  Ref<Semaphore> done = NewSemaphore();
  KILN_ASSERT_OK(device_->QueueExecute(Fence(), Fence{{foreign, 3}, {done, 1}}, {}, {}));
  KILN_ASSERT_OK(done->Wait(1, kLongWait));
  EXPECT_EQ(foreign->signaled.load(), 3u);
}

INSTANTIATE_TEST_SUITE_P(Devices, CpuDispatchTest,
                         ::testing::Values("cpu", "cpu-sync", "cpu-4-threads"),
                         testing::DeviceParamName);

}  // namespace
}  // namespace kiln::hal
