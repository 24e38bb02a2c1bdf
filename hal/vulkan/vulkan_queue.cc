#include "hal/vulkan/vulkan_queue.h"

#include <algorithm>
#include <chrono>
#include <variant>

#include "hal/vulkan/logical_device.h"
#include "hal/vulkan/vulkan_command_buffer.h"
#include "hal/vulkan/vulkan_semaphore.h"

namespace kiln::hal::vulkan {
namespace {

// How long host waits poll the semaphore before blocking in vkWaitSemaphores,
// and how long each blocking wait lasts before the waiter looks for a
// failure.
constexpr std::chrono::microseconds kSpinBudget{50};
constexpr std::chrono::milliseconds kWaitSlice{5};

Result<VkSemaphore> CreateTimelineSemaphore(const LogicalDevice& device, uint64_t initial) {
  VkSemaphoreTypeCreateInfo type_info = {};
  type_info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO;
  type_info.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  type_info.initialValue = initial;
  VkSemaphoreCreateInfo info = {};
  info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
  info.pNext = &type_info;
  VkSemaphore semaphore = VK_NULL_HANDLE;
  VkResult result = device.fn().vkCreateSemaphore(device.handle(), &info, nullptr, &semaphore);
  if (result != VK_SUCCESS) return VkResultToStatus(result, "vkCreateSemaphore (timeline)");
  return semaphore;
}

}  // namespace

// --- VulkanSemaphore: everything goes through the device's queue. ---------

Result<Ref<VulkanSemaphore>> VulkanSemaphore::Create(Ref<LogicalDevice> device,
                                                     uint64_t initial_value) {
  KILN_ASSIGN_OR_RETURN(VkSemaphore handle, CreateTimelineSemaphore(*device, initial_value));
  return Ref<VulkanSemaphore>::Adopt(new VulkanSemaphore(std::move(device), handle, initial_value));
}

VulkanSemaphore::~VulkanSemaphore() {
  // Submissions hold their semaphores until they retire, so no device
  // operation on this one is pending.
  device_->fn().vkDestroySemaphore(device_->handle(), handle_, nullptr);
}

Result<uint64_t> VulkanSemaphore::Query() { return device_->queue().Query(*this); }
Status VulkanSemaphore::Signal(uint64_t value) { return device_->queue().Signal(*this, value); }
void VulkanSemaphore::Fail(Status status) { device_->queue().Fail(*this, std::move(status)); }
Status VulkanSemaphore::Wait(uint64_t value, Timeout timeout) {
  return device_->queue().Wait(*this, value, timeout);
}

// --- VulkanQueue -------------------------------------------------------------

void VulkanQueue::Submission::Clear() {
  waits.clear();
  signals.clear();
  command_buffers.clear();
  binding_table.clear();
  released = nullptr;
}

VulkanQueue::VulkanQueue(LogicalDevice* device) : device_(device) {}

VulkanQueue::~VulkanQueue() {
  Shutdown();
  const DeviceFunctions& fn = device_->fn();
  if (timeline_ != VK_NULL_HANDLE) fn.vkDestroySemaphore(device_->handle(), timeline_, nullptr);
}

Status VulkanQueue::Initialize() {
  KILN_ASSIGN_OR_RETURN(timeline_, CreateTimelineSemaphore(*device_, 0));
  worker_ = std::thread([this] { WorkerMain(); });
  return OkStatus();
}

uint64_t VulkanQueue::CounterValue(VkSemaphore semaphore) {
  uint64_t value = 0;
  VkResult result = device_->fn().vkGetSemaphoreCounterValue(device_->handle(), semaphore, &value);
  // Only a lost device makes this fail; callers see the loss through
  // health() and the failed semaphores.
  if (result != VK_SUCCESS) MarkLost(VkResultToStatus(result, "vkGetSemaphoreCounterValue"));
  return value;
}

uint64_t VulkanQueue::CounterValueLocked(VkSemaphore semaphore) {
  uint64_t value = 0;
  VkResult result = device_->fn().vkGetSemaphoreCounterValue(device_->handle(), semaphore, &value);
  if (result != VK_SUCCESS) {
    MarkLostLocked(VkResultToStatus(result, "vkGetSemaphoreCounterValue"));
  }
  return value;
}

uint64_t VulkanQueue::CompletedSerialLocked() { return CounterValueLocked(timeline_); }

Status VulkanQueue::health() const {
  if (!is_lost_.load(std::memory_order_acquire)) return OkStatus();
  std::lock_guard<std::mutex> lock(mutex_);
  return lost_;
}

VulkanQueue::Submission* VulkanQueue::NewSubmissionLocked() {
  if (free_submissions_.empty()) {
    submissions_.push_back(std::make_unique<Submission>());
    return submissions_.back().get();
  }
  Submission* submission = free_submissions_.back();
  free_submissions_.pop_back();
  return submission;
}

Status VulkanQueue::Submit(VulkanSubmission& work) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!lost_.ok()) return lost_;
  if (stopping_) return AbortedError("the Vulkan device is shutting down");

  const Status* failed_wait = nullptr;
  for (const Fence::Timepoint& t : work.waits) {
    auto* semaphore = static_cast<VulkanSemaphore*>(t.semaphore.get());
    if (semaphore->failed_.load(std::memory_order_relaxed)) {
      failed_wait = &semaphore->timeline_.failure();
      break;
    }
  }
  for (const Fence::Timepoint& t : work.signals) {
    auto* semaphore = static_cast<VulkanSemaphore*>(t.semaphore.get());
    // A failed semaphore accepts the signal and stays failed.
    KILN_RETURN_IF_ERROR(semaphore->timeline_.CheckSchedule(t.value));
  }
  if (failed_wait != nullptr) {
    // Nothing runs: the signals carry the wait's failure, as they would once
    // the submission were reached.
    Status failure = *failed_wait;
    for (const Fence::Timepoint& t : work.signals) {
      FailLocked(static_cast<VulkanSemaphore*>(t.semaphore.get()), failure);
    }
    return OkStatus();
  }

  const uint64_t serial = last_serial_ + 1;
  submit_command_buffers_.clear();
  std::unique_ptr<DispatchTimestamps> timestamps;
  if (work.trace) {
    KILN_ASSIGN_OR_RETURN(timestamps, TimestampsLocked(work));
  }
  for (const Ref<VulkanCommandBuffer>& command_buffer : work.command_buffers) {
    Result<VkCommandBuffer> prepared =
        command_buffer->PrepareSubmission(work.binding_table, serial, *this, timestamps.get());
    if (!prepared.ok()) return prepared.status();
    submit_command_buffers_.push_back(*prepared);
  }
  if (timestamps) {
    // The prologue (reset, reference timestamp) runs first.
    submit_command_buffers_.insert(submit_command_buffers_.begin(),
                                   timestamps->command_buffers().front());
  }
  submit_wait_semaphores_.assign(1, timeline_);
  submit_wait_values_.assign(1, serial - 1);
  submit_wait_stages_.assign(1, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
  for (const Fence::Timepoint& t : work.waits) {
    auto* semaphore = static_cast<VulkanSemaphore*>(t.semaphore.get());
    if (t.value <= semaphore->timeline_.scheduled()) continue;  // Ordered by the queue chain.
    submit_wait_semaphores_.push_back(semaphore->handle_);
    submit_wait_values_.push_back(t.value);
    submit_wait_stages_.push_back(VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
  }
  submit_signal_semaphores_.assign(1, timeline_);
  submit_signal_values_.assign(1, serial);
  for (const Fence::Timepoint& t : work.signals) {
    auto* semaphore = static_cast<VulkanSemaphore*>(t.semaphore.get());
    if (semaphore->failed_.load(std::memory_order_relaxed)) continue;
    submit_signal_semaphores_.push_back(semaphore->handle_);
    submit_signal_values_.push_back(t.value);
  }

  VkTimelineSemaphoreSubmitInfo timeline_info = {};
  timeline_info.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO;
  timeline_info.waitSemaphoreValueCount = static_cast<uint32_t>(submit_wait_values_.size());
  timeline_info.pWaitSemaphoreValues = submit_wait_values_.data();
  timeline_info.signalSemaphoreValueCount = static_cast<uint32_t>(submit_signal_values_.size());
  timeline_info.pSignalSemaphoreValues = submit_signal_values_.data();
  VkSubmitInfo submit_info = {};
  submit_info.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  submit_info.pNext = &timeline_info;
  submit_info.waitSemaphoreCount = static_cast<uint32_t>(submit_wait_semaphores_.size());
  submit_info.pWaitSemaphores = submit_wait_semaphores_.data();
  submit_info.pWaitDstStageMask = submit_wait_stages_.data();
  submit_info.commandBufferCount = static_cast<uint32_t>(submit_command_buffers_.size());
  submit_info.pCommandBuffers = submit_command_buffers_.data();
  submit_info.signalSemaphoreCount = static_cast<uint32_t>(submit_signal_semaphores_.size());
  submit_info.pSignalSemaphores = submit_signal_semaphores_.data();
  // The host time the spans are placed from (utils::DeviceTimeline): the
  // device cannot start the submission before it is handed over.
  if (timestamps) timestamps->submitted_ns = timestamps->trace().Now();
  VkResult result =
      device_->fn().vkQueueSubmit(device_->queue_handle(), 1, &submit_info, VK_NULL_HANDLE);
  if (result != VK_SUCCESS) {
    Status status = VkResultToStatus(result, "vkQueueSubmit");
    if (result == VK_ERROR_DEVICE_LOST) MarkLostLocked(status);
    return status;
  }
  last_serial_ = serial;

  Submission* submission = NewSubmissionLocked();
  submission->serial = serial;
  for (const Fence::Timepoint& t : work.waits) {
    auto* semaphore = static_cast<VulkanSemaphore*>(t.semaphore.get());
    if (t.value > semaphore->timeline_.scheduled()) {
      semaphore->device_wait_max_ = std::max(semaphore->device_wait_max_, t.value);
    }
    submission->waits.emplace_back(Ref<VulkanSemaphore>(semaphore), t.value);
  }
  for (const Fence::Timepoint& t : work.signals) {
    auto* semaphore = static_cast<VulkanSemaphore*>(t.semaphore.get());
    if (!semaphore->failed_.load(std::memory_order_relaxed)) {
      semaphore->timeline_.RaiseScheduled(t.value);
      ++semaphore->pending_signals_;
    }
    submission->signals.emplace_back(Ref<VulkanSemaphore>(semaphore), t.value);
  }
  // The record keeps its vectors' capacity for reuse: swap, not assign.
  std::swap(submission->command_buffers, work.command_buffers);
  std::swap(submission->binding_table, work.binding_table);
  submission->released = std::move(work.released);
  submission->timestamps = std::move(timestamps);
  in_flight_.push_back(submission);
  lock.unlock();
  work_cv_.notify_one();
  return OkStatus();
}

Result<uint64_t> VulkanQueue::Query(VulkanSemaphore& semaphore) {
  if (semaphore.failed_.load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> lock(mutex_);
    return semaphore.timeline_.failure();
  }
  uint64_t value = 0;
  VkResult result =
      device_->fn().vkGetSemaphoreCounterValue(device_->handle(), semaphore.handle_, &value);
  if (result != VK_SUCCESS) {
    Status status = VkResultToStatus(result, "semaphore query (vkGetSemaphoreCounterValue)");
    if (result == VK_ERROR_DEVICE_LOST) MarkLost(status);
    return status;
  }
  return value;
}

Status VulkanQueue::Signal(VulkanSemaphore& semaphore, uint64_t value) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (semaphore.failed_.load(std::memory_order_relaxed)) return semaphore.timeline_.failure();
  const uint64_t reached = CounterValueLocked(semaphore.handle_);
  if (!lost_.ok()) return lost_;
  // Vulkan allows a host signal below a pending queue signal (checked
  // next), so only the reached value bounds it from below.
  if (value <= reached) return utils::HostSignalNotAdvancingError(value, reached, reached);
  if (semaphore.pending_signals_ > 0) {
    // Vulkan allows a host signal only below every pending queue signal; the
    // oldest in-flight submission that signals the semaphore has the lowest.
    for (const Submission* submission : in_flight_) {
      for (const auto& [signaled, pending] : submission->signals) {
        if (signaled.get() != &semaphore || value < pending) continue;
        return FailedPreconditionError(
            "semaphore signal to " + std::to_string(value) +
            ": a queued operation will signal this semaphore to " + std::to_string(pending) +
            ", and Vulkan forbids a host signal at or past a pending queue signal");
      }
    }
  }
  VkSemaphoreSignalInfo info = {};
  info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO;
  info.semaphore = semaphore.handle_;
  info.value = value;
  VkResult result = device_->fn().vkSignalSemaphore(device_->handle(), &info);
  if (result != VK_SUCCESS) {
    Status status = VkResultToStatus(result, "semaphore signal (vkSignalSemaphore)");
    if (result == VK_ERROR_DEVICE_LOST) MarkLostLocked(status);
    return status;
  }
  semaphore.timeline_.RaiseScheduled(value);
  return OkStatus();
}

