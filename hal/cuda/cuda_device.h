// CudaDevice: one NVIDIA GPU as a HAL device ("cuda", "cuda://N").
//
// Objects: buffers from CudaAllocator (cuda_buffer.h), "cuda-nvptx-fb"
// executables (cuda_executable.h, JIT-compiled once per device through the
// module cache), command buffers recorded as CUDA graphs
// (graph_command_buffer.h) or, with the streams option, as direct launches
// (stream_command_buffer.h), and CudaSemaphores. One-shot graph command
// buffers share the device's GraphCache (graph_cache.h): a function with
// dynamic shapes that records one per call patches the graph a previous
// call of the same structure left, instead of instantiating its own. Exports that carry a
// library call run cuBLASLt or cuDNN where the device has them
// (cuda_libraries.h). The queue (cuda_queue.h)
// runs on one stream of the device's primary context.
//
// Channels (CreateChannel, hal/channel.h) are NCCL communicators
// (nccl_channel.h): libnccl.so.2 is opened at the first channel, once per
// device; without it (or with a release older than 2.18) CreateChannel is
// UNAVAILABLE saying why, and nothing else of the device changes. The
// device's NcclWatchdog (nccl_watchdog.h) surfaces NCCL's asynchronous
// errors as the failure of the submissions whose collectives hit them; its
// thread starts with the first such submission.
//
// Submissions (through hal/utils/submission.h) check everything they can
// before enqueueing anything: that
// command buffers and buffers belong to this device, that command buffers
// have ended, binding tables, one-shot reuse, and the device's health; a
// lost device (a kernel fault) fails every later submission with the CUDA
// error that lost it.
#pragma once

#include <mutex>
#include <optional>

#include "hal/cuda/cuda_buffer.h"
#include "hal/cuda/cuda_context.h"
#include "hal/cuda/cuda_executable.h"
#include "hal/cuda/cuda_libraries.h"
#include "hal/cuda/cuda_queue.h"
#include "hal/cuda/graph_cache.h"
#include "hal/cuda/nccl_channel.h"
#include "hal/cuda/nccl_symbols.h"
#include "hal/cuda/nccl_watchdog.h"
#include "hal/device.h"

namespace kiln::hal::cuda {

struct CudaDeviceOptions {
  // Record command buffers as direct stream launches instead of graphs
  // (--cuda_use_streams).
  bool use_streams = false;
  // Run exports that carry a library call (a cuBLASLt matmul, a cuDNN
  // convolution; library_call.h) through the library where it is present;
  // false runs every export's own kernel (--cuda_library_calls=false).
  bool library_calls = true;
  // Keep one-shot command buffers' graphs in the device's GraphCache for the
  // next one-shot command buffer of the same structure (graph_cache.h);
  // false builds a graph per submit (--cuda_graph_cache=false).
  bool graph_cache = true;
};

class CudaDevice final : public Device {
 public:
  static Result<Ref<CudaDevice>> Create(Ref<CudaSymbols> symbols, int ordinal,
                                        const CudaDeviceOptions& options);
  // Fails the signals of submissions still waiting on the host, and
  // destroys the cached one-shot graphs.
  ~CudaDevice() override;

  const DeviceProperties& properties() const override { return properties_; }
  Allocator& allocator() override { return allocator_; }

  Result<Ref<CommandBuffer>> CreateCommandBuffer(CommandBufferMode mode) override;
  Result<Ref<Executable>> CreateExecutable(std::string_view format,
                                           std::span<const uint8_t> bytes) override;
  Result<Ref<Semaphore>> CreateSemaphore(uint64_t initial_value) override;
  // An NcclChannel on this device (collective: returns once every
  // participant has joined).
  Result<Ref<Channel>> CreateChannel(const ChannelParams& params) override;

  Status QueueExecute(const Fence& wait, const Fence& signal,
                      std::span<const Ref<CommandBuffer>> command_buffers,
                      std::span<const Ref<Buffer>> binding_table) override;
  Result<Ref<Buffer>> QueueAlloca(const Fence& wait, const Fence& signal,
                                  const BufferParams& params, size_t size) override;
  Status QueueDealloca(const Fence& wait, const Fence& signal, Ref<Buffer> buffer) override;
  // Resolves the timing events of traced submissions that have completed
  // (cuda_dispatch_timer.h).
  void FlushTrace() override;

  const CudaContext& context() const { return *context_; }
  const CudaModuleCache& module_cache() const { return modules_; }
  const CudaLibraries& libraries() const { return libraries_; }
  // One-shot command buffers' graphs by structure: statistics for tests and
  // benchmarks (hits, misses, evictions, size).
  const GraphCache& graph_cache() const { return *graph_cache_; }
  // libnccl.so.2, loaded at the first call (thread-safe), or why it is not
  // usable.
  const Result<Ref<NcclSymbols>>& nccl() const;
  // Submissions with collectives in flight, watched (tests).
  const NcclWatchdog& nccl_watchdog() const { return *watchdog_; }

 private:
  CudaDevice(Ref<CudaContext> context, DeviceProperties properties, CudaDeviceOptions options);
  // What the drivers' submission skeleton (hal/utils/submission.h) asks of
  // this device's objects.
  struct Objects;

  Ref<CudaContext> context_;
  DeviceProperties properties_;
  CudaDeviceOptions options_;
  CudaAllocator allocator_;
  CudaModuleCache modules_;
  CudaLibraries libraries_;
  // Shared with the one-shot command buffers, which may outlive the device.
  Ref<GraphCache> graph_cache_;
  Ref<NcclWatchdog> watchdog_;
  Ref<CudaQueue> queue_;
  mutable std::once_flag nccl_once_;
  mutable std::optional<Result<Ref<NcclSymbols>>> nccl_;
};

}  // namespace kiln::hal::cuda
