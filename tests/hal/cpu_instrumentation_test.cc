// Dispatch instrumentation on the CPU devices with a hand-written kernel that
// follows hal/cpu/kernel_abi.h's instrumentation ABI (the ring bound last,
// the site id passed last, kiln_hal_instrument_record): a dispatch of N
// workgroups leaves exactly N records, one per workgroup id, with the site
// id and ordered clock readings, from any number of threads; the ring wraps
// and counts what it overwrote.
#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "hal/instrumentation.h"
#include "tests/hal/test_util.h"

namespace kiln::hal {
namespace {

using testing::MakeBuffer;
using testing::ReadBuffer;
using testing::SubmitAndWait;
using testing::Unwrap;

// binding 0: uint32 data[], += 1 at the workgroup's linear id; binding 1:
// the ring. Constants: the site id (the only constant, so the last).
int CountAndRecord(const kiln_hal_dispatch_state_t* s) {
  const uint64_t start = kiln_hal_instrument_now_ns();
  uint32_t linear =
      s->workgroup_id[0] +
      s->workgroup_count[0] * (s->workgroup_id[1] + s->workgroup_count[1] * s->workgroup_id[2]);
  ++static_cast<uint32_t*>(s->bindings[0])[linear];
  kiln_hal_instrument_record(s, start, kiln_hal_instrument_now_ns());
  return 0;
}

class CpuInstrumentationTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    device_ = GetParam() == "cpu-4-threads" ? Ref<Device>(Unwrap(cpu::CpuDevice::Create({true, 4})))
                                            : testing::CreateDevice(GetParam());
    std::vector<cpu::CpuExport> exports = {
        {testing::MakeExport("count_and_record", {1, 1, 1}, 1, {false, false}), CountAndRecord,
         nullptr}};
    executable_ = Unwrap(cpu::CpuExecutable::Create("instrumented", std::move(exports)));
  }

  // Runs one dispatch of `count` workgroups as site `site_id`.
  void Dispatch(const Ref<Buffer>& data, const Ref<Buffer>& ring, std::array<uint32_t, 3> count,
                uint32_t site_id) {
    Ref<CommandBuffer> cb = Unwrap(device_->CreateCommandBuffer(CommandBufferMode::kOneShot));
    KILN_ASSERT_OK(cb->Begin());
    const uint32_t constants[] = {site_id};
    const BufferRef bindings[] = {BufferRef::Of(data), BufferRef::Of(ring)};
    KILN_ASSERT_OK(cb->Dispatch(executable_, 0, count, constants, bindings));
    KILN_ASSERT_OK(cb->End());
    KILN_ASSERT_OK(SubmitAndWait(*device_, cb));
  }

  Ref<Device> device_;
  Ref<Executable> executable_;
};

TEST_P(CpuInstrumentationTest, NWorkgroupsLeaveNRecordsWithTheSiteId) {
  Ref<Buffer> data = MakeBuffer(*device_, std::vector<uint32_t>(30, 0));
  Ref<Buffer> ring = MakeBuffer(*device_, NewInstrumentRingImage(32 + 100 * 32));
  Dispatch(data, ring, {5, 3, 2}, 4);
  Dispatch(data, ring, {2, 1, 1}, 9);
  RingContents contents = Unwrap(ParseInstrumentRing(ReadBuffer<uint8_t>(*ring)));
  EXPECT_EQ(contents.header.next, 32u);
  EXPECT_EQ(contents.dropped, 0u);
  ASSERT_EQ(contents.records.size(), 32u);
  std::set<std::tuple<uint32_t, uint32_t, uint32_t>> site4;
  std::set<std::tuple<uint32_t, uint32_t, uint32_t>> site9;
  for (const kiln_hal_instrument_record_t& r : contents.records) {
    auto id = std::make_tuple(r.workgroup_id[0], r.workgroup_id[1], r.workgroup_id[2]);
    ASSERT_TRUE(r.site_id == 4 || r.site_id == 9) << r.site_id;
    EXPECT_TRUE((r.site_id == 4 ? site4 : site9).insert(id).second) << "a workgroup recorded twice";
    EXPECT_LE(r.start, r.end);
    EXPECT_GT(r.start, 0u);
  }
  EXPECT_EQ(site4.size(), 30u);
  EXPECT_EQ(site9, (std::set<std::tuple<uint32_t, uint32_t, uint32_t>>{{0, 0, 0}, {1, 0, 0}}));
  EXPECT_EQ(*site4.rbegin(), std::make_tuple(4u, 2u, 1u));
  // The kernel's own work ran once per workgroup too.
  std::vector<uint32_t> counts = ReadBuffer<uint32_t>(*data);
  EXPECT_EQ(counts[0], 2u);
  EXPECT_EQ(counts[1], 2u);
  for (size_t i = 2; i < counts.size(); ++i) EXPECT_EQ(counts[i], 1u) << i;
}

TEST_P(CpuInstrumentationTest, AFullRingKeepsTheLastRecordsAndCountsTheRest) {
  Ref<Buffer> data = MakeBuffer(*device_, std::vector<uint32_t>(8, 0));
  Ref<Buffer> ring = MakeBuffer(*device_, NewInstrumentRingImage(32 + 3 * 32));
  Dispatch(data, ring, {8, 1, 1}, 1);
  RingContents contents = Unwrap(ParseInstrumentRing(ReadBuffer<uint8_t>(*ring)));
  EXPECT_EQ(contents.header.next, 8u);
  EXPECT_EQ(contents.dropped, 5u);
  ASSERT_EQ(contents.records.size(), 3u);
  for (const kiln_hal_instrument_record_t& r : contents.records) EXPECT_EQ(r.site_id, 1u);
}

INSTANTIATE_TEST_SUITE_P(Devices, CpuInstrumentationTest,
                         ::testing::Values("cpu", "cpu-sync", "cpu-4-threads"),
                         testing::DeviceParamName);

}  // namespace
}  // namespace kiln::hal