void VulkanQueue::Fail(VulkanSemaphore& semaphore, Status status) {
  status = utils::FailureStatus(std::move(status));
  std::lock_guard<std::mutex> lock(mutex_);
  FailLocked(&semaphore, status);
}

void VulkanQueue::FailLocked(VulkanSemaphore* first, const Status& status) {
  std::vector<VulkanSemaphore*> work = {first};
  bool any = false;
  while (!work.empty()) {
    VulkanSemaphore* semaphore = work.back();
    work.pop_back();
    if (!semaphore->timeline_.Fail(status)) continue;  // The first failure wins.
    semaphore->failed_.store(true, std::memory_order_release);
    any = true;
    const uint64_t reached = CounterValueLocked(semaphore->handle_);
    // Whoever waits for a value not reached yet fails too.
    for (Submission* submission : in_flight_) {
      for (const auto& [waited, value] : submission->waits) {
        if (waited.get() != semaphore || value <= reached) continue;
        for (const auto& [signaled, signal_value] : submission->signals) {
          work.push_back(signaled.get());
        }
        break;
      }
    }
    if (semaphore->device_wait_max_ > reached) to_release_.emplace_back(semaphore);
  }
  if (!any) return;
  ReleaseFailedLocked();
}

void VulkanQueue::ReleaseFailedLocked() {
  if (is_lost_.load(std::memory_order_relaxed)) {
    to_release_.clear();  // Nothing runs on a lost device.
    return;
  }
  for (size_t i = 0; i < to_release_.size();) {
    VulkanSemaphore& semaphore = *to_release_[i];
    if (semaphore.pending_signals_ > 0) {
      ++i;  // Retried when the pending signal's submission retires.
      continue;
    }
    const uint64_t value = semaphore.device_wait_max_;
    if (value > CounterValueLocked(semaphore.handle_)) {
      VkSemaphoreSignalInfo info = {};
      info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO;
      info.semaphore = semaphore.handle_;
      info.value = value;
      device_->fn().vkSignalSemaphore(device_->handle(), &info);
      semaphore.timeline_.RaiseScheduled(value);
    }
    to_release_[i] = std::move(to_release_.back());
    to_release_.pop_back();
  }
}

