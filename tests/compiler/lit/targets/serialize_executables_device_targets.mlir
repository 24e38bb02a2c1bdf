// Without the pass's targets, the module's hal.device.targets choose which
// declared targets are embedded (IREE's rule: the command line's backends
// apply to a module that names no devices); a module without it embeds
// every declared target. An object found through a search path.
// RUN: %kiln-opt %s --kiln-serialize-executables=object-search-paths=%S/Inputs --mlir-elide-elementsattrs-if-larger=8 | FileCheck %s
// RUN: %kiln-opt %s --kiln-serialize-executables="object-search-paths=%S/Inputs targets=cpu" --mlir-elide-elementsattrs-if-larger=8 | FileCheck %s --check-prefix=CPU

#cpu = #hal.executable.target<"llvm-cpu", "system-elf-x86_64">
#sm_80 = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_80"}>
#cuda = #hal.device.target<"cuda", [#sm_80]> : !hal.device

// CHECK-LABEL: hal.executable public @kernels {
// CHECK-NEXT:    hal.executable.binary public @cuda_nvptx_fb attributes {{{.*}}format = "cuda-nvptx-fb", kiln.backend = "cuda", kiln.config = "target_arch = [sm_80]"}
// CHECK-NEXT:    hal.executable.export public @mul ordinal(0)
// CPU-LABEL: hal.executable public @kernels {
// CPU-NEXT:    hal.executable.binary public @system_elf_x86_64
// CPU-NEXT:    hal.executable.export public @mul ordinal(0)
module attributes {hal.device.targets = [#cuda]} {
  hal.executable.source public @kernels attributes {
    objects = #hal.executable.objects<{
      #cpu = [#hal.executable.object<{data = dense<[127, 69, 76, 70, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 62, 0]> : vector<20xi8>}>],
      #sm_80 = [#hal.executable.object<{path = "kernels.ptx"}>]
    }>
  } {
    hal.executable.export public @mul ordinal(0)
        layout(#hal.pipeline.layout<constants = 0, bindings = [#hal.pipeline.binding<storage_buffer>]>)
  }
}
