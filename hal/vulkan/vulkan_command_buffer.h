// VulkanCommandBuffer: HAL commands recorded into VkCommandBuffers.
//
// Dispatch binds the export's pipeline (skipped when already bound), pushes
// its constants, binds a descriptor set (set 0, binding i = buffer i) and
// calls vkCmdDispatch. Transfers map to vkCmdCopyBuffer, vkCmdFillBuffer and
// vkCmdUpdateBuffer, working around their limits: a fill's bytes before the
// first and after the last 4-byte-aligned word are copied from staged
// pattern bytes (vkCmdFillBuffer writes whole aligned words); an update that
// is unaligned or over 65536 bytes is copied from staged data; a copy whose
// ranges overlap goes through a scratch buffer (Vulkan forbids overlapping
// copies, the HAL asks for memmove). ExecutionBarrier is a pipeline barrier
// from the writes of the stages used since the previous barrier (compute,
// transfer or both; none: no barrier) to the reads and writes of the stages
// that follow (both while a one-shot buffer records, since what follows is
// not known yet; exactly those of the commands up to the next barrier in
// reusable recordings), and every recording ends with a barrier that makes
// device writes visible to the host once the submission's semaphores
// signal.
//
// One-shot command buffers record straight into their VkCommandBuffer as
// the HAL calls come, writing one descriptor set per dispatch.
//
// Reusable command buffers keep the command list and make "recordings":
// VkCommandBuffers recorded from it for one binding table each. Without
// binding-table slots there is one, recorded at End and resubmitted as is.
// With slots, a submission looks for a recording whose slots already hold
// this table's buffers (resubmitted with no descriptor writes: replaying the
// same table costs nothing per dispatch); otherwise it takes the recording
// no pending submission uses that differs from the table in the fewest
// slots, or makes a new one when none is idle or the closest differs in
// most slots (up to kMaxRecordings, so that alternating tables get one
// recording each), and brings it up to date:
//   - with update-after-bind descriptors (VulkanDriverOptions), only the
//     descriptors of slots whose buffer changed are rewritten and the
//     VkCommandBuffer is kept;
//   - without (lavapipe), or when a changed slot is used by a transfer
//     (copies name their VkBuffer in the command itself), the descriptors
//     are rewritten and the VkCommandBuffer is recorded again.
// A recording is pending until the queue's completion counter passes the
// serial of its last submission, so a set is never rewritten while the
// device may read it. Recordings are kept for the command buffer's life.
//
// Slot buffers are compared by VulkanBuffer::id() and range, never by
// pointer, so a freed and reallocated buffer is never mistaken for the old
// one.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "base/ref.h"
#include "hal/command_buffer.h"
#include "hal/vulkan/descriptor_arena.h"
#include "hal/vulkan/logical_device.h"
#include "hal/vulkan/staging_arena.h"
#include "hal/vulkan/vulkan_api.h"
#include "hal/vulkan/vulkan_executable.h"

namespace kiln::hal::vulkan {

class VulkanCommandBuffer final : public CommandBuffer {
 public:
  static Result<Ref<VulkanCommandBuffer>> Create(Ref<LogicalDevice> device, CommandBufferMode mode);
  ~VulkanCommandBuffer() override;

  LogicalDevice* device() const { return device_.get(); }

  // The VkCommandBuffer that runs this command buffer in submission
  // `serial` with `binding_table` (already checked by
  // CommandBuffer::ValidateBindingTable, its buffers this device's by
  // VulkanDevice::QueueExecute). Called by VulkanQueue::Submit with the
  // queue's lock held, so calls never overlap. Errors (a binding offset the
  // device cannot bind) leave the command buffer usable.
  Result<VkCommandBuffer> PrepareSubmission(std::span<const Ref<Buffer>> binding_table,
                                            uint64_t serial, VulkanQueue& queue);

  // For the driver's own staged transfers (VulkanBuffer::ReadData of memory
  // the host cannot map): records a copy into a begun one-shot command
  // buffer without the HAL's usage checks, keeping `keep_alive` alive.
  Status RecordInternalCopy(const DeviceRange& source, const DeviceRange& target,
                            std::initializer_list<Ref<Buffer>> keep_alive);