void VulkanQueue::MarkLost(const Status& status) {
  std::lock_guard<std::mutex> lock(mutex_);
  MarkLostLocked(status);
}

void VulkanQueue::MarkLostLocked(const Status& status) {
  if (is_lost_.load(std::memory_order_relaxed)) return;
  lost_ = status.WithContext("the Vulkan device was lost");
  is_lost_.store(true, std::memory_order_release);
  for (Submission* submission : in_flight_) {
    for (const auto& [semaphore, value] : submission->signals) FailLocked(semaphore.get(), lost_);
  }
  work_cv_.notify_all();
}

Status VulkanQueue::Wait(VulkanSemaphore& semaphore, uint64_t value, Timeout timeout) {
  using Clock = std::chrono::steady_clock;
  const bool infinite = timeout == kInfiniteTimeout;
  const Clock::time_point start = Clock::now();
  const Clock::time_point deadline = infinite ? Clock::time_point::max() : start + timeout;
  const Clock::time_point spin_end = start + kSpinBudget;
  for (;;) {
    if (semaphore.failed_.load(std::memory_order_acquire)) {
      std::lock_guard<std::mutex> lock(mutex_);
      return semaphore.timeline_.failure();
    }
    if (is_lost_.load(std::memory_order_acquire)) return health();
    uint64_t reached = 0;
    VkResult result =
        device_->fn().vkGetSemaphoreCounterValue(device_->handle(), semaphore.handle_, &reached);
    if (result == VK_SUCCESS && reached >= value) {
      RetireCompleted();
      return OkStatus();
    }
    const Clock::time_point now = Clock::now();
    if (result == VK_SUCCESS && now < spin_end && now < deadline) {
      // Poll briefly before blocking: short device work finishes within a
      // few tens of microseconds, and waking from a blocking wait costs as
      // much.
      std::this_thread::yield();
      continue;
    }
    if (result == VK_SUCCESS && now >= deadline) {
      return utils::WaitTimeoutError(value, timeout, reached);
    }
    if (result == VK_SUCCESS) {
      // Block in slices: a failure is host-side state (Vulkan semaphores
      // cannot fail), so a waiter looks at it between slices. (A wait on the
      // semaphore OR a host-signaled "failure event" semaphore would wake it
      // at once, but the validation layer mistracks such WAIT_ANY waits
      // racing a host signal from another thread.)
      const auto slice = std::min<Clock::duration>(deadline - now, kWaitSlice);
      VkSemaphoreWaitInfo info = {};
      info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
      info.semaphoreCount = 1;
      info.pSemaphores = &semaphore.handle_;
      info.pValues = &value;
      result = device_->fn().vkWaitSemaphores(
          device_->handle(), &info,
          static_cast<uint64_t>(
              std::chrono::duration_cast<std::chrono::nanoseconds>(slice).count()));
      if (result == VK_SUCCESS || result == VK_TIMEOUT) continue;  // Look again.
    }
    Status status = VkResultToStatus(result, "semaphore wait");
    if (result == VK_ERROR_DEVICE_LOST) {
      MarkLost(status);
      return health();
    }
    return status;
  }
}

