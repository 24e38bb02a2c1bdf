#include "hal/cuda/cuda_buffer.h"

#include <cstring>
#include <typeinfo>

namespace kiln::hal::cuda {

namespace {

std::string SizeText(size_t size) { return std::to_string(size) + " bytes"; }

}  // namespace

Result<Ref<CudaBuffer>> CudaBuffer::Allocate(const Ref<CudaContext>& context,
                                             const BufferParams& params, size_t size) {
  KILN_RETURN_IF_ERROR(context->health());
  KILN_RETURN_IF_ERROR(context->MakeCurrent());
  const CudaSymbols& s = context->symbols();
  const bool host_visible = params.memory_type & kMemoryTypeHostVisible;
  const bool device_local = (params.memory_type & kMemoryTypeDeviceLocal) || !host_visible;
  Kind kind;
  MemoryTypeBits type;
  if (device_local && host_visible) {
    kind = Kind::kManaged;
    type = kMemoryTypeDeviceLocal | kMemoryTypeHostVisible | kMemoryTypeHostCoherent;
  } else if (host_visible) {
    kind = Kind::kPinnedHost;
    type = kMemoryTypeHostVisible | kMemoryTypeHostCoherent;
  } else {
    kind = Kind::kDevice;
    type = kMemoryTypeDeviceLocal;
  }
  Ref<CudaBuffer> buffer =
      Ref<CudaBuffer>::Adopt(new CudaBuffer(context, kind, type, params.usage, size));
  if (size == 0) return buffer;  // CUDA rejects empty allocations; nothing to address.
  const std::string what =
      "allocating " + SizeText(size) + " of " + FormatMemoryType(type) + " CUDA memory";
  switch (kind) {
    case Kind::kDevice:
      KILN_RETURN_IF_ERROR(context->Check(s.cuMemAlloc(&buffer->device_pointer_, size), what));
      break;
    case Kind::kManaged:
      KILN_RETURN_IF_ERROR(context->Check(
          s.cuMemAllocManaged(&buffer->device_pointer_, size, CU_MEM_ATTACH_GLOBAL), what));
      buffer->host_pointer_ = reinterpret_cast<uint8_t*>(buffer->device_pointer_);
      break;
    case Kind::kPinnedHost: {
      void* host = nullptr;
      KILN_RETURN_IF_ERROR(context->Check(
          s.cuMemHostAlloc(&host, size, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP),
          what));
      buffer->host_pointer_ = static_cast<uint8_t*>(host);
      KILN_RETURN_IF_ERROR(
          context->Check(s.cuMemHostGetDevicePointer(&buffer->device_pointer_, host, 0), what));
      break;
    }
    case Kind::kStreamOrdered:
    case Kind::kImported:
      break;
  }
  return buffer;
}

Result<Ref<CudaBuffer>> CudaBuffer::Import(const Ref<CudaContext>& context, BufferUsageBits usage,
                                           CUdeviceptr device_pointer, size_t size,
                                           std::function<void()> release) {
  KILN_RETURN_IF_ERROR(context->health());
  KILN_RETURN_IF_ERROR(context->MakeCurrent());
  const CudaSymbols& s = context->symbols();
  if (size != 0) {
    // An address CUDA does not know (host memory, another process's) is
    // refused here rather than faulting in a kernel.
    int ordinal = -1;
    const CUresult result =
        s.cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, device_pointer);
    if (result != CUDA_SUCCESS) {
      return InvalidArgumentError("cannot import " + SizeText(size) +
                                  " at a device address CUDA does not know (" +
                                  s.DescribeError(result) + ")");
    }
    if (ordinal != context->ordinal()) {
      return InvalidArgumentError("cannot import memory of CUDA device " + std::to_string(ordinal) +
                                  " into cuda://" + std::to_string(context->ordinal()));
    }
    // The producer ordered its writes before the legacy default stream
    // (allocator.h); the queue's non-blocking stream would not wait for it.
    KILN_RETURN_IF_ERROR(context->Check(s.cuStreamSynchronize(CU_STREAM_LEGACY),
                                        "importing memory (cuStreamSynchronize)"));
  }
  Ref<CudaBuffer> buffer = Ref<CudaBuffer>::Adopt(
      new CudaBuffer(context, Kind::kImported, kMemoryTypeDeviceLocal, usage, size));
  buffer->device_pointer_ = device_pointer;
  buffer->release_ = std::move(release);
  return buffer;
}

