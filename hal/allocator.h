// Allocator: makes buffers for one device.
//
// A caller asks for memory type bits (what it needs: device-local for
// dispatch-only data, host-visible to read results) and usage bits; the
// allocator picks memory that has at least the requested types, so the
// returned buffer's memory_type() may have more bits than asked for (on the
// CPU every allocation is device-local, host-visible and host-coherent).
#pragma once

#include <cstddef>

#include "base/ref.h"
#include "base/result.h"
#include "hal/buffer.h"

namespace kiln::hal {

struct BufferParams {
  MemoryTypeBits memory_type = kMemoryTypeDeviceLocal;
  BufferUsageBits usage = kBufferUsageDefault;
};

class Allocator {
 public:
  virtual ~Allocator() = default;
  // A new buffer of `size` bytes (zero-sized buffers are allowed). Fails with
  // RESOURCE_EXHAUSTED naming the size when memory runs out, INVALID_ARGUMENT
  // when no memory has the requested types.
  virtual Result<Ref<Buffer>> Allocate(const BufferParams& params, size_t size) = 0;
};

}  // namespace kiln::hal