void VulkanQueue::RetireCompleted() {
  std::vector<Submission*> done;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (in_flight_.empty()) return;
    const bool lost = is_lost_.load(std::memory_order_relaxed);
    const uint64_t completed = lost ? last_serial_ : CounterValueLocked(timeline_);
    while (!in_flight_.empty() && in_flight_.front()->serial <= completed) {
      Submission* submission = in_flight_.front();
      in_flight_.pop_front();
      for (const auto& [semaphore, value] : submission->signals) {
        if (semaphore->pending_signals_ > 0) --semaphore->pending_signals_;
      }
      if (submission->timestamps) FinishTimestampsLocked(*submission);
      done.push_back(submission);
    }
    if (!done.empty() && !to_release_.empty()) ReleaseFailedLocked();
  }
  if (done.empty()) return;
  // Dropping references may free buffers and command buffers; outside the
  // lock, as their destructors take other locks.
  for (Submission* submission : done) submission->Clear();
  std::lock_guard<std::mutex> lock(mutex_);
  free_submissions_.insert(free_submissions_.end(), done.begin(), done.end());
}

void VulkanQueue::WorkerMain() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    work_cv_.wait(lock, [this] { return stopped_ || !in_flight_.empty(); });
    if (stopped_) return;
    const uint64_t target = in_flight_.front()->serial;
    const bool lost = is_lost_.load(std::memory_order_relaxed);
    lock.unlock();
    if (!lost) {
      // Until the oldest submission completes. It always does: a device
      // wait nothing will satisfy is released by failure or by Shutdown.
      VkSemaphoreWaitInfo info = {};
      info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
      info.semaphoreCount = 1;
      info.pSemaphores = &timeline_;
      info.pValues = &target;
      VkResult result = device_->fn().vkWaitSemaphores(device_->handle(), &info, UINT64_MAX);
      if (result != VK_SUCCESS && result != VK_TIMEOUT) {
        MarkLost(VkResultToStatus(result, "vkWaitSemaphores (queue completion)"));
      }
    }
    RetireCompleted();
    lock.lock();
  }
}

