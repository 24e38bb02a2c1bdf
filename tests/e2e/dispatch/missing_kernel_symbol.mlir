// An export whose kernel is not in the shared object fails when the module is
// loaded, naming the symbol.
// REQUIRES: device-cpu
// RUN: %kiln-compile %s --object-search-path=%e2e_kernels_dir -o %t.kmod
// RUN: not %kiln-run-module --module=%t.kmod --function=run --input=4xf32=1 2>&1 | FileCheck %s
// CHECK: error: {{.*}}'kernels'{{.*}}no_such_kernel

#cpu = #hal.executable.target<"llvm-cpu", "system-elf-x86_64">

module {
  hal.executable.source private @kernels attributes {
    objects = #hal.executable.objects<{#cpu = [#hal.executable.object<{path = "dispatch_test_kernels.so"}>]}>
  } {
    hal.executable.export public @no_such_kernel ordinal(0)
        layout(#hal.pipeline.layout<constants = 0, bindings = [
          #hal.pipeline.binding<storage_buffer>
        ]>) count(%device: !hal.device, %workload: index) -> (index, index, index) {
      %c1 = arith.constant 1 : index
      hal.return %c1, %c1, %c1 : index, index, index
    }
  }

  func.func @run(%in: tensor<4xf32>) -> tensor<4xf32> {
    %c4 = arith.constant 4 : index
    %out = flow.dispatch @kernels::@no_such_kernel[%c4](%in) : (tensor<4xf32>) -> %in
    return %out : tensor<4xf32>
  }
}
