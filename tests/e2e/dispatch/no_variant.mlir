// --target=vulkan leaves the CUDA-only executable without a variant: each
// dispatch to it is an error at the dispatch (its op name, where MLIR locates it). With --target=cuda (a comma
// list or repeated flags; unknown ones are errors) it compiles.
// REQUIRES: device-cpu
// RUN: not %kiln-compile %s --target=vulkan -o %t.kmod 2>&1 | FileCheck %s
// RUN: %kiln-compile %s --target=cpu,vulkan --target=cuda -o %t.kmod
// RUN: %kiln-dump-module %t.kmod | FileCheck %s --check-prefix=DUMP
// CHECK: no_variant.mlir:[[@LINE+17]]:10: error: dispatch to executable '@executable', which has no variant for the selected targets
// CHECK-NOT: error:
// DUMP: variant cuda cuda-nvptx-fb target_arch = [sm_80]:

#sm_80 = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_80"}>

module {
  hal.executable.source private @executable attributes {
    objects = #hal.executable.objects<{
      #sm_80 = [#hal.executable.object<{path = "Inputs/kernels_sm_80.ptx"}>]
    }>
  } {
    hal.executable.export public @simple_mul_inplace ordinal(0)
        layout(#hal.pipeline.layout<constants = 0, bindings = [
          #hal.pipeline.binding<storage_buffer>]>)
  }
  func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
    %0 = flow.dispatch @executable::@simple_mul_inplace(%a) : (tensor<4xf32>) -> %a
    return %0 : tensor<4xf32>
  }
}
