// Device: one piece of hardware (a GPU, or the host CPU) and its queue.
//
// A device makes the objects that run on it (buffers through its allocator,
// command buffers, executables, semaphores) and executes work on one
// in-order queue. Queue operations are asynchronous: each takes a wait fence
// and a signal fence, starts once every wait timepoint is reached, and
// signals every signal timepoint when done. Operations run in submission
// order. When an operation fails (a kernel reports an error) or one of its
// waits has failed, its signal semaphores are failed with the status, so the
// error reaches whoever waits at the end of the chain.
//
// Tracing: a device with a trace attached (AttachTrace) adds a device span
// per dispatch it runs to that trace; hal/trace.h says how each driver
// measures and how the spans are placed on the trace's clock.
//
// Errors found at submit time (a command buffer that is not ended, a
// binding-table slot that is missing) are returned by the call itself and
// nothing is enqueued.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/ref.h"
#include "base/result.h"
#include "hal/allocator.h"
#include "hal/buffer.h"
#include "hal/channel.h"
#include "hal/command_buffer.h"
#include "hal/executable.h"
#include "hal/fence.h"
#include "hal/semaphore.h"
#include "hal/trace.h"

namespace kiln::hal {

struct DeviceProperties {
  std::string name;           // "CPU (16 threads)", "NVIDIA H100 80GB HBM3".
  std::string driver;         // The registry name of the driver: "cpu", "cpu-sync", "cuda".
  std::string uri;            // The URI that creates this device again: "cpu://0".
  std::string kind;           // "cpu" or "gpu".
  uint32_t cpu_count = 0;     // Logical cores of the host.
  uint32_t thread_count = 0;  // Threads that run workgroups (CPU drivers; 1 when inline).
  // The executable formats this device runs, best first ("system-elf-x86_64"):
  // the hal module picks the first embedded variant whose format is listed.
  std::vector<std::string> executable_formats;
};

class Device : public RefObject {
 public:
  virtual const DeviceProperties& properties() const = 0;
  virtual Allocator& allocator() = 0;

  virtual Result<Ref<CommandBuffer>> CreateCommandBuffer(CommandBufferMode mode) = 0;
  // Loads an executable FlatBuffer of `format`; an unsupported format is an
  // error that lists the formats this device runs.
  virtual Result<Ref<Executable>> CreateExecutable(std::string_view format,
                                                   std::span<const uint8_t> bytes) = 0;
  virtual Result<Ref<Semaphore>> CreateSemaphore(uint64_t initial_value) = 0;
  // Joins the collective group `params` describes (channel.h): returns once
  // every participant has joined. A driver without collectives keeps this
  // default, UNAVAILABLE naming the driver.
  virtual Result<Ref<Channel>> CreateChannel(const ChannelParams& params) {
    return UnavailableError("the " + properties().driver +
                            " driver has no collectives (channels are made by the cpu and cuda "
                            "drivers)");
  }

  // Runs `command_buffers` in order once `wait` is reached, then signals
  // `signal`. `binding_table` supplies the buffers of the binding-table slots
  // used by reusable command buffers (slot i is binding_table[i]).
  virtual Status QueueExecute(const Fence& wait, const Fence& signal,
                              std::span<const Ref<CommandBuffer>> command_buffers,
                              std::span<const Ref<Buffer>> binding_table) = 0;
  // Returns a buffer usable by queue operations ordered after `signal`
  // (the host must not touch it before `signal` is reached).
  virtual Result<Ref<Buffer>> QueueAlloca(const Fence& wait, const Fence& signal,
                                          const BufferParams& params, size_t size) = 0;
  // Releases the device's hold on `buffer` once `wait` is reached (after the
  // operations that use it), then signals `signal`.
  virtual Status QueueDealloca(const Fence& wait, const Fence& signal, Ref<Buffer> buffer) = 0;

  // Dispatch timing. While `trace` is attached, every later QueueExecute
  // measures its dispatches and adds their device spans to it; a
  // submission keeps the trace it started with. Null, or a trace that
  // records no spans, detaches (nothing is measured). Thread-safe.
  void AttachTrace(Ref<Trace> trace) {
    if (trace && !trace->recording()) trace = nullptr;
    std::lock_guard<std::mutex> lock(trace_mutex_);
    traced_.store(trace != nullptr, std::memory_order_relaxed);
    trace_ = std::move(trace);
  }
  // The attached trace (null when none): one relaxed load when untraced, so
  // drivers ask at every submission.
  Ref<Trace> attached_trace() const {
    if (!traced_.load(std::memory_order_relaxed)) return nullptr;
    std::lock_guard<std::mutex> lock(trace_mutex_);
    return trace_;
  }
  // Adds the spans of traced submissions that have completed but whose
  // device times a driver reads only when asked (CUDA's timing events); a
  // submission still running is left for a later flush. The hal module
  // calls it after every traced fence wait, the tools before they write a
  // trace. Drivers that add spans as work completes need not override it.
  virtual void FlushTrace() {}

 private:
  mutable std::mutex trace_mutex_;
  std::atomic<bool> traced_{false};
  Ref<Trace> trace_;  // Guarded by trace_mutex_.
};

}  // namespace kiln::hal
