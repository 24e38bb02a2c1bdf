// CudaDispatchTimer: the device times of the kernels of one traced CUDA
// submission (hal/trace.h says when a submission is traced).
//
// A traced submission is issued as stream launches, whichever executor its
// command buffers use (CudaCommandBuffer::IssueAsStream): the timer records
// a reference event on the stream before the first command, and an event
// before and after each kernel. A graph command buffer is issued that way
// too instead of launching its graph: event-record nodes around each kernel
// node would need a second instantiated graph per command buffer, kept in
// step with the first's patches, for what the stream path measures as well
// (the kernels' own GPU time; only the gaps between kernels differ, a
// graph launching them back to back). Untraced submissions launch the
// graph as always and create no events.
//
// The events are timing events (CU_EVENT_DEFAULT), made per traced
// submission and destroyed once read. After the submission completes,
// Resolve reads each event's time after the reference (cuEventElapsedTime,
// milliseconds with about half a microsecond of resolution) as offsets for
// utils::DeviceTimeline, which places them from the host time at which the
// reference event was recorded.
#pragma once

#include <cuda.h>

#include <memory>
#include <string>
#include <vector>

#include "base/ref.h"
#include "base/result.h"
#include "hal/cuda/cuda_context.h"
#include "hal/trace.h"
#include "hal/utils/dispatch_spans.h"

namespace kiln::hal::cuda {

class CudaDispatchTimer {
 public:
  // Records the reference event on the context's stream (current on the
  // calling thread) and notes the host time.
  static Result<std::unique_ptr<CudaDispatchTimer>> Start(Ref<CudaContext> context,
                                                          Ref<Trace> trace);
  ~CudaDispatchTimer();
  CudaDispatchTimer(const CudaDispatchTimer&) = delete;
  CudaDispatchTimer& operator=(const CudaDispatchTimer&) = delete;

  // Around one kernel launch on the stream, in order: `name` names its span.
  Status BeforeLaunch(std::string name);
  Status AfterLaunch();

  // Whether the last event has completed (the submission ran): CUDA_SUCCESS,
  // CUDA_ERROR_NOT_READY, or the error that lost the device.
  CUresult Query() const;
  // Adds the submission's spans to its trace through `timeline`, on the
  // track of `queue` (once Query() is CUDA_SUCCESS).
  Status Resolve(utils::DeviceTimeline& timeline, const void* queue) const;

 private:
  CudaDispatchTimer(Ref<CudaContext> context, Ref<Trace> trace)
      : context_(std::move(context)), trace_(std::move(trace)) {}
  Result<CUevent> Record(const char* what);

  Ref<CudaContext> context_;
  Ref<Trace> trace_;
  int64_t submitted_ns_ = 0;
  CUevent reference_ = nullptr;
  std::vector<CUevent> events_;     // Dispatch i: begin 2i, end 2i + 1.
  std::vector<std::string> names_;  // Per dispatch.
};

}  // namespace kiln::hal::cuda
