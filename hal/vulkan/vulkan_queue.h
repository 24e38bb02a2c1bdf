// VulkanQueue: the in-order queue of a Vulkan device, its submissions in
// flight, and the semaphore rules that need both.
//
// Order. The HAL queue runs operations in submission order, Vulkan queues do
// not (a later batch may start before an earlier one ends). Each submission
// therefore waits, on the device, for the queue's own timeline semaphore to
// reach the previous submission's serial and signals its own serial. That
// chain also makes every earlier submission's writes visible to the next
// one, and gives one counter that says which submissions are complete.
//
// Waits. A wait for a value that is already reached, or that an earlier
// submission of this queue will signal, needs nothing more: the chain orders
// it. Only a wait for a value nobody has scheduled yet (the host will
// signal it) becomes a device-side wait on the semaphore's VkSemaphore.
//
// Completion. A worker thread waits for the oldest submission's serial and
// retires what completed: it drops the submission's references (command
// buffers, binding-table buffers, a buffer given to QueueDealloca, which is
// freed then) and lets command buffers reuse descriptor sets. Host waits
// retire too, so references are usually dropped by the time Wait returns.
//
// Failure. Vulkan semaphores cannot fail, so failure is tracked beside them
// (vulkan_semaphore.h). Fail(S) marks S failed, fails the signal semaphores
// of every submission in flight that waits on S for a value not reached
// (and so on down the chain), then releases device-side waits on S by
// signaling its VkSemaphore to the largest waited value, once no queue
// signal of S is pending (Vulkan forbids a host signal past one). The
// released submissions run on whatever their inputs hold; their semaphores
// are already failed, so no one trusts the results. Host waiters poll for
// 50 us, then block in 5 ms slices and look at the failure state between
// them, so a failure reaches a blocked waiter within a slice.
//
// A submission whose wait semaphore has already failed is not sent to the
// device: its signal semaphores fail at once. VK_ERROR_DEVICE_LOST from any
// queue or wait call marks the queue lost: every submission in flight fails
// its semaphores with that status, and later submissions return it.
//
// Tracing. A submission that carries a trace (hal/trace.h) and has
// dispatches runs recorded afresh with timestamps (dispatch_timestamps.h);
// it is read back when it retires, and its spans are placed on the trace's
// clock by the queue's DeviceTimeline. A queue family without timestamps
// (timestampValidBits 0) runs traced submissions untimed: no device spans.
//
// Shutdown (the HAL device is dropped) fails the semaphores that in-flight
// submissions wait for and nothing will signal (ABORTED), waits for the
// device to go idle, retires everything and stops the worker.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <span>
#include <thread>
#include <utility>
#include <vector>

#include "base/ref.h"
#include "base/result.h"
#include "hal/buffer.h"
#include "hal/command_buffer.h"
#include "hal/fence.h"
#include "hal/semaphore.h"
#include "hal/utils/dispatch_spans.h"
#include "hal/utils/submission.h"
#include "hal/vulkan/dispatch_timestamps.h"
#include "hal/vulkan/vulkan_api.h"

namespace kiln::hal::vulkan {

class LogicalDevice;
class VulkanCommandBuffer;
class VulkanSemaphore;

// Its semaphores are this device's VulkanSemaphores (VulkanDevice checks).
using VulkanSubmission = utils::Submission<VulkanCommandBuffer>;

class VulkanQueue {
 public:
  // Out of line: the members' destructors need the complete types.
  explicit VulkanQueue(LogicalDevice* device);
  ~VulkanQueue();

  // Creates the queue's timeline semaphore and starts the worker.
  Status Initialize();
  // Drains and stops (see above). Idempotent; the semaphore operations keep
  // working afterwards, submissions fail with ABORTED.
  void Shutdown();

  // Submits `submission` (validated by the device: its command buffers
  // ended, binding table checked) ordered after every earlier submission.
  // `released` is held until the submission completes (QueueDealloca). On
  // success the queue has taken the submission's references; errors leave
  // nothing enqueued.
  Status Submit(VulkanSubmission& submission);

