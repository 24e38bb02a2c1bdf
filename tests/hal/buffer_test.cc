// Buffers (host access, subspans, range errors, memory types) and buffer
// views, on the CPU driver's host allocator.
#include "hal/buffer.h"

#include <gtest/gtest.h>

#include <vector>

#include "hal/buffer_view.h"
#include "hal/cpu/host_allocator.h"
#include "tests/hal/test_util.h"

namespace kiln::hal {
namespace {

using testing::Unwrap;

Ref<Buffer> Allocate(size_t size, BufferUsageBits usage = kBufferUsageDefault) {
  cpu::HostAllocator allocator;
  return Unwrap(allocator.Allocate({kMemoryTypeDeviceLocal, usage}, size));
}

TEST(BufferTest, HostAllocationsAreAlignedZeroedAndHostVisible) {
  Ref<Buffer> buffer = Allocate(100);
  EXPECT_EQ(buffer->byte_length(), 100u);
  EXPECT_EQ(buffer->memory_type(),
            kMemoryTypeDeviceLocal | kMemoryTypeHostVisible | kMemoryTypeHostCoherent);
  std::span<uint8_t> mapped = Unwrap(buffer->Map());
  EXPECT_EQ(mapped.size(), 100u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(mapped.data()) % 64, 0u);
  for (uint8_t byte : mapped) EXPECT_EQ(byte, 0);
  EXPECT_EQ(FormatMemoryType(buffer->memory_type()), "device-local|host-visible|host-coherent");
}

TEST(BufferTest, ZeroSizedBufferWorks) {
  Ref<Buffer> buffer = Allocate(0);
  EXPECT_EQ(buffer->byte_length(), 0u);
  EXPECT_TRUE(buffer->WriteData(0, {}).ok());
  EXPECT_EQ(Unwrap(buffer->Map()).size(), 0u);
}

TEST(BufferTest, WriteReadAndMapSeeTheSameBytes) {
  Ref<Buffer> buffer = Allocate(16);
  const uint8_t data[] = {1, 2, 3, 4};
  KILN_ASSERT_OK(buffer->WriteData(6, data));
  std::span<uint8_t> mapped = Unwrap(buffer->Map(4, 8));
  ASSERT_EQ(mapped.size(), 8u);
  EXPECT_EQ(mapped[2], 1);
  EXPECT_EQ(mapped[5], 4);
  mapped[7] = 42;
  uint8_t out[6] = {};
  KILN_ASSERT_OK(buffer->ReadData(6, out));
  EXPECT_EQ(out[0], 1);
  EXPECT_EQ(out[3], 4);
  EXPECT_EQ(out[5], 42);
}

TEST(BufferTest, OutOfRangeAccessesNameOffsetsAndSizes) {
  Ref<Buffer> buffer = Allocate(16);
  uint8_t out[8];
  Status status = buffer->ReadData(12, out);
  EXPECT_EQ(status.code(), StatusCode::kOutOfRange);
  EXPECT_NE(status.message().find("ReadData"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("[12, 12 + 8)"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("16 bytes"), std::string::npos) << status.message();
  status = buffer->WriteData(17, std::span<const uint8_t>(out, 0));
  EXPECT_EQ(status.code(), StatusCode::kOutOfRange);
  EXPECT_NE(status.message().find("offset 17"), std::string::npos) << status.message();
  EXPECT_EQ(buffer->Map(8, 9).status().code(), StatusCode::kOutOfRange);
  EXPECT_EQ(Buffer::Subspan(buffer, 4, 13).status().code(), StatusCode::kOutOfRange);
  // Offset + length that wraps around size_t is still caught.
  EXPECT_EQ(buffer->Map(8, ~size_t{0} - 4).status().code(), StatusCode::kOutOfRange);
}

TEST(BufferTest, MappingNeedsTheMappingUsage) {
  Ref<Buffer> buffer = Allocate(16, kBufferUsageDispatchStorage);
  Status status = buffer->Map().status();
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(status.message().find("dispatch-storage"), std::string::npos) << status.message();
}

TEST(BufferTest, SubspansShareStorageAndCheckTheirOwnRange) {
  Ref<Buffer> buffer = Allocate(32);
  Ref<Buffer> sub = Unwrap(Buffer::Subspan(buffer, 8, 16));
  EXPECT_EQ(sub->byte_length(), 16u);
  EXPECT_EQ(sub->byte_offset(), 8u);
  EXPECT_EQ(sub->allocated_buffer(), buffer.get());
  const uint8_t data[] = {7, 8};
  KILN_ASSERT_OK(sub->WriteData(0, data));
  uint8_t out[2];
  KILN_ASSERT_OK(buffer->ReadData(8, out));
  EXPECT_EQ(out[0], 7);
  EXPECT_EQ(out[1], 8);
  // A subspan of a subspan views the same allocation, offsets add up.
  Ref<Buffer> subsub = Unwrap(Buffer::Subspan(sub, 4, kWholeBuffer));
  EXPECT_EQ(subsub->byte_length(), 12u);
  EXPECT_EQ(subsub->byte_offset(), 12u);
  EXPECT_EQ(subsub->allocated_buffer(), buffer.get());
  KILN_ASSERT_OK(subsub->WriteData(0, data));
  KILN_ASSERT_OK(buffer->ReadData(12, out));
  EXPECT_EQ(out[0], 7);
  // The subspan's range is its own: 16 bytes even though the parent has more.
  EXPECT_EQ(sub->ReadData(15, out).code(), StatusCode::kOutOfRange);
  // The subspan keeps the allocation alive.
  Buffer* allocation = buffer.get();
  buffer = nullptr;
  EXPECT_EQ(sub->allocated_buffer(), allocation);
  KILN_ASSERT_OK(sub->ReadData(0, out));
  EXPECT_EQ(out[0], 7);
}

TEST(BufferTest, AllocatorRejectsUnknownMemoryTypes) {
  cpu::HostAllocator allocator;
  Result<Ref<Buffer>> buffer = allocator.Allocate({1u << 7, kBufferUsageDefault}, 4);
  EXPECT_EQ(buffer.status().code(), StatusCode::kInvalidArgument);
}

TEST(BufferViewTest, ShapeTypeAndByteLength) {
  Ref<Buffer> buffer = Allocate(24);
  const int64_t shape[] = {2, 3};
  Ref<BufferView> view = Unwrap(BufferView::Create(buffer, shape, ElementType::kFloat32));
  EXPECT_EQ(view->rank(), 2u);
  EXPECT_EQ(view->dim(1), 3);
  EXPECT_EQ(view->element_count(), 6);
  EXPECT_EQ(view->byte_length(), 24u);
  EXPECT_EQ(view->element_type(), ElementType::kFloat32);
  EXPECT_EQ(view->ShapeString(), "2x3xf32");
  EXPECT_EQ(view->buffer(), buffer);
  // A smaller view of a larger buffer is fine; a scalar has rank 0.
  Ref<BufferView> scalar = Unwrap(BufferView::Create(buffer, {}, ElementType::kInt8));
  EXPECT_EQ(scalar->element_count(), 1);
  EXPECT_EQ(scalar->ShapeString(), "i8");
  const int64_t empty[] = {0, 5};
  EXPECT_EQ(Unwrap(BufferView::Create(buffer, empty, ElementType::kFloat64))->byte_length(), 0u);
}

TEST(BufferViewTest, RejectsTooSmallBuffersNegativeDimsAndOverflow) {
  Ref<Buffer> buffer = Allocate(24);
  const int64_t big[] = {7};
  Status status = BufferView::Create(buffer, big, ElementType::kFloat32).status();
  EXPECT_EQ(status.code(), StatusCode::kOutOfRange);
  EXPECT_NE(status.message().find("7xf32 needs 28 bytes"), std::string::npos) << status.message();
  EXPECT_NE(status.message().find("has 24"), std::string::npos) << status.message();
  const int64_t dynamic[] = {-1, 2};
  status = BufferView::Create(buffer, dynamic, ElementType::kInt32).status();
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("dim 0"), std::string::npos) << status.message();
  const int64_t huge[] = {INT64_MAX / 2, 4};
  EXPECT_EQ(BufferView::Create(buffer, huge, ElementType::kInt32).status().code(),
            StatusCode::kOutOfRange);
  EXPECT_FALSE(BufferView::Create(nullptr, big, ElementType::kInt32).ok());
}

// Allocator::ImportBuffer / ExportBuffer on the CPU: host memory used in
// place, released through the callback when the last reference goes.
TEST(BufferTest, CpuImportUsesTheMemoryInPlaceAndReleasesOnce) {
  cpu::HostAllocator allocator;
  std::vector<uint8_t> memory(32, 7);
  int released = 0;
  ExternalBuffer external;
  external.type = ExternalBuffer::Type::kHostAllocation;
  external.host_pointer = memory.data();
  external.size = memory.size();
  Ref<Buffer> buffer = Unwrap(allocator.ImportBuffer({}, external, [&released] { ++released; }));
  EXPECT_EQ(buffer->byte_length(), 32u);
  EXPECT_TRUE(buffer->memory_type() & kMemoryTypeHostVisible);
  EXPECT_EQ(Unwrap(buffer->Map()).data(), memory.data());
  const uint8_t data[] = {1, 2};
  KILN_ASSERT_OK(buffer->WriteData(4, data));
  EXPECT_EQ(memory[5], 2);
  // A subspan exports the address of its own first byte.
  Ref<Buffer> tail = Unwrap(Buffer::Subspan(buffer, 8, 16));
  ExternalBuffer exported = Unwrap(allocator.ExportBuffer(*tail));
  EXPECT_EQ(exported.type, ExternalBuffer::Type::kHostAllocation);
  EXPECT_EQ(exported.host_pointer, memory.data() + 8);
  EXPECT_EQ(exported.size, 16u);
  buffer = nullptr;
  EXPECT_EQ(released, 0);  // The subspan still holds the allocation.
  tail = nullptr;
  EXPECT_EQ(released, 1);
}

TEST(BufferTest, CpuImportRefusesDeviceAddressesAndKeepsOwnership) {
  cpu::HostAllocator allocator;
  int released = 0;
  ExternalBuffer external;
  external.type = ExternalBuffer::Type::kDeviceAllocation;
  external.device_pointer = 0x1000;
  external.size = 4;
  auto buffer = allocator.ImportBuffer({}, external, [&released] { ++released; });
  ASSERT_FALSE(buffer.ok());
  EXPECT_EQ(buffer.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(buffer.status().message().find("host memory only"), std::string::npos);
  EXPECT_EQ(released, 0);  // A failed import leaves the memory to the caller.
}

TEST(BufferTest, CpuExportOfAnAllocation) {
  cpu::HostAllocator allocator;
  Ref<Buffer> buffer = Unwrap(allocator.Allocate({}, 64));
  ExternalBuffer exported = Unwrap(allocator.ExportBuffer(*buffer));
  EXPECT_EQ(exported.host_pointer, Unwrap(buffer->Map()).data());
  EXPECT_EQ(exported.size, 64u);
}

}  // namespace
}  // namespace kiln::hal
