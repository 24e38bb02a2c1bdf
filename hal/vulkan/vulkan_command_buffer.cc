#include "hal/vulkan/vulkan_command_buffer.h"

#include <algorithm>
#include <bit>
#include <map>
#include <string>

#include "hal/vulkan/vulkan_buffer.h"
#include "hal/vulkan/vulkan_queue.h"

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

// The allocation of a concrete reference that CheckConcrete accepted.
const VulkanBuffer& ConcreteAllocation(const BufferRef& ref) {
  return *static_cast<const VulkanBuffer*>(ref.buffer->allocated_buffer());
}

}  // namespace

VkPipelineStageFlags VulkanCommandBuffer::StageOf(Command::Kind kind) {
  switch (kind) {
    case Command::Kind::kDispatch:
      return VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
    case Command::Kind::kBarrier:
      return 0;
    default:
      return VK_PIPELINE_STAGE_TRANSFER_BIT;
  }
}

Result<Ref<VulkanCommandBuffer>> VulkanCommandBuffer::Create(Ref<LogicalDevice> device,
                                                             CommandBufferMode mode) {
  KILN_ASSIGN_OR_RETURN(VkCommandPool pool, device->AcquireCommandPool());
  return Ref<VulkanCommandBuffer>::Adopt(new VulkanCommandBuffer(std::move(device), mode, pool));
}

VulkanCommandBuffer::VulkanCommandBuffer(Ref<LogicalDevice> device, CommandBufferMode mode,
                                         VkCommandPool pool)
    : CommandBuffer(mode),
      device_(std::move(device)),
      fn_(device_->fn()),
      pool_(pool),
      descriptors_(device_.get()),
      staging_(device_.get()) {}

VulkanCommandBuffer::~VulkanCommandBuffer() {
  // Submissions hold their command buffers until they retire: nothing here
  // is pending on the device.
  if (primary_ != VK_NULL_HANDLE) fn_.vkFreeCommandBuffers(device_->handle(), pool_, 1, &primary_);
  FreeRecordings();
  device_->ReleaseCommandPool(pool_);
}

// --- Checks and resolution ---------------------------------------------------

Result<VulkanExecutable*> VulkanCommandBuffer::CheckExecutable(
    const Ref<Executable>& executable) const {
  auto* vulkan = dynamic_cast<VulkanExecutable*>(executable.get());
  if (vulkan == nullptr || vulkan->device() != device_.get()) {
    return InvalidArgumentError("Dispatch: the " + executable->format() +
                                " executable was not created by this Vulkan device");
  }
  return vulkan;
}

Status VulkanCommandBuffer::CheckConcrete(const BufferRef& ref, const char* what) const {
  if (ref.is_slot()) return OkStatus();
  if (VulkanBuffer::OwnedBy(*ref.buffer, device_.get()) != nullptr) return OkStatus();
  return InvalidArgumentError(std::string(what) +
                              ": the buffer was not allocated by this Vulkan device");
}

DeviceRange VulkanCommandBuffer::ResolveConcrete(const BufferRef& ref) {
  const VulkanBuffer& allocation = ConcreteAllocation(ref);
  return DeviceRange{allocation.handle(),
                     allocation.offset() + ref.buffer->byte_offset() + ref.offset, ref.length};
}

DeviceRange VulkanCommandBuffer::ResolveSlot(const BufferRef& ref, const SlotValue& value) {
  const VkDeviceSize length = ref.length == kWholeBuffer ? value.length - ref.offset : ref.length;
  return DeviceRange{value.buffer, value.offset + ref.offset, length};
}

DeviceRange VulkanCommandBuffer::Resolve(const BufferRef& ref,
                                         std::span<const SlotValue> values) const {
  return ref.is_slot() ? ResolveSlot(ref, values[ref.slot]) : ResolveConcrete(ref);
}

