// kiln_vulkan_barrier_benchmark: what ordering a chain of dependent compute
// dispatches costs on a Vulkan device, per way of ordering it, on plain
// Vulkan (no kiln code). It answers whether a Vulkan runtime can make a
// dependent chain cheaper than one pipeline barrier per dispatch.
//
// Each row records N dispatches of add_one_inplace.spv (1,024 floats += 1,
// the GPU dispatch benchmark's kernel) into one command buffer once, then
// replays it: vkQueueSubmit + vkQueueWaitIdle. Rows are
// BM_VulkanChain/<ordering>/<N>, where <ordering> is one of
//   memory-rw       compute->compute barrier, shader write -> read|write
//                   (what kiln records)
//   memory-r        compute->compute barrier, shader write -> read
//   sync2-storage   vkCmdPipelineBarrier2, storage write -> storage read
//   buffer          a VkBufferMemoryBarrier on the one buffer
//   execution       compute->compute barrier without a memory barrier (not
//                   enough for a chain: writes may not be visible)
//   events          vkCmdSetEvent after each dispatch, vkCmdWaitEvents
//                   before the next
//   per-dispatch-state  memory-rw, and the descriptor set and push
//                   constant bound again before every dispatch (as a
//                   recording that does not track bound state would)
//   none            no ordering: the dispatches race (the floor)
// Counters: per_dispatch (wall time of a replay / N) and gpu_per_dispatch
// (the GPU's timestamps around the chain / N). Every ordered row checks the
// chain's result (N) before timing.
//
// usage: kiln_vulkan_barrier_benchmark [--spirv=F.spv] [benchmark flags]
// Without a usable Vulkan device it says why and exits with 77 (ctest's
// skip code for its smoke test).
#include <benchmark/benchmark.h>
#include <vulkan/vulkan.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "base/file_io.h"

namespace {

std::string g_spirv_path = "add_one_inplace.spv";
constexpr uint32_t kElements = 1024;
constexpr int64_t kChains[] = {10, 100, 1000};

enum class Ordering {
  kMemoryReadWrite,
  kMemoryRead,
  kSync2Storage,
  kBuffer,
  kExecution,
  kEvents,
  kPerDispatchState,
  kNone
};
struct OrderingName {
  Ordering ordering;
  const char* name;
};
constexpr OrderingName kOrderings[] = {{Ordering::kMemoryReadWrite, "memory-rw"},
                                       {Ordering::kMemoryRead, "memory-r"},
                                       {Ordering::kSync2Storage, "sync2-storage"},
                                       {Ordering::kBuffer, "buffer"},
                                       {Ordering::kExecution, "execution"},
                                       {Ordering::kEvents, "events"},
                                       {Ordering::kPerDispatchState, "per-dispatch-state"},
                                       {Ordering::kNone, "none"}};

// The first failing call's name and VkResult; empty while all succeed.
struct Failure {
  std::string message;
  bool Check(VkResult result, const char* what) {
    if (result != VK_SUCCESS && message.empty()) {
      message = std::string(what) + " failed: VkResult " + std::to_string(result);
    }
    return message.empty();
  }
};

// One device with the kernel's pipeline, a buffer of kElements floats and
// what the orderings need. Created once for all rows.
struct Chain {
  Failure failure;
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t family = 0;
  float timestamp_period_ns = 1;
  bool sync2 = false;
  PFN_vkCmdPipelineBarrier2 cmd_pipeline_barrier2 = nullptr;
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;  // Host-visible: the result is read mapped.
  void* mapped = nullptr;
  VkShaderModule shader = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  VkPipelineLayout pipeline_layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkDescriptorPool descriptor_pool = VK_NULL_HANDLE;
  VkDescriptorSet set = VK_NULL_HANDLE;
  std::vector<VkEvent> events;
  VkQueryPool timestamps = VK_NULL_HANDLE;
  VkCommandPool command_pool = VK_NULL_HANDLE;

