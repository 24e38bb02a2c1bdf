// CpuDevice: the host CPU as a HAL device.
//
// Two flavours share this class:
//   - "cpu" (alias "local-task"): a queue with its own thread, and
//     workgroups spread over a thread pool of thread_count threads (the
//     queue's thread is one of them);
//   - "cpu-sync" (alias "local-sync"): no threads at all; work runs inline
//     on the submitting (or signaling) thread, one workgroup after another.
// Memory is host memory (host_allocator.h); executables are shared objects
// in "system-elf-*" FlatBuffers (elf_loader.h), whose exports may run
// oneDNN library calls (cpu_libraries.h; on as many threads as the device
// has workers, 1 for cpu-sync); semaphores are
// CpuSemaphores; channels are CpuChannels (socket meshes between
// processes), whose collectives run on the queue like any other command.
// Queue operations go through the drivers' shared submission
// skeleton (hal/utils/submission.h); the queue waits only on CpuSemaphores
// and signals any semaphore.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "hal/cpu/cpu_libraries.h"
#include "hal/cpu/cpu_queue.h"
#include "hal/cpu/host_allocator.h"
#include "hal/cpu/thread_pool.h"
#include "hal/device.h"

namespace kiln::hal::cpu {

struct CpuDeviceOptions {
  bool asynchronous = true;   // false: cpu-sync.
  uint32_t thread_count = 0;  // Workgroup threads; 0 = AvailableCpuCount(). Ignored for sync.
  // Run exports' library calls with oneDNN where it is present
  // (--cpu_library_calls=false: their kernels, for comparison).
  bool library_calls = true;
  // The oneDNN library to open (tests name an absent one).
  std::string onednn_library = "libdnnl.so.2";
  // How long a collective (cpu_channel.h) waits on peers that make no
  // progress before it fails, and how long CreateChannel waits for them to
  // connect (the rendezvous has its own timeout).
  std::chrono::milliseconds collective_timeout{std::chrono::minutes(5)};
};

class CpuDevice final : public Device {
 public:
  static Result<Ref<CpuDevice>> Create(const CpuDeviceOptions& options);
  ~CpuDevice() override;

  const DeviceProperties& properties() const override { return properties_; }
  Allocator& allocator() override { return allocator_; }

  Result<Ref<CommandBuffer>> CreateCommandBuffer(CommandBufferMode mode) override;
  Result<Ref<Executable>> CreateExecutable(std::string_view format,
                                           std::span<const uint8_t> bytes) override;
  Result<Ref<Semaphore>> CreateSemaphore(uint64_t initial_value) override;
  // A CpuChannel (cpu_channel.h). INVALID_ARGUMENT unless count >= 1, rank
  // is in [0, count) and, for count > 1, the rendezvous is set and its
  // world size is count.
  Result<Ref<Channel>> CreateChannel(const ChannelParams& params) override;

  Status QueueExecute(const Fence& wait, const Fence& signal,
                      std::span<const Ref<CommandBuffer>> command_buffers,
                      std::span<const Ref<Buffer>> binding_table) override;
  Result<Ref<Buffer>> QueueAlloca(const Fence& wait, const Fence& signal,
                                  const BufferParams& params, size_t size) override;
  Status QueueDealloca(const Fence& wait, const Fence& signal, Ref<Buffer> buffer) override;

 private:
  CpuDevice(DeviceProperties properties, std::unique_ptr<ThreadPool> pool,
            const CpuDeviceOptions& options);

  DeviceProperties properties_;
  CpuLibraries libraries_;
  HostAllocator allocator_;
  std::unique_ptr<ThreadPool> pool_;  // Null for cpu-sync.
  Ref<CpuQueue> queue_;
  std::chrono::milliseconds collective_timeout_;
};

}  // namespace kiln::hal::cpu
