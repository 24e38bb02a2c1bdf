// Allocator statistics: what an allocator counts (allocations and their
// frees, peak, host against device memory), what it leaves out (subspans,
// imports), buffers that outlive their allocator, and counting from many
// threads at once. On the CPU driver's host allocator; the Vulkan and CUDA
// allocators' pools are tested with their drivers.
#include "hal/allocator_statistics.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "hal/cpu/host_allocator.h"
#include "tests/hal/test_util.h"

namespace kiln::hal {
namespace {

using testing::Unwrap;

Ref<Buffer> AllocateFrom(Allocator& allocator, size_t size) {
  return Unwrap(allocator.Allocate({kMemoryTypeDeviceLocal, kBufferUsageDefault}, size));
}

TEST(AllocatorStatisticsTest, CountsAllocationsFreesAndThePeak) {
  cpu::HostAllocator allocator;
  AllocatorStatistics empty = allocator.statistics();
  EXPECT_EQ(empty.host.allocated_bytes, 0u);
  EXPECT_EQ(empty.host.peak_bytes, 0u);

  Ref<Buffer> a = AllocateFrom(allocator, 100);
  Ref<Buffer> b = AllocateFrom(allocator, 28);
  AllocatorStatistics both = allocator.statistics();
  EXPECT_EQ(both.host.allocated_bytes, 128u);
  EXPECT_EQ(both.host.freed_bytes, 0u);
  EXPECT_EQ(both.host.live_bytes(), 128u);
  EXPECT_EQ(both.host.peak_bytes, 128u);

  a = nullptr;
  Ref<Buffer> c = AllocateFrom(allocator, 50);  // Live 78: below the peak.
  AllocatorStatistics after = allocator.statistics();
  EXPECT_EQ(after.host.allocated_bytes, 178u);
  EXPECT_EQ(after.host.freed_bytes, 100u);
  EXPECT_EQ(after.host.live_bytes(), 78u);
  EXPECT_EQ(after.host.peak_bytes, 128u);

  b = nullptr;
  c = nullptr;
  AllocatorStatistics end = allocator.statistics();
  EXPECT_EQ(end.host.freed_bytes, 178u);
  EXPECT_EQ(end.host.live_bytes(), 0u);
  EXPECT_EQ(end.host.peak_bytes, 128u);
  // The CPU's memory is the host's: nothing counts as the device's.
  EXPECT_EQ(end.device.allocated_bytes, 0u);
  EXPECT_EQ(end.device.peak_bytes, 0u);
}

TEST(AllocatorStatisticsTest, ZeroSizedBuffersCountNothing) {
  cpu::HostAllocator allocator;
  Ref<Buffer> empty = AllocateFrom(allocator, 0);
  EXPECT_EQ(allocator.statistics().host.allocated_bytes, 0u);
}

TEST(AllocatorStatisticsTest, SubspansAndImportsAreNotCounted) {
  cpu::HostAllocator allocator;
  Ref<Buffer> owner = AllocateFrom(allocator, 64);
  Ref<Buffer> view = Unwrap(Buffer::Subspan(owner, 16, 32));
  uint8_t memory[256] = {};
  ExternalBuffer external;
  external.host_pointer = memory;
  external.size = sizeof(memory);
  Ref<Buffer> imported = Unwrap(allocator.ImportBuffer({}, external, nullptr));
  EXPECT_EQ(allocator.statistics().host.allocated_bytes, 64u);
  owner = nullptr;  // The subspan keeps the allocation.
  EXPECT_EQ(allocator.statistics().host.freed_bytes, 0u);
  view = nullptr;
  imported = nullptr;
  EXPECT_EQ(allocator.statistics().host.freed_bytes, 64u);
}

TEST(AllocatorStatisticsTest, ABufferThatOutlivesItsAllocatorStillCountsItsFree) {
  Ref<AllocationCounters> counters;
  Ref<Buffer> kept;
  {
    cpu::HostAllocator allocator;
    counters = allocator.allocation_counters();
    kept = AllocateFrom(allocator, 40);
  }
  EXPECT_EQ(counters->Read().host.live_bytes(), 40u);
  kept = nullptr;
  EXPECT_EQ(counters->Read().host.freed_bytes, 40u);
  EXPECT_EQ(counters->Read().host.live_bytes(), 0u);
}

TEST(AllocatorStatisticsTest, ThreadsCountingAtOnceLoseNothing) {
  cpu::HostAllocator allocator;
  constexpr int kThreads = 4;
  constexpr int kBuffersPerThread = 500;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&allocator, t] {
      for (int i = 0; i < kBuffersPerThread; ++i) {
        Ref<Buffer> buffer = AllocateFrom(allocator, static_cast<size_t>(t + 1));
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  AllocatorStatistics statistics = allocator.statistics();
  // Each thread allocates t + 1 bytes, 500 times.
  EXPECT_EQ(statistics.host.allocated_bytes, uint64_t{kBuffersPerThread} * (1 + 2 + 3 + 4));
  EXPECT_EQ(statistics.host.live_bytes(), 0u);
  // At most one buffer of each thread is live at once.
  EXPECT_GE(statistics.host.peak_bytes, 1u);
  EXPECT_LE(statistics.host.peak_bytes, 1u + 2 + 3 + 4);
}

TEST(AllocatorStatisticsTest, CountersKeepHostAndDeviceApart) {
  Ref<AllocationCounters> counters = MakeRef<AllocationCounters>();
  counters->RecordAllocation(MemoryPool::kDevice, 1000);
  counters->RecordAllocation(MemoryPool::kHost, 10);
  counters->RecordFree(MemoryPool::kDevice, 1000);
  counters->RecordAllocation(MemoryPool::kDevice, 300);
  AllocatorStatistics statistics = counters->Read();
  EXPECT_EQ(statistics.device.allocated_bytes, 1300u);
  EXPECT_EQ(statistics.device.freed_bytes, 1000u);
  EXPECT_EQ(statistics.device.peak_bytes, 1000u);
  EXPECT_EQ(statistics.device.live_bytes(), 300u);
  EXPECT_EQ(statistics.host.allocated_bytes, 10u);
  EXPECT_EQ(statistics.host.peak_bytes, 10u);
}

}  // namespace
}  // namespace kiln::hal
