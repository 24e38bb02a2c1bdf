// VulkanCommandBuffer: what the two Vulkan command buffer kinds share: the
// recorded command list (hal/utils/command_list.h), checked against this
// device when recorded, and its translation into a VkCommandBuffer.
//
// Recording checks that executables are this device's, that workgroup
// counts are within maxComputeWorkGroupCount, that concrete buffers are
// this device's and that dispatch bindings fit the descriptor limits
// (DescribeBinding). Binding-table slots are checked when submitted.
//
// Translate records the list into a VkCommandBuffer. Dispatch binds the
// export's pipeline (skipped when already bound), pushes its constants,
// binds a descriptor set (set 0, binding i = buffer i) and calls
// vkCmdDispatch. Transfers map to vkCmdCopyBuffer, vkCmdFillBuffer and
// vkCmdUpdateBuffer, working around their limits: a fill's bytes before the
// first and after the last 4-byte-aligned word are copied from staged
// pattern bytes (vkCmdFillBuffer writes whole aligned words); an update that
// is unaligned, over 65536 bytes or into a slot is copied from staged data;
// a copy whose ranges overlap goes through a scratch buffer (Vulkan forbids
// overlapping copies, the HAL asks for memmove). ExecutionBarrier is a
// pipeline barrier from the writes of the stages used since the previous
// barrier (compute, transfer or both; none: no barrier) to the reads and
// writes of the stages of the commands up to the next barrier, and every
// recording ends with a barrier that makes device writes visible to the
// host once the submission's semaphores signal.
//
// Two subclasses execute the list, one per mode (as hal/cuda has a graph
// and a stream executor):
//   - OneShotCommandBuffer (one_shot_command_buffer.h): translated once, at
//     End, into a one-time-submit VkCommandBuffer;
//   - ReusableCommandBuffer (reusable_command_buffer.h): "recordings", one
//     per binding table, brought up to date at submit.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "base/ref.h"
#include "hal/utils/deferred_command_buffer.h"
#include "hal/vulkan/descriptor_arena.h"
#include "hal/vulkan/logical_device.h"
#include "hal/vulkan/staging_arena.h"
#include "hal/vulkan/vulkan_api.h"
#include "hal/vulkan/vulkan_executable.h"

namespace kiln::hal::vulkan {

class DispatchTimestamps;
class VulkanQueue;

class VulkanCommandBuffer : public utils::DeferredCommandBuffer {
 public:
  // A OneShotCommandBuffer or a ReusableCommandBuffer.
  static Result<Ref<VulkanCommandBuffer>> Create(Ref<LogicalDevice> device, CommandBufferMode mode);
  ~VulkanCommandBuffer() override;

  LogicalDevice* device() const { return device_.get(); }

  // The VkCommandBuffer that runs this command buffer in submission
  // `serial` with `binding_table` (already checked by
  // CommandBuffer::ValidateBindingTable, its buffers this device's by
  // VulkanDevice::QueueExecute). Called by VulkanQueue::Submit with the
  // queue's lock held, so calls never overlap. Errors (a binding offset the
  // device cannot bind) leave the command buffer usable.
  //
  // A traced submission passes `timestamps`: the list is then recorded
  // afresh, with a timestamp before and after each dispatch, into a
  // one-time VkCommandBuffer of `timestamps`, which is returned instead of
  // the command buffer's own recording (dispatch_timestamps.h).
  virtual Result<VkCommandBuffer> PrepareSubmission(std::span<const Ref<Buffer>> binding_table,
                                                    uint64_t serial, VulkanQueue& queue,
                                                    DispatchTimestamps* timestamps) = 0;

  // For the driver's own staged transfers (VulkanBuffer::ReadData of memory
  // the host cannot map): appends a copy of `source`'s range to `target`'s
  // (this device's buffers, same lengths) to a one-shot command buffer being
  // recorded, without the HAL's usage checks.
  Status AppendInternalCopy(const BufferRef& source, const BufferRef& target);

 protected:
  VulkanCommandBuffer(Ref<LogicalDevice> device, CommandBufferMode mode, VkCommandPool pool);

  Status CheckDispatch(const Executable& executable, uint32_t export_ordinal,
                       std::array<uint32_t, 3> workgroup_count) override;
  Status CheckBuffer(const BufferRef& ref, const utils::BufferSite& site) override;
  // Derives what every translation needs (below). Subclasses call it first.
  // A failed End may be retried: it derives everything again.
  Status EndImpl() override;

