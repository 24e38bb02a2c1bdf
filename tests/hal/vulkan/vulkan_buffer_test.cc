// Vulkan buffers: memory types, mapping, host reads and writes (mapped or
// staged), sub-allocation, subspans, and running out of memory.
#include "hal/vulkan/vulkan_buffer.h"

#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

#include "tests/hal/vulkan/vulkan_test_util.h"

namespace kiln::hal::vulkan {
namespace {

using testing::MakeBuffer;
using testing::ReadBuffer;
using testing::SubmitAndWait;
using testing::Unwrap;
using testing::VulkanTest;

VulkanBuffer& AsVulkan(const Ref<Buffer>& buffer) {
  return *static_cast<VulkanBuffer*>(buffer->allocated_buffer());
}

// Vulkan shares no memory with other libraries: import and export say so.
TEST_F(VulkanTest, ImportAndExportAreUnimplemented) {
  uint8_t memory[16] = {};
  int released = 0;
  ExternalBuffer external;
  external.host_pointer = memory;
  external.size = sizeof(memory);
  auto imported = device_->allocator().ImportBuffer({}, external, [&released] { ++released; });
  ASSERT_FALSE(imported.ok());
  EXPECT_EQ(imported.status().code(), StatusCode::kUnimplemented);
  EXPECT_NE(imported.status().message().find("cannot import"), std::string::npos);
  EXPECT_EQ(released, 0);
  Ref<Buffer> buffer = Allocate(16, kMemoryTypeHostVisible);
  EXPECT_EQ(device_->allocator().ExportBuffer(*buffer).status().code(), StatusCode::kUnimplemented);
}

// The allocator counts what callers asked for (not the aligned size it
// reserves), device-local memory as the device's and the rest as the host's.
TEST_F(VulkanTest, AllocatorStatisticsCountRequestedBytesPerPool) {
  const AllocatorStatistics before = device_->allocator().statistics();
  Ref<Buffer> device_local = Allocate(1000, kMemoryTypeDeviceLocal);
  Ref<Buffer> host_visible = Allocate(24, kMemoryTypeHostVisible);
  const AllocatorStatistics during = device_->allocator().statistics();
  const auto pool_of = [](const Ref<Buffer>& buffer) {
    return (buffer->memory_type() & kMemoryTypeDeviceLocal) ? 1 : 0;
  };
  uint64_t grown[2] = {during.host.allocated_bytes - before.host.allocated_bytes,
                       during.device.allocated_bytes - before.device.allocated_bytes};
  uint64_t expected[2] = {0, 0};
  expected[pool_of(device_local)] += 1000;
  expected[pool_of(host_visible)] += 24;
  EXPECT_EQ(grown[0], expected[0]);
  EXPECT_EQ(grown[1], expected[1]);
  EXPECT_GE(during.device.peak_bytes, during.device.live_bytes());
  device_local = nullptr;
  host_visible = nullptr;
  const AllocatorStatistics after = device_->allocator().statistics();
  EXPECT_EQ(after.host.live_bytes(), before.host.live_bytes());
  EXPECT_EQ(after.device.live_bytes(), before.device.live_bytes());
  EXPECT_EQ(after.host.freed_bytes + after.device.freed_bytes,
            before.host.freed_bytes + before.device.freed_bytes + 1024);
}

TEST_F(VulkanTest, HostVisibleBufferMapsWritesAndReads) {
  Ref<Buffer> buffer = Allocate(256, kMemoryTypeHostVisible);
  EXPECT_TRUE(buffer->memory_type() & kMemoryTypeHostVisible);
  EXPECT_TRUE(buffer->memory_type() & kMemoryTypeHostCoherent);
  EXPECT_EQ(buffer->byte_length(), 256u);
  std::span<uint8_t> mapped = Unwrap(buffer->Map());
  ASSERT_EQ(mapped.size(), 256u);
  std::iota(mapped.begin(), mapped.end(), uint8_t{0});
  std::vector<uint8_t> read(16);
  KILN_ASSERT_OK(buffer->ReadData(100, read));
  for (size_t i = 0; i < read.size(); ++i) EXPECT_EQ(read[i], 100 + i);
  const uint8_t patch[] = {9, 8, 7};
  KILN_ASSERT_OK(buffer->WriteData(10, patch));
  EXPECT_EQ(mapped[10], 9);
  EXPECT_EQ(mapped[12], 7);
  // Out-of-range access is checked by the HAL.
  Status out_of_range = buffer->ReadData(250, read);
  EXPECT_EQ(out_of_range.code(), StatusCode::kOutOfRange);
}

TEST_F(VulkanTest, MemoryTypesReportWhatTheDeviceGave) {
  const VkPhysicalDeviceMemoryProperties& memory = device_->logical().memory_properties();
  bool device_only_memory = false;
  for (uint32_t i = 0; i < memory.memoryTypeCount; ++i) {
    VkMemoryPropertyFlags flags = memory.memoryTypes[i].propertyFlags;
    if ((flags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) &&
        !(flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)) {
      device_only_memory = true;
    }
  }
  Ref<Buffer> device_local = Allocate(64, kMemoryTypeDeviceLocal);
  EXPECT_TRUE(device_local->memory_type() & kMemoryTypeDeviceLocal);
  // The first matching type has the fewest extra properties: on a device
  // with VRAM the host cannot see, device-local buffers get it.
  EXPECT_EQ(device_only_memory, !(device_local->memory_type() & kMemoryTypeHostVisible));
  Ref<Buffer> both = Allocate(64, kMemoryTypeDeviceLocal | kMemoryTypeHostVisible);
  EXPECT_EQ(both->memory_type() & (kMemoryTypeDeviceLocal | kMemoryTypeHostVisible),
            kMemoryTypeDeviceLocal | kMemoryTypeHostVisible);
}

TEST_F(VulkanTest, DeviceLocalBuffersAreReadAndWrittenThroughStaging) {
  // Whether or not the host can map it, ReadData/WriteData work; where it
  // cannot, Map says why and the data goes through a staged copy.
  Ref<Buffer> buffer = Allocate(4096, kMemoryTypeDeviceLocal);
  std::vector<uint32_t> values(1024);
  std::iota(values.begin(), values.end(), 7u);
  KILN_ASSERT_OK(buffer->WriteData(
      0, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(values.data()), 4096)));
  EXPECT_EQ(ReadBuffer<uint32_t>(*buffer, 4 * 1000, 3), (std::vector<uint32_t>{1007, 1008, 1009}));
  EXPECT_EQ(ReadBuffer<uint32_t>(*buffer), values);
  if (!(buffer->memory_type() & kMemoryTypeHostVisible)) {
    Result<std::span<uint8_t>> mapped = buffer->Map();
    ASSERT_FALSE(mapped.ok());
    EXPECT_EQ(mapped.status().code(), StatusCode::kFailedPrecondition);
    EXPECT_NE(mapped.status().message().find("not host-visible"), std::string::npos);
  }
}

TEST_F(VulkanTest, SmallBuffersShareBlocksAndLargeOnesGetTheirOwn) {
  VulkanAllocator& allocator = device_->logical().allocator();
  const VulkanAllocator::Stats before = allocator.stats();
  std::vector<Ref<Buffer>> small;
  for (int i = 0; i < 64; ++i) small.push_back(Allocate(1000, kMemoryTypeDeviceLocal));
  // All in one block, at distinct aligned offsets of one VkBuffer.
  for (size_t i = 0; i < small.size(); ++i) {
    EXPECT_EQ(AsVulkan(small[i]).handle(), AsVulkan(small[0]).handle());
    EXPECT_EQ(AsVulkan(small[i]).offset() % allocator.alignment(), 0u);
    EXPECT_EQ(
        AsVulkan(small[i]).offset() % device_->logical().limits().minStorageBufferOffsetAlignment,
        0u);
    for (size_t j = 0; j < i; ++j)
      EXPECT_NE(AsVulkan(small[i]).offset(), AsVulkan(small[j]).offset());
  }
  EXPECT_LE(allocator.stats().blocks, before.blocks + 1);
  Ref<Buffer> large = Allocate(VulkanAllocator::kDedicatedThreshold + 1, kMemoryTypeDeviceLocal);
  EXPECT_EQ(allocator.stats().dedicated_blocks, before.dedicated_blocks + 1);
  EXPECT_NE(AsVulkan(large).handle(), AsVulkan(small[0]).handle());
  EXPECT_EQ(AsVulkan(large).offset(), 0u);
  // Freed memory is reused and dedicated blocks go away.
  const VkDeviceSize freed_offset = AsVulkan(small[5]).offset();
  small[5] = nullptr;
  Ref<Buffer> again = Allocate(1000, kMemoryTypeDeviceLocal);
  EXPECT_EQ(AsVulkan(again).offset(), freed_offset);
  large = nullptr;
  EXPECT_EQ(allocator.stats().dedicated_blocks, before.dedicated_blocks);
  small.clear();
  again = nullptr;
  EXPECT_EQ(allocator.stats().bytes_in_use, before.bytes_in_use);
}

TEST_F(VulkanTest, ZeroSizedBuffersAreAllowed) {
  Ref<Buffer> empty = Allocate(0);
  EXPECT_EQ(empty->byte_length(), 0u);
  KILN_ASSERT_OK(empty->ReadData(0, {}));
  // Bound to a dispatch with no elements, it reads nothing.
  Ref<Executable> executable = LoadTestExecutable();
  Ref<CommandBuffer> commands = Begin();
  const uint32_t constants[] = {0, 5};
  const BufferRef bindings[] = {BufferRef::Of(empty)};
  KILN_ASSERT_OK(
      commands->Dispatch(executable, testing::kAddConstant, {1, 1, 1}, constants, bindings));
  KILN_ASSERT_OK(commands->End());
  KILN_ASSERT_OK(SubmitAndWait(*device_, commands));
}

TEST_F(VulkanTest, SubspansViewTheirAllocation) {
  Ref<Buffer> buffer = MakeBuffer<uint32_t>(*device_, {1, 2, 3, 4, 5, 6, 7, 8});
  Ref<Buffer> view = Unwrap(Buffer::Subspan(buffer, 8, 16));
  EXPECT_EQ(view->allocated_buffer(), buffer.get());
  EXPECT_EQ(ReadBuffer<uint32_t>(*view), (std::vector<uint32_t>{3, 4, 5, 6}));
  const uint32_t nine = 9;
  KILN_ASSERT_OK(view->WriteData(
      4, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(&nine), sizeof(nine))));
  EXPECT_EQ(ReadBuffer<uint32_t>(*buffer)[3], 9u);
}

TEST_F(VulkanTest, RunningOutOfMemoryIsResourceExhausted) {
  const VkPhysicalDeviceMemoryProperties& memory = device_->logical().memory_properties();
  VkDeviceSize largest_heap = 0;
  for (uint32_t i = 0; i < memory.memoryHeapCount; ++i) {
    largest_heap = std::max(largest_heap, memory.memoryHeaps[i].size);
  }
  BufferParams params;
  Result<Ref<Buffer>> huge = device_->allocator().Allocate(params, largest_heap * 2);
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(huge.status().message().find(std::to_string(largest_heap * 2) + " bytes"),
            std::string::npos)
      << huge.status().ToString();
}

TEST_F(VulkanTest, UnknownMemoryTypeBitsAreInvalid) {
  BufferParams params;
  params.memory_type = 1u << 7;
  Result<Ref<Buffer>> buffer = device_->allocator().Allocate(params, 16);
  ASSERT_FALSE(buffer.ok());
  EXPECT_EQ(buffer.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace kiln::hal::vulkan
