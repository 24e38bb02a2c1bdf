// A dispatch whose operands do not match the export's pipeline layout is a
// compile error at the dispatch.
// REQUIRES: device-cpu
// RUN: not %kiln-compile %s --object-search-path=%e2e_kernels_dir -o %t.kmod 2>&1 | FileCheck %s
// CHECK: binding_count_mismatch.mlir:[[# @LINE + 22]]:{{[0-9]+}}: error: {{.*}}binding

#cpu = #hal.executable.target<"llvm-cpu", "system-elf-x86_64">

module {
  hal.executable.source private @kernels attributes {
    objects = #hal.executable.objects<{#cpu = [#hal.executable.object<{path = "dispatch_test_kernels.so"}>]}>
  } {
    hal.executable.export public @mul_add ordinal(0)
        layout(#hal.pipeline.layout<constants = 1, bindings = [
          #hal.pipeline.binding<storage_buffer, ReadOnly>,
          #hal.pipeline.binding<storage_buffer, ReadOnly>,
          #hal.pipeline.binding<storage_buffer>,
          #hal.pipeline.binding<storage_buffer>
        ]>) count(%device: !hal.device, %workload: index) -> (index, index, index) {
      %c1 = arith.constant 1 : index
      hal.return %workload, %c1, %c1 : index, index, index
    }
  }
  func.func @run(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
    %c4 = arith.constant 4 : index
    %c4_i32 = arith.constant 4 : i32
    %out = flow.dispatch @kernels::@mul_add[%c4](%c4_i32, %a, %b) : (i32, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    return %out : tensor<4xf32>
  }
}