template <typename Site>
Result<VkDescriptorBufferInfo> VulkanCommandBuffer::DescribeBinding(const DeviceRange& range,
                                                                    VkDeviceSize allocation_offset,
                                                                    const Site& site) const {
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

std::string VulkanCommandBuffer::DispatchSite(uint32_t command, uint32_t binding) const {
  const Command& dispatch = commands_[command];
  return "Dispatch of '" +
         executables_[dispatch.executable]->export_at(dispatch.export_ordinal).name + "' binding " +
         std::to_string(binding);
}

// --- Recording primitives ------------------------------------------------------

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

Result<DeviceRange> VulkanCommandBuffer::StagePattern(uint32_t pattern, uint32_t pattern_length) {
  uint8_t bytes[8];
  for (uint32_t i = 0; i < 8; ++i) bytes[i] = PatternByte(pattern, pattern_length, i);
  return staging_.Stage(bytes);
}

Status VulkanCommandBuffer::RecordFill(VkCommandBuffer handle, const DeviceRange& target,
                                       uint32_t pattern, uint32_t pattern_length,
                                       DeviceRange staged) {
  const VkDeviceSize length = target.length;
  if (length == 0) return OkStatus();
  // vkCmdFillBuffer writes whole words at 4-byte aligned offsets: the
  // ragged head and tail come from the staged pattern bytes, which start at
  // phase 0 of the pattern.
  const VkDeviceSize head = std::min<VkDeviceSize>((4 - target.offset % 4) % 4, length);
  const VkDeviceSize middle = (length - head) / 4 * 4;
  const VkDeviceSize tail = length - head - middle;
  if ((head != 0 || tail != 0) && staged.buffer == VK_NULL_HANDLE) {
    KILN_ASSIGN_OR_RETURN(staged, StagePattern(pattern, pattern_length));
  }
  if (head != 0) {
    VkBufferCopy region{staged.offset, target.offset, head};
    fn_.vkCmdCopyBuffer(handle, staged.buffer, target.buffer, 1, &region);
  }
  if (middle != 0) {
    fn_.vkCmdFillBuffer(handle, target.buffer, target.offset + head, middle,
                        PatternWord(pattern, pattern_length, head));
  }
  if (tail != 0) {
    const VkDeviceSize phase = (head + middle) % pattern_length;
    VkBufferCopy region{staged.offset + phase, target.offset + head + middle, tail};
    fn_.vkCmdCopyBuffer(handle, staged.buffer, target.buffer, 1, &region);
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

Status VulkanCommandBuffer::RecordInternalCopy(const DeviceRange& source, const DeviceRange& target,
                                               std::initializer_list<Ref<Buffer>> keep_alive) {
  if (mode() != CommandBufferMode::kOneShot || !is_recording()) {
    return InternalError("RecordInternalCopy needs a one-shot command buffer being recorded");
  }
  retained_.insert(retained_.end(), keep_alive.begin(), keep_alive.end());
  stages_since_barrier_ |= VK_PIPELINE_STAGE_TRANSFER_BIT;
  return RecordCopy(primary_, source, target, &retained_);
}

// --- HAL hooks -----------------------------------------------------------------

Status VulkanCommandBuffer::BeginImpl() {
  if (mode() != CommandBufferMode::kOneShot) return OkStatus();
  KILN_ASSIGN_OR_RETURN(primary_, AllocateCommandBuffer());
  return BeginRecording(primary_, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
}

Status VulkanCommandBuffer::DispatchImpl(const Ref<Executable>& executable, uint32_t export_ordinal,
                                         std::array<uint32_t, 3> workgroup_count,
                                         std::span<const uint32_t> constants,
                                         std::span<const BufferRef> bindings) {
  KILN_ASSIGN_OR_RETURN(VulkanExecutable * vulkan, CheckExecutable(executable));
  const VulkanExecutable::Pipeline& pipeline = vulkan->pipeline(export_ordinal);
  auto site = [&](size_t i) {
    return "Dispatch of '" + vulkan->export_at(export_ordinal).name + "' binding " +
           std::to_string(i);
  };
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
  // Check every concrete binding (ownership, then the descriptor limits)
  // before anything is recorded: a failed call leaves no trace.
  bool any_slot = false;
  infos_.resize(bindings.size());
  for (size_t i = 0; i < bindings.size(); ++i) {
    if (bindings[i].is_slot()) {
      any_slot = true;
      continue;
    }
    const VulkanBuffer* allocation = VulkanBuffer::OwnedBy(*bindings[i].buffer, device_.get());
    if (allocation == nullptr) {
      return InvalidArgumentError(site(i) + ": the buffer was not allocated by this Vulkan device");
    }
    KILN_ASSIGN_OR_RETURN(infos_[i],
                          DescribeBinding(ResolveConcrete(bindings[i]), allocation->offset(),
                                          [&] { return site(i); }));
  }
  VkDescriptorSet set = VK_NULL_HANDLE;
  if (!any_slot && !bindings.empty()) {
    KILN_ASSIGN_OR_RETURN(
        set, descriptors_.Allocate(pipeline.layout.set_layout, pipeline.binding_count));
    VkWriteDescriptorSet write = {};
    write.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    write.dstSet = set;
    write.dstBinding = 0;
    // Bindings 0..n-1 are consecutive storage buffers: one write fills all.
    write.descriptorCount = static_cast<uint32_t>(bindings.size());
    write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    write.pBufferInfo = infos_.data();
    fn_.vkUpdateDescriptorSets(device_->handle(), 1, &write, 0, nullptr);
  }
  if (executables_.empty() || executables_.back().get() != vulkan) {
    executables_.emplace_back(vulkan);
  }
  if (mode() == CommandBufferMode::kOneShot) {
    RecordDispatch(primary_, pipeline, set, constants, workgroup_count, &bound_);
    stages_since_barrier_ |= VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
    for (const BufferRef& binding : bindings) retained_.push_back(binding.buffer);
    return OkStatus();
  }
  Command command;
  command.kind = Command::Kind::kDispatch;
  command.executable = static_cast<uint32_t>(executables_.size() - 1);
  command.export_ordinal = export_ordinal;
  command.workgroup_count = workgroup_count;
  command.constants_begin = static_cast<uint32_t>(constants_.size());
  command.refs_begin = static_cast<uint32_t>(refs_.size());
  command.refs_count = static_cast<uint32_t>(bindings.size());
  command.static_set = set;
  constants_.insert(constants_.end(), constants.begin(), constants.end());
  refs_.insert(refs_.end(), bindings.begin(), bindings.end());
  commands_.push_back(command);
  return OkStatus();
}

Status VulkanCommandBuffer::CopyBufferImpl(const BufferRef& source, const BufferRef& target,
                                           size_t length) {
  KILN_RETURN_IF_ERROR(CheckConcrete(source, "CopyBuffer source"));
  KILN_RETURN_IF_ERROR(CheckConcrete(target, "CopyBuffer target"));
  if (mode() == CommandBufferMode::kOneShot) {
    KILN_RETURN_IF_ERROR(
        RecordCopy(primary_, ResolveConcrete(source), ResolveConcrete(target), &retained_));
    stages_since_barrier_ |= VK_PIPELINE_STAGE_TRANSFER_BIT;
    retained_.push_back(source.buffer);
    retained_.push_back(target.buffer);
    return OkStatus();
  }
  Command command;
  command.kind = Command::Kind::kCopy;
  command.refs_begin = static_cast<uint32_t>(refs_.size());
  command.refs_count = 2;
  command.length = length;
  refs_.push_back(source);
  refs_.push_back(target);
  commands_.push_back(command);
  return OkStatus();
}

Status VulkanCommandBuffer::FillBufferImpl(const BufferRef& target, uint32_t pattern,
                                           size_t pattern_length) {
  KILN_RETURN_IF_ERROR(CheckConcrete(target, "FillBuffer target"));
  const auto length = static_cast<uint32_t>(pattern_length);
  if (mode() == CommandBufferMode::kOneShot) {
    KILN_RETURN_IF_ERROR(RecordFill(primary_, ResolveConcrete(target), pattern, length, {}));
    stages_since_barrier_ |= VK_PIPELINE_STAGE_TRANSFER_BIT;
    retained_.push_back(target.buffer);
    return OkStatus();
  }
  Command command;
  command.kind = Command::Kind::kFill;
  // Where a slot lands is known only at submit: stage the ragged-end bytes
  // now in case they are needed.
  KILN_ASSIGN_OR_RETURN(command.staged, StagePattern(pattern, length));
  command.refs_begin = static_cast<uint32_t>(refs_.size());
  command.refs_count = 1;
  command.pattern = pattern;
  command.pattern_length = static_cast<uint8_t>(length);
  refs_.push_back(target);
  commands_.push_back(command);
  return OkStatus();
}

Status VulkanCommandBuffer::UpdateBufferImpl(std::span<const uint8_t> data,
                                             const BufferRef& target) {
  KILN_RETURN_IF_ERROR(CheckConcrete(target, "UpdateBuffer target"));
  if (data.empty()) return OkStatus();
  if (mode() == CommandBufferMode::kOneShot) {
    const DeviceRange range = ResolveConcrete(target);
    if (range.offset % 4 == 0 && data.size() % 4 == 0 && data.size() <= kMaxInlineUpdate) {
      fn_.vkCmdUpdateBuffer(primary_, range.buffer, range.offset, data.size(), data.data());
    } else {
      KILN_ASSIGN_OR_RETURN(DeviceRange staged, staging_.Stage(data));
      KILN_RETURN_IF_ERROR(RecordCopy(primary_, staged, range, &retained_));
    }
    stages_since_barrier_ |= VK_PIPELINE_STAGE_TRANSFER_BIT;
    retained_.push_back(target.buffer);
    return OkStatus();
  }
  // Reusable: the bytes must outlive this call for every re-recording.
  Command command;
  command.kind = Command::Kind::kUpdate;
  KILN_ASSIGN_OR_RETURN(command.staged, staging_.Stage(data));
  command.refs_begin = static_cast<uint32_t>(refs_.size());
  command.refs_count = 1;
  refs_.push_back(target);
  commands_.push_back(command);
  return OkStatus();
}

Status VulkanCommandBuffer::ExecutionBarrierImpl() {
  if (mode() == CommandBufferMode::kOneShot) {
    // What follows is not known yet: both kinds of work wait.
    RecordBarrier(primary_, &stages_since_barrier_, kWorkStages);
  } else {
    commands_.push_back(Command{});
  }
  return OkStatus();
}

Status VulkanCommandBuffer::EndImpl() {
  if (mode() == CommandBufferMode::kOneShot) return FinishRecording(primary_);
  // A failed End leaves the command buffer recording, and End may be called
  // again: what the failed one recorded (never submitted) goes.
  FreeRecordings();
  slot_count_ = 0;
  for (const BufferRef& ref : refs_) {
    if (ref.is_slot()) slot_count_ = std::max(slot_count_, ref.slot + 1);
  }
  slot_used_.assign(slot_count_, false);
  transfer_slot_.assign(slot_count_, false);
  slot_set_commands_.clear();
  slot_bindings_.clear();
  concrete_bindings_.clear();
  // The stages each barrier must hold back: those of the commands up to the
  // next barrier (the list is known, unlike while recording one-shot).
  VkPipelineStageFlags until_next = 0;
  for (size_t i = commands_.size(); i-- > 0;) {
    if (commands_[i].kind == Command::Kind::kBarrier) {
      commands_[i].stages_before_next = until_next;
      until_next = 0;
    } else {
      until_next |= StageOf(commands_[i].kind);
    }
  }
  // Dispatches with the same references under the same set layout share a
  // set (a chain of dispatches on one buffer has one): a new table writes
  // each distinct descriptor once. The key: the layout, then per binding
  // whether it is a slot, the slot or buffer, the offset and the length.
  std::map<std::vector<uint64_t>, uint32_t> set_of_references;
  std::vector<uint64_t> key;
  for (uint32_t c = 0; c < commands_.size(); ++c) {
    Command& command = commands_[c];
    bool any_slot = false;
    for (uint32_t i = 0; i < command.refs_count; ++i) {
      const BufferRef& ref = refs_[command.refs_begin + i];
      if (!ref.is_slot()) continue;
      any_slot = true;
      slot_used_[ref.slot] = true;
      if (command.kind != Command::Kind::kDispatch) transfer_slot_[ref.slot] = true;
    }
    if (command.kind != Command::Kind::kDispatch || !any_slot) continue;
    const VulkanExecutable::Pipeline& pipeline =
        executables_[command.executable]->pipeline(command.export_ordinal);
    key.assign({std::bit_cast<uint64_t>(pipeline.layout.set_layout)});
    for (uint32_t i = 0; i < command.refs_count; ++i) {
      const BufferRef& ref = refs_[command.refs_begin + i];
      key.insert(key.end(),
                 {ref.is_slot() ? 1u : 0u,
                  ref.is_slot() ? ref.slot : reinterpret_cast<uintptr_t>(ref.buffer.get()),
                  ref.offset, ref.length});
    }
    const auto [shared, added] =
        set_of_references.emplace(key, static_cast<uint32_t>(slot_set_commands_.size()));
    const uint32_t set = shared->second;
    command.slot_set = static_cast<int32_t>(set);
    if (!added) continue;
    slot_set_commands_.push_back(c);
    for (uint32_t i = 0; i < command.refs_count; ++i) {
      const uint32_t ref = command.refs_begin + i;
      (refs_[ref].is_slot() ? slot_bindings_ : concrete_bindings_).push_back({set, i, ref, c});
    }
  }
  if (slot_count_ != 0) return OkStatus();  // Recorded at the first submission.
  KILN_ASSIGN_OR_RETURN(Recording * recording, NewRecording());
  return Update(*recording, {});
}

// --- Reusable recordings ---------------------------------------------------------

Result<VulkanCommandBuffer::Recording*> VulkanCommandBuffer::NewRecording() {
  // Kept only once it has every set: a recording short of sets would be
  // chosen by a later submission and written out of range.
  auto recording = std::make_unique<Recording>();
  for (uint32_t command : slot_set_commands_) {
    const Command& dispatch = commands_[command];
    const VulkanExecutable::Pipeline& pipeline =
        executables_[dispatch.executable]->pipeline(dispatch.export_ordinal);
    KILN_ASSIGN_OR_RETURN(VkDescriptorSet set, descriptors_.Allocate(pipeline.layout.set_layout,
                                                                     pipeline.binding_count));
    recording->sets.push_back(set);
  }
  KILN_ASSIGN_OR_RETURN(recording->handle, AllocateCommandBuffer());
  recordings_.push_back(std::move(recording));
  return recordings_.back().get();
}

void VulkanCommandBuffer::FreeRecordings() {
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

Status VulkanCommandBuffer::RecordReusable(Recording& recording,
                                           std::span<const SlotValue> values) {
  // Reset first: the recording may be executable, or half-recorded after
  // a failure.
  VkResult reset = fn_.vkResetCommandBuffer(recording.handle, 0);
  if (reset != VK_SUCCESS) return VkResultToStatus(reset, "vkResetCommandBuffer");
  recording.scratch.clear();
  // Simultaneous use: an unchanged recording is resubmitted while an
  // earlier submission of it may still run.
  KILN_RETURN_IF_ERROR(
      BeginRecording(recording.handle, VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT));
  BoundState bound;
  VkPipelineStageFlags since_barrier = 0;
  for (size_t index = 0; index < commands_.size(); ++index) {
    const Command& command = commands_[index];
    since_barrier |= StageOf(command.kind);
    switch (command.kind) {
      case Command::Kind::kDispatch: {
        const VulkanExecutable::Pipeline& pipeline =
            executables_[command.executable]->pipeline(command.export_ordinal);
        VkDescriptorSet set =
            command.slot_set >= 0 ? recording.sets[command.slot_set] : command.static_set;
        RecordDispatch(recording.handle, pipeline, set,
                       std::span<const uint32_t>(constants_.data() + command.constants_begin,
                                                 pipeline.constant_count),
                       command.workgroup_count, &bound);
        break;
      }
      case Command::Kind::kCopy: {
        DeviceRange source = Resolve(refs_[command.refs_begin], values);
        DeviceRange target = Resolve(refs_[command.refs_begin + 1], values);
        source.length = target.length = command.length;
        KILN_RETURN_IF_ERROR(RecordCopy(recording.handle, source, target, &recording.scratch));
        break;
      }
      case Command::Kind::kFill:
        KILN_RETURN_IF_ERROR(RecordFill(recording.handle,
                                        Resolve(refs_[command.refs_begin], values), command.pattern,
                                        command.pattern_length, command.staged));
        break;
      case Command::Kind::kUpdate:
        KILN_RETURN_IF_ERROR(RecordCopy(recording.handle, command.staged,
                                        Resolve(refs_[command.refs_begin], values),
                                        &recording.scratch));
        break;
      case Command::Kind::kBarrier:
        RecordBarrier(recording.handle, &since_barrier, command.stages_before_next);
        break;
    }
  }
  return FinishRecording(recording.handle);
}

Status VulkanCommandBuffer::Update(Recording& recording, std::span<const SlotValue> values) {
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
    const BufferRef& ref = refs_[binding.ref];
    const VkDeviceSize allocation_offset =
        ref.is_slot() ? values[ref.slot].allocation_offset : ConcreteAllocation(ref).offset();
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
    if (changed_[refs_[binding.ref].slot]) KILN_RETURN_IF_ERROR(add(binding));
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
    KILN_RETURN_IF_ERROR(RecordReusable(recording, values));
    recording.recorded = true;
    ++record_count_;
  }
  recording.values.assign(values.begin(), values.end());
  recording.current = true;
  return OkStatus();
}

Result<VkCommandBuffer> VulkanCommandBuffer::PrepareSubmission(
    std::span<const Ref<Buffer>> binding_table, uint64_t serial, VulkanQueue& queue) {
  if (mode() == CommandBufferMode::kOneShot) return primary_;
  if (slot_count_ == 0) {
    recordings_.front()->last_serial = serial;
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
  return chosen->handle;
}

}  // namespace kiln::hal::vulkan
