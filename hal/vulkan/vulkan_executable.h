// VulkanExecutable: a "vulkan-spirv-fb" executable (schemas/executable_spirv.fbs)
// loaded as one compute pipeline per export.
//
// Loading verifies the FlatBuffer and every index in it before anything
// reaches Vulkan: each shader module's words (ParseSpirvModule,
// base/spirv_module.h: Vulkan drivers may crash on malformed SPIR-V), each
// export's module ordinal, entry point (OpEntryPoint with the GLCompute model;
// an export without one names the entry point by its export name), declared
// workgroup size against the shader's (LocalSize, LocalSizeId or the
// WorkgroupSize built-in, spec constants at their defaults; not checked when
// kiln cannot tell it), and its layout against the device limits
// (maxPushConstantsSize, maxPerStageDescriptorStorageBuffers).
// Then each module becomes a VkShaderModule and each export a VkPipeline,
// built once here through the device's VkPipelineCache with the shared
// layout of its shape (LogicalDevice::GetLayout): set 0 with binding i the
// export's storage buffer i, and a compute-stage push-constant range of
// 4 * constant_count bytes. A failure names the export and the VkResult.
// Shader modules are released once the pipelines exist.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "base/ref.h"
#include "hal/executable.h"
#include "hal/vulkan/logical_device.h"
#include "hal/vulkan/vulkan_api.h"

namespace kiln::hal::vulkan {

inline constexpr char kSpirvFormat[] = "vulkan-spirv-fb";

class VulkanExecutable final : public Executable {
 public:
  static Result<Ref<VulkanExecutable>> Create(Ref<LogicalDevice> device,
                                              std::span<const uint8_t> bytes);
  ~VulkanExecutable() override;

  struct Pipeline {
    VkPipeline pipeline = VK_NULL_HANDLE;
    LogicalDevice::Layout layout;
    uint32_t binding_count = 0;
    uint32_t constant_count = 0;
  };
  const Pipeline& pipeline(uint32_t export_ordinal) const { return pipelines_[export_ordinal]; }
  LogicalDevice* device() const { return device_.get(); }

 private:
  VulkanExecutable(Ref<LogicalDevice> device, std::vector<ExecutableExport> exports)
      : Executable(kSpirvFormat, std::move(exports)), device_(std::move(device)) {}

  Ref<LogicalDevice> device_;
  std::vector<Pipeline> pipelines_;  // By export ordinal.
};

}  // namespace kiln::hal::vulkan