Result<Ref<CudaBuffer>> CudaBuffer::AllocateAsync(const Ref<CudaContext>& context,
                                                  const BufferParams& params, size_t size) {
  if ((params.memory_type & kMemoryTypeHostVisible) || !context->supports_memory_pools())
      [[unlikely]] {
    // Pools hold device memory only; other kinds are ready at once.
    return Allocate(context, params, size);
  }
  KILN_RETURN_IF_ERROR(context->health());
  KILN_RETURN_IF_ERROR(context->MakeCurrent());
  Ref<CudaBuffer> buffer = Ref<CudaBuffer>::Adopt(
      new CudaBuffer(context, Kind::kStreamOrdered, kMemoryTypeDeviceLocal, params.usage, size));
  if (size == 0) return buffer;
  // Blocks come from the context's cache first (stream_ordered_block_cache.h).
  StreamOrderedBlockCache& cache = context->block_cache();
  buffer->block_size_ = StreamOrderedBlockCache::RoundSize(size);
  buffer->device_pointer_ = cache.Take(buffer->block_size_);
  if (buffer->device_pointer_ != 0) return buffer;
  const CudaSymbols& s = context->symbols();
  CUresult result =
      s.cuMemAllocAsync(&buffer->device_pointer_, buffer->block_size_, context->stream());
  if (result == CUDA_ERROR_OUT_OF_MEMORY) {
    // The cache may hold what this allocation needs: give it back and retry.
    for (CUdeviceptr block : cache.TakeAll()) s.cuMemFreeAsync(block, context->stream());
    result = s.cuMemAllocAsync(&buffer->device_pointer_, buffer->block_size_, context->stream());
  }
  KILN_RETURN_IF_ERROR(
      context->Check(result, "queue_alloca of " + SizeText(size) + " (cuMemAllocAsync)"));
  return buffer;
}

CUresult CudaBuffer::ReleaseBlock() {
  freed_ = true;
  if (context_->block_cache().Give(device_pointer_, block_size_)) return CUDA_SUCCESS;
  return context_->symbols().cuMemFreeAsync(device_pointer_, context_->stream());
}

Status CudaBuffer::FreeAsync() {
  if (kind_ != Kind::kStreamOrdered || freed_ || device_pointer_ == 0) return OkStatus();
  KILN_RETURN_IF_ERROR(context_->MakeCurrent());
  return context_->Check(ReleaseBlock(), "queue_dealloca (cuMemFreeAsync)");
}

CudaBuffer::~CudaBuffer() {
  if (kind_ == Kind::kImported) {
    if (release_) release_();
    return;
  }
  if (device_pointer_ == 0 && host_pointer_ == nullptr) return;
  if (!context_->MakeCurrent().ok()) return;
  const CudaSymbols& s = context_->symbols();
  switch (kind_) {
    case Kind::kDevice:
    case Kind::kManaged:
      s.cuMemFree(device_pointer_);
      break;
    case Kind::kPinnedHost:
      s.cuMemFreeHost(host_pointer_);
      break;
    case Kind::kStreamOrdered:
      if (!freed_) ReleaseBlock();
      break;
    case Kind::kImported:
      break;
  }
}

Result<uint8_t*> CudaBuffer::MapAllocation(size_t allocation_offset, size_t) {
  if (byte_length() == 0) {
    // Nothing was allocated (CUDA has no empty allocations); an empty
    // mapping still needs an address.
    static uint8_t empty;
    return &empty;
  }
  if (!host_pointer_) {
    return FailedPreconditionError("cannot map device-local CUDA memory (not host-visible)");
  }
  return host_pointer_ + allocation_offset;
}

Status CudaBuffer::ReadAllocation(size_t allocation_offset, std::span<uint8_t> out) {
  KILN_RETURN_IF_ERROR(context_->health());
  KILN_RETURN_IF_ERROR(context_->MakeCurrent());
  if (kind_ == Kind::kStreamOrdered) {
    // The allocation itself is ordered on the queue's stream.
    KILN_RETURN_IF_ERROR(
        context_->Check(context_->symbols().cuStreamSynchronize(context_->stream()),
                        "ReadData (cuStreamSynchronize)"));
  }
  return context_->Check(
      context_->symbols().cuMemcpyDtoH(out.data(), device_pointer_ + allocation_offset, out.size()),
      "ReadData of " + SizeText(out.size()) + " (cuMemcpyDtoH)");
}

