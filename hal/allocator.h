// Allocator: makes buffers for one device, and moves memory across the
// device's boundary with other libraries (import and export).
//
// A caller asks for memory type bits (what it needs: device-local for
// dispatch-only data, host-visible to read results) and usage bits; the
// allocator picks memory that has at least the requested types, so the
// returned buffer's memory_type() may have more bits than asked for (on the
// CPU every allocation is device-local, host-visible and host-coherent).
//
// Import wraps memory that another library allocated (a NumPy array, a
// PyTorch CUDA tensor reached through DLPack) as a Buffer without a copy, in
// the spirit of IREE's iree_hal_allocator_import_buffer: the buffer keeps the
// memory's owner alive through a release callback run when the buffer's last
// reference goes. Export is the other direction: the address of a buffer's
// bytes, for another library to view while the buffer lives.
//
//   auto buffer = device.allocator().ImportBuffer(
//       {}, {.type = ExternalBuffer::Type::kDeviceAllocation,
//            .device_pointer = ptr, .size = bytes},
//       [tensor] { /* drop the framework's reference */ });
//
// What each driver takes:
//   - cpu: kHostAllocation (any host address; x86 and the kernels need no
//     more alignment than the elements');
//   - cuda: kDeviceAllocation, an address of this GPU in the primary context
//     (the context the CUDA runtime, and so PyTorch, uses); checked with
//     cuPointerGetAttribute. The data must be written when the import
//     returns: import waits for CUDA's legacy default stream on the host, so
//     a producer that orders its work before that stream (DLPack's
//     `stream=1`) is complete; kiln's queue stream does not serialize with
//     it otherwise;
//   - vulkan: neither (an UNIMPLEMENTED error says so).
// An external buffer the driver cannot use is INVALID_ARGUMENT naming why.
//
// statistics() says how much memory the allocator has handed out and freed,
// and its peak, for host and device memory (allocator_statistics.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "base/ref.h"
#include "base/result.h"
#include "hal/allocator_statistics.h"
#include "hal/buffer.h"

namespace kiln::hal {

struct BufferParams {
  MemoryTypeBits memory_type = kMemoryTypeDeviceLocal;
  BufferUsageBits usage = kBufferUsageDefault;
};

// Memory outside the HAL's allocations, described by its address.
struct ExternalBuffer {
  enum class Type : uint8_t {
    kHostAllocation,    // `host_pointer`: memory of this process.
    kDeviceAllocation,  // `device_pointer`: an address in the device's own space.
  };
  Type type = Type::kHostAllocation;
  void* host_pointer = nullptr;
  uint64_t device_pointer = 0;
  size_t size = 0;  // Bytes from the pointer on.
};

class Allocator {
 public:
  virtual ~Allocator() = default;

  // The memory this allocator's allocations hold and have held.
  AllocatorStatistics statistics() const { return counters_->Read(); }
  // What an allocation of this allocator counts itself in
  // (Buffer::CountAllocation); drivers that allocate outside Allocate
  // (QueueAlloca) use it too.
  const Ref<AllocationCounters>& allocation_counters() const { return counters_; }

  // A new buffer of `size` bytes (zero-sized buffers are allowed). Fails with
  // RESOURCE_EXHAUSTED naming the size when memory runs out, INVALID_ARGUMENT
  // when no memory has the requested types.
  virtual Result<Ref<Buffer>> Allocate(const BufferParams& params, size_t size) = 0;

  // A buffer over `external`'s memory, with `params.usage` (the memory type
  // is what the memory is, whatever `params.memory_type` asks). On success
  // the buffer owns `release` (may be empty) and calls it once, when its last
  // reference goes; on failure `release` is not called and the caller still
  // owns the memory. See above for what each driver accepts.
  virtual Result<Ref<Buffer>> ImportBuffer(const BufferParams& params,
                                           const ExternalBuffer& external,
                                           std::function<void()> release) = 0;

  // Where the bytes of `buffer` (a buffer of this allocator, or a subspan of
  // one) are, for another library to address: valid while `buffer` lives.
  // cpu: a host allocation; cuda: a device allocation of this GPU (pinned
  // host memory too, through its device address); vulkan: UNIMPLEMENTED.
  virtual Result<ExternalBuffer> ExportBuffer(const Buffer& buffer) = 0;

 private:
  Ref<AllocationCounters> counters_ = MakeRef<AllocationCounters>();
};

}  // namespace kiln::hal