  // The semaphore operations of VulkanSemaphore.
  Result<uint64_t> Query(VulkanSemaphore& semaphore);
  Status Signal(VulkanSemaphore& semaphore, uint64_t value);
  void Fail(VulkanSemaphore& semaphore, Status status);
  Status Wait(VulkanSemaphore& semaphore, uint64_t value, Timeout timeout);

  // OK, or the status the queue was lost with.
  Status health() const;
  // Retires the submissions that have completed (non-blocking).
  void RetireCompleted();
  // The serial of the last completed submission (serials start at 1), for
  // command buffers that reuse per-submission state. Only from
  // VulkanCommandBuffer::PrepareSubmission (Submit holds the lock).
  uint64_t CompletedSerialLocked();

 private:
  struct Submission {
    uint64_t serial = 0;
    std::vector<std::pair<Ref<VulkanSemaphore>, uint64_t>> waits;
    std::vector<std::pair<Ref<VulkanSemaphore>, uint64_t>> signals;
    std::vector<Ref<VulkanCommandBuffer>> command_buffers;
    std::vector<Ref<Buffer>> binding_table;
    Ref<Buffer> released;
    // Traced: the timestamps, read and freed (under mutex_) at retirement.
    std::unique_ptr<DispatchTimestamps> timestamps;
    // Drops every reference (the vectors keep their capacity for reuse).
    void Clear();
  };

  // vkGetSemaphoreCounterValue; a failure (only a lost device) marks the
  // queue lost and reads as 0.
  uint64_t CounterValue(VkSemaphore semaphore);
  // All with mutex_ held.
  uint64_t CounterValueLocked(VkSemaphore semaphore);
  void FailLocked(VulkanSemaphore* semaphore, const Status& status);
  void ReleaseFailedLocked();
  void MarkLostLocked(const Status& status);
  Submission* NewSubmissionLocked();
  // Records a device loss seen by a call outside the lock.
  void MarkLost(const Status& status);

  void WorkerMain();
  // The timestamps of a traced submission `work` (null when untraced, or
  // when the queue cannot time it). With mutex_ held.
  Result<std::unique_ptr<DispatchTimestamps>> TimestampsLocked(const VulkanSubmission& work);
  // Adds a retired submission's spans to its trace and frees its
  // timestamps. With mutex_ held.
  void FinishTimestampsLocked(Submission& submission);

  LogicalDevice* device_;                  // Owns this queue.
  VkSemaphore timeline_ = VK_NULL_HANDLE;  // Serial of the last completed submission.

  mutable std::mutex mutex_;
  std::condition_variable work_cv_;
  uint64_t last_serial_ = 0;                              // Guarded by mutex_.
  std::deque<Submission*> in_flight_;                     // Guarded by mutex_; serial order.
  std::vector<std::unique_ptr<Submission>> submissions_;  // Guarded by mutex_; owns all.
  std::vector<Submission*> free_submissions_;             // Guarded by mutex_.
  // Failed semaphores whose device-side waiters still need releasing.
  std::vector<Ref<VulkanSemaphore>> to_release_;  // Guarded by mutex_.
  Status lost_;                                   // Guarded by mutex_.
  std::atomic<bool> is_lost_{false};
  bool stopping_ = false;  // Guarded by mutex_; no more submissions.
  bool stopped_ = false;   // Guarded by mutex_; the worker exits.
  // Scratch of Submit, reused (guarded by mutex_).
  std::vector<VkCommandBuffer> submit_command_buffers_;
  std::vector<VkSemaphore> submit_wait_semaphores_;
  std::vector<uint64_t> submit_wait_values_;
  std::vector<VkPipelineStageFlags> submit_wait_stages_;
  std::vector<VkSemaphore> submit_signal_semaphores_;
  std::vector<uint64_t> submit_signal_values_;
  // The command buffers of traced submissions come from here (created at
  // the first one; guarded by mutex_).
  VkCommandPool timestamp_pool_ = VK_NULL_HANDLE;
  utils::DeviceTimeline timeline_spans_;
  std::thread worker_;
};

}  // namespace kiln::hal::vulkan
