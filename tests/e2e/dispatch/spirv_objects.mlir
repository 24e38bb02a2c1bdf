// SPIR-V objects are read when compiling: an export runs its module's
// GLCompute entry point (GLSL's `main`), a workgroup_size that disagrees with
// the shader's LocalSize is an error at the executable naming both, and the
// Vulkan target takes one module for all exports or one per export. The
// executables are public: nothing dispatches to them, and symbol-dce removes
// unused private ones (as IREE) before their objects are read.
// REQUIRES: device-cpu, target-vulkan
// RUN: not %kiln-compile %s --target=vulkan --object-search-path=%e2e_kernels_dir -o %t.kmod 2>&1 | FileCheck %s
// CHECK: spirv_objects.mlir:[[@LINE+7]]:3: error: executable 'kernels' target "vulkan-spirv", "vulkan-spirv-fb": export @simple_add declares workgroup_size [64, 1, 1] but its SPIR-V entry point 'main' in Vulkan object 1 '{{.*}}simple_add.spv' has LocalSize [1, 1, 1]
// CHECK: spirv_objects.mlir:[[@LINE+26]]:3: error: executable 'counted' target "vulkan-spirv", "vulkan-spirv-fb": the Vulkan target takes one SPIR-V module for all exports or one per export (3 exports, in ordinal order), got 2 objects
// CHECK-NOT: error:

#vulkan = #hal.executable.target<"vulkan-spirv", "vulkan-spirv-fb">

module {
  hal.executable.source @kernels attributes {
    objects = #hal.executable.objects<{
      #vulkan = [#hal.executable.object<{path = "simple_mul.spv"}>,
                 #hal.executable.object<{path = "simple_add.spv"}>]
    }>
  } {
    hal.executable.export public @simple_mul ordinal(0)
        layout(#hal.pipeline.layout<constants = 1, bindings = [
          #hal.pipeline.binding<storage_buffer, ReadOnly>,
          #hal.pipeline.binding<storage_buffer, ReadOnly>,
          #hal.pipeline.binding<storage_buffer>
        ]>) attributes {workgroup_size = [2, 1, 1]}
    hal.executable.export public @simple_add ordinal(1)
        layout(#hal.pipeline.layout<constants = 1, bindings = [
          #hal.pipeline.binding<storage_buffer, ReadOnly>,
          #hal.pipeline.binding<storage_buffer, ReadOnly>,
          #hal.pipeline.binding<storage_buffer>
        ]>) attributes {workgroup_size = [64, 1, 1]}
  }

  hal.executable.source @counted attributes {
    objects = #hal.executable.objects<{
      #vulkan = [#hal.executable.object<{path = "simple_mul.spv"}>,
                 #hal.executable.object<{path = "simple_add.spv"}>]
    }>
  } {
    hal.executable.export public @a ordinal(0)
        layout(#hal.pipeline.layout<constants = 0, bindings = [#hal.pipeline.binding<storage_buffer>]>)
    hal.executable.export public @b ordinal(1)
        layout(#hal.pipeline.layout<constants = 0, bindings = [#hal.pipeline.binding<storage_buffer>]>)
    hal.executable.export public @c ordinal(2)
        layout(#hal.pipeline.layout<constants = 0, bindings = [#hal.pipeline.binding<storage_buffer>]>)
  }
}
