// --kiln-serialize-executables reports every executable it cannot
// serialize, at the executable, naming the target and object at fault.
// RUN: not %kiln-opt %s --kiln-serialize-executables=object-search-paths=%S/nowhere,%S/Inputs 2>&1 | FileCheck %s
// RUN: not %kiln-opt %s --kiln-serialize-executables=targets=cuda,metal 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: error: unknown target 'metal' (targets: cpu, cuda, vulkan)

#cpu = #hal.executable.target<"llvm-cpu", "system-elf-x86_64">
#sm_80 = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_80"}>
#vulkan = #hal.executable.target<"vulkan-spirv", "vulkan-spirv-fb">
#metal = #hal.executable.target<"metal-spirv", "metal-msl-fb">
#layout = #hal.pipeline.layout<constants = 0, bindings = [#hal.pipeline.binding<storage_buffer>]>

// A relative path is looked up in the .mlir file's directory, then in each
// search path; the error names every directory searched.
// CHECK: serialize_executables_invalid.mlir:[[@LINE+1]]:1: error: executable 'missing': executable object 'missing.ptx' not found; searched: {{.*}}targets, {{.*}}targets/nowhere, {{.*}}targets/Inputs
hal.executable.source private @missing attributes {
  objects = #hal.executable.objects<{#sm_80 = [#hal.executable.object<{path = "missing.ptx"}>]}>
} {
  hal.executable.export public @mul ordinal(0) layout(#layout)
}

// Each export's kernel is the PTX entry named like it (found through the
// search path here).
// CHECK: serialize_executables_invalid.mlir:[[@LINE+1]]:1: error: CUDA object '{{.*}}Inputs/kernels.ptx' has no kernel '.entry sub' for export @sub
hal.executable.source private @no_kernel attributes {
  objects = #hal.executable.objects<{#sm_80 = [#hal.executable.object<{path = "kernels.ptx"}>]}>
} {
  hal.executable.export public @sub ordinal(0) layout(#layout)
}

// A declared workgroup size must be the SPIR-V entry point's LocalSize.
// CHECK: serialize_executables_invalid.mlir:[[@LINE+1]]:1: error: executable 'wrong_size' target "vulkan-spirv", "vulkan-spirv-fb": export @mul declares workgroup_size [64, 1, 1] but its SPIR-V entry point 'main' in Vulkan object 'inline data' has LocalSize [1, 1, 1]
hal.executable.source private @wrong_size attributes {
  objects = #hal.executable.objects<{#vulkan = [#hal.executable.object<{data = dense<[3, 2, 35, 7, 0, 0, 1, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 15, 0, 5, 0, 5, 0, 0, 0, 1, 0, 0, 0, 109, 97, 105, 110, 0, 0, 0, 0, 16, 0, 6, 0, 1, 0, 0, 0, 17, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0]> : vector<64xi8>}>]}>
} {
  hal.executable.export public @mul ordinal(0) layout(#layout) attributes {workgroup_size = [64 : index, 1 : index, 1 : index]}
}

// A CPU object must be a shared object of the format's machine.
// CHECK: serialize_executables_invalid.mlir:[[@LINE+1]]:1: error: executable 'wrong_machine' target "llvm-cpu", "system-elf-x86_64": CPU object 'inline data' was built for ELF machine 183, not x86_64
hal.executable.source private @wrong_machine attributes {
  objects = #hal.executable.objects<{#cpu = [#hal.executable.object<{data = dense<[127, 69, 76, 70, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 183, 0]> : vector<20xi8>}>]}>
} {
  hal.executable.export public @mul ordinal(0) layout(#layout)
}

// Inline data is bytes.
// CHECK: serialize_executables_invalid.mlir:[[@LINE+1]]:1: error: executable 'words': inline object data must be dense<[...]> : vector<Nxi8>, got 'vector<2xi32>'
hal.executable.source private @words attributes {
  objects = #hal.executable.objects<{#cpu = [#hal.executable.object<{data = dense<[1, 2]> : vector<2xi32>}>]}>
} {
  hal.executable.export public @mul ordinal(0) layout(#layout)
}

// A backend kiln has no driver for.
// CHECK: serialize_executables_invalid.mlir:[[@LINE+1]]:1: error: executable 'metal': target backend 'metal-spirv' has no kiln driver (backends: llvm-cpu, cuda, vulkan-spirv)
hal.executable.source private @metal attributes {
  objects = #hal.executable.objects<{#metal = [#hal.executable.object<{path = "kernels.metal"}>]}>
} {
  hal.executable.export public @mul ordinal(0) layout(#layout)
}
// CHECK-NOT: error:
