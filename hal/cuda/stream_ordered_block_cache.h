// StreamOrderedBlockCache: device memory blocks that the CUDA device's
// buffers gave back, kept for its next allocations without calling CUDA.
//
// Why: a compiled function allocates its results (and any intermediate the
// arena does not hold) on every call, and cuMemAllocAsync costs 8 to 11 µs
// on the H100 even when its pool holds the memory, which is most of a
// static model's host time per call. PyTorch's caching allocator and IREE's
// caching allocator answer the same way: the runtime keeps its own free
// lists.
//
// Why it is safe: every block was allocated and is used in the order of the
// context's one stream (cuda_context.h). A buffer released on the host may
// still be read by work already enqueued; a later allocation that takes its
// block is used only by work enqueued after, so on the same stream, after
// that work — exactly the guarantee cuMemFreeAsync + cuMemAllocAsync give.
// The host's own reads and writes of stream-ordered buffers synchronize
// with the stream first (CudaBuffer::ReadAllocation), as for any such
// buffer.
//
// Blocks are kept by rounded size (RoundSize: 512 B steps to 1 MiB, then
// 128 KiB steps), at most kMaxCachedBytes in all; a block beyond that goes
// back to CUDA's pool (cuMemFreeAsync). An allocation that CUDA refuses for
// lack of memory empties the cache and tries once more.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace kiln::hal::cuda {

class StreamOrderedBlockCache {
 public:
  static constexpr size_t kMaxCachedBytes = size_t{1} << 30;

  // The size a request of `size` bytes allocates, so that blocks of one
  // rounded size serve every request that rounds to it.
  static size_t RoundSize(size_t size);

  // A cached block of exactly `rounded_size` bytes, or 0 when none is kept.
  CUdeviceptr Take(size_t rounded_size);
  // Keeps `block` (of `rounded_size` bytes) for a later Take; false when the
  // cache is full (the caller frees it).
  bool Give(CUdeviceptr block, size_t rounded_size);
  // Removes every block, returning them for the caller to free.
  std::vector<CUdeviceptr> TakeAll();

  size_t cached_bytes() const;

 private:
  using Blocks = std::vector<CUdeviceptr>;

  // The list of `rounded_size`: the one used last, else looked up (made
  // when `create`; null when absent otherwise). Called with mutex_ held.
  Blocks* ListLocked(size_t rounded_size, bool create);

  mutable std::mutex mutex_;
  size_t cached_bytes_ = 0;  // Guarded by mutex_.
  // The list used last and its size: a program's call takes and gives back
  // a block of the same size (its result), found again without hashing.
  // Lists are removed only by TakeAll, which resets it. Guarded by mutex_.
  size_t last_size_ = 0;
  Blocks* last_ = nullptr;
  std::unordered_map<size_t, Blocks> free_;  // By rounded size. Guarded by mutex_.
};

}  // namespace kiln::hal::cuda
