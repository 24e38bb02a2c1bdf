// Dispatch instrumentation on Vulkan with a hand-written kernel
// (instrumented_fill.comp follows hal/cpu/kernel_abi.h's ABI): every
// workgroup leaves exactly one record with the site id, its workgroup id
// and device clock readings; the ring wraps and counts what it overwrote.
// The device clock needs VK_KHR_shader_clock: a device without it refuses
// the executable with a message that says so.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "hal/instrumentation.h"
#include "tests/hal/vulkan/vulkan_test_util.h"

namespace kiln::hal::vulkan {
namespace {

using testing::MakeBuffer;
using testing::ReadBuffer;
using testing::SubmitAndWait;
using testing::Unwrap;
using testing::VulkanTest;

constexpr uint32_t kSiteId = 7;

class VulkanInstrumentationTest : public VulkanTest {
 protected:
  // The instrumented kernel: data (binding 0), the ring (binding 1, last);
  // constants dim and the site id (last).
  Result<Ref<Executable>> Load() {
    std::vector<uint8_t> bytes = testing::BuildSpirvExecutable(
        {testing::ReadTestShader("instrumented_fill")},
        {{"instrumented_fill", "main", 0, {64, 1, 1}, {false, false}, 2}});
    return device_->CreateExecutable("vulkan-spirv-fb", bytes);
  }

  // Dispatches the kernel over `dim` elements (one workgroup per 64).
  void Dispatch(const Ref<Executable>& executable, const Ref<Buffer>& data, const Ref<Buffer>& ring,
                uint32_t dim) {
    Ref<CommandBuffer> commands = Begin();
    const uint32_t constants[] = {dim, kSiteId};
    const BufferRef bindings[] = {BufferRef::Of(data), BufferRef::Of(ring)};
    KILN_ASSERT_OK(commands->Dispatch(executable, 0, {(dim + 63) / 64, 1, 1}, constants, bindings));
    KILN_ASSERT_OK(commands->End());
    KILN_ASSERT_OK(SubmitAndWait(*device_, commands));
  }

  Ref<Buffer> NewRing(uint64_t bytes) {
    return MakeBuffer(*device_, NewInstrumentRingImage(bytes));
  }
};

TEST_F(VulkanInstrumentationTest, EachWorkgroupLeavesOneRecordWithItsSiteId) {
  if (!device_->logical().shader_device_clock()) {
    Result<Ref<Executable>> refused = Load();
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.status().code(), StatusCode::kUnimplemented);
    EXPECT_NE(refused.status().message().find("lacks VK_KHR_shader_clock's shaderDeviceClock"),
              std::string::npos)
        << refused.status().ToString();
    GTEST_SKIP() << "the device has no shader device clock: the refusal was checked";
  }
  Ref<Executable> executable = Unwrap(Load());
  const uint32_t dim = 300;  // 5 workgroups of 64.
  Ref<Buffer> data = MakeBuffer(*device_, std::vector<uint32_t>(dim, 0));
  Ref<Buffer> ring = NewRing(32 + 64 * 32);
  Dispatch(executable, data, ring, dim);
  std::vector<uint32_t> values = ReadBuffer<uint32_t>(*data);
  for (uint32_t i = 0; i < dim; ++i) ASSERT_EQ(values[i], 3 * i);

  RingContents contents = Unwrap(ParseInstrumentRing(ReadBuffer<uint8_t>(*ring)));
  EXPECT_EQ(contents.header.next, 5u);
  EXPECT_EQ(contents.dropped, 0u);
  ASSERT_EQ(contents.records.size(), 5u);
  std::set<uint32_t> workgroups;
  for (const kiln_hal_instrument_record_t& record : contents.records) {
    EXPECT_EQ(record.site_id, kSiteId);
    EXPECT_EQ(record.workgroup_id[1], 0u);
    EXPECT_EQ(record.workgroup_id[2], 0u);
    workgroups.insert(record.workgroup_id[0]);
    EXPECT_LE(record.start, record.end);
  }
  EXPECT_EQ(workgroups, (std::set<uint32_t>{0, 1, 2, 3, 4}));

  // A second dispatch appends after the first.
  Dispatch(executable, data, ring, dim);
  contents = Unwrap(ParseInstrumentRing(ReadBuffer<uint8_t>(*ring)));
  EXPECT_EQ(contents.header.next, 10u);
  EXPECT_EQ(contents.records.size(), 10u);
}

TEST_F(VulkanInstrumentationTest, AFullRingKeepsTheLastRecordsAndCountsTheRest) {
  if (!device_->logical().shader_device_clock()) {
    GTEST_SKIP() << "the device has no shader device clock";
  }
  Ref<Executable> executable = Unwrap(Load());
  const uint32_t dim = 64 * 7;
  Ref<Buffer> data = MakeBuffer(*device_, std::vector<uint32_t>(dim, 0));
  Ref<Buffer> ring = NewRing(32 + 3 * 32);  // Room for 3 of the 7 records.
  Dispatch(executable, data, ring, dim);
  RingContents contents = Unwrap(ParseInstrumentRing(ReadBuffer<uint8_t>(*ring)));
  EXPECT_EQ(contents.header.next, 7u);
  EXPECT_EQ(contents.header.capacity, 3u);
  EXPECT_EQ(contents.dropped, 4u);
  ASSERT_EQ(contents.records.size(), 3u);
  for (const kiln_hal_instrument_record_t& record : contents.records) {
    EXPECT_EQ(record.site_id, kSiteId);
    EXPECT_LT(record.workgroup_id[0], 7u);
  }
}

}  // namespace
}  // namespace kiln::hal::vulkan
