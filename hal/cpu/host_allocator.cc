#include "hal/cpu/host_allocator.h"

#include <cstdlib>
#include <cstring>
#include <new>

namespace kiln::hal::cpu {

inline constexpr MemoryTypeBits kHostMemory =
    kMemoryTypeDeviceLocal | kMemoryTypeHostVisible | kMemoryTypeHostCoherent;

HostBuffer::HostBuffer(BufferUsageBits usage, size_t size, uint8_t* data)
    : Buffer(kHostMemory, usage, size), data_(data) {}

HostBuffer::~HostBuffer() {
  if (!imported_) {
    ::operator delete(data_, std::align_val_t(kHostBufferAlignment));
  } else if (release_) {
    release_();
  }
}

Ref<HostBuffer> HostBuffer::Import(BufferUsageBits usage, uint8_t* data, size_t size,
                                   std::function<void()> release) {
  Ref<HostBuffer> buffer = Ref<HostBuffer>::Adopt(new HostBuffer(usage, size, data));
  buffer->imported_ = true;
  buffer->release_ = std::move(release);
  return buffer;
}

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
  buffer->CountAllocation(allocation_counters(), MemoryPool::kHost);
  return Ref<Buffer>(std::move(buffer));
}

Result<Ref<Buffer>> HostAllocator::ImportBuffer(const BufferParams& params,
                                                const ExternalBuffer& external,
                                                std::function<void()> release) {
  if (external.type != ExternalBuffer::Type::kHostAllocation) {
    return InvalidArgumentError(
        "the CPU allocator imports host memory only, not a device allocation");
  }
  if (external.host_pointer == nullptr && external.size != 0) {
    return InvalidArgumentError("cannot import " + std::to_string(external.size) +
                                " bytes of host memory at a null address");
  }
  // Kernels take an address even for an empty binding.
  static uint8_t empty;
  uint8_t* data = external.host_pointer ? static_cast<uint8_t*>(external.host_pointer) : &empty;
  return Ref<Buffer>(HostBuffer::Import(params.usage, data, external.size, std::move(release)));
}

Result<ExternalBuffer> HostAllocator::ExportBuffer(const Buffer& buffer) {
  auto* allocation = dynamic_cast<const HostBuffer*>(buffer.allocated_buffer());
  if (allocation == nullptr) {
    return InvalidArgumentError("cannot export a buffer of another device from the CPU allocator");
  }
  ExternalBuffer external;
  external.type = ExternalBuffer::Type::kHostAllocation;
  // data() is not const: the exported memory is writable, as the buffer's.
  external.host_pointer = const_cast<HostBuffer*>(allocation)->data() + buffer.byte_offset();
  external.size = buffer.byte_length();
  return external;
}

}  // namespace kiln::hal::cpu
