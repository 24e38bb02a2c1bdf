#include "hal/vulkan/vulkan_device.h"

#include <thread>

#include "hal/utils/submission.h"
#include "hal/vulkan/vulkan_buffer.h"
#include "hal/vulkan/vulkan_command_buffer.h"
#include "hal/vulkan/vulkan_executable.h"
#include "hal/vulkan/vulkan_queue.h"
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

struct VulkanDevice::Objects {
  LogicalDevice* logical;
  std::string_view owner() const { return "this Vulkan device"; }
  Status health() const { return logical->queue().health(); }
  bool OwnsSemaphore(const Semaphore& semaphore, utils::SemaphoreRole) const {
    const auto* vulkan = dynamic_cast<const VulkanSemaphore*>(&semaphore);
    return vulkan != nullptr && vulkan->device() == logical;
  }
  bool OwnsBuffer(const Buffer& buffer) const {
    return VulkanBuffer::OwnedBy(buffer, logical) != nullptr;
  }
  Status ForeignBufferError(const Buffer&, const std::string& where) const {
    return InvalidArgumentError(where + " holds a buffer not allocated by this Vulkan device");
  }
  VulkanCommandBuffer* OwnCommandBuffer(CommandBuffer& command_buffer) const {
    auto* vulkan = dynamic_cast<VulkanCommandBuffer*>(&command_buffer);
    return vulkan != nullptr && vulkan->device() == logical ? vulkan : nullptr;
  }
};

Status VulkanDevice::QueueExecute(const Fence& wait, const Fence& signal,
                                  std::span<const Ref<CommandBuffer>> command_buffers,
                                  std::span<const Ref<Buffer>> binding_table) {
  return utils::QueueExecute<VulkanCommandBuffer>(Objects{logical_.get()}, wait, signal,
                                                  command_buffers, binding_table,
                                                  [&](VulkanSubmission submission) {
                                                    submission.trace = attached_trace();
                                                    return logical_->queue().Submit(submission);
                                                  });
}

Result<Ref<Buffer>> VulkanDevice::QueueAlloca(const Fence& wait, const Fence& signal,
                                              const BufferParams& params, size_t size) {
  KILN_ASSIGN_OR_RETURN(VulkanSubmission submission,
                        utils::PrepareQueueOperation<VulkanCommandBuffer>(
                            Objects{logical_.get()}, "QueueAlloca", wait, signal));
  KILN_ASSIGN_OR_RETURN(Ref<Buffer> buffer, logical_->allocator().Allocate(params, size));
  KILN_RETURN_IF_ERROR(logical_->queue().Submit(submission));
  return buffer;
}

Status VulkanDevice::QueueDealloca(const Fence& wait, const Fence& signal, Ref<Buffer> buffer) {
  if (!buffer) return InvalidArgumentError("QueueDealloca: null buffer");
  if (VulkanBuffer::OwnedBy(*buffer, logical_.get()) == nullptr) {
    return InvalidArgumentError(
        "QueueDealloca: the buffer was not allocated by this Vulkan device");
  }
  KILN_ASSIGN_OR_RETURN(VulkanSubmission submission,
                        utils::PrepareQueueOperation<VulkanCommandBuffer>(
                            Objects{logical_.get()}, "QueueDealloca", wait, signal));
  submission.released = std::move(buffer);
  return logical_->queue().Submit(submission);
}

}  // namespace kiln::hal::vulkan
