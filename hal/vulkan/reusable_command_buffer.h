// ReusableCommandBuffer: the Vulkan executor of a reusable command buffer,
// which keeps the recorded list and makes "recordings": VkCommandBuffers
// translated from it for one binding table each.
//
// Without binding-table slots there is one, recorded at End and resubmitted
// as is. With slots, a submission looks for a recording whose slots already
// hold this table's buffers (resubmitted with no descriptor writes:
// replaying the same table costs nothing per dispatch); otherwise it takes
// the recording no pending submission uses that differs from the table in
// the fewest slots, or makes a new one when none is idle or the closest
// differs in most slots (up to kMaxRecordings, so that alternating tables
// get one recording each), and brings it up to date:
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

#include <cstdint>
#include <memory>
#include <vector>

#include "hal/vulkan/vulkan_command_buffer.h"

namespace kiln::hal::vulkan {

class ReusableCommandBuffer final : public VulkanCommandBuffer {
 public:
  ReusableCommandBuffer(Ref<LogicalDevice> device, VkCommandPool pool)
      : VulkanCommandBuffer(std::move(device), CommandBufferMode::kReusable, pool) {}
  ~ReusableCommandBuffer() override;

  // A traced submission (`timestamps`) takes a recording as any other does,
  // for its descriptor sets, and records afresh with those sets.
  Result<VkCommandBuffer> PrepareSubmission(std::span<const Ref<Buffer>> binding_table,
                                            uint64_t serial, VulkanQueue& queue,
                                            DispatchTimestamps* timestamps) override;

  // Recordings made before the closest idle one is rewritten even when it
  // differs in most slots (more are made only while all are pending).
  static constexpr size_t kMaxRecordings = 4;

  // Observability for tests: recordings made, times a VkCommandBuffer was
  // recorded, descriptors written at submit.
  size_t recording_count() const { return recordings_.size(); }
  uint64_t record_count() const { return record_count_; }
  uint64_t submit_descriptor_writes() const { return submit_descriptor_writes_; }

 private:
  // A binding of a per-recording descriptor set: binding `binding` of
  // dispatch `command`.
  struct SetBinding {
    uint32_t set = 0;      // Index among the slot sets.
    uint32_t binding = 0;  // Binding number in the set.
    uint32_t command = 0;  // The dispatch.
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

  Status EndImpl() override;
  const BufferRef& BindingOf(const SetBinding& binding) const;
  // A recording with every slot set allocated, or an error leaving none.
  Result<Recording*> NewRecording();
  // Frees every recording (none may be pending).
  void FreeRecordings();
  // Writes the descriptors of `recording` that `changed` slots feed (all
  // of them when the recording is new) and re-records it when needed.
  Status Update(Recording& recording, std::span<const SlotValue> values);

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

  uint64_t record_count_ = 0;
  uint64_t submit_descriptor_writes_ = 0;
};

}  // namespace kiln::hal::vulkan