Status CudaBuffer::WriteAllocation(size_t allocation_offset, std::span<const uint8_t> data) {
  KILN_RETURN_IF_ERROR(context_->health());
  KILN_RETURN_IF_ERROR(context_->MakeCurrent());
  if (kind_ == Kind::kStreamOrdered) {
    KILN_RETURN_IF_ERROR(
        context_->Check(context_->symbols().cuStreamSynchronize(context_->stream()),
                        "WriteData (cuStreamSynchronize)"));
  }
  return context_->Check(context_->symbols().cuMemcpyHtoD(device_pointer_ + allocation_offset,
                                                          data.data(), data.size()),
                         "WriteData of " + SizeText(data.size()) + " (cuMemcpyHtoD)");
}

Result<Ref<Buffer>> CudaAllocator::Allocate(const BufferParams& params, size_t size) {
  // Device memory comes from the context's pool, ordered on its one stream
  // (every use of the buffer is queued there, or synchronizes with it
  // first): a compiled function allocates its intermediates and results on
  // every call, and cuMemAlloc/cuMemFree cost tens of microseconds each
  // (cuMemFree waits for the whole device), where a pool that keeps its
  // memory (cuda_context.cc) hands it back in about one.
  KILN_ASSIGN_OR_RETURN(Ref<CudaBuffer> buffer, CudaBuffer::AllocateAsync(context_, params, size));
  buffer->CountAllocation(allocation_counters(), buffer->memory_pool());
  return Ref<Buffer>(std::move(buffer));
}

Result<Ref<Buffer>> CudaAllocator::ImportBuffer(const BufferParams& params,
                                                const ExternalBuffer& external,
                                                std::function<void()> release) {
  if (external.type != ExternalBuffer::Type::kDeviceAllocation) {
    return InvalidArgumentError(
        "the CUDA allocator imports device memory only (a CUDA device pointer), not host memory");
  }
  KILN_ASSIGN_OR_RETURN(Ref<CudaBuffer> buffer,
                        CudaBuffer::Import(context_, params.usage, external.device_pointer,
                                           external.size, std::move(release)));
  return Ref<Buffer>(std::move(buffer));
}

Result<ExternalBuffer> CudaAllocator::ExportBuffer(const Buffer& buffer) {
  const CudaBuffer* allocation = CudaAllocationOf(buffer, *context_);
  if (allocation == nullptr) return ForeignBufferError(buffer, *context_, "the exported buffer");
  ExternalBuffer external;
  external.type = ExternalBuffer::Type::kDeviceAllocation;
  external.device_pointer = allocation->device_pointer() + buffer.byte_offset();
  external.size = buffer.byte_length();
  return external;
}

const CudaBuffer* CudaAllocationOf(const Buffer& buffer, const CudaContext& context) {
  // CudaBuffer is final: comparing the dynamic type is exact, and cheaper
  // than dynamic_cast's walk of the hierarchy (every binding-table slot of
  // every submit comes here).
  const Buffer* allocated = buffer.allocated_buffer();
  if (allocated == nullptr || typeid(*allocated) != typeid(CudaBuffer)) return nullptr;
  const auto* allocation = static_cast<const CudaBuffer*>(allocated);
  return &allocation->context() == &context ? allocation : nullptr;
}

Status ForeignBufferError(const Buffer& buffer, const CudaContext& context, std::string_view what) {
  const auto* allocation = dynamic_cast<const CudaBuffer*>(buffer.allocated_buffer());
  if (allocation == nullptr) {
    return InvalidArgumentError(std::string(what) +
                                " is a buffer of another device (not CUDA memory)");
  }
  return InvalidArgumentError(std::string(what) + " is a buffer of another CUDA device (cuda://" +
                              std::to_string(allocation->context().ordinal()) + ", not cuda://" +
                              std::to_string(context.ordinal()) + ")");
}

}  // namespace kiln::hal::cuda