  // Recordings made before the closest idle one is rewritten even when it
  // differs in most slots (more are made only while all are pending).
  static constexpr size_t kMaxRecordings = 4;

  // Observability for tests: recordings made, times a VkCommandBuffer was
  // recorded, descriptors written at submit.
  size_t recording_count() const { return recordings_.size(); }
  uint64_t record_count() const { return record_count_; }
  uint64_t submit_descriptor_writes() const { return submit_descriptor_writes_; }

 protected:
  Status BeginImpl() override;
  Status EndImpl() override;
  Status DispatchImpl(const Ref<Executable>& executable, uint32_t export_ordinal,
                      std::array<uint32_t, 3> workgroup_count, std::span<const uint32_t> constants,
                      std::span<const BufferRef> bindings) override;
  Status CopyBufferImpl(const BufferRef& source, const BufferRef& target, size_t length) override;
  Status FillBufferImpl(const BufferRef& target, uint32_t pattern, size_t pattern_length) override;
  Status UpdateBufferImpl(std::span<const uint8_t> data, const BufferRef& target) override;
  Status ExecutionBarrierImpl() override;

 private:
  // A command of a reusable command buffer.
  struct Command {
    enum class Kind : uint8_t { kDispatch, kCopy, kFill, kUpdate, kBarrier };
    Kind kind = Kind::kBarrier;
    uint32_t executable = 0;  // Dispatch: index into executables_.
    uint32_t export_ordinal = 0;
    std::array<uint32_t, 3> workgroup_count = {1, 1, 1};
    uint32_t constants_begin = 0;
    uint32_t refs_begin = 0;  // Dispatch: its bindings; copy: source, target; else target.
    uint32_t refs_count = 0;
    // Dispatch with slot bindings: index of its per-recording set, shared
    // by the dispatches with the same references and set layout.
    int32_t slot_set = -1;
    VkDescriptorSet static_set = VK_NULL_HANDLE;  // Dispatch without slot bindings.
    VkDeviceSize length = 0;                      // Copy.
    uint32_t pattern = 0;                         // Fill.
    uint8_t pattern_length = 0;
    DeviceRange staged;  // Fill: the pattern unrolled to 8 bytes; update: the data.
    // Barrier: the stages of the commands up to the next barrier (End).
    VkPipelineStageFlags stages_before_next = 0;
  };
  // What a binding-table slot held when a recording was brought up to date.
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
  // A binding of a per-recording descriptor set.
  struct SetBinding {
    uint32_t set = 0;      // Index among the slot sets.
    uint32_t binding = 0;  // Binding number in the set.
    uint32_t ref = 0;      // Index into refs_.
    uint32_t command = 0;  // The dispatch, for messages.
  };
  struct Recording {
    VkCommandBuffer handle = VK_NULL_HANDLE;
    std::vector<VkDescriptorSet> sets;  // One per slot set.
    std::vector<SlotValue> values;      // Per slot, valid when `current`.
    bool current = false;               // values match the sets and the recording.
    bool recorded = false;              // handle holds a finished recording.
    uint64_t last_serial = 0;
    std::vector<Ref<Buffer>> scratch;  // Overlapping-copy buffers of this recording.
  };

  VulkanCommandBuffer(Ref<LogicalDevice> device, CommandBufferMode mode, VkCommandPool pool);

  Result<VulkanExecutable*> CheckExecutable(const Ref<Executable>& executable) const;
  // The device range of a concrete reference (its buffer must be this
  // device's: CheckConcrete).
  Status CheckConcrete(const BufferRef& ref, const char* what) const;
  static DeviceRange ResolveConcrete(const BufferRef& ref);
  static DeviceRange ResolveSlot(const BufferRef& ref, const SlotValue& value);
  DeviceRange Resolve(const BufferRef& ref, std::span<const SlotValue> values) const;
  // The descriptor for binding `range` (allocation_offset: where its
  // allocation starts, used for empty ranges); errors name `site`.
  template <typename Site>
  Result<VkDescriptorBufferInfo> DescribeBinding(const DeviceRange& range,
                                                 VkDeviceSize allocation_offset,
                                                 const Site& site) const;
  std::string DispatchSite(uint32_t command, uint32_t binding) const;

