// RawVulkanChain: the GPU dispatch benchmark's chain on plain Vulkan, the
// floor under any Vulkan runtime on a device.
//
// N dispatches of add_one_inplace (1,024 floats += 1) on one storage buffer
// are recorded once into one VkCommandBuffer, with the pipeline, the
// descriptor set and the push constant bound once, and replayed by one
// vkQueueSubmit that signals a timeline semaphore, then a host
// vkWaitSemaphores. Between dispatches the recording orders them as asked:
//   kMemoryBarrier  a compute-to-compute pipeline barrier with a memory
//                   barrier (shader writes before shader reads and writes),
//                   the least a dependent chain needs; the result is N.
//   kNone           nothing: the dispatches may overlap and race, so the
//                   result is not defined. This only measures what the
//                   barriers cost; never a way to run a chain.
// The device, the pipeline and the buffer come from kiln's Vulkan driver
// (vulkan://0); only the recorded commands and the replay are raw Vulkan.
#ifndef KILN_TESTS_BENCHMARKS_RAW_VULKAN_CHAIN_H_
#define KILN_TESTS_BENCHMARKS_RAW_VULKAN_CHAIN_H_

#include <cstdint>
#include <memory>
#include <string>

#include "base/result.h"
#include "base/status.h"
#include "hal/device.h"
#include "hal/vulkan/vulkan_api.h"

namespace kiln::benchmarks {

class RawVulkanChain {
 public:
  enum class Ordering { kMemoryBarrier, kNone };

  // Loads the SPIR-V at `spirv_path` (entry point main, local size 64, set 0
  // binding 0, one push constant) on vulkan://0 and records the chain.
  static Result<std::unique_ptr<RawVulkanChain>> Create(const std::string& spirv_path,
                                                        uint32_t elements, int64_t chain_length,
                                                        Ordering ordering);
  ~RawVulkanChain();

  // Sets every element to `value` (a host write, outside any replay).
  Status Fill(float value);
  // Submits the recording once and waits for it on the host.
  Status Replay();
  // The buffer's last element.
  Result<float> ReadLast();

 private:
  RawVulkanChain() = default;
  Status Record(int64_t chain_length, Ordering ordering);

  Ref<hal::Device> device_;
  Ref<hal::Executable> executable_;
  Ref<hal::Buffer> data_;
  uint32_t elements_ = 0;
  VkCommandPool command_pool_ = VK_NULL_HANDLE;
  VkCommandBuffer command_buffer_ = VK_NULL_HANDLE;
  VkDescriptorPool descriptor_pool_ = VK_NULL_HANDLE;
  VkSemaphore timeline_ = VK_NULL_HANDLE;
  uint64_t timeline_value_ = 0;
};

}  // namespace kiln::benchmarks

#endif  // KILN_TESTS_BENCHMARKS_RAW_VULKAN_CHAIN_H_
