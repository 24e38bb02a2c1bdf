// Trace: when a run did what, for `--trace=FILE.json` in kiln-run-module and
// kiln-benchmark-module (written as a Chrome trace by tools/common/
// trace_file.h, which Perfetto opens) and for kiln-benchmark-module's host
// time per call.
//
// A span is a named interval on a track:
//   - host spans, on the track of the thread that ran them: "load" (the
//     module), "call @f" (one invocation), "record" (a command buffer from
//     create to end; a memoized one only on its first call), "submit"
//     (queue.execute) and "wait" (fence.await), added by the tools and the
//     hal module (HalModuleOptions::trace);
//   - device spans, on a track per device queue, added by drivers: one per
//     dispatch, named "dispatch @<executable>::@<export>" (DispatchSpanName
//     in hal/utils/dispatch_spans.h), category "device".
//
// How device spans are made. A device measures dispatches only while a
// recording trace is attached to it (Device::AttachTrace; the hal module
// attaches HalModuleOptions::trace to the devices it serves when it records
// spans). A submission takes the attached trace when it is made
// (QueueExecute) and keeps it to the end, so attaching or detaching affects
// only later submissions. Without a trace, nothing is measured: no timers
// on the CPU, no query pools or timestamps on Vulkan, no timing events on
// CUDA, and the command buffers run exactly as recorded.
//   - cpu: the queue's thread reads Now() before and after each dispatch
//     (all its workgroups): the spans are on the trace's clock as measured.
//   - vulkan: a traced submission records its command buffers afresh with
//     vkCmdWriteTimestamp around each dispatch, reads the query pool back
//     when the submission retires and converts ticks with timestampPeriod.
//   - cuda: a traced submission records timing events around each kernel
//     and library call: a graph command buffer launches a second graph of
//     its own with event-record nodes around each dispatch node, so the
//     trace shows the graph as it runs; a stream command buffer records
//     them on the stream (hal/cuda/cuda_dispatch_timer.h). They are
//     resolved with cuEventElapsedTime after the submission completes
//     (Device::FlushTrace; the hal module flushes after every fence wait).
// GPU clocks are not the host's: a GPU submission's spans are placed at the
// host time the submission was handed to the device (just before
// vkQueueSubmit, or the reference event's cuEventRecord) plus the device's
// offset from a reference timestamp written first in the submission. Work
// that queued behind earlier work starts later than that, so the anchor is
// moved past the end of the queue's previous span (utils::DeviceTimeline):
// spans of one queue never overlap across submissions, durations and the
// gaps within a submission are the device's own, and every span lies
// within the host interval from the submission to the wait that saw it
// complete.
//
// Whether or not spans are recorded, the trace counts the nanoseconds the
// host spent waiting on fences (WaitNanoseconds): a call's host time is its
// wall time minus that wait, at the cost of two clock reads per wait. It
// counts the nanoseconds spent in queue submissions too
// (SubmitNanoseconds: a driver's patching, graph launch and signaling),
// which splits a call's host time into the driver's share and the rest
// (the VM, the HAL module's imports).
// Recording a span takes a lock; a trace is shared by every context and
// thread that use it.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "base/ref.h"

namespace kiln::hal {

class Trace : public RefObject {
 public:
  struct Span {
    std::string name;      // "wait", "call @main", "dispatch @ex::@entry", ...
    std::string category;  // "host" or "device".
    std::string detail;    // Optional: a source location, a device name.
    int64_t start_ns = 0;  // Since the trace was created.
    int64_t duration_ns = 0;
    uint64_t track = 0;    // A thread (ThreadTrack) or a device queue.
  };

  // `record_spans` false: only the wait time is counted.
  static Ref<Trace> Create(bool record_spans) { return Ref<Trace>::Adopt(new Trace(record_spans)); }

  bool recording() const { return record_spans_; }

  // Nanoseconds since the trace was created (steady clock).
  int64_t Now() const {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - origin_).count();
  }

  // The track of the calling thread: 1, 2, ... in order of first use.
  uint64_t ThreadTrack();
  // The track of a device's queue: past every thread's.
  static constexpr uint64_t kFirstDeviceTrack = uint64_t{1} << 32;
  static constexpr uint64_t DeviceTrack(uint32_t queue) { return kFirstDeviceTrack + queue; }
  // The track of the queue `queue` (a driver's queue object, used only as a
  // key): DeviceTrack(0), DeviceTrack(1), ... in order of first use.
  uint64_t QueueTrack(const void* queue);

  // Spans past this many are dropped (and counted): a benchmark may run a
  // tiny function millions of times.
  static constexpr size_t kMaxSpans = 1'000'000;
  size_t DroppedSpans() const;

  // Records `span` when recording (thread-safe). A span without a detail
  // takes the default detail of its name, if one was set.
  void AddSpan(Span span);
  // The detail of every span named `name` that comes without one: the
  // tools give each "dispatch @ex::@f" the source locations of its
  // dispatch sites (drivers know the export, not the call site).
  void SetDefaultDetail(std::string name, std::string detail);

  // A host span from `start_ns` to `end_ns` (default: now) on the calling
  // thread's track.
  void AddHostSpan(std::string name, int64_t start_ns, std::string detail = {},
                   int64_t end_ns = -1);

  // Counts a wait of `nanoseconds` on a fence.
  void AddWait(int64_t nanoseconds) { wait_ns_.fetch_add(nanoseconds, std::memory_order_relaxed); }
  int64_t WaitNanoseconds() const { return wait_ns_.load(std::memory_order_relaxed); }
  // Counts a queue submission of `nanoseconds` (hal.device.queue.execute).
  void AddSubmit(int64_t nanoseconds) {
    submit_ns_.fetch_add(nanoseconds, std::memory_order_relaxed);
  }
  int64_t SubmitNanoseconds() const { return submit_ns_.load(std::memory_order_relaxed); }

  // The spans recorded so far, in the order they were added.
  std::vector<Span> Spans() const;

 private:
  using Clock = std::chrono::steady_clock;
  explicit Trace(bool record_spans) : record_spans_(record_spans), origin_(Clock::now()) {}

  const bool record_spans_;
  const Clock::time_point origin_;
  std::atomic<int64_t> wait_ns_{0};
  std::atomic<int64_t> submit_ns_{0};
  mutable std::mutex mutex_;
  std::vector<Span> spans_;
  size_t dropped_ = 0;
  std::vector<std::thread::id> threads_;  // Index + 1 = the thread's track.
  std::vector<const void*> queues_;       // Index = the queue's DeviceTrack.
  std::map<std::string, std::string, std::less<>> default_details_;
};

// Adds a host span covering its own lifetime to `trace` (none when `trace`
// is null or not recording).
class ScopedHostSpan {
 public:
  // The names are copied only when recording: an untraced span (on the
  // submit path) builds no string.
  ScopedHostSpan(Trace* trace, std::string_view name, std::string_view detail = {})
      : trace_(trace && trace->recording() ? trace : nullptr) {
    if (!trace_) return;
    name_ = name;
    detail_ = detail;
    start_ns_ = trace_->Now();
  }
  ~ScopedHostSpan() {
    if (trace_) trace_->AddHostSpan(std::move(name_), start_ns_, std::move(detail_));
  }
  ScopedHostSpan(const ScopedHostSpan&) = delete;
  ScopedHostSpan& operator=(const ScopedHostSpan&) = delete;

 private:
  Trace* trace_;
  std::string name_;
  std::string detail_;
  int64_t start_ns_ = 0;
};

}  // namespace kiln::hal
