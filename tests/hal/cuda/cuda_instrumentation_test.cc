// Dispatch instrumentation on CUDA (label `gpu`; skips, saying why, where
// there is no CUDA device) with a hand-written PTX kernel that follows
// hal/cpu/kernel_abi.h's ABI as kiln-compile's instrumented kernels do
// (compiler/dispatch/instrument_dispatches.cc): the ring is the last
// binding and the site id the last constant; %globaltimer at entry, every
// thread meets at bar.sync, then thread 0 reads the clock again, claims a
// slot with atom.global.add.u32 on the header's `next` and writes the
// record.
//
// A reusable command buffer is what a memoized function records once, with
// the ring as a fixed buffer (the program's immutable ring global) and the
// function's buffers as binding-table slots. In graph mode it is a CUDA
// graph instantiated once and launched at every submit: the records come
// from the kernel's own atomics on device memory, so every replay must
// append its workgroups' records, with no rebuild of the graph per submit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "hal/cuda/graph_command_buffer.h"
#include "hal/instrumentation.h"
#include "tests/hal/cuda/cuda_test_util.h"

namespace kiln::hal::cuda {
namespace {

using testing::BuildCudaExecutable;
using testing::SubmitAndWait;

// count_and_record(uint32_t* counts, ring* ring, uint32_t site_id): every
// thread adds 1 to counts[blockIdx.x]; once all are done, thread 0 appends
// the workgroup's record (site id, block id, start and end of
// %globaltimer) at ring slot `next % capacity`, 32 bytes past the header.
constexpr const char* kInstrumentedPtx = R"(.version 7.0
.target sm_75
.address_size 64

.visible .entry count_and_record(
    .param .u64 counts,
    .param .u64 ring,
    .param .u32 site_id)
{
  .reg .pred %p<3>;
  .reg .b32 %r<10>;
  .reg .b64 %rd<12>;

  mov.u64 %rd1, %globaltimer;
  ld.param.u64 %rd2, [counts];
  cvta.to.global.u64 %rd3, %rd2;
  mov.u32 %r1, %ctaid.x;
  mul.wide.u32 %rd4, %r1, 4;
  add.s64 %rd5, %rd3, %rd4;
  red.global.add.u32 [%rd5], 1;
  bar.sync 0;
  mov.u32 %r2, %tid.x;
  setp.ne.u32 %p1, %r2, 0;
  @%p1 bra DONE;
  mov.u64 %rd6, %globaltimer;
  ld.param.u64 %rd7, [ring];
  cvta.to.global.u64 %rd8, %rd7;
  atom.global.add.u32 %r3, [%rd8], 1;
  ld.global.u32 %r4, [%rd8+4];
  setp.eq.u32 %p2, %r4, 0;
  @%p2 bra DONE;
  rem.u32 %r5, %r3, %r4;
  mul.wide.u32 %rd9, %r5, 32;
  add.s64 %rd10, %rd8, %rd9;
  ld.param.u32 %r6, [site_id];
  mov.u32 %r7, %ctaid.y;
  mov.u32 %r8, %ctaid.z;
  st.global.u32 [%rd10+32], %r6;
  st.global.u32 [%rd10+36], %r1;
  st.global.u32 [%rd10+40], %r7;
  st.global.u32 [%rd10+44], %r8;
  st.global.u64 [%rd10+48], %rd1;
  st.global.u64 [%rd10+56], %rd6;
DONE:
  ret;
}
)";

constexpr uint32_t kSiteId = 5;
constexpr uint32_t kWorkgroups = 7;
constexpr uint32_t kBlockSize = 64;
constexpr uint32_t kSubmits = 10;
constexpr uint64_t kRingBytes = 32 + 256 * 32;  // Room for all 70 records.

// A device buffer holding `bytes`.
Ref<Buffer> UploadBytes(Device& device, std::span<const uint8_t> bytes) {
  Result<Ref<Buffer>> buffer = device.allocator().Allocate(BufferParams{}, bytes.size());
  EXPECT_TRUE(buffer.ok()) << buffer.status().ToString();
  if (!buffer.ok()) return nullptr;
  Status written = (*buffer)->WriteData(0, bytes);
  EXPECT_TRUE(written.ok()) << written.ToString();
  return *buffer;
}

std::vector<uint8_t> DownloadBytes(Buffer& buffer) {
  std::vector<uint8_t> bytes(buffer.byte_length());
  Status read = buffer.ReadData(0, bytes);
  EXPECT_TRUE(read.ok()) << read.ToString();
  return bytes;
}

// Parameterised by the executor: false runs graphs (the default), true
// stream launches.
class CudaInstrumentationTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    std::string skip;
    device_ = testing::CreateCudaDevice(/*use_streams=*/GetParam(), &skip);
    if (!device_) GTEST_SKIP() << skip;
    Result<Ref<Executable>> executable = device_->CreateExecutable(
        "cuda-nvptx-fb",
        BuildCudaExecutable(
            {{"sm_75", kInstrumentedPtx}},
            {{"count_and_record", "count_and_record", kBlockSize, {false, false}, 1}}));
    ASSERT_TRUE(executable.ok()) << executable.status().ToString();
    executable_ = *executable;
  }

  Ref<Device> device_;
  Ref<Executable> executable_;
};