  void Create();
  void Destroy();
  VkCommandBuffer Record(Ordering ordering, int64_t n);
  bool Replay(VkCommandBuffer command_buffer, double* gpu_us);
};

void Chain::Create() {
  std::ifstream file(
      g_spirv_path[0] == '/' ? g_spirv_path : kiln::ExecutableDirectory() + g_spirv_path,
      std::ios::binary);
  std::vector<char> spirv((std::istreambuf_iterator<char>(file)), {});
  if (spirv.empty() || spirv.size() % 4 != 0) {
    failure.message = "cannot read the SPIR-V " + g_spirv_path;
    return;
  }
  VkApplicationInfo app = {};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.apiVersion = VK_API_VERSION_1_3;  // Allows vkCmdPipelineBarrier2 where the device has 1.3.
  VkInstanceCreateInfo instance_info = {};
  instance_info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  instance_info.pApplicationInfo = &app;
  if (!failure.Check(vkCreateInstance(&instance_info, nullptr, &instance), "vkCreateInstance")) {
    return;
  }
  uint32_t count = 1;
  VkResult enumerated = vkEnumeratePhysicalDevices(instance, &count, &physical);
  if (enumerated != VK_SUCCESS && enumerated != VK_INCOMPLETE) {
    failure.Check(enumerated, "vkEnumeratePhysicalDevices");
    return;
  }
  if (count == 0) {
    failure.message = "no Vulkan device";
    return;
  }
  VkPhysicalDeviceProperties properties;
  vkGetPhysicalDeviceProperties(physical, &properties);
  timestamp_period_ns = properties.limits.timestampPeriod;
  // The queue kiln picks: compute, preferring one without graphics.
  uint32_t family_count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &family_count, nullptr);
  std::vector<VkQueueFamilyProperties> families(family_count);
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &family_count, families.data());
  int chosen = -1;
  for (uint32_t i = 0; i < family_count; ++i) {
    if (!(families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) || families[i].timestampValidBits == 0) {
      continue;
    }
    if (chosen < 0 || (!(families[i].queueFlags & VK_QUEUE_GRAPHICS_BIT) &&
                       (families[chosen].queueFlags & VK_QUEUE_GRAPHICS_BIT))) {
      chosen = static_cast<int>(i);
    }
  }
  if (chosen < 0) {
    failure.message = "no compute queue with timestamps";
    return;
  }
  family = static_cast<uint32_t>(chosen);
  VkPhysicalDeviceSynchronization2Features sync2_features = {};
  sync2_features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SYNCHRONIZATION_2_FEATURES;
  VkPhysicalDeviceFeatures2 features = {};
  features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  features.pNext = &sync2_features;
  vkGetPhysicalDeviceFeatures2(physical, &features);
  sync2 = properties.apiVersion >= VK_API_VERSION_1_3 && sync2_features.synchronization2;
  const float priority = 1;
  VkDeviceQueueCreateInfo queue_info = {};
  queue_info.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queue_info.queueFamilyIndex = family;
  queue_info.queueCount = 1;
  queue_info.pQueuePriorities = &priority;
  VkPhysicalDeviceSynchronization2Features enable_sync2 = {};
  enable_sync2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SYNCHRONIZATION_2_FEATURES;
  enable_sync2.synchronization2 = VK_TRUE;
  VkDeviceCreateInfo device_info = {};
  device_info.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  device_info.pNext = sync2 ? &enable_sync2 : nullptr;
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue_info;
  if (!failure.Check(vkCreateDevice(physical, &device_info, nullptr, &device), "vkCreateDevice")) {
    return;
  }
  vkGetDeviceQueue(device, family, 0, &queue);
  if (sync2) {
    cmd_pipeline_barrier2 = reinterpret_cast<PFN_vkCmdPipelineBarrier2>(
        vkGetDeviceProcAddr(device, "vkCmdPipelineBarrier2"));
    sync2 = cmd_pipeline_barrier2 != nullptr;
  }

  VkBufferCreateInfo buffer_info = {};
  buffer_info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  buffer_info.size = kElements * sizeof(float);
  buffer_info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
  if (!failure.Check(vkCreateBuffer(device, &buffer_info, nullptr, &buffer), "vkCreateBuffer")) {
    return;
  }
  VkMemoryRequirements requirements;
  vkGetBufferMemoryRequirements(device, buffer, &requirements);
  VkPhysicalDeviceMemoryProperties memory_properties;
  vkGetPhysicalDeviceMemoryProperties(physical, &memory_properties);
  // Device-local and host-visible where there is such memory (NVIDIA's
  // resizable BAR heap), else host-visible: 4 KiB, read once per row.
  int type = -1;
  const VkMemoryPropertyFlags visible =
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  for (VkMemoryPropertyFlags wanted : {visible | VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, visible}) {
    for (uint32_t i = 0; i < memory_properties.memoryTypeCount && type < 0; ++i) {
      if ((requirements.memoryTypeBits & (1u << i)) &&
          (memory_properties.memoryTypes[i].propertyFlags & wanted) == wanted) {
        type = static_cast<int>(i);
      }
    }
  }
  if (type < 0) {
    failure.message = "no host-visible memory for the buffer";
    return;
  }
  VkMemoryAllocateInfo allocate_info = {};
  allocate_info.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  allocate_info.allocationSize = requirements.size;
  allocate_info.memoryTypeIndex = static_cast<uint32_t>(type);
  if (!failure.Check(vkAllocateMemory(device, &allocate_info, nullptr, &memory),
                     "vkAllocateMemory") ||
      !failure.Check(vkBindBufferMemory(device, buffer, memory, 0), "vkBindBufferMemory") ||
      !failure.Check(vkMapMemory(device, memory, 0, VK_WHOLE_SIZE, 0, &mapped), "vkMapMemory")) {
    return;
  }

  VkShaderModuleCreateInfo shader_info = {};
  shader_info.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  shader_info.codeSize = spirv.size();
  shader_info.pCode = reinterpret_cast<const uint32_t*>(spirv.data());
  VkDescriptorSetLayoutBinding binding = {0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
                                          VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
  VkDescriptorSetLayoutCreateInfo set_layout_info = {};
  set_layout_info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
  set_layout_info.bindingCount = 1;
  set_layout_info.pBindings = &binding;
  VkPushConstantRange constants = {VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(uint32_t)};
  VkPipelineLayoutCreateInfo pipeline_layout_info = {};
  pipeline_layout_info.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  pipeline_layout_info.setLayoutCount = 1;
  pipeline_layout_info.pSetLayouts = &set_layout;
  pipeline_layout_info.pushConstantRangeCount = 1;
  pipeline_layout_info.pPushConstantRanges = &constants;
  if (!failure.Check(vkCreateShaderModule(device, &shader_info, nullptr, &shader),
                     "vkCreateShaderModule") ||
      !failure.Check(vkCreateDescriptorSetLayout(device, &set_layout_info, nullptr, &set_layout),
                     "vkCreateDescriptorSetLayout") ||
      !failure.Check(
          vkCreatePipelineLayout(device, &pipeline_layout_info, nullptr, &pipeline_layout),
          "vkCreatePipelineLayout")) {
    return;
  }
  VkComputePipelineCreateInfo pipeline_info = {};
  pipeline_info.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
  pipeline_info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  pipeline_info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  pipeline_info.stage.module = shader;
  pipeline_info.stage.pName = "main";
  pipeline_info.layout = pipeline_layout;
  if (!failure.Check(
          vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &pipeline_info, nullptr, &pipeline),
          "vkCreateComputePipelines")) {
    return;
  }
  VkDescriptorPoolSize pool_size = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1};
  VkDescriptorPoolCreateInfo pool_info = {};
  pool_info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
  pool_info.maxSets = 1;
  pool_info.poolSizeCount = 1;
  pool_info.pPoolSizes = &pool_size;
  VkDescriptorSetAllocateInfo set_info = {};
  set_info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
  set_info.descriptorSetCount = 1;
  set_info.pSetLayouts = &set_layout;
  if (!failure.Check(vkCreateDescriptorPool(device, &pool_info, nullptr, &descriptor_pool),
                     "vkCreateDescriptorPool")) {
    return;
  }
  set_info.descriptorPool = descriptor_pool;
  if (!failure.Check(vkAllocateDescriptorSets(device, &set_info, &set),
                     "vkAllocateDescriptorSets")) {
    return;
  }
  VkDescriptorBufferInfo descriptor = {buffer, 0, VK_WHOLE_SIZE};
  VkWriteDescriptorSet write = {};
  write.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
  write.dstSet = set;
  write.descriptorCount = 1;
  write.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
  write.pBufferInfo = &descriptor;
  vkUpdateDescriptorSets(device, 1, &write, 0, nullptr);

  events.resize(kChains[std::size(kChains) - 1]);
  for (VkEvent& event : events) {
    VkEventCreateInfo event_info = {};
    event_info.sType = VK_STRUCTURE_TYPE_EVENT_CREATE_INFO;
    if (!failure.Check(vkCreateEvent(device, &event_info, nullptr, &event), "vkCreateEvent")) {
      return;
    }
  }
  VkQueryPoolCreateInfo query_info = {};
  query_info.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
  query_info.queryType = VK_QUERY_TYPE_TIMESTAMP;
  query_info.queryCount = 2;
  VkCommandPoolCreateInfo command_pool_info = {};
  command_pool_info.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  command_pool_info.queueFamilyIndex = family;
  failure.Check(vkCreateQueryPool(device, &query_info, nullptr, &timestamps),
                "vkCreateQueryPool") &&
      failure.Check(vkCreateCommandPool(device, &command_pool_info, nullptr, &command_pool),
                    "vkCreateCommandPool");
}