void VulkanQueue::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
    if (timeline_ == VK_NULL_HANDLE) {
      stopped_ = true;
    } else {
      // A device-side wait that nothing scheduled will satisfy would keep the
      // queue busy forever: fail those semaphores, which releases the waits.
      Status aborted = AbortedError(
          "the Vulkan device was destroyed while a queue operation waited on this "
          "semaphore");
      std::vector<VulkanSemaphore*> blocking;
      for (Submission* submission : in_flight_) {
        for (const auto& [semaphore, value] : submission->waits) {
          if (value > semaphore->timeline_.scheduled() &&
              value > CounterValueLocked(semaphore->handle_)) {
            blocking.push_back(semaphore.get());
          }
        }
      }
      for (VulkanSemaphore* semaphore : blocking) FailLocked(semaphore, aborted);
    }
  }
  if (timeline_ != VK_NULL_HANDLE && !is_lost_.load(std::memory_order_acquire)) {
    // No submission can come in now, so the queue needs no lock.
    VkResult result = device_->fn().vkQueueWaitIdle(device_->queue_handle());
    if (result != VK_SUCCESS) MarkLost(VkResultToStatus(result, "vkQueueWaitIdle"));
  }
  RetireCompleted();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopped_ = true;
    // Every traced submission has retired and freed its command buffers.
    if (timestamp_pool_ != VK_NULL_HANDLE) {
      device_->ReleaseCommandPool(timestamp_pool_);
      timestamp_pool_ = VK_NULL_HANDLE;
    }
  }
  work_cv_.notify_all();
  if (worker_.joinable()) worker_.join();
}

