#include "hal/vulkan/reusable_command_buffer.h"

#include <bit>
#include <map>
#include <string>

#include "hal/vulkan/vulkan_buffer.h"
#include "hal/vulkan/vulkan_queue.h"

namespace kiln::hal::vulkan {

ReusableCommandBuffer::~ReusableCommandBuffer() { FreeRecordings(); }

const BufferRef& ReusableCommandBuffer::BindingOf(const SetBinding& binding) const {
  const auto& dispatch = std::get<utils::DispatchCommand>(command_list()[binding.command]);
  return command_list().bindings(dispatch)[binding.binding];
}

Status ReusableCommandBuffer::EndImpl() {
  KILN_RETURN_IF_ERROR(VulkanCommandBuffer::EndImpl());
  // A failed End leaves the command buffer recording, and End may be called
  // again: what the failed one recorded (never submitted) goes.
  FreeRecordings();
  const utils::CommandList& list = command_list();
  slot_count_ = list.slot_count();
  slot_used_.assign(slot_count_, false);
  transfer_slot_.assign(slot_count_, false);
  slot_set_commands_.clear();
  slot_bindings_.clear();
  concrete_bindings_.clear();
  // Dispatches with the same references under the same set layout share a
  // set (a chain of dispatches on one buffer has one): a new table writes
  // each distinct descriptor once. The key: the layout, then per binding
  // whether it is a slot, the slot or buffer, the offset and the length.
  std::map<std::vector<uint64_t>, uint32_t> set_of_references;
  std::vector<uint64_t> key;
  for (uint32_t c = 0; c < list.size(); ++c) {
    const auto* dispatch = std::get_if<utils::DispatchCommand>(&list[c]);
    bool any_slot = false;
    list.ForEachRef(list[c], [&](const BufferRef& ref) {
      if (!ref.is_slot()) return;
      any_slot = true;
      slot_used_[ref.slot] = true;
      if (dispatch == nullptr) transfer_slot_[ref.slot] = true;
    });
    if (dispatch == nullptr || !any_slot) continue;
    const std::span<const BufferRef> bindings = list.bindings(*dispatch);
    const VulkanExecutable::Pipeline& pipeline = PipelineOf(*dispatch);
    key.assign({std::bit_cast<uint64_t>(pipeline.layout.set_layout)});
    for (const BufferRef& ref : bindings) {
      key.insert(key.end(),
                 {ref.is_slot() ? 1u : 0u,
                  ref.is_slot() ? ref.slot : reinterpret_cast<uintptr_t>(ref.buffer.get()),
                  ref.offset, ref.length});
    }
    const auto [shared, added] =
        set_of_references.emplace(key, static_cast<uint32_t>(slot_set_commands_.size()));
    const uint32_t set = shared->second;
    state_[c].slot_set = static_cast<int32_t>(set);
    if (!added) continue;
    slot_set_commands_.push_back(c);
    for (uint32_t i = 0; i < bindings.size(); ++i) {
      (bindings[i].is_slot() ? slot_bindings_ : concrete_bindings_).push_back({set, i, c});
    }
  }
  if (slot_count_ != 0) return OkStatus();  // Recorded at the first submission.
  KILN_ASSIGN_OR_RETURN(Recording * recording, NewRecording());
  return Update(*recording, {});
}

Result<ReusableCommandBuffer::Recording*> ReusableCommandBuffer::NewRecording() {
  // Kept only once it has every set: a recording short of sets would be
  // chosen by a later submission and written out of range.
  auto recording = std::make_unique<Recording>();
  for (uint32_t command : slot_set_commands_) {
    const VulkanExecutable::Pipeline& pipeline =
        PipelineOf(std::get<utils::DispatchCommand>(command_list()[command]));
    KILN_ASSIGN_OR_RETURN(VkDescriptorSet set, descriptors_.Allocate(pipeline.layout.set_layout,
                                                                     pipeline.binding_count));
    recording->sets.push_back(set);
  }
  KILN_ASSIGN_OR_RETURN(recording->handle, AllocateCommandBuffer());
  recordings_.push_back(std::move(recording));
  return recordings_.back().get();
}

void ReusableCommandBuffer::FreeRecordings() {
  std::vector<VkCommandBuffer> handles;
  for (const std::unique_ptr<Recording>& recording : recordings_) {
    handles.push_back(recording->handle);
  }
  if (!handles.empty()) {
    fn_.vkFreeCommandBuffers(device_->handle(), pool_, static_cast<uint32_t>(handles.size()),
                             handles.data());
  }
  recordings_.clear();
}

Status ReusableCommandBuffer::Update(Recording& recording, std::span<const SlotValue> values) {
  const bool fresh = !recording.current;
  bool rerecord = !recording.recorded || !device_->update_after_bind();
  changed_.assign(slot_count_, false);
  for (uint32_t s = 0; s < slot_count_; ++s) {
    if (!slot_used_[s] || (!fresh && recording.values[s] == values[s])) continue;
    changed_[s] = true;
    if (transfer_slot_[s]) rerecord = true;
  }
  // Validate every descriptor to write before touching the recording.
  infos_.clear();
  writes_.clear();
  auto add = [&](const SetBinding& binding) -> Status {
    const BufferRef& ref = BindingOf(binding);
    const VkDeviceSize allocation_offset =
        ref.is_slot() ? values[ref.slot].allocation_offset
                      : static_cast<const VulkanBuffer*>(ref.buffer->allocated_buffer())->offset();
    Result<VkDescriptorBufferInfo> info =
        DescribeBinding(Resolve(ref, values), allocation_offset, [&] {
          std::string site = DispatchSite(binding.command, binding.binding);
          if (ref.is_slot()) site += " (binding-table slot " + std::to_string(ref.slot) + ")";
          return site;
        });
    if (!info.ok()) return info.status();
    infos_.push_back(*info);
    VkWriteDescriptorSet write = {};
    write.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    write.dstSet = recording.sets[binding.set];
    write.dstBinding = binding.binding;
    write.descriptorCount = 1;
    write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes_.push_back(write);
    return OkStatus();
  };
  if (fresh) {
    for (const SetBinding& binding : concrete_bindings_) KILN_RETURN_IF_ERROR(add(binding));
  }
  for (const SetBinding& binding : slot_bindings_) {
    if (changed_[BindingOf(binding).slot]) KILN_RETURN_IF_ERROR(add(binding));
  }
  // infos_ no longer grows: point the writes at it.
  for (size_t i = 0; i < writes_.size(); ++i) writes_[i].pBufferInfo = &infos_[i];

  recording.current = false;
  if (!writes_.empty()) {
    // Without update-after-bind this invalidates the recording, which is
    // then recorded again below.
    fn_.vkUpdateDescriptorSets(device_->handle(), static_cast<uint32_t>(writes_.size()),
                               writes_.data(), 0, nullptr);
    submit_descriptor_writes_ += writes_.size();
  }
  if (rerecord) {
    recording.recorded = false;
    // Reset first: the recording may be executable, or half-recorded after
    // a failure. Simultaneous use: an unchanged recording is resubmitted
    // while an earlier submission of it may still run.
    VkResult reset = fn_.vkResetCommandBuffer(recording.handle, 0);
    if (reset != VK_SUCCESS) return VkResultToStatus(reset, "vkResetCommandBuffer");
    recording.scratch.clear();
    KILN_RETURN_IF_ERROR(Translate(recording.handle, VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT,
                                   values, recording.sets, &recording.scratch));
    recording.recorded = true;
    ++record_count_;
  }
  recording.values.assign(values.begin(), values.end());
  recording.current = true;
  return OkStatus();
}

Result<VkCommandBuffer> ReusableCommandBuffer::PrepareSubmission(
    std::span<const Ref<Buffer>> binding_table, uint64_t serial, VulkanQueue& queue,
    DispatchTimestamps* timestamps) {
  if (slot_count_ == 0) {
    recordings_.front()->last_serial = serial;
    if (timestamps != nullptr) {
      return TranslateTimed(*timestamps, {}, recordings_.front()->sets);
    }
    return recordings_.front()->handle;
  }
  values_.assign(slot_count_, SlotValue{});
  for (uint32_t s = 0; s < slot_count_; ++s) {
    if (!slot_used_[s]) continue;
    // VulkanDevice::QueueExecute checked that the device allocated it.
    const Buffer& buffer = *binding_table[s];
    const auto& allocation = *static_cast<const VulkanBuffer*>(buffer.allocated_buffer());
    values_[s] =
        SlotValue{allocation.id(), allocation.handle(), allocation.offset() + buffer.byte_offset(),
                  buffer.byte_length(), allocation.offset()};
  }
  // A recording that already holds this table runs as it is.
  for (const std::unique_ptr<Recording>& recording : recordings_) {
    if (recording->current && recording->recorded && recording->values == values_) {
      recording->last_serial = serial;
      if (timestamps != nullptr) return TranslateTimed(*timestamps, values_, recording->sets);
      return recording->handle;
    }
  }
  // Otherwise the idle recording (no pending submission uses it) closest to
  // this table is brought up to date, unless it differs in most slots and
  // there is room for another: tables that alternate (double buffering)
  // then settle into a recording each instead of rewriting one every time.
  const uint64_t completed = queue.CompletedSerialLocked();
  uint32_t used = 0;
  for (uint32_t s = 0; s < slot_count_; ++s) used += slot_used_[s] ? 1 : 0;
  Recording* chosen = nullptr;
  uint32_t chosen_changes = 0;
  for (const std::unique_ptr<Recording>& recording : recordings_) {
    if (recording->last_serial > completed) continue;
    uint32_t changes = 0;
    for (uint32_t s = 0; s < slot_count_; ++s) {
      changes += slot_used_[s] && (!recording->current || !(recording->values[s] == values_[s]));
    }
    if (chosen == nullptr || changes < chosen_changes) {
      chosen = recording.get();
      chosen_changes = changes;
    }
  }
  if (chosen != nullptr && 2 * chosen_changes > used && recordings_.size() < kMaxRecordings) {
    chosen = nullptr;
  }
  if (chosen == nullptr) {
    KILN_ASSIGN_OR_RETURN(chosen, NewRecording());
  }
  KILN_RETURN_IF_ERROR(Update(*chosen, values_));
  chosen->last_serial = serial;
  if (timestamps != nullptr) return TranslateTimed(*timestamps, values_, chosen->sets);
  return chosen->handle;
}

}  // namespace kiln::hal::vulkan
