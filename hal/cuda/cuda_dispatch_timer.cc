#include "hal/cuda/cuda_dispatch_timer.h"

#include <algorithm>

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
  for (CUevent event : owned_) s.cuEventDestroy(event);
  // Lent events go back to their graph: a later launch may record them.
  for (std::function<void()>& release : releases_) release();
}

Result<CUevent> CudaDispatchTimer::Record(const char* what) {
  const CudaSymbols& s = context_->symbols();
  CUevent event = nullptr;
  KILN_RETURN_IF_ERROR(context_->Check(s.cuEventCreate(&event, CU_EVENT_DEFAULT),
                                       "cuEventCreate (dispatch timing)"));
  owned_.push_back(event);  // Destroyed with the timer, recorded or not.
  KILN_RETURN_IF_ERROR(
      context_->Check(s.cuEventRecord(event, context_->stream()),
                      std::string("cuEventRecord (dispatch timing: ") + what + ")"));
  return event;
}

Status CudaDispatchTimer::BeforeLaunch(std::string name) {
  KILN_ASSIGN_OR_RETURN(CUevent event, Record("before a dispatch"));
  events_.push_back(event);
  names_.push_back(std::move(name));
  return OkStatus();
}

Status CudaDispatchTimer::AfterLaunch() {
  KILN_ASSIGN_OR_RETURN(CUevent event, Record("after a dispatch"));
  events_.push_back(event);
  return OkStatus();
}

void CudaDispatchTimer::AddGraphDispatches(std::span<const std::string> names,
                                           std::span<const CUevent> events,
                                           std::function<void()> release) {
  names_.insert(names_.end(), names.begin(), names.end());
  events_.insert(events_.end(), events.begin(), events.end());
  releases_.push_back(std::move(release));
}

Status CudaDispatchTimer::Finish() {
  KILN_ASSIGN_OR_RETURN(end_, Record("the end event"));
  return OkStatus();
}

CUresult CudaDispatchTimer::Query() const {
  return context_->symbols().cuEventQuery(end_ ? end_ : reference_);
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
  // Only complete pairs are spans (a submission that failed mid-way is
  // never resolved, but stay safe).
  const size_t complete = std::min(events_.size() / 2, names_.size());
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