  // What a binding-table slot holds in a submission.
  struct SlotValue {
    uint64_t id = 0;  // VulkanBuffer::id(); 0 for slots the recording does not use.
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceSize offset = 0;             // Of the slot buffer's first byte in `buffer`.
    VkDeviceSize length = 0;             // The slot buffer's byte_length().
    VkDeviceSize allocation_offset = 0;  // Of its allocation (for empty bindings).
    bool operator==(const SlotValue& other) const {
      return id == other.id && offset == other.offset && length == other.length;
    }
  };
  // Per command, derived at End (and by executors).
  struct CommandState {
    // Dispatch with slot bindings: index of its per-recording set
    // (ReusableCommandBuffer), shared by the dispatches with the same
    // references and set layout.
    int32_t slot_set = -1;
    VkDescriptorSet static_set = VK_NULL_HANDLE;  // Dispatch without slot bindings.
    // Barrier: the stages of the commands up to the next barrier.
    VkPipelineStageFlags stages_before_next = 0;
    // Fill: the pattern unrolled to 8 bytes; update: the data. Staged the
    // first time a translation needs them.
    DeviceRange staged;
  };

  // Records the list into `handle` (allocated, not begun), with `values`
  // for the slots and `slot_sets` for the per-recording sets; scratch
  // buffers of overlapping copies go to `scratch`.
  Status Translate(VkCommandBuffer handle, VkCommandBufferUsageFlags flags,
                   std::span<const SlotValue> values, std::span<const VkDescriptorSet> slot_sets,
                   std::vector<Ref<Buffer>>* scratch, DispatchTimestamps* timestamps = nullptr);
  // Translate into a new command buffer of `timestamps`, with timestamps
  // around each dispatch (PrepareSubmission of a traced submission).
  Result<VkCommandBuffer> TranslateTimed(DispatchTimestamps& timestamps,
                                         std::span<const SlotValue> values,
                                         std::span<const VkDescriptorSet> slot_sets);

  Result<VkCommandBuffer> AllocateCommandBuffer();
  static DeviceRange Resolve(const BufferRef& ref, std::span<const SlotValue> values);
  // The descriptor for binding `range` (allocation_offset: where its
  // allocation starts, used for empty ranges); errors name `site`.
  Result<VkDescriptorBufferInfo> DescribeBinding(const DeviceRange& range,
                                                 VkDeviceSize allocation_offset,
                                                 const std::function<std::string()>& site) const;
  std::string DispatchSite(uint32_t command, uint32_t binding) const;
  static const VulkanExecutable::Pipeline& PipelineOf(const utils::DispatchCommand& dispatch);

  Ref<LogicalDevice> device_;
  const DeviceFunctions& fn_;
  VkCommandPool pool_;
  DescriptorArena descriptors_;
  std::vector<CommandState> state_;

  // Scratch of descriptor writes, reused.
  std::vector<VkDescriptorBufferInfo> infos_;
  std::vector<VkWriteDescriptorSet> writes_;

 private:
  // What a recording has bound: a dispatch binds only what differs.
  struct BoundState {
    VkPipeline pipeline = VK_NULL_HANDLE;
    // The set and the pipeline layout it was bound with (a set stays bound
    // across pipelines of the same layout).
    VkDescriptorSet set = VK_NULL_HANDLE;
    VkPipelineLayout set_bound_with = VK_NULL_HANDLE;
  };
  Status BeginRecording(VkCommandBuffer handle, VkCommandBufferUsageFlags flags);
  Status FinishRecording(VkCommandBuffer handle);
  void RecordDispatch(VkCommandBuffer handle, const VulkanExecutable::Pipeline& pipeline,
                      VkDescriptorSet set, std::span<const uint32_t> constants,
                      std::array<uint32_t, 3> workgroup_count, BoundState* bound);
  Status RecordCopy(VkCommandBuffer handle, const DeviceRange& source, const DeviceRange& target,
                    std::vector<Ref<Buffer>>* scratch);
  // `*staged` holds the pattern unrolled to 8 bytes, staged here if the
  // ends are unaligned and it is not yet.
  Status RecordFill(VkCommandBuffer handle, const DeviceRange& target, uint32_t pattern,
                    uint32_t pattern_length, DeviceRange* staged);
  Status RecordUpdate(VkCommandBuffer handle, const BufferRef& target_ref,
                      const DeviceRange& target, std::span<const uint8_t> data, DeviceRange* staged,
                      std::vector<Ref<Buffer>>* scratch);
  // ExecutionBarrier: makes the stages in `before` (those of the commands
  // that follow, up to the next barrier) wait for the stages in `*since`
  // (those recorded since the last barrier), then clears `*since`.
  void RecordBarrier(VkCommandBuffer handle, VkPipelineStageFlags* since,
                     VkPipelineStageFlags before);
  static VkPipelineStageFlags StageOf(const utils::Command& command);

  StagingArena staging_;
};

}  // namespace kiln::hal::vulkan
