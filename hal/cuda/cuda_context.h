// CudaContext: one GPU's CUDA state shared by every object of a CUDA device.
//
// It holds the driver symbols, the device's primary context, the one stream
// the device's queue runs on, a pool of completion events, the cache of
// freed stream-ordered memory and the device's health. Buffers, executables, semaphores and command buffers keep a Ref to
// it, so the context outlives every object that uses it, whatever order an
// application releases them in.
//
// Health: CUDA reports a kernel fault (an illegal address, a trap) as a
// "sticky" error that every later call of the context returns. The first
// such error is kept as the device's lost status: submissions then fail with
// it at once and waits return it, instead of hanging or succeeding wrongly.
#pragma once

#include <cuda.h>

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "base/ref.h"
#include "base/result.h"
#include "hal/cuda/cuda_symbols.h"
#include "hal/cuda/stream_ordered_block_cache.h"

namespace kiln::hal::cuda {

class CudaContext : public RefObject {
 public:
  // Retains device `ordinal`'s primary context and creates the queue stream.
  static Result<Ref<CudaContext>> Create(Ref<CudaSymbols> symbols, int ordinal);
  ~CudaContext() override;

  const CudaSymbols& symbols() const { return *symbols_; }
  CUdevice device() const { return device_; }
  CUcontext context() const { return context_; }
  CUstream stream() const { return stream_; }
  int ordinal() const { return ordinal_; }
  // Compute capability as major * 10 + minor (90 for sm_90).
  int compute_capability() const { return compute_capability_; }
  int max_shared_memory_per_block_optin() const { return max_shared_memory_optin_; }
  bool supports_memory_pools() const { return supports_memory_pools_; }

  // Makes the context current on the calling thread (cheap when it already
  // is). Every entry point that calls CUDA starts with it.
  Status MakeCurrent() const;

  // Checks a CUDA result; a sticky error also marks the device lost.
  Status Check(CUresult result, std::string_view what) const;

  // OK while the device is healthy; its lost status afterwards.
  Status health() const {
    if (!lost_.load(std::memory_order_acquire)) return OkStatus();
    std::lock_guard<std::mutex> lock(mutex_);
    return lost_status_;
  }
  void MarkLost(const Status& status) const;

  // Stream-ordered device memory that buffers gave back, for the next
  // allocations (stream_ordered_block_cache.h); freed with the context.
  StreamOrderedBlockCache& block_cache() const { return block_cache_; }

  // Completion events (CU_EVENT_DISABLE_TIMING), recycled.
  Result<CUevent> AcquireEvent() const;
  void ReleaseEvent(CUevent event) const;

 private:
  CudaContext(Ref<CudaSymbols> symbols, int ordinal)
      : symbols_(std::move(symbols)), ordinal_(ordinal) {}

  Ref<CudaSymbols> symbols_;
  int ordinal_;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  CUstream stream_ = nullptr;
  int compute_capability_ = 0;
  int max_shared_memory_optin_ = 0;
  bool supports_memory_pools_ = false;

  mutable StreamOrderedBlockCache block_cache_;
  mutable std::mutex mutex_;
  mutable std::atomic<bool> lost_{false};
  mutable Status lost_status_;                // Guarded by mutex_.
  mutable std::vector<CUevent> free_events_;  // Guarded by mutex_.
};

}  // namespace kiln::hal::cuda
