#include "hal/cuda/cuda_device.h"

#include <type_traits>
#include <typeinfo>

#include "hal/cuda/graph_command_buffer.h"
#include "hal/cuda/stream_command_buffer.h"
#include "hal/utils/submission.h"

namespace kiln::hal::cuda {

Result<Ref<CudaDevice>> CudaDevice::Create(Ref<CudaSymbols> symbols, int ordinal,
                                           const CudaDeviceOptions& options) {
  KILN_ASSIGN_OR_RETURN(Ref<CudaContext> context, CudaContext::Create(symbols, ordinal));
  char name[256] = {};
  KILN_RETURN_IF_ERROR(context->Check(
      symbols->cuDeviceGetName(name, sizeof(name) - 1, context->device()), "cuDeviceGetName"));
  DeviceProperties properties;
  properties.name = name;
  properties.driver = "cuda";
  properties.uri = "cuda://" + std::to_string(ordinal);
  properties.kind = "gpu";
  properties.executable_formats = {"cuda-nvptx-fb"};
  return Ref<CudaDevice>::Adopt(new CudaDevice(std::move(context), std::move(properties), options));
}

CudaDevice::CudaDevice(Ref<CudaContext> context, DeviceProperties properties,
                       CudaDeviceOptions options)
    : context_(context),
      properties_(std::move(properties)),
      options_(options),
      allocator_(context),
      modules_(context),
      libraries_(context, options.library_calls),
      graph_cache_(MakeRef<GraphCache>()),
      watchdog_(MakeRef<NcclWatchdog>(context)),
      queue_(MakeRef<CudaQueue>(context, watchdog_)) {}

CudaDevice::~CudaDevice() {
  queue_->Shutdown();
  // Submissions still in flight complete unwatched.
  watchdog_->Shutdown();
  // Command buffers that outlive the device keep the cache object, not the
  // graphs (and executables) it holds.
  graph_cache_->Clear();
}

Result<Ref<CommandBuffer>> CudaDevice::CreateCommandBuffer(CommandBufferMode mode) {
  KILN_RETURN_IF_ERROR(context_->health());
  if (options_.use_streams) return Ref<CommandBuffer>(MakeRef<StreamCommandBuffer>(context_, mode));
  // Without the cache one-shot command buffers build their graph at End.
  return Ref<CommandBuffer>(MakeRef<GraphCommandBuffer>(
      context_, mode, options_.graph_cache ? graph_cache_ : Ref<GraphCache>()));
}

Result<Ref<Executable>> CudaDevice::CreateExecutable(std::string_view format,
                                                     std::span<const uint8_t> bytes) {
  if (format != "cuda-nvptx-fb") {
    return InvalidArgumentError("the cuda device cannot load '" + std::string(format) +
                                "' executables (it runs cuda-nvptx-fb)");
  }
  KILN_ASSIGN_OR_RETURN(Ref<CudaExecutable> executable,
                        CudaExecutable::Load(context_, modules_, libraries_, bytes));
  return Ref<Executable>(std::move(executable));
}

Result<Ref<Semaphore>> CudaDevice::CreateSemaphore(uint64_t initial_value) {
  return Ref<Semaphore>(MakeRef<CudaSemaphore>(initial_value));
}

const Result<Ref<NcclSymbols>>& CudaDevice::nccl() const {
  std::call_once(nccl_once_, [&] { nccl_.emplace(NcclSymbols::Load()); });
  return *nccl_;
}

Result<Ref<Channel>> CudaDevice::CreateChannel(const ChannelParams& params) {
  KILN_RETURN_IF_ERROR(context_->health());
  const Result<Ref<NcclSymbols>>& nccl = this->nccl();
  if (!nccl.ok()) {
    return UnavailableError("CreateChannel on " + properties_.uri +
                            ": CUDA channels need NCCL: " + nccl.status().message());
  }
  KILN_ASSIGN_OR_RETURN(Ref<NcclChannel> channel,
                        NcclChannel::Create(context_, *nccl, watchdog_, params));
  return Ref<Channel>(std::move(channel));
}

struct CudaDevice::Objects {
  const CudaContext& context;
  std::string_view owner() const { return "this CUDA device"; }
  Status health() const { return context.health(); }
  bool OwnsSemaphore(const Semaphore& semaphore, utils::SemaphoreRole) const {
    // CudaSemaphore is final: comparing the dynamic type is exact, and
    // cheaper than dynamic_cast's walk of the hierarchy.
    static_assert(std::is_final_v<CudaSemaphore>);
    return typeid(semaphore) == typeid(CudaSemaphore);
  }
  bool OwnsBuffer(const Buffer& buffer) const {
    return CudaAllocationOf(buffer, context) != nullptr;
  }
  Status ForeignBufferError(const Buffer& buffer, const std::string& where) const {
    return cuda::ForeignBufferError(buffer, context, where);
  }
  CudaCommandBuffer* OwnCommandBuffer(CommandBuffer& command_buffer) const {
    // The CUDA command buffers are the two final classes below (as
    // dynamic_cast<CudaCommandBuffer*> would find, for less).
    static_assert(std::is_final_v<GraphCommandBuffer> && std::is_final_v<StreamCommandBuffer>);
    const std::type_info& type = typeid(command_buffer);
    if (type != typeid(GraphCommandBuffer) && type != typeid(StreamCommandBuffer)) return nullptr;
    auto* own = static_cast<CudaCommandBuffer*>(&command_buffer);
    return &own->context() == &context ? own : nullptr;
  }
};

Status CudaDevice::QueueExecute(const Fence& wait, const Fence& signal,
                                std::span<const Ref<CommandBuffer>> command_buffers,
                                std::span<const Ref<Buffer>> binding_table) {
  KILN_RETURN_IF_ERROR(utils::CheckQueueExecute<CudaCommandBuffer>(Objects{*context_}, wait, signal,
                                                                   command_buffers, binding_table));
  return utils::SubmitClaimingOneShots(command_buffers, [&]() -> Status {
    // After the HAL's checks of the table: a library call may need more
    // of a slot than the range its dispatch names.
    for (size_t i = 0; i < command_buffers.size(); ++i) {
      Status fits = static_cast<const CudaCommandBuffer&>(*command_buffers[i])
                        .CheckLibraryBindings(binding_table);
      if (!fits.ok()) [[unlikely]] {
        return fits.WithContext("QueueExecute: command buffer " + std::to_string(i));
      }
    }
    // The queue takes the fences, command buffers and table as they are
    // (CudaSubmission): issued within Submit, or copied if deferred.
    const Ref<Trace> trace = attached_trace();
    return queue_->Submit({.waits = wait.timepoints(),
                           .signals = signal.timepoints(),
                           .command_buffers = command_buffers,
                           .binding_table = binding_table,
                           .released = nullptr,
                           .trace = trace.get()});
  });
}

void CudaDevice::FlushTrace() { queue_->FlushTrace(); }

Result<Ref<Buffer>> CudaDevice::QueueAlloca(const Fence& wait, const Fence& signal,
                                            const BufferParams& params, size_t size) {
  KILN_RETURN_IF_ERROR(utils::CheckQueueOperation(Objects{*context_}, "QueueAlloca", wait, signal));
  // The memory is taken from the pool now, in stream order (it is only
  // reserved earlier than the waits ask, never used before them); the
  // submission orders the signal after the waits.
  KILN_ASSIGN_OR_RETURN(Ref<CudaBuffer> buffer, CudaBuffer::AllocateAsync(context_, params, size));
  buffer->CountAllocation(allocator_.allocation_counters(), buffer->memory_pool());
  KILN_RETURN_IF_ERROR(queue_->Submit({.waits = wait.timepoints(),
                                       .signals = signal.timepoints(),
                                       .command_buffers = {},
                                       .binding_table = {}}));
  return Ref<Buffer>(std::move(buffer));
}

Status CudaDevice::QueueDealloca(const Fence& wait, const Fence& signal, Ref<Buffer> buffer) {
  if (!buffer) return InvalidArgumentError("QueueDealloca: null buffer");
  const CudaBuffer* allocation = CudaAllocationOf(*buffer, *context_);
  if (allocation == nullptr)
    return ForeignBufferError(*buffer, *context_, "QueueDealloca: the buffer");
  KILN_RETURN_IF_ERROR(
      utils::CheckQueueOperation(Objects{*context_}, "QueueDealloca", wait, signal));
  // `buffer` holds the allocation until Submit returns; a deferred
  // submission holds it itself.
  CudaBuffer* released = allocation->kind() == CudaBuffer::Kind::kStreamOrdered
                             ? const_cast<CudaBuffer*>(allocation)
                             : nullptr;
  return queue_->Submit({.waits = wait.timepoints(),
                         .signals = signal.timepoints(),
                         .command_buffers = {},
                         .binding_table = {},
                         .released = released});
}

}  // namespace kiln::hal::cuda