  Result<VkCommandBuffer> AllocateCommandBuffer();
  Status BeginRecording(VkCommandBuffer handle, VkCommandBufferUsageFlags flags);
  Status FinishRecording(VkCommandBuffer handle);
  // What a recording has bound: a dispatch binds only what differs.
  struct BoundState {
    VkPipeline pipeline = VK_NULL_HANDLE;
    // The set and the pipeline layout it was bound with (a set stays bound
    // across pipelines of the same layout).
    VkDescriptorSet set = VK_NULL_HANDLE;
    VkPipelineLayout set_bound_with = VK_NULL_HANDLE;
  };
  void RecordDispatch(VkCommandBuffer handle, const VulkanExecutable::Pipeline& pipeline,
                      VkDescriptorSet set, std::span<const uint32_t> constants,
                      std::array<uint32_t, 3> workgroup_count, BoundState* bound);
  Status RecordCopy(VkCommandBuffer handle, const DeviceRange& source, const DeviceRange& target,
                    std::vector<Ref<Buffer>>* scratch);
  // `staged` holds the pattern unrolled to 8 bytes, or is empty to stage
  // them only if the ends are unaligned.
  Status RecordFill(VkCommandBuffer handle, const DeviceRange& target, uint32_t pattern,
                    uint32_t pattern_length, DeviceRange staged);
  // ExecutionBarrier: makes the stages in `before` (those of the commands
  // that follow, up to the next barrier) wait for the stages in `*since`
  // (those recorded since the last barrier), then clears `*since`.
  void RecordBarrier(VkCommandBuffer handle, VkPipelineStageFlags* since,
                     VkPipelineStageFlags before);
  static VkPipelineStageFlags StageOf(Command::Kind kind);
  Result<DeviceRange> StagePattern(uint32_t pattern, uint32_t pattern_length);

  // Reusable: replays commands_ into `recording` with `values` for slots.
  Status RecordReusable(Recording& recording, std::span<const SlotValue> values);
  // A recording with every slot set allocated, or an error leaving none.
  Result<Recording*> NewRecording();
  // Frees every recording (none may be pending).
  void FreeRecordings();
  // Writes the descriptors of `recording` that `changed` slots feed (all
  // of them when the recording is new) and re-records it when needed.
  Status Update(Recording& recording, std::span<const SlotValue> values);

  Ref<LogicalDevice> device_;
  const DeviceFunctions& fn_;
  VkCommandPool pool_;
  DescriptorArena descriptors_;
  StagingArena staging_;

  // Objects the recorded commands use, kept alive.
  std::vector<Ref<VulkanExecutable>> executables_;
  std::vector<Ref<Buffer>> retained_;

  // One-shot: the VkCommandBuffer being recorded, and what it has bound.
  VkCommandBuffer primary_ = VK_NULL_HANDLE;
  BoundState bound_;
  VkPipelineStageFlags stages_since_barrier_ = 0;

  // Reusable: the command list and what End derives from it.
  std::vector<Command> commands_;
  std::vector<uint32_t> constants_;
  std::vector<BufferRef> refs_;
  uint32_t slot_count_ = 0;  // 1 + the largest slot used.
  std::vector<bool> slot_used_;
  std::vector<bool> transfer_slot_;            // Named by a copy, fill or update.
  std::vector<uint32_t> slot_set_commands_;    // Per slot set: the first dispatch using it.
  std::vector<SetBinding> slot_bindings_;      // Slot references of slot sets.
  std::vector<SetBinding> concrete_bindings_;  // Concrete references of slot sets.
  std::vector<std::unique_ptr<Recording>> recordings_;

  // Scratch of PrepareSubmission and Update, reused.
  std::vector<SlotValue> values_;
  std::vector<bool> changed_;
  std::vector<VkDescriptorBufferInfo> infos_;
  std::vector<VkWriteDescriptorSet> writes_;

  uint64_t record_count_ = 0;
  uint64_t submit_descriptor_writes_ = 0;
};

}  // namespace kiln::hal::vulkan
