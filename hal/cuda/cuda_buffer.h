// CudaBuffer: an allocation of GPU-addressable memory, and CudaAllocator,
// which makes them.
//
// Memory by requested type (allocator.h):
//   - device-local only:        cuMemAlloc. The host reads and writes it
//                               through synchronous copies (ReadData /
//                               WriteData), never by mapping;
//   - device-local + host-visible: managed memory (cuMemAllocManaged), which
//                               both sides address directly;
//   - host-visible only:        pinned host memory mapped into the device's
//                               address space (cuMemHostAlloc DEVICEMAP):
//                               for staging and results the host maps;
//   - stream-ordered:           queue_alloca's buffers and the allocator's
//                               device-local ones: a block of the context's
//                               cache (stream_ordered_block_cache.h), else
//                               cuMemAllocAsync on the device's default
//                               memory pool; given back at queue_dealloca
//                               (or when the last reference goes), ordered
//                               after all work submitted so far, to the
//                               cache or with cuMemFreeAsync;
//   - imported:                 device memory another library allocated
//                               (Allocator::ImportBuffer; a PyTorch tensor),
//                               used in place and never freed: the
//                               import's release callback runs instead.
// Every kind has a device address (device_pointer()) that kernels take.
// Out-of-memory is RESOURCE_EXHAUSTED naming the size.
#pragma once

#include <cuda.h>

#include <functional>

#include "hal/allocator.h"
#include "hal/buffer.h"
#include "hal/cuda/cuda_context.h"

namespace kiln::hal::cuda {

class CudaBuffer final : public Buffer {
 public:
  enum class Kind : uint8_t { kDevice, kManaged, kPinnedHost, kStreamOrdered, kImported };

  static Result<Ref<CudaBuffer>> Allocate(const Ref<CudaContext>& context,
                                          const BufferParams& params, size_t size);
  // Allocates on the device's stream, ordered after the work enqueued so far.
  static Result<Ref<CudaBuffer>> AllocateAsync(const Ref<CudaContext>& context,
                                               const BufferParams& params, size_t size);
  // Wraps `size` bytes at `device_pointer`, an address of `context`'s GPU
  // (checked); `release` runs when the buffer goes.
  static Result<Ref<CudaBuffer>> Import(const Ref<CudaContext>& context, BufferUsageBits usage,
                                        CUdeviceptr device_pointer, size_t size,
                                        std::function<void()> release);
  ~CudaBuffer() override;

  const CudaContext& context() const { return *context_; }
  CUdeviceptr device_pointer() const { return device_pointer_; }
  Kind kind() const { return kind_; }
  // What the allocator's statistics count it as: pinned host memory is the
  // host's, the rest (managed memory too) the device's.
  MemoryPool memory_pool() const {
    return kind_ == Kind::kPinnedHost ? MemoryPool::kHost : MemoryPool::kDevice;
  }
  // Enqueues the stream-ordered free now (queue_dealloca); the destructor
  // then frees nothing.
  Status FreeAsync();

 protected:
  Result<uint8_t*> MapAllocation(size_t allocation_offset, size_t length) override;
  Status ReadAllocation(size_t allocation_offset, std::span<uint8_t> out) override;
  Status WriteAllocation(size_t allocation_offset, std::span<const uint8_t> data) override;

 private:
  CudaBuffer(const Ref<CudaContext>& context, Kind kind, MemoryTypeBits memory_type,
             BufferUsageBits usage, size_t size)
      : Buffer(memory_type, usage, size), context_(context), kind_(kind) {}

  // Stream-ordered: gives the block to the context's cache, or to CUDA's
  // pool when the cache is full (CUDA's answer; CUDA_SUCCESS when cached).
  CUresult ReleaseBlock();

  Ref<CudaContext> context_;
  Kind kind_;
  size_t block_size_ = 0;  // Stream-ordered: the rounded size allocated.
  CUdeviceptr device_pointer_ = 0;
  uint8_t* host_pointer_ = nullptr;  // Managed and pinned host memory.
  bool freed_ = false;
  std::function<void()> release_;  // Imported memory only.
};

class CudaAllocator final : public Allocator {
 public:
  explicit CudaAllocator(Ref<CudaContext> context) : context_(std::move(context)) {}
  Result<Ref<Buffer>> Allocate(const BufferParams& params, size_t size) override;
  Result<Ref<Buffer>> ImportBuffer(const BufferParams& params, const ExternalBuffer& external,
                                   std::function<void()> release) override;
  Result<ExternalBuffer> ExportBuffer(const Buffer& buffer) override;

 private:
  Ref<CudaContext> context_;
};

// The CUDA allocation behind `buffer` if it belongs to `context`'s device,
// else null (ForeignBufferError says why).
const CudaBuffer* CudaAllocationOf(const Buffer& buffer, const CudaContext& context);
// The INVALID_ARGUMENT for a `buffer` CudaAllocationOf refused, naming
// `what` ("CopyBuffer source"): a buffer of another device or another GPU.
// Callers build `what` only on this error path.
Status ForeignBufferError(const Buffer& buffer, const CudaContext& context, std::string_view what);

}  // namespace kiln::hal::cuda