TEST_P(CudaInstrumentationTest, EveryReplayOfAReusableCommandBufferRecords) {
  Ref<Buffer> counts = UploadBytes(*device_, std::vector<uint8_t>(kWorkgroups * 4, 0));
  Ref<Buffer> ring = UploadBytes(*device_, NewInstrumentRingImage(kRingBytes));
  ASSERT_TRUE(counts && ring);
  Result<Ref<CommandBuffer>> created = device_->CreateCommandBuffer(CommandBufferMode::kReusable);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  Ref<CommandBuffer> command_buffer = *created;
  ASSERT_TRUE(command_buffer->Begin().ok());
  const uint32_t constants[] = {kSiteId};
  const BufferRef bindings[] = {BufferRef::Slot(0), BufferRef::Of(ring)};
  Status dispatched =
      command_buffer->Dispatch(executable_, 0, {kWorkgroups, 1, 1}, constants, bindings);
  ASSERT_TRUE(dispatched.ok()) << dispatched.ToString();
  ASSERT_TRUE(command_buffer->End().ok());

  const Ref<Buffer> table[] = {counts};
  for (uint32_t submit = 0; submit < kSubmits; ++submit) {
    Status done = SubmitAndWait(*device_, command_buffer, table);
    ASSERT_TRUE(done.ok()) << "submit " << submit << ": " << done.ToString();
  }

  // The kernel itself ran every time: each of a block's threads added 1.
  std::vector<uint8_t> count_bytes = DownloadBytes(*counts);
  for (uint32_t block = 0; block < kWorkgroups; ++block) {
    uint32_t count = 0;
    std::memcpy(&count, count_bytes.data() + block * 4, sizeof(count));
    EXPECT_EQ(count, kSubmits * kBlockSize) << "block " << block;
  }

  Result<RingContents> contents = ParseInstrumentRing(DownloadBytes(*ring));
  ASSERT_TRUE(contents.ok()) << contents.status().ToString();
  EXPECT_EQ(contents->header.next, kSubmits * kWorkgroups);
  EXPECT_EQ(contents->dropped, 0u);
  ASSERT_EQ(contents->records.size(), kSubmits * kWorkgroups);
  // Slots are claimed in launch order: submit k wrote records
  // [k * kWorkgroups, (k + 1) * kWorkgroups), one per block, each after the
  // previous submit's (which the host waited for).
  std::map<uint32_t, uint32_t> records_per_block;
  uint64_t previous_end = 0;
  for (uint32_t submit = 0; submit < kSubmits; ++submit) {
    uint64_t first_start = ~uint64_t{0}, last_end = 0;
    for (uint32_t i = 0; i < kWorkgroups; ++i) {
      const kiln_hal_instrument_record_t& record = contents->records[submit * kWorkgroups + i];
      EXPECT_EQ(record.site_id, kSiteId);
      EXPECT_LT(record.workgroup_id[0], kWorkgroups);
      EXPECT_EQ(record.workgroup_id[1], 0u);
      EXPECT_EQ(record.workgroup_id[2], 0u);
      EXPECT_GT(record.start, 0u);
      EXPECT_LE(record.start, record.end);
      ++records_per_block[record.workgroup_id[0]];
      first_start = std::min(first_start, record.start);
      last_end = std::max(last_end, record.end);
    }
    EXPECT_GE(first_start, previous_end) << "submit " << submit;
    previous_end = last_end;
  }
  ASSERT_EQ(records_per_block.size(), kWorkgroups);
  for (const auto& [block, records] : records_per_block) {
    EXPECT_EQ(records, kSubmits) << "block " << block;
  }

  if (auto* graph = dynamic_cast<GraphCommandBuffer*>(command_buffer.get())) {
    // Instantiated once (at End); every submit launched that graph.
    EXPECT_EQ(graph->instantiation_count(), 1u);
    EXPECT_EQ(graph->node_count(), 1u);
  } else {
    EXPECT_TRUE(GetParam()) << "graph mode made no GraphCommandBuffer";
  }
}

INSTANTIATE_TEST_SUITE_P(Executors, CudaInstrumentationTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? std::string("Streams") : std::string("Graphs");
                         });

}  // namespace
}  // namespace kiln::hal::cuda
