#include "tests/benchmarks/raw_vulkan_chain.h"

#include <cstring>
#include <vector>

#include "base/file_io.h"
#include "flatbuffers/flatbuffers.h"
#include "hal/builtin_drivers.h"
#include "hal/driver_registry.h"
#include "hal/vulkan/vulkan_buffer.h"
#include "hal/vulkan/vulkan_device.h"
#include "hal/vulkan/vulkan_executable.h"
#include "schemas/executable_spirv_generated.h"

namespace kiln::benchmarks {
namespace {

using hal::vulkan::LogicalDevice;
using hal::vulkan::VkResultToStatus;

Status Check(VkResult result, const char* what) {
  return result == VK_SUCCESS ? OkStatus() : VkResultToStatus(result, what);
}

// A vulkan-spirv-fb executable of one export, "add_one_inplace": the
// module's `main`, local size 64, one storage buffer, one constant.
Result<std::vector<uint8_t>> WrapSpirv(const std::string& spirv_path) {
  KILN_ASSIGN_OR_RETURN(AlignedBuffer file, ReadFile(spirv_path));
  if (file.size() == 0 || file.size() % 4 != 0) {
    return InvalidArgumentError(spirv_path + " is not SPIR-V (" + std::to_string(file.size()) +
                                " bytes)");
  }
  std::vector<uint32_t> words(file.size() / 4);
  std::memcpy(words.data(), file.data(), file.size());
  namespace fb = schema::spirv;
  flatbuffers::FlatBufferBuilder builder;
  auto modules = builder.CreateVector(std::vector<flatbuffers::Offset<fb::ShaderModule>>{
      fb::CreateShaderModule(builder, builder.CreateVector(words))});
  auto bindings = builder.CreateVector(
      std::vector<flatbuffers::Offset<fb::Binding>>{fb::CreateBinding(builder, false)});
  const fb::WorkgroupSize workgroup_size(64, 1, 1);
  auto exports = builder.CreateVector(std::vector<flatbuffers::Offset<fb::Export>>{
      fb::CreateExport(builder, builder.CreateString("add_one_inplace"),
                       builder.CreateString("main"), 0, &workgroup_size, bindings, 1)});
  fb::FinishSpirvExecutableBuffer(builder, fb::CreateSpirvExecutable(builder, modules, exports));
  return std::vector<uint8_t>(builder.GetBufferPointer(),
                              builder.GetBufferPointer() + builder.GetSize());
}

}  // namespace

Result<std::unique_ptr<RawVulkanChain>> RawVulkanChain::Create(const std::string& spirv_path,
                                                               uint32_t elements,
                                                               int64_t chain_length,
                                                               Ordering ordering) {
  if (elements == 0 || elements % 64 != 0) {
    return InvalidArgumentError("the chain needs a positive multiple of 64 elements");
  }
  std::unique_ptr<RawVulkanChain> chain(new RawVulkanChain());
  chain->elements_ = elements;
  hal::DriverRegistry registry;
  KILN_RETURN_IF_ERROR(hal::RegisterBuiltinDrivers(registry));
  KILN_ASSIGN_OR_RETURN(chain->device_, registry.CreateDevice("vulkan://0"));
  KILN_ASSIGN_OR_RETURN(std::vector<uint8_t> executable, WrapSpirv(spirv_path));
  KILN_ASSIGN_OR_RETURN(chain->executable_,
                        chain->device_->CreateExecutable("vulkan-spirv-fb", executable));
  hal::BufferParams params;
  params.memory_type = hal::kMemoryTypeDeviceLocal;
  KILN_ASSIGN_OR_RETURN(chain->data_,
                        chain->device_->allocator().Allocate(params, elements * sizeof(float)));
  KILN_RETURN_IF_ERROR(chain->Record(chain_length, ordering));
  return chain;
}

Status RawVulkanChain::Record(int64_t chain_length, Ordering ordering) {
  LogicalDevice& device = static_cast<hal::vulkan::VulkanDevice*>(device_.get())->logical();
  const hal::vulkan::DeviceFunctions& fn = device.fn();
  const auto& pipeline =
      static_cast<hal::vulkan::VulkanExecutable*>(executable_.get())->pipeline(0);
  auto* buffer = static_cast<hal::vulkan::VulkanBuffer*>(data_->allocated_buffer());

  KILN_ASSIGN_OR_RETURN(descriptor_pool_, device.CreateDescriptorPool(1, 1));
  VkDescriptorSetAllocateInfo set_info = {};
  set_info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
  set_info.descriptorPool = descriptor_pool_;
  set_info.descriptorSetCount = 1;
  set_info.pSetLayouts = &pipeline.layout.set_layout;
  VkDescriptorSet set = VK_NULL_HANDLE;
  KILN_RETURN_IF_ERROR(Check(fn.vkAllocateDescriptorSets(device.handle(), &set_info, &set),
                             "vkAllocateDescriptorSets"));
  VkDescriptorBufferInfo buffer_info{buffer->handle(), buffer->offset(), elements_ * sizeof(float)};
  VkWriteDescriptorSet write = {};
  write.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
  write.dstSet = set;
  write.descriptorCount = 1;
  write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  write.pBufferInfo = &buffer_info;
  fn.vkUpdateDescriptorSets(device.handle(), 1, &write, 0, nullptr);

  VkSemaphoreTypeCreateInfo type_info = {};
  type_info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO;
  type_info.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  VkSemaphoreCreateInfo semaphore_info = {};
  semaphore_info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
  semaphore_info.pNext = &type_info;
  KILN_RETURN_IF_ERROR(
      Check(fn.vkCreateSemaphore(device.handle(), &semaphore_info, nullptr, &timeline_),
            "vkCreateSemaphore"));

  KILN_ASSIGN_OR_RETURN(command_pool_, device.AcquireCommandPool());
  VkCommandBufferAllocateInfo allocate_info = {};
  allocate_info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  allocate_info.commandPool = command_pool_;
  allocate_info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocate_info.commandBufferCount = 1;
  KILN_RETURN_IF_ERROR(
      Check(fn.vkAllocateCommandBuffers(device.handle(), &allocate_info, &command_buffer_),
            "vkAllocateCommandBuffers"));
  VkCommandBufferBeginInfo begin = {};
  begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  KILN_RETURN_IF_ERROR(
      Check(fn.vkBeginCommandBuffer(command_buffer_, &begin), "vkBeginCommandBuffer"));
  fn.vkCmdBindPipeline(command_buffer_, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.pipeline);
  fn.vkCmdBindDescriptorSets(command_buffer_, VK_PIPELINE_BIND_POINT_COMPUTE,
                             pipeline.layout.pipeline_layout, 0, 1, &set, 0, nullptr);
  fn.vkCmdPushConstants(command_buffer_, pipeline.layout.pipeline_layout,
                        VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(uint32_t), &elements_);
  VkMemoryBarrier between = {};
  between.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  between.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  between.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
  for (int64_t i = 0; i < chain_length; ++i) {
    if (i > 0 && ordering == Ordering::kMemoryBarrier) {
      fn.vkCmdPipelineBarrier(command_buffer_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                              VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &between, 0, nullptr, 0,
                              nullptr);
    }
    fn.vkCmdDispatch(command_buffer_, elements_ / 64, 1, 1);
  }
  // The host reads the result after the semaphore wait.
  VkMemoryBarrier to_host = {};
  to_host.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  to_host.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  to_host.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  fn.vkCmdPipelineBarrier(command_buffer_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                          VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0, nullptr, 0, nullptr);
  return Check(fn.vkEndCommandBuffer(command_buffer_), "vkEndCommandBuffer");
}

Status RawVulkanChain::Fill(float value) {
  std::vector<float> values(elements_, value);
  return data_->WriteData(0,
                          std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(values.data()),
                                                   values.size() * sizeof(float)));
}