void Chain::Destroy() {
  if (device) {
    vkDeviceWaitIdle(device);
    vkDestroyCommandPool(device, command_pool, nullptr);
    vkDestroyQueryPool(device, timestamps, nullptr);
    for (VkEvent event : events) vkDestroyEvent(device, event, nullptr);
    vkDestroyDescriptorPool(device, descriptor_pool, nullptr);
    vkDestroyPipeline(device, pipeline, nullptr);
    vkDestroyPipelineLayout(device, pipeline_layout, nullptr);
    vkDestroyDescriptorSetLayout(device, set_layout, nullptr);
    vkDestroyShaderModule(device, shader, nullptr);
    vkDestroyBuffer(device, buffer, nullptr);
    vkFreeMemory(device, memory, nullptr);
    vkDestroyDevice(device, nullptr);
  }
  if (instance) vkDestroyInstance(instance, nullptr);
}

VkCommandBuffer Chain::Record(Ordering ordering, int64_t n) {
  VkCommandBufferAllocateInfo allocate_info = {};
  allocate_info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  allocate_info.commandPool = command_pool;
  allocate_info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocate_info.commandBufferCount = 1;
  VkCommandBuffer cb = VK_NULL_HANDLE;
  if (!failure.Check(vkAllocateCommandBuffers(device, &allocate_info, &cb),
                     "vkAllocateCommandBuffers")) {
    return VK_NULL_HANDLE;
  }
  VkCommandBufferBeginInfo begin = {};
  begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  vkBeginCommandBuffer(cb, &begin);
  vkCmdResetQueryPool(cb, timestamps, 0, 2);
  if (ordering == Ordering::kEvents) {
    for (int64_t i = 0; i < n; ++i) {
      vkCmdResetEvent(cb, events[i], VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
    }
  }
  // The host's writes (the reset before the check) before the first dispatch.
  VkMemoryBarrier from_host = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, nullptr, VK_ACCESS_HOST_WRITE_BIT,
                               VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
  vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_HOST_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1,
                       &from_host, 0, nullptr, 0, nullptr);
  vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, timestamps, 0);
  vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
  const bool state_per_dispatch = ordering == Ordering::kPerDispatchState;
  const VkPipelineStageFlags compute = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
  for (int64_t i = 0; i < n; ++i) {
    if (i == 0 || state_per_dispatch) {
      vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_layout, 0, 1, &set, 0,
                              nullptr);
      vkCmdPushConstants(cb, pipeline_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(kElements),
                         &kElements);
    }
    if (i > 0) {
      VkMemoryBarrier barrier = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, nullptr,
                                 VK_ACCESS_SHADER_WRITE_BIT, VK_ACCESS_SHADER_READ_BIT};
      switch (ordering) {
        case Ordering::kMemoryReadWrite:
        case Ordering::kPerDispatchState:
          barrier.dstAccessMask |= VK_ACCESS_SHADER_WRITE_BIT;
          vkCmdPipelineBarrier(cb, compute, compute, 0, 1, &barrier, 0, nullptr, 0, nullptr);
          break;
        case Ordering::kMemoryRead:
          vkCmdPipelineBarrier(cb, compute, compute, 0, 1, &barrier, 0, nullptr, 0, nullptr);
          break;
        case Ordering::kSync2Storage: {
          VkMemoryBarrier2 barrier2 = {};
          barrier2.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2;
          barrier2.srcStageMask = barrier2.dstStageMask = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
          barrier2.srcAccessMask = VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT;
          barrier2.dstAccessMask = VK_ACCESS_2_SHADER_STORAGE_READ_BIT;
          VkDependencyInfo dependency = {};
          dependency.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO;
          dependency.memoryBarrierCount = 1;
          dependency.pMemoryBarriers = &barrier2;
          cmd_pipeline_barrier2(cb, &dependency);
          break;
        }
        case Ordering::kBuffer: {
          VkBufferMemoryBarrier buffer_barrier = {};
          buffer_barrier.sType = VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER;
          buffer_barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
          buffer_barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
          buffer_barrier.srcQueueFamilyIndex = buffer_barrier.dstQueueFamilyIndex =
              VK_QUEUE_FAMILY_IGNORED;
          buffer_barrier.buffer = buffer;
          buffer_barrier.size = VK_WHOLE_SIZE;
          vkCmdPipelineBarrier(cb, compute, compute, 0, 0, nullptr, 1, &buffer_barrier, 0, nullptr);
          break;
        }
        case Ordering::kExecution:
          vkCmdPipelineBarrier(cb, compute, compute, 0, 0, nullptr, 0, nullptr, 0, nullptr);
          break;
        case Ordering::kEvents:
          vkCmdWaitEvents(cb, 1, &events[i - 1], compute, compute, 1, &barrier, 0, nullptr, 0,
                          nullptr);
          break;
        case Ordering::kNone:
          break;
      }
    }
    vkCmdDispatch(cb, kElements / 64, 1, 1);
    if (ordering == Ordering::kEvents && i + 1 < n) vkCmdSetEvent(cb, events[i], compute);
  }
  vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, timestamps, 1);
  VkMemoryBarrier to_host = {VK_STRUCTURE_TYPE_MEMORY_BARRIER, nullptr, VK_ACCESS_SHADER_WRITE_BIT,
                             VK_ACCESS_HOST_READ_BIT};
  vkCmdPipelineBarrier(cb, compute, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0, nullptr, 0,
                       nullptr);
  if (!failure.Check(vkEndCommandBuffer(cb), "vkEndCommandBuffer")) {
    vkFreeCommandBuffers(device, command_pool, 1, &cb);
    return VK_NULL_HANDLE;
  }
  return cb;
}

