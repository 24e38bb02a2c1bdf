#include "hal/vulkan/dispatch_timestamps.h"

#include "hal/vulkan/logical_device.h"

namespace kiln::hal::vulkan {

Result<std::unique_ptr<DispatchTimestamps>> DispatchTimestamps::Create(LogicalDevice& device,
                                                                       VkCommandPool pool,
                                                                       uint32_t dispatch_count,
                                                                       Ref<Trace> trace) {
  const DeviceFunctions& fn = device.fn();
  std::unique_ptr<DispatchTimestamps> timestamps(
      new DispatchTimestamps(device, pool, std::move(trace)));
  timestamps->query_count_ = 1 + 2 * dispatch_count;
  timestamps->names_.reserve(dispatch_count);
  VkQueryPoolCreateInfo info = {};
  info.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
  info.queryType = VK_QUERY_TYPE_TIMESTAMP;
  info.queryCount = timestamps->query_count_;
  VkResult result = fn.vkCreateQueryPool(device.handle(), &info, nullptr, &timestamps->query_pool_);
  if (result != VK_SUCCESS) return VkResultToStatus(result, "vkCreateQueryPool (timestamps)");
  KILN_ASSIGN_OR_RETURN(VkCommandBuffer prologue, timestamps->AllocateCommandBuffer());
  VkCommandBufferBeginInfo begin = {};
  begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  result = fn.vkBeginCommandBuffer(prologue, &begin);
  if (result != VK_SUCCESS) return VkResultToStatus(result, "vkBeginCommandBuffer (timestamps)");
  fn.vkCmdResetQueryPool(prologue, timestamps->query_pool_, 0, timestamps->query_count_);
  fn.vkCmdWriteTimestamp(prologue, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, timestamps->query_pool_, 0);
  result = fn.vkEndCommandBuffer(prologue);
  if (result != VK_SUCCESS) return VkResultToStatus(result, "vkEndCommandBuffer (timestamps)");
  return timestamps;
}

DispatchTimestamps::~DispatchTimestamps() {
  const DeviceFunctions& fn = device_.fn();
  if (!command_buffers_.empty()) {
    fn.vkFreeCommandBuffers(device_.handle(), pool_, static_cast<uint32_t>(command_buffers_.size()),
                            command_buffers_.data());
  }
  if (query_pool_ != VK_NULL_HANDLE) fn.vkDestroyQueryPool(device_.handle(), query_pool_, nullptr);
}

Result<VkCommandBuffer> DispatchTimestamps::AllocateCommandBuffer() {
  VkCommandBufferAllocateInfo info = {};
  info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  info.commandPool = pool_;
  info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  info.commandBufferCount = 1;
  VkCommandBuffer handle = VK_NULL_HANDLE;
  VkResult result = device_.fn().vkAllocateCommandBuffers(device_.handle(), &info, &handle);
  if (result != VK_SUCCESS)
    return VkResultToStatus(result, "vkAllocateCommandBuffers (timestamps)");
  command_buffers_.push_back(handle);
  return handle;
}

uint32_t DispatchTimestamps::AddDispatch(std::string name) {
  names_.push_back(std::move(name));
  return static_cast<uint32_t>(2 * names_.size() - 1);
}

Result<std::vector<utils::MeasuredDispatch>> DispatchTimestamps::Read() const {
  std::vector<uint64_t> ticks(query_count_);
  // Only the queries written: a translation that failed half-way was never
  // submitted, so every query of a submitted one is available.
  const uint32_t written = static_cast<uint32_t>(1 + 2 * names_.size());
  VkResult result = device_.fn().vkGetQueryPoolResults(
      device_.handle(), query_pool_, 0, written, written * sizeof(uint64_t), ticks.data(),
      sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
  if (result != VK_SUCCESS) return VkResultToStatus(result, "vkGetQueryPoolResults (timestamps)");
  const uint32_t bits = device_.timestamp_valid_bits();
  const uint64_t mask = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  const double period = device_.limits().timestampPeriod;
  // Differences modulo the valid bits survive a counter that wrapped.
  auto since_reference = [&](uint32_t query) {
    return static_cast<int64_t>(static_cast<double>((ticks[query] - ticks[0]) & mask) * period);
  };
  std::vector<utils::MeasuredDispatch> dispatches(names_.size());
  for (uint32_t i = 0; i < names_.size(); ++i) {
    dispatches[i].name = names_[i];
    dispatches[i].begin_ns = since_reference(1 + 2 * i);
    dispatches[i].end_ns = since_reference(2 + 2 * i);
  }
  return dispatches;
}

}  // namespace kiln::hal::vulkan
