#include "hal/vulkan/vulkan_executable.h"

#include <cstring>

#include "base/spirv_module.h"
#include "flatbuffers/flatbuffers.h"
#include "schemas/executable_spirv_generated.h"

namespace kiln::hal::vulkan {
namespace {

namespace fb = ::kiln::schema::spirv;

// The exports' SPIR-V, checked, with what pipeline creation needs.
struct ExportPlan {
  uint32_t module_ordinal = 0;
  std::string entry_point;
};

// A shader module or pipeline the driver refuses is a bad executable
// (INVALID_ARGUMENT) unless the driver ran out of memory.
Status RejectedBy(VkResult result, const std::string& what) {
  Status status = VkResultToStatus(result, what);
  if (status.code() == StatusCode::kResourceExhausted) return status;
  return InvalidArgumentError(status.message());
}

}  // namespace

Result<Ref<VulkanExecutable>> VulkanExecutable::Create(Ref<LogicalDevice> device,
                                                       std::span<const uint8_t> bytes) {
  const std::string where = std::string(kSpirvFormat) + " executable";
  flatbuffers::Verifier verifier(bytes.data(), bytes.size());
  if (bytes.size() < 8 || !fb::SpirvExecutableBufferHasIdentifier(bytes.data()) ||
      !fb::VerifySpirvExecutableBuffer(verifier)) {
    return InvalidArgumentError(where + ": not a valid SPIR-V executable FlatBuffer (identifier " +
                                std::string(fb::SpirvExecutableIdentifier()) + ")");
  }
  const fb::SpirvExecutable* flat = fb::GetSpirvExecutable(bytes.data());
  const uint32_t module_count = flat->modules() ? flat->modules()->size() : 0;
  if (module_count == 0) return InvalidArgumentError(where + " has no shader modules");

  // Modules: framing and entry points. The words are read in place unless
  // the FlatBuffer itself sits at an address that is not 4-byte aligned
  // (then a copy is made: Vulkan takes pCode as uint32_t words).
  std::vector<SpirvModule> infos;
  std::vector<std::span<const uint32_t>> words(module_count);
  std::vector<std::vector<uint32_t>> copies;
  copies.reserve(module_count);
  for (uint32_t m = 0; m < module_count; ++m) {
    const fb::ShaderModule* module = flat->modules()->Get(m);
    const auto* code = module ? module->code() : nullptr;
    if (code == nullptr || code->size() == 0) {
      return InvalidArgumentError(where + ": shader module " + std::to_string(m) + " has no code");
    }
    if (reinterpret_cast<uintptr_t>(code->Data()) % alignof(uint32_t) == 0) {
      words[m] = {reinterpret_cast<const uint32_t*>(code->Data()), code->size()};
    } else {
      std::vector<uint32_t>& copy = copies.emplace_back(code->size());
      std::memcpy(copy.data(), code->Data(), code->size() * sizeof(uint32_t));
      words[m] = copy;
    }
    Result<SpirvModule> info = ParseSpirvModule(words[m]);
    if (!info.ok()) {
      return info.status().WithContext(where + ": shader module " + std::to_string(m));
    }
    infos.push_back(std::move(*info));
  }

  // Exports: indices, entry points, sizes, layouts against the limits.
  const VkPhysicalDeviceLimits& limits = device->limits();
  std::vector<ExecutableExport> exports;
  std::vector<ExportPlan> plans;
  const uint32_t export_count = flat->exports() ? flat->exports()->size() : 0;
  for (uint32_t i = 0; i < export_count; ++i) {
    const fb::Export* e = flat->exports()->Get(i);
    std::string export_where = where + " export " + std::to_string(i);
    if (e->name() == nullptr) return InvalidArgumentError(export_where + " has no name");
    export_where += " '" + e->name()->str() + "'";
    if (e->workgroup_size() == nullptr) {
      return InvalidArgumentError(export_where + " has no workgroup size");
    }
    if (e->module_ordinal() >= module_count) {
      return InvalidArgumentError(export_where + ": module ordinal " +
                                  std::to_string(e->module_ordinal()) +
                                  " is out of range (the executable has " +
                                  std::to_string(module_count) + " shader modules)");
    }
    ExportPlan plan;
    plan.module_ordinal = e->module_ordinal();
    plan.entry_point = e->entry_point() != nullptr && e->entry_point()->size() > 0
                           ? e->entry_point()->str()
                           : e->name()->str();
    ExecutableExport out;
    out.name = e->name()->str();
    out.workgroup_size = {e->workgroup_size()->x(), e->workgroup_size()->y(),
                          e->workgroup_size()->z()};
    out.layout.constant_count = e->constant_count();
    if (e->bindings() != nullptr) {
      for (const fb::Binding* b : *e->bindings()) {
        out.layout.bindings.push_back({DescriptorType::kStorageBuffer, b->read_only()});
      }
    }
    const SpirvModule& info = infos[plan.module_ordinal];
    if (info.uses_shader_clock && !device->shader_device_clock()) {
      return UnimplementedError(
          export_where + ": its shader module " + std::to_string(plan.module_ordinal) +
          " reads the device clock (OpCapability ShaderClockKHR: an instrumented dispatch) but "
          "the Vulkan device '" +
          std::string(device->properties().deviceName) +
          "' lacks VK_KHR_shader_clock's shaderDeviceClock");
    }
    const SpirvEntryPoint* entry = info.FindComputeEntryPoint(plan.entry_point);
    if (entry == nullptr) {
      return InvalidArgumentError(export_where + ": shader module " +
                                  std::to_string(plan.module_ordinal) +
                                  " has no GLCompute entry point '" + plan.entry_point +
                                  "' (entry points: " + info.DescribeEntryPoints() + ")");
    }
    // A size kiln cannot tell (a computed LocalSizeId, say) is the shader's
    // business: only a known one is checked.
    if (entry->size_error.empty() && entry->local_size != out.workgroup_size) {
      return InvalidArgumentError(export_where + " declares workgroup size " +
                                  WorkgroupSizeText(out.workgroup_size) + " but its entry point '" +
                                  plan.entry_point + "' has workgroup size " +
                                  WorkgroupSizeText(entry->local_size));
    }
    const uint64_t push_bytes = uint64_t{4} * out.layout.constant_count;
    if (push_bytes > limits.maxPushConstantsSize) {
      return InvalidArgumentError(
          export_where + " takes " + std::to_string(out.layout.constant_count) + " constants (" +
          std::to_string(push_bytes) +
          " bytes of push constants) but the device "
          "allows " +
          std::to_string(limits.maxPushConstantsSize) + " bytes (maxPushConstantsSize)");
    }
    if (out.layout.bindings.size() > limits.maxPerStageDescriptorStorageBuffers) {
      return InvalidArgumentError(
          export_where + " has " + std::to_string(out.layout.bindings.size()) +
          " bindings but the device allows " +
          std::to_string(limits.maxPerStageDescriptorStorageBuffers) +
          " storage buffers per stage (maxPerStageDescriptorStorageBuffers)");
    }
    exports.push_back(std::move(out));
    plans.push_back(std::move(plan));
  }
  KILN_RETURN_IF_ERROR(ValidateExports(kSpirvFormat, exports));

  Ref<VulkanExecutable> executable =
      Ref<VulkanExecutable>::Adopt(new VulkanExecutable(device, exports));
  // Shader modules, released when this function returns.
  const DeviceFunctions& fn = device->fn();
  std::vector<VkShaderModule> modules(module_count, VK_NULL_HANDLE);
  struct ModuleReleaser {
    const LogicalDevice& device;
    std::vector<VkShaderModule>& modules;
    ~ModuleReleaser() {
      for (VkShaderModule module : modules) {
        if (module != VK_NULL_HANDLE)
          device.fn().vkDestroyShaderModule(device.handle(), module, nullptr);
      }
    }
  } releaser{*device, modules};
  for (uint32_t m = 0; m < module_count; ++m) {
    VkShaderModuleCreateInfo info = {};
    info.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
    info.codeSize = words[m].size() * sizeof(uint32_t);
    info.pCode = words[m].data();
    VkResult result = fn.vkCreateShaderModule(device->handle(), &info, nullptr, &modules[m]);
    if (result != VK_SUCCESS) {
      modules[m] = VK_NULL_HANDLE;
      std::string users;
      for (uint32_t i = 0; i < plans.size(); ++i) {
        if (plans[i].module_ordinal == m)
          users += (users.empty() ? "'" : ", '") + exports[i].name + "'";
      }
      return RejectedBy(result, where + ": shader module " + std::to_string(m) +
                                    (users.empty() ? "" : " (of export " + users + ")") +
                                    " was rejected by vkCreateShaderModule");
    }
  }
  // Pipelines, one per export.
  for (uint32_t i = 0; i < exports.size(); ++i) {
    const ExecutableExport& e = exports[i];
    Pipeline pipeline;
    pipeline.binding_count = static_cast<uint32_t>(e.layout.bindings.size());
    pipeline.constant_count = e.layout.constant_count;
    KILN_ASSIGN_OR_RETURN(pipeline.layout,
                          device->GetLayout(pipeline.binding_count, pipeline.constant_count));
    VkComputePipelineCreateInfo info = {};
    info.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
    info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    info.stage.module = modules[plans[i].module_ordinal];
    info.stage.pName = plans[i].entry_point.c_str();
    info.layout = pipeline.layout.pipeline_layout;
    VkResult result = fn.vkCreateComputePipelines(device->handle(), device->pipeline_cache(), 1,
                                                  &info, nullptr, &pipeline.pipeline);
    if (result != VK_SUCCESS) {
      return RejectedBy(result, where + " export " + std::to_string(i) + " '" + e.name +
                                    "': vkCreateComputePipelines (entry point '" +
                                    plans[i].entry_point + "')");
    }
    executable->pipelines_.push_back(pipeline);
  }
  return executable;
}

VulkanExecutable::~VulkanExecutable() {
  // Command buffers hold their executables until their submissions retire,
  // so no pipeline is in use here.
  for (const Pipeline& pipeline : pipelines_) {
    device_->fn().vkDestroyPipeline(device_->handle(), pipeline.pipeline, nullptr);
  }
}

}  // namespace kiln::hal::vulkan