bool Chain::Replay(VkCommandBuffer command_buffer, double* gpu_us) {
  VkSubmitInfo submit = {};
  submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &command_buffer;
  if (!failure.Check(vkQueueSubmit(queue, 1, &submit, VK_NULL_HANDLE), "vkQueueSubmit") ||
      !failure.Check(vkQueueWaitIdle(queue), "vkQueueWaitIdle")) {
    return false;
  }
  uint64_t ticks[2] = {};
  if (!failure.Check(vkGetQueryPoolResults(device, timestamps, 0, 2, sizeof(ticks), ticks,
                                           sizeof(uint64_t), VK_QUERY_RESULT_64_BIT),
                     "vkGetQueryPoolResults")) {
    return false;
  }
  *gpu_us += static_cast<double>(ticks[1] - ticks[0]) * timestamp_period_ns * 1e-3;
  return true;
}

Chain& TheChain() {
  static Chain* chain = [] {
    auto* c = new Chain();
    c->Create();
    return c;
  }();
  return *chain;
}

void RunChain(benchmark::State& state, Ordering ordering, int64_t n) {
  Chain& chain = TheChain();
  VkCommandBuffer cb = chain.failure.message.empty() ? chain.Record(ordering, n) : VK_NULL_HANDLE;
  double gpu_us = 0;
  if (cb != VK_NULL_HANDLE && ordering != Ordering::kNone && ordering != Ordering::kExecution) {
    // Checked first: one replay from zeros leaves n in every element.
    std::memset(chain.mapped, 0, kElements * sizeof(float));
    if (chain.Replay(cb, &gpu_us)) {
      const float last = static_cast<const float*>(chain.mapped)[kElements - 1];
      if (last != static_cast<float>(n)) {
        chain.failure.message =
            "the chain computed " + std::to_string(last) + ", expected " + std::to_string(n);
      }
    }
  }
  if (!chain.failure.message.empty()) {
    state.SkipWithError(chain.failure.message.c_str());
    // A failed row leaves the device to the next one.
    chain.failure.message.clear();
    if (cb != VK_NULL_HANDLE) vkFreeCommandBuffers(chain.device, chain.command_pool, 1, &cb);
    return;
  }
  gpu_us = 0;
  for (auto _ : state) {
    if (!chain.Replay(cb, &gpu_us)) break;
  }
  vkFreeCommandBuffers(chain.device, chain.command_pool, 1, &cb);
  if (!chain.failure.message.empty()) {
    state.SkipWithError(chain.failure.message.c_str());
    chain.failure.message.clear();
    return;
  }
  const double dispatches = static_cast<double>(state.iterations() * n);
  state.counters["per_dispatch"] =
      benchmark::Counter(dispatches, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["gpu_per_dispatch_us"] = gpu_us / dispatches;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    if (i > 0 && std::strncmp(argv[i], "--spirv=", 8) == 0) {
      g_spirv_path = argv[i] + 8;
    } else {
      rest.push_back(argv[i]);
    }
  }
  int rest_count = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_count, rest.data());
  if (!TheChain().failure.message.empty()) {
    std::fprintf(stderr,
                 "kiln_vulkan_barrier_benchmark: skipped, no Vulkan device to measure: %s\n",
                 TheChain().failure.message.c_str());
    TheChain().Destroy();
    return 77;
  }
  for (int64_t n : kChains) {
    for (const OrderingName& o : kOrderings) {
      // Only where the device has it (Vulkan 1.3).
      if (o.ordering == Ordering::kSync2Storage && !TheChain().sync2) continue;
      benchmark::RegisterBenchmark(
          ("BM_VulkanChain/" + std::string(o.name) + "/" + std::to_string(n)).c_str(),
          [o, n](benchmark::State& state) { RunChain(state, o.ordering, n); })
          ->UseRealTime()
          ->Unit(benchmark::kMicrosecond);
    }
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  TheChain().Destroy();
  return 0;
}
