#include "compiler/targets/generated_kernels.h"

#include "compiler/targets/cpu/cpu_target.h"
#include "compiler/targets/cuda/cuda_target.h"
#include "compiler/targets/vulkan/vulkan_target.h"

namespace kiln::compiler {

mlir::ModuleOp GeneratedKernelsOf(HAL::ExecutableSourceOp op) {
  auto modules = op.getBlock().getOps<mlir::ModuleOp>();
  return modules.empty() ? mlir::ModuleOp() : *modules.begin();
}

Result<TargetObjects> CompileGeneratedKernels(mlir::ModuleOp kernels, const std::string& target) {
  TargetObjects objects;
  if (target == "cpu") {
    objects.backend = "llvm-cpu";
    objects.format = "system-elf-x86_64";
    KILN_ASSIGN_OR_RETURN(std::vector<uint8_t> shared_object,
                          cpu::CompileCpuKernels(kernels));
    ObjectSource object;
    object.data = std::move(shared_object);
    objects.objects.push_back(std::move(object));
    return objects;
  }
  if (target == "cuda") {
    // One PTX image for the default architecture, which the driver JITs for
    // any newer GPU; its target_arch names the image in the executable.
    const cuda::CudaTargetOptions options;
    objects.backend = "cuda";
    objects.format = "cuda-nvptx-fb";
    objects.target_arch = options.sm;
    KILN_ASSIGN_OR_RETURN(std::string ptx, cuda::CompileCudaKernels(kernels, options));
    ObjectSource object;
    object.data.assign(ptx.begin(), ptx.end());
    objects.objects.push_back(std::move(object));
    return objects;
  }
  if (target == "vulkan") {
    objects.backend = "vulkan-spirv";
    objects.format = "vulkan-spirv-fb";
    KILN_ASSIGN_OR_RETURN(std::vector<uint8_t> spirv, vulkan::CompileVulkanKernels(kernels));
    ObjectSource object;
    object.data = std::move(spirv);
    objects.objects.push_back(std::move(object));
    return objects;
  }
  // Target lists are normalized to these three before serialization.
  return InvalidArgumentError("unknown target '" + target + "' for generated kernels (kiln "
                              "generates them for cpu, cuda and vulkan)");
}

}  // namespace kiln::compiler
