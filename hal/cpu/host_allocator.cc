#include "hal/cpu/host_allocator.h"

#include <cstdlib>
#include <cstring>
#include <new>

namespace kiln::hal::cpu {

inline constexpr MemoryTypeBits kHostMemory =
    kMemoryTypeDeviceLocal | kMemoryTypeHostVisible | kMemoryTypeHostCoherent;

HostBuffer::HostBuffer(BufferUsageBits usage, size_t size, uint8_t* data)
    : Buffer(kHostMemory, usage, size), data_(data) {}

HostBuffer::~HostBuffer() { ::operator delete(data_, std::align_val_t(kHostBufferAlignment)); }

Result<Ref<HostBuffer>> HostBuffer::Allocate(BufferUsageBits usage, size_t size) {
  // Round up so a zero-sized buffer still has a valid, distinct address.
  size_t rounded = (size + kHostBufferAlignment - 1) / kHostBufferAlignment * kHostBufferAlignment;
  if (rounded < size) {
    return ResourceExhaustedError("host buffer of " + std::to_string(size) + " bytes is too large");
  }
  if (rounded == 0) rounded = kHostBufferAlignment;
  void* data = ::operator new(rounded, std::align_val_t(kHostBufferAlignment), std::nothrow);
  if (data == nullptr) {
    return ResourceExhaustedError("out of host memory allocating a buffer of " +
                                  std::to_string(size) + " bytes");
  }
  std::memset(data, 0, rounded);
  return Ref<HostBuffer>::Adopt(new HostBuffer(usage, size, static_cast<uint8_t*>(data)));
}

Result<Ref<Buffer>> HostAllocator::Allocate(const BufferParams& params, size_t size) {
  if (params.memory_type & ~kHostMemory) {
    return InvalidArgumentError("the CPU allocator has no memory of type " +
                                FormatMemoryType(params.memory_type));
  }
  KILN_ASSIGN_OR_RETURN(Ref<HostBuffer> buffer, HostBuffer::Allocate(params.usage, size));
  return Ref<Buffer>(std::move(buffer));
}

}  // namespace kiln::hal::cpu
