#include "hal/vulkan/vulkan_command_buffer.h"

#include "hal/utils/dispatch_spans.h"
#include "hal/vulkan/dispatch_timestamps.h"

#include <algorithm>
#include <string>

#include "hal/vulkan/one_shot_command_buffer.h"
#include "hal/vulkan/reusable_command_buffer.h"
#include "hal/vulkan/vulkan_buffer.h"

namespace kiln::hal::vulkan {
namespace {

constexpr VkPipelineStageFlags kWorkStages =
    VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
constexpr VkAccessFlags kWriteAccess = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
// vkCmdUpdateBuffer's limit on inline data.
constexpr size_t kMaxInlineUpdate = 65536;

void RecordMemoryBarrier(const DeviceFunctions& fn, VkCommandBuffer handle,
                         VkPipelineStageFlags src_stages, VkAccessFlags src_access,
                         VkPipelineStageFlags dst_stages, VkAccessFlags dst_access) {
  VkMemoryBarrier barrier = {};
  barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  barrier.srcAccessMask = src_access;
  barrier.dstAccessMask = dst_access;
  fn.vkCmdPipelineBarrier(handle, src_stages, dst_stages, 0, 1, &barrier, 0, nullptr, 0, nullptr);
}

// Byte i of a fill's target holds byte (i % pattern_length) of the pattern.
uint8_t PatternByte(uint32_t pattern, uint32_t pattern_length, VkDeviceSize index) {
  return static_cast<uint8_t>(pattern >> (8 * (index % pattern_length)));
}

// The aligned word vkCmdFillBuffer repeats, for words starting `phase`
// bytes into the fill.
uint32_t PatternWord(uint32_t pattern, uint32_t pattern_length, VkDeviceSize phase) {
  uint32_t word = 0;
  for (uint32_t j = 0; j < 4; ++j) {
    word |= uint32_t{PatternByte(pattern, pattern_length, phase + j)} << (8 * j);
  }
  return word;
}

// The allocation of a concrete reference that CheckBuffer accepted.
const VulkanBuffer& ConcreteAllocation(const BufferRef& ref) {
  return *static_cast<const VulkanBuffer*>(ref.buffer->allocated_buffer());
}

}  // namespace

Result<Ref<VulkanCommandBuffer>> VulkanCommandBuffer::Create(Ref<LogicalDevice> device,
                                                             CommandBufferMode mode) {
  KILN_ASSIGN_OR_RETURN(VkCommandPool pool, device->AcquireCommandPool());
  if (mode == CommandBufferMode::kOneShot) {
    return Ref<VulkanCommandBuffer>::Adopt(new OneShotCommandBuffer(std::move(device), pool));
  }
  return Ref<VulkanCommandBuffer>::Adopt(new ReusableCommandBuffer(std::move(device), pool));
}

VulkanCommandBuffer::VulkanCommandBuffer(Ref<LogicalDevice> device, CommandBufferMode mode,
                                         VkCommandPool pool)
    : DeferredCommandBuffer(mode),
      device_(std::move(device)),
      fn_(device_->fn()),
      pool_(pool),
      descriptors_(device_.get()),
      staging_(device_.get()) {}

// Subclasses free their VkCommandBuffers first: submissions hold their
// command buffers until they retire, so nothing here is pending on the
// device.
VulkanCommandBuffer::~VulkanCommandBuffer() { device_->ReleaseCommandPool(pool_); }

// --- Checks and resolution ---------------------------------------------------

Status VulkanCommandBuffer::CheckDispatch(const Executable& executable, uint32_t export_ordinal,
                                          std::array<uint32_t, 3> workgroup_count) {
  const auto* vulkan = dynamic_cast<const VulkanExecutable*>(&executable);
  if (vulkan == nullptr || vulkan->device() != device_.get()) {
    return InvalidArgumentError("Dispatch: the " + executable.format() +
                                " executable was not created by this Vulkan device");
  }
  const VkPhysicalDeviceLimits& limits = device_->limits();
  for (int i = 0; i < 3; ++i) {
    if (workgroup_count[i] > limits.maxComputeWorkGroupCount[i]) {
      return InvalidArgumentError("Dispatch of '" + vulkan->export_at(export_ordinal).name +
                                  "': workgroup count " + std::to_string(workgroup_count[i]) +
                                  " in dimension " + std::to_string(i) +
                                  " exceeds the device's maxComputeWorkGroupCount (" +
                                  std::to_string(limits.maxComputeWorkGroupCount[i]) + ")");
    }
  }
  return OkStatus();
}

Status VulkanCommandBuffer::CheckBuffer(const BufferRef& ref, const utils::BufferSite& site) {
  const VulkanBuffer* allocation = VulkanBuffer::OwnedBy(*ref.buffer, device_.get());
  if (allocation == nullptr) {
    return InvalidArgumentError(site.Describe() +
                                ": the buffer was not allocated by this Vulkan device");
  }
  // Fills, updates and copies take any offset and length; bindings must fit
  // a descriptor.
  if (!site.is_dispatch_binding()) return OkStatus();
  return DescribeBinding(Resolve(ref, {}), allocation->offset(), [&] { return site.Describe(); })
      .status();
}

DeviceRange VulkanCommandBuffer::Resolve(const BufferRef& ref, std::span<const SlotValue> values) {
  if (!ref.is_slot()) {
    const VulkanBuffer& allocation = ConcreteAllocation(ref);
    return DeviceRange{allocation.handle(),
                       allocation.offset() + ref.buffer->byte_offset() + ref.offset, ref.length};
  }
  const SlotValue& value = values[ref.slot];
  const VkDeviceSize length = ref.length == kWholeBuffer ? value.length - ref.offset : ref.length;
  return DeviceRange{value.buffer, value.offset + ref.offset, length};
}

Result<VkDescriptorBufferInfo> VulkanCommandBuffer::DescribeBinding(
    const DeviceRange& range, VkDeviceSize allocation_offset,
    const std::function<std::string()>& site) const {
  const VkPhysicalDeviceLimits& limits = device_->limits();
  if (range.length == 0) {
    // Vulkan has no empty descriptor range: bind the allocation's first
    // bytes, which it always reserves; the kernel is told the length is 0.
    return VkDescriptorBufferInfo{range.buffer, allocation_offset,
                                  device_->allocator().alignment()};
  }
  const VkDeviceSize alignment = limits.minStorageBufferOffsetAlignment;
  if (alignment > 1 && (range.offset - allocation_offset) % alignment != 0) {
    return InvalidArgumentError(
        site() + ": the range starts " + std::to_string(range.offset - allocation_offset) +
        " bytes into its allocation, not a multiple of the device's "
        "minStorageBufferOffsetAlignment (" +
        std::to_string(alignment) + "): Vulkan binds storage buffers at aligned offsets");
  }
  if (range.length > limits.maxStorageBufferRange) {
    return InvalidArgumentError(site() + ": " + std::to_string(range.length) +
                                " bytes exceed the device's maxStorageBufferRange (" +
                                std::to_string(limits.maxStorageBufferRange) + ")");
  }
  return VkDescriptorBufferInfo{range.buffer, range.offset, range.length};
}

const VulkanExecutable::Pipeline& VulkanCommandBuffer::PipelineOf(
    const utils::DispatchCommand& dispatch) {
  // Checked when recorded (CheckDispatch).
  return static_cast<const VulkanExecutable&>(*dispatch.executable)
      .pipeline(dispatch.export_ordinal);
}

std::string VulkanCommandBuffer::DispatchSite(uint32_t command, uint32_t binding) const {
  const auto& dispatch = std::get<utils::DispatchCommand>(command_list()[command]);
  return "Dispatch of '" + dispatch.executable->export_at(dispatch.export_ordinal).name +
         "' binding " + std::to_string(binding);
}

Status VulkanCommandBuffer::AppendInternalCopy(const BufferRef& source, const BufferRef& target) {
  if (mode() != CommandBufferMode::kOneShot || !is_recording()) {
    return InternalError("AppendInternalCopy needs a one-shot command buffer being recorded");
  }
  mutable_command_list().AppendCopy(source, target, source.length);
  return OkStatus();
}

// --- End -----------------------------------------------------------------------

VkPipelineStageFlags VulkanCommandBuffer::StageOf(const utils::Command& command) {
  if (std::holds_alternative<utils::DispatchCommand>(command)) {
    return VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
  }
  if (std::holds_alternative<utils::BarrierCommand>(command)) return 0;
  return VK_PIPELINE_STAGE_TRANSFER_BIT;
}

Status VulkanCommandBuffer::EndImpl() {
  const utils::CommandList& list = command_list();
  state_.assign(list.size(), CommandState{});
  // The stages each barrier must hold back: those of the commands up to the
  // next barrier.
  VkPipelineStageFlags until_next = 0;
  for (size_t i = list.size(); i-- > 0;) {
    if (std::holds_alternative<utils::BarrierCommand>(list[i])) {
      state_[i].stages_before_next = until_next;
      until_next = 0;
    } else {
      until_next |= StageOf(list[i]);
    }
  }
  // One descriptor set per dispatch whose bindings are all concrete,
  // written once (CheckBuffer checked that they fit).
  for (size_t c = 0; c < list.size(); ++c) {
    const auto* dispatch = std::get_if<utils::DispatchCommand>(&list[c]);
    if (dispatch == nullptr || dispatch->bindings.count == 0 || list.UsesSlots(list[c])) continue;
    const VulkanExecutable::Pipeline& pipeline = PipelineOf(*dispatch);
    infos_.clear();
    for (const BufferRef& binding : list.bindings(*dispatch)) {
      const auto index = static_cast<uint32_t>(infos_.size());
      KILN_ASSIGN_OR_RETURN(
          VkDescriptorBufferInfo info,
          DescribeBinding(Resolve(binding, {}), ConcreteAllocation(binding).offset(),
                          [&] { return DispatchSite(c, index); }));
      infos_.push_back(info);
    }
    KILN_ASSIGN_OR_RETURN(state_[c].static_set, descriptors_.Allocate(pipeline.layout.set_layout,
                                                                      pipeline.binding_count));
    VkWriteDescriptorSet write = {};
    write.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    write.dstSet = state_[c].static_set;
    write.dstBinding = 0;
    // Bindings 0..n-1 are consecutive storage buffers: one write fills all.
    write.descriptorCount = static_cast<uint32_t>(infos_.size());
    write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    write.pBufferInfo = infos_.data();
    fn_.vkUpdateDescriptorSets(device_->handle(), 1, &write, 0, nullptr);
  }
  return OkStatus();
}

// --- Translation ----------------------------------------------------------------

Result<VkCommandBuffer> VulkanCommandBuffer::AllocateCommandBuffer() {
  VkCommandBufferAllocateInfo info = {};
  info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  info.commandPool = pool_;
  info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  info.commandBufferCount = 1;
  VkCommandBuffer handle = VK_NULL_HANDLE;
  VkResult result = fn_.vkAllocateCommandBuffers(device_->handle(), &info, &handle);
  if (result != VK_SUCCESS) return VkResultToStatus(result, "vkAllocateCommandBuffers");
  return handle;
}

Status VulkanCommandBuffer::BeginRecording(VkCommandBuffer handle,
                                           VkCommandBufferUsageFlags flags) {
  VkCommandBufferBeginInfo info = {};
  info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  info.flags = flags;
  VkResult result = fn_.vkBeginCommandBuffer(handle, &info);
  return result == VK_SUCCESS ? OkStatus() : VkResultToStatus(result, "vkBeginCommandBuffer");
}

Status VulkanCommandBuffer::FinishRecording(VkCommandBuffer handle) {
  // Device writes become visible to the host once the submission's
  // semaphores signal (reads of results after a host wait).
  RecordMemoryBarrier(fn_, handle, kWorkStages, kWriteAccess, VK_PIPELINE_STAGE_HOST_BIT,
                      VK_ACCESS_HOST_READ_BIT | VK_ACCESS_HOST_WRITE_BIT);
  VkResult result = fn_.vkEndCommandBuffer(handle);
  return result == VK_SUCCESS ? OkStatus() : VkResultToStatus(result, "vkEndCommandBuffer");
}

void VulkanCommandBuffer::RecordDispatch(VkCommandBuffer handle,
                                         const VulkanExecutable::Pipeline& pipeline,
                                         VkDescriptorSet set, std::span<const uint32_t> constants,
                                         std::array<uint32_t, 3> workgroup_count,
                                         BoundState* bound) {
  if (bound->pipeline != pipeline.pipeline) {
    fn_.vkCmdBindPipeline(handle, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.pipeline);
    bound->pipeline = pipeline.pipeline;
  }
  if (!constants.empty()) {
    fn_.vkCmdPushConstants(handle, pipeline.layout.pipeline_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                           static_cast<uint32_t>(constants.size() * sizeof(uint32_t)),
                           constants.data());
  }
  if (set != VK_NULL_HANDLE &&
      (bound->set != set || bound->set_bound_with != pipeline.layout.pipeline_layout)) {
    fn_.vkCmdBindDescriptorSets(handle, VK_PIPELINE_BIND_POINT_COMPUTE,
                                pipeline.layout.pipeline_layout, 0, 1, &set, 0, nullptr);
    bound->set = set;
    bound->set_bound_with = pipeline.layout.pipeline_layout;
  }
  fn_.vkCmdDispatch(handle, workgroup_count[0], workgroup_count[1], workgroup_count[2]);
}

Status VulkanCommandBuffer::RecordCopy(VkCommandBuffer handle, const DeviceRange& source,
                                       const DeviceRange& target,
                                       std::vector<Ref<Buffer>>* scratch) {
  const VkDeviceSize length = source.length;
  if (length == 0) return OkStatus();
  const bool overlap = source.buffer == target.buffer && source.offset < target.offset + length &&
                       target.offset < source.offset + length;
  if (!overlap) {
    VkBufferCopy region{source.offset, target.offset, length};
    fn_.vkCmdCopyBuffer(handle, source.buffer, target.buffer, 1, &region);
    return OkStatus();
  }
  // Vulkan forbids overlapping copy regions; the HAL copies like memmove.
  BufferParams params;
  params.memory_type = kMemoryTypeDeviceLocal;
  params.usage = kBufferUsageTransfer;
  KILN_ASSIGN_OR_RETURN(Ref<VulkanBuffer> bounce,
                        device_->allocator().AllocateBuffer(params, length));
  VkBufferCopy in{source.offset, bounce->offset(), length};
  fn_.vkCmdCopyBuffer(handle, source.buffer, bounce->handle(), 1, &in);
  RecordMemoryBarrier(fn_, handle, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                      VK_PIPELINE_STAGE_TRANSFER_BIT,
                      VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
  VkBufferCopy out{bounce->offset(), target.offset, length};
  fn_.vkCmdCopyBuffer(handle, bounce->handle(), target.buffer, 1, &out);
  scratch->push_back(std::move(bounce));
  return OkStatus();
}

Status VulkanCommandBuffer::RecordFill(VkCommandBuffer handle, const DeviceRange& target,
                                       uint32_t pattern, uint32_t pattern_length,
                                       DeviceRange* staged) {
  const VkDeviceSize length = target.length;
  if (length == 0) return OkStatus();
  // vkCmdFillBuffer writes whole words at 4-byte aligned offsets: the
  // ragged head and tail come from the staged pattern bytes, which start at
  // phase 0 of the pattern.
  const VkDeviceSize head = std::min<VkDeviceSize>((4 - target.offset % 4) % 4, length);
  const VkDeviceSize middle = (length - head) / 4 * 4;
  const VkDeviceSize tail = length - head - middle;
  if ((head != 0 || tail != 0) && staged->buffer == VK_NULL_HANDLE) {
    uint8_t bytes[8];
    for (uint32_t i = 0; i < 8; ++i) bytes[i] = PatternByte(pattern, pattern_length, i);
    KILN_ASSIGN_OR_RETURN(*staged, staging_.Stage(bytes));
  }
  if (head != 0) {
    VkBufferCopy region{staged->offset, target.offset, head};
    fn_.vkCmdCopyBuffer(handle, staged->buffer, target.buffer, 1, &region);
  }
  if (middle != 0) {
    fn_.vkCmdFillBuffer(handle, target.buffer, target.offset + head, middle,
                        PatternWord(pattern, pattern_length, head));
  }
  if (tail != 0) {
    const VkDeviceSize phase = (head + middle) % pattern_length;
    VkBufferCopy region{staged->offset + phase, target.offset + head + middle, tail};
    fn_.vkCmdCopyBuffer(handle, staged->buffer, target.buffer, 1, &region);
  }
  return OkStatus();
}

void VulkanCommandBuffer::RecordBarrier(VkCommandBuffer handle, VkPipelineStageFlags* since,
                                        VkPipelineStageFlags before) {
  // Only the stages that ran since the last barrier need waiting for (a
  // chain of dispatches waits for compute alone), and a barrier with
  // nothing before it orders nothing: the previous barrier, or the queue's
  // order between submissions, already did.
  if (*since == 0 || before == 0) return;
  VkAccessFlags written = 0;
  if (*since & VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT) written |= VK_ACCESS_SHADER_WRITE_BIT;
  if (*since & VK_PIPELINE_STAGE_TRANSFER_BIT) written |= VK_ACCESS_TRANSFER_WRITE_BIT;
  VkAccessFlags accessed = 0;
  if (before & VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT) {
    accessed |= VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
  }
  if (before & VK_PIPELINE_STAGE_TRANSFER_BIT) {
    accessed |= VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  }
  RecordMemoryBarrier(fn_, handle, *since, written, before, accessed);
  *since = 0;
}

Status VulkanCommandBuffer::RecordUpdate(VkCommandBuffer handle, const BufferRef& target_ref,
                                         const DeviceRange& target, std::span<const uint8_t> data,
                                         DeviceRange* staged, std::vector<Ref<Buffer>>* scratch) {
  if (data.empty()) return OkStatus();
  // Inline when vkCmdUpdateBuffer allows it (it copies the bytes into the
  // recording); a slot's offset may change between recordings, so slots
  // always copy from staged bytes, staged once.
  if (!target_ref.is_slot() && target.offset % 4 == 0 && data.size() % 4 == 0 &&
      data.size() <= kMaxInlineUpdate) {
    fn_.vkCmdUpdateBuffer(handle, target.buffer, target.offset, data.size(), data.data());
    return OkStatus();
  }
  if (staged->buffer == VK_NULL_HANDLE) {
    KILN_ASSIGN_OR_RETURN(*staged, staging_.Stage(data));
  }
  return RecordCopy(handle, *staged, target, scratch);
}

Status VulkanCommandBuffer::Translate(VkCommandBuffer handle, VkCommandBufferUsageFlags flags,
                                      std::span<const SlotValue> values,
                                      std::span<const VkDescriptorSet> slot_sets,
                                      std::vector<Ref<Buffer>>* scratch,
                                      DispatchTimestamps* timestamps) {
  KILN_RETURN_IF_ERROR(BeginRecording(handle, flags));
  const utils::CommandList& list = command_list();
  BoundState bound;
  VkPipelineStageFlags since_barrier = 0;
  for (size_t c = 0; c < list.size(); ++c) {
    CommandState& state = state_[c];
    since_barrier |= StageOf(list[c]);
    KILN_RETURN_IF_ERROR(
        std::visit(utils::Overloaded{
                       [&](const utils::DispatchCommand& dispatch) {
                         const VulkanExecutable::Pipeline& pipeline = PipelineOf(dispatch);
                         VkDescriptorSet set =
                             state.slot_set >= 0 ? slot_sets[state.slot_set] : state.static_set;
                         if (timestamps == nullptr) {
                           RecordDispatch(handle, pipeline, set, list.constants(dispatch),
                                          dispatch.workgroup_count, &bound);
                           return OkStatus();
                         }
                         const uint32_t query = timestamps->AddDispatch(utils::DispatchSpanName(
                             *dispatch.executable, dispatch.export_ordinal));
                         fn_.vkCmdWriteTimestamp(handle, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT,
                                                 timestamps->query_pool(), query);
                         RecordDispatch(handle, pipeline, set, list.constants(dispatch),
                                        dispatch.workgroup_count, &bound);
                         fn_.vkCmdWriteTimestamp(handle, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT,
                                                 timestamps->query_pool(), query + 1);
                         return OkStatus();
                       },
                       [&](const utils::CopyCommand& copy) {
                         DeviceRange source = Resolve(copy.source, values);
                         DeviceRange target = Resolve(copy.target, values);
                         source.length = target.length = copy.length;
                         return RecordCopy(handle, source, target, scratch);
                       },
                       [&](const utils::FillCommand& fill) {
                         return RecordFill(handle, Resolve(fill.target, values), fill.pattern,
                                           fill.pattern_length, &state.staged);
                       },
                       [&](const utils::UpdateCommand& update) {
                         return RecordUpdate(handle, update.target, Resolve(update.target, values),
                                             list.data(update), &state.staged, scratch);
                       },
                       [&](const utils::BarrierCommand&) {
                         RecordBarrier(handle, &since_barrier, state.stages_before_next);
                         return OkStatus();
                       },
                       // Vulkan keeps the default CheckChannel, which refuses
                       // every channel: no collective is ever recorded here.
                       [&](const utils::CollectiveCommand& collective) {
                         return InternalError(
                             "a collective (" + DescribeCollective(collective.op) +
                             ") reached the Vulkan executor, but the vulkan driver has no "
                             "collectives and records none");
                       },
                   },
                   list[c]));
  }
  return FinishRecording(handle);
}

Result<VkCommandBuffer> VulkanCommandBuffer::TranslateTimed(
    DispatchTimestamps& timestamps, std::span<const SlotValue> values,
    std::span<const VkDescriptorSet> slot_sets) {
  KILN_ASSIGN_OR_RETURN(VkCommandBuffer handle, timestamps.AllocateCommandBuffer());
  KILN_RETURN_IF_ERROR(Translate(handle, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT, values,
                                 slot_sets, timestamps.scratch(), &timestamps));
  return handle;
}

}  // namespace kiln::hal::vulkan
