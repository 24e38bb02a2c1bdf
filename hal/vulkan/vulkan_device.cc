#include "hal/vulkan/vulkan_device.h"

#include <thread>

#include "hal/vulkan/vulkan_buffer.h"
#include "hal/vulkan/vulkan_command_buffer.h"
#include "hal/vulkan/vulkan_executable.h"
#include "hal/vulkan/vulkan_semaphore.h"

namespace kiln::hal::vulkan {

Result<Ref<VulkanDevice>> VulkanDevice::Create(Ref<VulkanInstance> instance,
                                               const PhysicalDeviceInfo& physical, uint32_t index) {
  KILN_ASSIGN_OR_RETURN(Ref<LogicalDevice> logical, LogicalDevice::Create(instance, physical));
  DeviceProperties properties;
  properties.name = physical.properties.deviceName;
  properties.driver = "vulkan";
  properties.uri = "vulkan://" + std::to_string(index);
  properties.kind = physical.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU ? "cpu" : "gpu";
  properties.cpu_count = std::max(1u, std::thread::hardware_concurrency());
  properties.executable_formats = {kSpirvFormat};
  return Ref<VulkanDevice>::Adopt(new VulkanDevice(std::move(properties), std::move(logical)));
}

VulkanDevice::~VulkanDevice() { logical_->queue().Shutdown(); }

Result<Ref<CommandBuffer>> VulkanDevice::CreateCommandBuffer(CommandBufferMode mode) {
  KILN_ASSIGN_OR_RETURN(Ref<VulkanCommandBuffer> command_buffer,
                        VulkanCommandBuffer::Create(logical_, mode));
  return Ref<CommandBuffer>(std::move(command_buffer));
}

Result<Ref<Executable>> VulkanDevice::CreateExecutable(std::string_view format,
                                                       std::span<const uint8_t> bytes) {
  if (format != kSpirvFormat) {
    return InvalidArgumentError("the vulkan device cannot load '" + std::string(format) +
                                "' executables (it runs " + kSpirvFormat + ")");
  }
  KILN_ASSIGN_OR_RETURN(Ref<VulkanExecutable> executable,
                        VulkanExecutable::Create(logical_, bytes));
  return Ref<Executable>(std::move(executable));
}

Result<Ref<Semaphore>> VulkanDevice::CreateSemaphore(uint64_t initial_value) {
  KILN_ASSIGN_OR_RETURN(Ref<VulkanSemaphore> semaphore,
                        VulkanSemaphore::Create(logical_, initial_value));
  return Ref<Semaphore>(std::move(semaphore));
}

Status VulkanDevice::CheckFences(const Fence& wait, const Fence& signal,
                                 const char* operation) const {
  for (const Fence* fence : {&wait, &signal}) {
    for (const Fence::Timepoint& t : fence->timepoints()) {
      auto* semaphore = dynamic_cast<VulkanSemaphore*>(t.semaphore.get());
      if (semaphore == nullptr || semaphore->device() != logical_.get()) {
        return InvalidArgumentError(std::string(operation) + ": a " +
                                    (fence == &wait ? "wait" : "signal") +
                                    " semaphore was not created by this Vulkan device");
      }
    }
  }
  return OkStatus();
}

Status VulkanDevice::QueueExecute(const Fence& wait, const Fence& signal,
                                  std::span<const Ref<CommandBuffer>> command_buffers,
                                  std::span<const Ref<Buffer>> binding_table) {
  KILN_RETURN_IF_ERROR(CheckFences(wait, signal, "QueueExecute"));
  KILN_RETURN_IF_ERROR(CommandBuffer::ValidateSubmission(command_buffers, binding_table));
  for (size_t i = 0; i < binding_table.size(); ++i) {
    if (binding_table[i] && VulkanBuffer::OwnedBy(*binding_table[i], logical_.get()) == nullptr) {
      return InvalidArgumentError("QueueExecute: binding-table slot " + std::to_string(i) +
                                  " holds a buffer not allocated by this Vulkan device");
    }
  }
  for (size_t i = 0; i < command_buffers.size(); ++i) {
    auto where = [i] { return "QueueExecute: command buffer " + std::to_string(i); };
    auto* command_buffer = dynamic_cast<VulkanCommandBuffer*>(command_buffers[i].get());
    if (command_buffer == nullptr || command_buffer->device() != logical_.get()) {
      return InvalidArgumentError(where() + " was not created by this Vulkan device");
    }
  }
  KILN_RETURN_IF_ERROR(
      logical_->queue().Submit(wait, signal, command_buffers, binding_table, nullptr));
  CommandBuffer::MarkSubmitted(command_buffers);
  return OkStatus();
}

Result<Ref<Buffer>> VulkanDevice::QueueAlloca(const Fence& wait, const Fence& signal,
                                              const BufferParams& params, size_t size) {
  KILN_RETURN_IF_ERROR(CheckFences(wait, signal, "QueueAlloca"));
  KILN_ASSIGN_OR_RETURN(Ref<Buffer> buffer, logical_->allocator().Allocate(params, size));
  KILN_RETURN_IF_ERROR(logical_->queue().Submit(wait, signal, {}, {}, nullptr));
  return buffer;
}

Status VulkanDevice::QueueDealloca(const Fence& wait, const Fence& signal, Ref<Buffer> buffer) {
  if (!buffer) return InvalidArgumentError("QueueDealloca: null buffer");
  if (VulkanBuffer::OwnedBy(*buffer, logical_.get()) == nullptr) {
    return InvalidArgumentError(
        "QueueDealloca: the buffer was not allocated by this Vulkan device");
  }
  KILN_RETURN_IF_ERROR(CheckFences(wait, signal, "QueueDealloca"));
  return logical_->queue().Submit(wait, signal, {}, {}, std::move(buffer));
}

}  // namespace kiln::hal::vulkan
