#include "hal/cuda/cuda_dispatch_timer.h"

namespace kiln::hal::cuda {

Result<std::unique_ptr<CudaDispatchTimer>> CudaDispatchTimer::Start(Ref<CudaContext> context,
                                                                    Ref<Trace> trace) {
  std::unique_ptr<CudaDispatchTimer> timer(
      new CudaDispatchTimer(std::move(context), std::move(trace)));
  // Read before the reference is recorded: the GPU cannot reach the event
  // earlier (utils::DeviceTimeline relies on it).
  timer->submitted_ns_ = timer->trace_->Now();
  KILN_ASSIGN_OR_RETURN(timer->reference_, timer->Record("the reference event"));
  return timer;
}

CudaDispatchTimer::~CudaDispatchTimer() {
  const CudaSymbols& s = context_->symbols();
  // Destroying an event still pending is allowed: CUDA frees it once it
  // completes.
  if (reference_ != nullptr) s.cuEventDestroy(reference_);
  for (CUevent event : events_) s.cuEventDestroy(event);
}

Result<CUevent> CudaDispatchTimer::Record(const char* what) {
  const CudaSymbols& s = context_->symbols();
  CUevent event = nullptr;
  KILN_RETURN_IF_ERROR(context_->Check(s.cuEventCreate(&event, CU_EVENT_DEFAULT),
                                       "cuEventCreate (dispatch timing)"));
  Status recorded = context_->Check(s.cuEventRecord(event, context_->stream()),
                                    std::string("cuEventRecord (dispatch timing: ") + what + ")");
  if (!recorded.ok()) {
    s.cuEventDestroy(event);
    return recorded;
  }
  return event;
}

Status CudaDispatchTimer::BeforeLaunch(std::string name) {
  KILN_ASSIGN_OR_RETURN(CUevent event, Record("before a kernel"));
  events_.push_back(event);
  names_.push_back(std::move(name));
  return OkStatus();
}

Status CudaDispatchTimer::AfterLaunch() {
  KILN_ASSIGN_OR_RETURN(CUevent event, Record("after a kernel"));
  events_.push_back(event);
  return OkStatus();
}

CUresult CudaDispatchTimer::Query() const {
  return context_->symbols().cuEventQuery(events_.empty() ? reference_ : events_.back());
}

Status CudaDispatchTimer::Resolve(utils::DeviceTimeline& timeline, const void* queue) const {
  const CudaSymbols& s = context_->symbols();
  auto since_reference = [&](CUevent event, int64_t* ns) -> Status {
    float ms = 0;
    KILN_RETURN_IF_ERROR(context_->Check(s.cuEventElapsedTime(&ms, reference_, event),
                                         "cuEventElapsedTime (dispatch timing)"));
    *ns = static_cast<int64_t>(static_cast<double>(ms) * 1e6);
    return OkStatus();
  };
  // A launch that failed after its begin event leaves no end event: only
  // complete pairs are spans.
  const size_t complete = events_.size() / 2;
  std::vector<utils::MeasuredDispatch> dispatches(complete);
  for (size_t i = 0; i < complete; ++i) {
    dispatches[i].name = names_[i];
    KILN_RETURN_IF_ERROR(since_reference(events_[2 * i], &dispatches[i].begin_ns));
    KILN_RETURN_IF_ERROR(since_reference(events_[2 * i + 1], &dispatches[i].end_ns));
  }
  timeline.AddSubmission(*trace_, queue, submitted_ns_, dispatches);
  return OkStatus();
}

}  // namespace kiln::hal::cuda
