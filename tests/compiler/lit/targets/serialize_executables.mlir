// --kiln-serialize-executables: each hal.executable.source becomes a
// hal.executable with one hal.executable.binary per executable format (its
// data the FlatBuffer the runtime's driver loads) followed by the exports,
// unchanged. Objects are files (relative to the .mlir file's directory, then
// each search path) or inline bytes. The CUDA targets' PTX images merge into
// one cuda-nvptx-fb binary; kiln.backend and kiln.config describe each
// variant for the module's debug table. The pass's targets (kiln's or IREE's
// names) keep only the chosen binaries.
// RUN: %kiln-opt %s --kiln-serialize-executables --mlir-elide-elementsattrs-if-larger=8 | FileCheck %s
// RUN: %kiln-opt %s --kiln-serialize-executables=targets=vulkan --mlir-elide-elementsattrs-if-larger=8 | FileCheck %s --check-prefix=VULKAN
// RUN: %kiln-opt %s --kiln-serialize-executables=targets=llvm-cpu,cuda --mlir-elide-elementsattrs-if-larger=8 | FileCheck %s --check-prefix=IREE

#cpu = #hal.executable.target<"llvm-cpu", "system-elf-x86_64">
#sm_75 = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_75"}>
#sm_80 = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_80"}>
#vulkan = #hal.executable.target<"vulkan-spirv", "vulkan-spirv-fb">

// CHECK-LABEL: hal.executable private @kernels {
// CHECK-NEXT:    hal.executable.binary public @system_elf_x86_64 attributes {data = dense_resource<__elided__> : vector<{{[0-9]+}}xi8>, format = "system-elf-x86_64", kiln.backend = "llvm-cpu"}
// CHECK-NEXT:    hal.executable.binary public @cuda_nvptx_fb attributes {data = dense_resource<__elided__> : vector<{{[0-9]+}}xi8>, format = "cuda-nvptx-fb", kiln.backend = "cuda", kiln.config = "target_arch = [sm_75, sm_80]"}
// CHECK-NEXT:    hal.executable.binary public @vulkan_spirv_fb attributes {data = dense_resource<__elided__> : vector<{{[0-9]+}}xi8>, format = "vulkan-spirv-fb", kiln.backend = "vulkan-spirv"}
// CHECK-NEXT:    hal.executable.export public @mul ordinal(0) layout(#hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>) count(%{{.+}}: !hal.device, %[[N:.+]]: index) -> (index, index, index) {
// CHECK:           hal.return %[[N]], %{{.+}}, %{{.+}} : index, index, index
// CHECK:         hal.executable.export public @add ordinal(1)
// CHECK-NOT:   hal.executable.source

// VULKAN-LABEL: hal.executable private @kernels {
// VULKAN-NEXT:    hal.executable.binary public @vulkan_spirv_fb
// VULKAN-NEXT:    hal.executable.export public @mul ordinal(0)

// IREE-LABEL: hal.executable private @kernels {
// IREE-NEXT:    hal.executable.binary public @system_elf_x86_64
// IREE-NEXT:    hal.executable.binary public @cuda_nvptx_fb
// IREE-NEXT:    hal.executable.export public @mul ordinal(0)
hal.executable.source private @kernels attributes {
  objects = #hal.executable.objects<{
    // A 64-byte ELF header of an x86_64 shared object (all the CPU check reads).
    #cpu = [#hal.executable.object<{data = dense<[127, 69, 76, 70, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 62, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]> : vector<64xi8>}>],
    #sm_75 = [#hal.executable.object<{path = "Inputs/kernels.ptx"}>],
    // A SPIR-V module with one GLCompute entry point, main, of LocalSize 1 x 1 x 1.
    #vulkan = [#hal.executable.object<{data = dense<[3, 2, 35, 7, 0, 0, 1, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 15, 0, 5, 0, 5, 0, 0, 0, 1, 0, 0, 0, 109, 97, 105, 110, 0, 0, 0, 0, 16, 0, 6, 0, 1, 0, 0, 0, 17, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0]> : vector<64xi8>}>],
    #sm_80 = [#hal.executable.object<{path = "Inputs/kernels.ptx"}>]
  }>
} {
  hal.executable.export public @mul ordinal(0)
      layout(#hal.pipeline.layout<constants = 1, bindings = [
        #hal.pipeline.binding<storage_buffer, ReadOnly>,
        #hal.pipeline.binding<storage_buffer>]>)
      count(%device: !hal.device, %n: index) -> (index, index, index) {
    %c1 = arith.constant 1 : index
    hal.return %n, %c1, %c1 : index, index, index
  }
  hal.executable.export public @add ordinal(1)
      layout(#hal.pipeline.layout<constants = 1, bindings = [
        #hal.pipeline.binding<storage_buffer, ReadOnly>,
        #hal.pipeline.binding<storage_buffer>]>)
}
