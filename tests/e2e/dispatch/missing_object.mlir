// A relative object path is looked up in the .mlir file's directory, then in
// each --object-search-path; when it is in none, the error (at the
// executable) names the path and every directory searched.
// REQUIRES: device-cpu
// RUN: not %kiln-compile %s --object-search-path=%S/nowhere --object-search-path=%S/Inputs -o %t.kmod 2>&1 | FileCheck %s
// CHECK: missing_object.mlir:[[@LINE+7]]:3: error: executable 'executable': executable object 'kernels_sm_90.ptx' not found; searched: {{.*}}dispatch, {{.*}}dispatch/nowhere, {{.*}}dispatch/Inputs
// CHECK-NOT: error:

#sm_90 = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_90"}>

module {
  // The found object comes first: only the missing one is reported.
  hal.executable.source private @executable attributes {
    objects = #hal.executable.objects<{
      #sm_90 = [#hal.executable.object<{path = "kernels_sm_90.ptx"}>]
    }>
  } {
    hal.executable.export public @simple_mul ordinal(0)
        layout(#hal.pipeline.layout<constants = 0, bindings = [
          #hal.pipeline.binding<storage_buffer>]>)
  }
  func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
    %0 = flow.dispatch @executable::@simple_mul(%a) : (tensor<4xf32>) -> %a
    return %0 : tensor<4xf32>
  }
}
