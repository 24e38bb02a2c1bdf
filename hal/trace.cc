#include "hal/trace.h"

#include <algorithm>

namespace kiln::hal {

uint64_t Trace::ThreadTrack() {
  const std::thread::id self = std::this_thread::get_id();
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = std::find(threads_.begin(), threads_.end(), self);
  if (it != threads_.end()) return static_cast<uint64_t>(it - threads_.begin()) + 1;
  threads_.push_back(self);
  return threads_.size();
}

uint64_t Trace::QueueTrack(const void* queue) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = std::find(queues_.begin(), queues_.end(), queue);
  if (it != queues_.end()) return DeviceTrack(static_cast<uint32_t>(it - queues_.begin()));
  queues_.push_back(queue);
  return DeviceTrack(static_cast<uint32_t>(queues_.size() - 1));
}

void Trace::AddSpan(Span span) {
  if (!record_spans_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (spans_.size() >= kMaxSpans) {
    ++dropped_;
    return;
  }
  if (span.detail.empty() && !default_details_.empty()) {
    auto it = default_details_.find(span.name);
    if (it != default_details_.end()) span.detail = it->second;
  }
  spans_.push_back(std::move(span));
}

void Trace::SetDefaultDetail(std::string name, std::string detail) {
  std::lock_guard<std::mutex> lock(mutex_);
  default_details_[std::move(name)] = std::move(detail);
}

size_t Trace::DroppedSpans() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return dropped_;
}

void Trace::AddHostSpan(std::string name, int64_t start_ns, std::string detail, int64_t end_ns) {
  if (!record_spans_) return;
  if (end_ns < 0) end_ns = Now();
  AddSpan({.name = std::move(name),
           .category = "host",
           .detail = std::move(detail),
           .start_ns = start_ns,
           .duration_ns = end_ns - start_ns,
           .track = ThreadTrack()});
}

std::vector<Trace::Span> Trace::Spans() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return spans_;
}

}  // namespace kiln::hal
