#include "hal/cpu/cpu_device.h"

#include <thread>

#include "hal/cpu/cpu_channel.h"
#include "hal/cpu/cpu_command_buffer.h"
#include "hal/cpu/cpu_semaphore.h"
#include "hal/cpu/elf_loader.h"
#include "hal/utils/submission.h"

namespace kiln::hal::cpu {

Result<Ref<CpuDevice>> CpuDevice::Create(const CpuDeviceOptions& options) {
  const uint32_t cpu_count = AvailableCpuCount();
  DeviceProperties properties;
  properties.kind = "cpu";
  // CreateExecutable also accepts the other architecture's ELF format (and
  // then fails to load it); only the host's runs.
  properties.executable_formats = {std::string(HostElfFormat())};
  properties.cpu_count = cpu_count;
  std::unique_ptr<ThreadPool> pool;
  if (options.asynchronous) {
    uint32_t threads = options.thread_count == 0 ? cpu_count : options.thread_count;
    pool = std::make_unique<ThreadPool>(threads);
    properties.driver = "cpu";
    properties.thread_count = threads;
    properties.name = "CPU (" + std::to_string(threads) + " threads)";
  } else {
    properties.driver = "cpu-sync";
    properties.thread_count = 1;
    properties.name = "CPU (inline, synchronous)";
  }
  properties.uri = properties.driver + "://0";
  return Ref<CpuDevice>::Adopt(new CpuDevice(std::move(properties), std::move(pool), options));
}

CpuDevice::CpuDevice(DeviceProperties properties, std::unique_ptr<ThreadPool> pool,
                     const CpuDeviceOptions& options)
    : properties_(std::move(properties)),
      libraries_(options.library_calls, properties_.thread_count, options.onednn_library,
                 pool.get()),
      pool_(std::move(pool)),
      collective_timeout_(options.collective_timeout) {
  queue_ = MakeRef<CpuQueue>(pool_.get(), pool_ != nullptr);
}

CpuDevice::~CpuDevice() {
  // The queue may outlive the device (semaphores hold callbacks to it), but
  // after Shutdown it never touches the pool again.
  queue_->Shutdown();
}

Result<Ref<CommandBuffer>> CpuDevice::CreateCommandBuffer(CommandBufferMode mode) {
  return Ref<CommandBuffer>(MakeRef<CpuCommandBuffer>(mode));
}

Result<Ref<Executable>> CpuDevice::CreateExecutable(std::string_view format,
                                                    std::span<const uint8_t> bytes) {
  if (format != "system-elf-x86_64" && format != "system-elf-arm_64") {
    return InvalidArgumentError("the " + properties_.driver + " device cannot load '" +
                                std::string(format) + "' executables (it runs " +
                                std::string(HostElfFormat()) + ")");
  }
  KILN_ASSIGN_OR_RETURN(Ref<CpuExecutable> executable,
                        LoadElfExecutable(format, bytes, "executable", &libraries_));
  return Ref<Executable>(std::move(executable));
}

Result<Ref<Semaphore>> CpuDevice::CreateSemaphore(uint64_t initial_value) {
  return Ref<Semaphore>(MakeRef<CpuSemaphore>(initial_value));
}

Result<Ref<Channel>> CpuDevice::CreateChannel(const ChannelParams& params) {
  auto error = [&](const std::string& why) {
    return InvalidArgumentError("CreateChannel (group '" + params.group + "'): " + why);
  };
  if (params.count < 1) {
    return error("a channel of " + std::to_string(params.count) + " participants (must be >= 1)");
  }
  if (params.rank < 0 || params.rank >= params.count) {
    return error("rank " + std::to_string(params.rank) + " is not in [0, " +
                 std::to_string(params.count) + ")");
  }
  if (params.count > 1 && !params.rendezvous) {
    return error("a channel of " + std::to_string(params.count) +
                 " participants needs a rendezvous");
  }
  if (params.rendezvous && params.rendezvous->world_size() != params.count) {
    return error("the rendezvous '" + params.rendezvous->spec() + "' has world size " +
                 std::to_string(params.rendezvous->world_size()) + " but the channel " +
                 std::to_string(params.count) + " participants");
  }
  if (params.rendezvous && params.rendezvous->rank() != params.rank) {
    return error("the rendezvous '" + params.rendezvous->spec() + "' was opened as rank " +
                 std::to_string(params.rendezvous->rank()) + " but the channel's rank is " +
                 std::to_string(params.rank));
  }
  KILN_ASSIGN_OR_RETURN(Ref<CpuChannel> channel, CpuChannel::Create(params, collective_timeout_));
  return Ref<Channel>(std::move(channel));
}

namespace {

// What the submission skeleton asks of a CPU device's objects.
struct CpuObjects {
  std::string_view owner() const { return "a CPU device"; }
  Status health() const { return OkStatus(); }
  // The queue registers callbacks on what it waits for; it signals through
  // the Semaphore API, so any semaphore can be signaled.
  bool OwnsSemaphore(const Semaphore& semaphore, utils::SemaphoreRole role) const {
    return role == utils::SemaphoreRole::kSignal ||
           dynamic_cast<const CpuSemaphore*>(&semaphore) != nullptr;
  }
  bool OwnsBuffer(const Buffer& buffer) const {
    return dynamic_cast<const HostBuffer*>(buffer.allocated_buffer()) != nullptr;
  }
  Status ForeignBufferError(const Buffer&, const std::string& where) const {
    return InvalidArgumentError(where + " holds a buffer not allocated by a CPU device");
  }
  CpuCommandBuffer* OwnCommandBuffer(CommandBuffer& command_buffer) const {
    return dynamic_cast<CpuCommandBuffer*>(&command_buffer);
  }
};

}  // namespace

Status CpuDevice::QueueExecute(const Fence& wait, const Fence& signal,
                               std::span<const Ref<CommandBuffer>> command_buffers,
                               std::span<const Ref<Buffer>> binding_table) {
  return utils::QueueExecute<CpuCommandBuffer>(CpuObjects(), wait, signal, command_buffers,
                                               binding_table, [&](CpuSubmission submission) {
                                                 submission.trace = attached_trace();
                                                 queue_->Submit(std::move(submission));
                                                 return OkStatus();
                                               });
}

Result<Ref<Buffer>> CpuDevice::QueueAlloca(const Fence& wait, const Fence& signal,
                                           const BufferParams& params, size_t size) {
  KILN_ASSIGN_OR_RETURN(CpuSubmission submission, utils::PrepareQueueOperation<CpuCommandBuffer>(
                                                      CpuObjects(), "QueueAlloca", wait, signal));
  // Host memory is ready at once; the submission only keeps queue order.
  KILN_ASSIGN_OR_RETURN(Ref<Buffer> buffer, allocator_.Allocate(params, size));
  queue_->Submit(std::move(submission));
  return buffer;
}

Status CpuDevice::QueueDealloca(const Fence& wait, const Fence& signal, Ref<Buffer> buffer) {
  if (!buffer) return InvalidArgumentError("QueueDealloca: null buffer");
  if (dynamic_cast<HostBuffer*>(buffer->allocated_buffer()) == nullptr) {
    return InvalidArgumentError("QueueDealloca: the buffer was not allocated by a CPU device");
  }
  KILN_ASSIGN_OR_RETURN(CpuSubmission submission, utils::PrepareQueueOperation<CpuCommandBuffer>(
                                                      CpuObjects(), "QueueDealloca", wait, signal));
  submission.released = std::move(buffer);
  queue_->Submit(std::move(submission));
  return OkStatus();
}

}  // namespace kiln::hal::cpu
