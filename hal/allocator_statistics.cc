#include "hal/allocator_statistics.h"

namespace kiln::hal {

void AllocationCounters::RecordAllocation(MemoryPool pool, uint64_t bytes) {
  Counters& counters = of(pool);
  counters.allocated.fetch_add(bytes, std::memory_order_relaxed);
  const uint64_t live = counters.live.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  uint64_t peak = counters.peak.load(std::memory_order_relaxed);
  while (live > peak &&
         !counters.peak.compare_exchange_weak(peak, live, std::memory_order_relaxed)) {
  }
}

void AllocationCounters::RecordFree(MemoryPool pool, uint64_t bytes) {
  Counters& counters = of(pool);
  counters.freed.fetch_add(bytes, std::memory_order_relaxed);
  counters.live.fetch_sub(bytes, std::memory_order_relaxed);
}

AllocatorStatistics AllocationCounters::Read() const {
  auto read = [](const Counters& counters) {
    PoolStatistics statistics;
    statistics.peak_bytes = counters.peak.load(std::memory_order_relaxed);
    statistics.allocated_bytes = counters.allocated.load(std::memory_order_relaxed);
    statistics.freed_bytes = counters.freed.load(std::memory_order_relaxed);
    return statistics;
  };
  return {.host = read(pools_[static_cast<int>(MemoryPool::kHost)]),
          .device = read(pools_[static_cast<int>(MemoryPool::kDevice)])};
}

}  // namespace kiln::hal