Status RawVulkanChain::Replay() {
  LogicalDevice& device = static_cast<hal::vulkan::VulkanDevice*>(device_.get())->logical();
  const hal::vulkan::DeviceFunctions& fn = device.fn();
  const uint64_t signal = ++timeline_value_;
  VkTimelineSemaphoreSubmitInfo timeline_info = {};
  timeline_info.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO;
  timeline_info.signalSemaphoreValueCount = 1;
  timeline_info.pSignalSemaphoreValues = &signal;
  VkSubmitInfo submit = {};
  submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.pNext = &timeline_info;
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &command_buffer_;
  submit.signalSemaphoreCount = 1;
  submit.pSignalSemaphores = &timeline_;
  KILN_RETURN_IF_ERROR(
      Check(fn.vkQueueSubmit(device.queue_handle(), 1, &submit, VK_NULL_HANDLE), "vkQueueSubmit"));
  VkSemaphoreWaitInfo wait = {};
  wait.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
  wait.semaphoreCount = 1;
  wait.pSemaphores = &timeline_;
  wait.pValues = &signal;
  return Check(fn.vkWaitSemaphores(device.handle(), &wait, UINT64_MAX), "vkWaitSemaphores");
}

Result<float> RawVulkanChain::ReadLast() {
  float last = 0;
  KILN_RETURN_IF_ERROR(data_->ReadData((elements_ - 1) * sizeof(float),
                                       std::span<uint8_t>(reinterpret_cast<uint8_t*>(&last), 4)));
  return last;
}

RawVulkanChain::~RawVulkanChain() {
  if (!device_) return;
  LogicalDevice& device = static_cast<hal::vulkan::VulkanDevice*>(device_.get())->logical();
  const hal::vulkan::DeviceFunctions& fn = device.fn();
  fn.vkDeviceWaitIdle(device.handle());
  if (command_buffer_) fn.vkFreeCommandBuffers(device.handle(), command_pool_, 1, &command_buffer_);
  if (command_pool_) device.ReleaseCommandPool(command_pool_);
  if (descriptor_pool_) device.DestroyDescriptorPool(descriptor_pool_);
  if (timeline_) fn.vkDestroySemaphore(device.handle(), timeline_, nullptr);
}

}  // namespace kiln::benchmarks
