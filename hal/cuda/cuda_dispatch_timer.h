// CudaDispatchTimer: the device times of the dispatches of one traced CUDA
// submission (hal/trace.h says when a submission is traced).
//
// The timer records a reference event on the stream before the submission's
// first command and an end event after its last (Finish). In between, each
// dispatch (a kernel or a library call) is bracketed by a begin and an end
// event, recorded by whichever executor issues its command buffer:
//   - the stream path (CudaCommandBuffer::IssueAsStream: a
//     StreamCommandBuffer, --cuda_use_streams) records them on the stream
//     around each launch (BeforeLaunch/AfterLaunch); the timer creates them
//     and destroys them once read;
//   - a graph command buffer launches a second instantiated graph of its own,
//     with event-record nodes around each dispatch node
//     (graph_command_buffer.h), so a trace shows the graph as it really runs
//     (kernels back to back, independent ones concurrently). Those events
//     belong to the command buffer, lent for this one launch
//     (AddGraphDispatches): the timer gives them back once it has read them
//     or is dropped, so a later submission never re-records them before
//     their times were read.
// Untraced submissions launch the plain graph and create no events.
//
// The events are timing events (CU_EVENT_DEFAULT). Once the end event has
// completed (Query), Resolve reads each event's time after the reference
// (cuEventElapsedTime, milliseconds with about half a microsecond of
// resolution) as offsets for utils::DeviceTimeline, which places them from
// the host time at which the reference event was recorded. The end event,
// not the last dispatch's, says when everything has run: a graph's last
// dispatch node need not be the last to finish.
#pragma once

#include <cuda.h>

#include <functional>
#include <memory>
#include <span>
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

  // Around one launch on the stream, in order: `name` names its span.
  Status BeforeLaunch(std::string name);
  Status AfterLaunch();

  // The dispatches of a graph launch just enqueued on the stream: dispatch i
  // is `names[i]`, begun at `events[2i]` and ended at `events[2i + 1]`
  // (recorded by the graph's event-record nodes). The events stay the
  // caller's; `release` is called when the timer no longer needs them (its
  // times read, or the timer dropped) and must keep them alive until then.
  void AddGraphDispatches(std::span<const std::string> names, std::span<const CUevent> events,
                          std::function<void()> release);

  // Records the end event on the stream, after every command of the
  // submission.
  Status Finish();

  // Whether the submission ran (its end event, once Finish recorded it):
  // CUDA_SUCCESS, CUDA_ERROR_NOT_READY, or the error that lost the device.
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
  CUevent end_ = nullptr;
  std::vector<CUevent> events_;                  // Dispatch i: begin 2i, end 2i + 1.
  std::vector<std::string> names_;               // Per dispatch.
  std::vector<CUevent> owned_;                   // The events this timer created.
  std::vector<std::function<void()>> releases_;  // Of lent events.
};

}  // namespace kiln::hal::cuda
