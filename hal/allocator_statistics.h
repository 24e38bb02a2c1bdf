// AllocatorStatistics: how much memory an allocator has handed out, freed,
// and held at most at once, split into host and device memory, as IREE's
// iree_hal_allocator_statistics_t. kiln-run-module --print_statistics prints
// them (tools/common/run_statistics.h).
//
// Every allocation an allocator makes (Allocate, and a device's QueueAlloca)
// is counted when it is made and again as freed when its buffer goes; the
// bytes are the size the caller asked for. Imported buffers are memory of
// another library and are not counted. The counters are relaxed atomics
// updated without a lock: a buffer may die on any thread, and counting costs
// an allocation a few uncontended atomic adds. A buffer holds a reference to
// its allocator's counters, so a buffer that outlives its allocator (a result
// the caller keeps) still counts its free.
#pragma once

#include <atomic>
#include <cstdint>

#include "base/ref.h"

namespace kiln::hal {

// Which figures an allocation counts toward: memory of the host (the CPU
// driver's buffers, CUDA's pinned host memory) or of the device.
enum class MemoryPool : uint8_t { kHost, kDevice };

struct PoolStatistics {
  uint64_t peak_bytes = 0;       // Most bytes live at once.
  uint64_t allocated_bytes = 0;  // Every allocation, summed.
  uint64_t freed_bytes = 0;      // Every free, summed.
  uint64_t live_bytes() const { return allocated_bytes - freed_bytes; }
};

struct AllocatorStatistics {
  PoolStatistics host;
  PoolStatistics device;
};

// The counters an allocator and its buffers share.
class AllocationCounters final : public RefObject {
 public:
  void RecordAllocation(MemoryPool pool, uint64_t bytes);
  void RecordFree(MemoryPool pool, uint64_t bytes);
  // The figures now. Read while other threads allocate, each figure is
  // exact but they may be of slightly different moments.
  AllocatorStatistics Read() const;

 private:
  struct Counters {
    std::atomic<uint64_t> allocated{0};
    std::atomic<uint64_t> freed{0};
    std::atomic<uint64_t> live{0};
    std::atomic<uint64_t> peak{0};
  };
  Counters& of(MemoryPool pool) { return pools_[static_cast<int>(pool)]; }

  Counters pools_[2];
};

}  // namespace kiln::hal
