// Compile-time errors of executables and dispatches, each with its location.
// REQUIRES: device-cpu
// RUN: not %kiln-compile %s -o %t.kmod 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: {{.*}}'no_such_object.so' not found; searched: {{.*}}dispatch
//
// RUN: not %kiln-compile %s --object-search-path=%t.nowhere --object-search-path=%e2e_kernels_dir -o %t.kmod 2>&1 | FileCheck %s --check-prefix=MISSING2
// MISSING2: error: {{.*}}'no_such_object.so' not found; searched: {{.*}}dispatch, {{.*}}.nowhere, {{.*}}
//
// RUN: not %kiln-compile %s --target=rocm -o %t.kmod 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: error: {{.*}}unknown target 'rocm' (targets: cpu, cuda, vulkan)

#cpu = #hal.executable.target<"llvm-cpu", "system-elf-x86_64">

module {
  hal.executable.source private @kernels attributes {
    objects = #hal.executable.objects<{#cpu = [#hal.executable.object<{path = "no_such_object.so"}>]}>
  } {
    hal.executable.export public @k ordinal(0)
        layout(#hal.pipeline.layout<constants = 0, bindings = [
          #hal.pipeline.binding<storage_buffer>
        ]>) count(%device: !hal.device, %workload: index) -> (index, index, index) {
      %c1 = arith.constant 1 : index
      hal.return %c1, %c1, %c1 : index, index, index
    }
  }

  func.func @run(%in: tensor<4xf32>) -> tensor<4xf32> {
    %c4 = arith.constant 4 : index
    %out = flow.dispatch @kernels::@k[%c4](%in) : (tensor<4xf32>) -> %in
    return %out : tensor<4xf32>
  }
}