Result<std::unique_ptr<DispatchTimestamps>> VulkanQueue::TimestampsLocked(
    const VulkanSubmission& work) {
  uint32_t dispatches = 0;
  for (const Ref<VulkanCommandBuffer>& command_buffer : work.command_buffers) {
    for (const utils::Command& command : command_buffer->command_list().commands()) {
      dispatches += std::holds_alternative<utils::DispatchCommand>(command) ? 1 : 0;
    }
  }
  // Nothing to time, or a queue that cannot: run as recorded.
  if (dispatches == 0 || device_->timestamp_valid_bits() == 0) {
    return std::unique_ptr<DispatchTimestamps>();
  }
  if (timestamp_pool_ == VK_NULL_HANDLE) {
    KILN_ASSIGN_OR_RETURN(timestamp_pool_, device_->AcquireCommandPool());
  }
  return DispatchTimestamps::Create(*device_, timestamp_pool_, dispatches, work.trace);
}

void VulkanQueue::FinishTimestampsLocked(Submission& submission) {
  std::unique_ptr<DispatchTimestamps> timestamps = std::move(submission.timestamps);
  // A lost device completed nothing: there are no times to read.
  if (is_lost_.load(std::memory_order_relaxed)) return;
  Result<std::vector<utils::MeasuredDispatch>> measured = timestamps->Read();
  // The submission completed, so the queries are available; a failure to
  // read them (only a lost device) loses the spans, not the work.
  if (!measured.ok()) return;
  timeline_spans_.AddSubmission(timestamps->trace(), this, timestamps->submitted_ns, *measured);
}

}  // namespace kiln::hal::vulkan
