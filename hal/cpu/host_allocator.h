// HostAllocator: buffers in host memory, for the CPU driver.
//
// On the CPU the device is the host, so every allocation is device-local,
// host-visible and host-coherent whatever the caller asked for, and mapping
// returns the allocation itself. Allocations are aligned to 64 bytes (a cache
// line, and enough for any vector load a kernel does) and zero-initialized,
// so reading a buffer no one wrote is deterministic.
//
// An imported buffer (Allocator::ImportBuffer) is host memory another
// library owns, used in place: its alignment is the owner's, and instead of
// freeing it the buffer runs the import's release callback.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "hal/allocator.h"
#include "hal/buffer.h"

namespace kiln::hal::cpu {

inline constexpr size_t kHostBufferAlignment = 64;

class HostBuffer final : public Buffer {
 public:
  static Result<Ref<HostBuffer>> Allocate(BufferUsageBits usage, size_t size);
  // Wraps `size` bytes at `data`, which the buffer does not own; `release`
  // runs when the buffer goes.
  static Ref<HostBuffer> Import(BufferUsageBits usage, uint8_t* data, size_t size,
                                std::function<void()> release);
  ~HostBuffer() override;

  // The allocation's first byte.
  uint8_t* data() { return data_; }

 protected:
  Result<uint8_t*> MapAllocation(size_t allocation_offset, size_t length) override {
    return data_ + allocation_offset;
  }

 private:
  HostBuffer(BufferUsageBits usage, size_t size, uint8_t* data);

  uint8_t* data_;
  bool imported_ = false;
  std::function<void()> release_;  // Imported buffers only.
};

class HostAllocator final : public Allocator {
 public:
  Result<Ref<Buffer>> Allocate(const BufferParams& params, size_t size) override;
  Result<Ref<Buffer>> ImportBuffer(const BufferParams& params, const ExternalBuffer& external,
                                   std::function<void()> release) override;
  Result<ExternalBuffer> ExportBuffer(const Buffer& buffer) override;
};

}  // namespace kiln::hal::cpu
