// DispatchTimestamps: the device times of the dispatches of one traced
// Vulkan submission (hal/trace.h says when a submission is traced).
//
// The recordings a command buffer keeps carry no timestamps, so untraced
// submissions run exactly what was recorded and pay nothing. A traced
// submission runs, instead, one-time VkCommandBuffers that this object owns:
// each command buffer of the submission records its list afresh into one
// (VulkanCommandBuffer::PrepareSubmission with `timestamps`), writing a
// timestamp before each dispatch (TOP_OF_PIPE: when the dispatch is
// reached) and after it (BOTTOM_OF_PIPE: when everything before has
// finished). A prologue command buffer, submitted first, resets the query
// pool and writes the reference timestamp. Dispatches that no barrier
// orders may overlap on the GPU; their spans then overlap too.
//
// When the submission retires, Read converts the ticks (masked to the
// queue family's timestampValidBits, times timestampPeriod ns) into
// offsets from the reference, for utils::DeviceTimeline to place.
//
// Everything here is created, recorded and freed under the queue's lock:
// the command buffers come from the queue's own pool, and Vulkan command
// pools are externally synchronized.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/ref.h"
#include "base/result.h"
#include "hal/buffer.h"
#include "hal/trace.h"
#include "hal/utils/dispatch_spans.h"
#include "hal/vulkan/vulkan_api.h"

namespace kiln::hal::vulkan {

class LogicalDevice;

class DispatchTimestamps {
 public:
  // Room for `dispatch_count` dispatches (> 0), their command buffers from
  // `pool`; the prologue is recorded.
  static Result<std::unique_ptr<DispatchTimestamps>> Create(LogicalDevice& device,
                                                            VkCommandPool pool,
                                                            uint32_t dispatch_count,
                                                            Ref<Trace> trace);
  ~DispatchTimestamps();
  DispatchTimestamps(const DispatchTimestamps&) = delete;
  DispatchTimestamps& operator=(const DispatchTimestamps&) = delete;

  Trace& trace() const { return *trace_; }
  VkQueryPool query_pool() const { return query_pool_; }
  // The command buffers to submit, the prologue first.
  const std::vector<VkCommandBuffer>& command_buffers() const { return command_buffers_; }
  // Buffers a translation needs for as long as it may run (overlapping
  // copies go through them).
  std::vector<Ref<Buffer>>* scratch() { return &scratch_; }

  // A new one-time command buffer (allocated, not begun), submitted after
  // the ones before it.
  Result<VkCommandBuffer> AllocateCommandBuffer();
  // The query of the next dispatch's begin timestamp (its end is the next
  // query); `name` names its span.
  uint32_t AddDispatch(std::string name);

  // When the submission was handed to the device (Trace::Now()).
  int64_t submitted_ns = 0;

  // The dispatches' offsets from the reference, once the submission has
  // completed.
  Result<std::vector<utils::MeasuredDispatch>> Read() const;

 private:
  DispatchTimestamps(LogicalDevice& device, VkCommandPool pool, Ref<Trace> trace)
      : device_(device), pool_(pool), trace_(std::move(trace)) {}

  LogicalDevice& device_;
  VkCommandPool pool_;
  Ref<Trace> trace_;
  VkQueryPool query_pool_ = VK_NULL_HANDLE;
  uint32_t query_count_ = 0;
  std::vector<VkCommandBuffer> command_buffers_;
  std::vector<std::string> names_;  // Dispatch i: queries 1 + 2i and 2 + 2i.
  std::vector<Ref<Buffer>> scratch_;
};

}  // namespace kiln::hal::vulkan
