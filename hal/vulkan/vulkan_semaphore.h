// VulkanSemaphore: a HAL timeline semaphore backed by a Vulkan timeline
// VkSemaphore.
//
// The VkSemaphore carries the value: queue submissions wait on it and signal
// it on the device, the host signals it with vkSignalSemaphore and waits with
// vkWaitSemaphores. What Vulkan has no notion of, failure, lives beside it
// on the host: a failed semaphore answers Query, Wait and Signal with its
// status, and the queue fails the semaphores of every submission that waits
// on it (vulkan_queue.h explains how device-side waiters are released). The
// host-side state is the drivers' shared timeline bookkeeping
// (hal/utils/timeline_state.h) without its reached value, which the
// VkSemaphore holds.
//
// Vulkan's rules are stricter than the HAL's in one place: the host may not
// signal a value past one a pending queue submission will signal, so such a
// Signal is a FAILED_PRECONDITION instead of reordering the timeline, and a
// queue signal must exceed every value already signaled or scheduled.
#pragma once

#include <atomic>
#include <cstdint>

#include "base/ref.h"
#include "hal/semaphore.h"
#include "hal/utils/timeline_state.h"
#include "hal/vulkan/vulkan_api.h"

namespace kiln::hal::vulkan {

class LogicalDevice;

class VulkanSemaphore final : public Semaphore {
 public:
  static Result<Ref<VulkanSemaphore>> Create(Ref<LogicalDevice> device, uint64_t initial_value);
  ~VulkanSemaphore() override;

  Result<uint64_t> Query() override;
  Status Signal(uint64_t value) override;
  void Fail(Status status) override;
  Status Wait(uint64_t value, Timeout timeout) override;

  LogicalDevice* device() const { return device_.get(); }
  VkSemaphore handle() const { return handle_; }

 private:
  friend class VulkanQueue;
  VulkanSemaphore(Ref<LogicalDevice> device, VkSemaphore handle, uint64_t initial_value)
      : device_(std::move(device)), handle_(handle), timeline_(initial_value) {}

  Ref<LogicalDevice> device_;
  VkSemaphore handle_;

  // The rest is owned by the device's VulkanQueue and guarded by its mutex
  // (failed_, a copy of timeline_.failed(), is also read without it, as a
  // fast check).
  std::atomic<bool> failed_{false};
  // Failure, and as the scheduled value the largest value signaled by the
  // host or by a queue submission made so far (reached or not): a queue
  // signal must exceed it, and a queue wait for a value up to it needs no
  // device-side wait (the in-order queue runs the signaling submission
  // first, or the value is already reached).
  utils::TimelineState timeline_;
  // Queue submissions not yet retired that signal this semaphore.
  uint32_t pending_signals_ = 0;
  // The largest value a queue submission waits for on the device (a value
  // beyond the scheduled value when submitted: only the host can provide
  // it).
  uint64_t device_wait_max_ = 0;
};

}  // namespace kiln::hal::vulkan
