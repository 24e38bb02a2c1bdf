// An executable left without a binary for the selected targets is an error
// at each dispatch to it, not at the executable: one that nothing dispatches
// needs no variant.
// RUN: not %kiln-opt %s --kiln-serialize-executables=targets=vulkan 2>&1 | FileCheck %s
// With cuda, @unused (CPU objects only) is left without a binary, and no
// error: nothing dispatches to it.
// RUN: %kiln-opt %s --kiln-serialize-executables=targets=cuda --mlir-elide-elementsattrs-if-larger=8 | FileCheck %s --check-prefix=CUDA
// CHECK: serialize_executables_no_variant.mlir:[[@LINE+22]]:10: error: dispatch to executable '@executable', which has no variant for the selected targets
// CHECK-NOT: error:
// CUDA: hal.executable.binary public @cuda_nvptx_fb
// CUDA: hal.executable private @unused {
// CUDA-NEXT: hal.executable.export public @mul

#cpu = #hal.executable.target<"llvm-cpu", "system-elf-x86_64">
#sm_80 = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_80"}>
#layout = #hal.pipeline.layout<constants = 0, bindings = [#hal.pipeline.binding<storage_buffer>]>

module {
  hal.executable.source private @executable attributes {
    objects = #hal.executable.objects<{#sm_80 = [#hal.executable.object<{path = "Inputs/kernels.ptx"}>]}>
  } {
    hal.executable.export public @mul ordinal(0) layout(#layout)
  }
  hal.executable.source private @unused attributes {
    objects = #hal.executable.objects<{#cpu = [#hal.executable.object<{data = dense<[127, 69, 76, 70, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 62, 0]> : vector<20xi8>}>]}>
  } {
    hal.executable.export public @mul ordinal(0) layout(#layout)
  }
  func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
    %0 = flow.dispatch @executable::@mul(%a) : (tensor<4xf32>) -> %a
    return %0 : tensor<4xf32>
  }
}
