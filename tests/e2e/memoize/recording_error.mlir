// A recording that fails (here a dispatch of zero workgroups, which the HAL
// rejects when it is recorded) is an error of the call that recorded it,
// located at the dispatch in the recording function, called from the call's
// submit point (checked next to the dispatch below). The memoized global is
// only stored after a recording succeeds.
// REQUIRES: device-cpu
// RUN: %kiln-compile %s --object-search-path=%cpu_kernels_dir -o %t.kmod
// RUN: not %kiln-run-module --device=cpu --module=%t.kmod --function=empty --input=4xf32=1 --input=4xf32=2 2>&1 | FileCheck %s
// RUN: not %kiln-run-module --device=cpu-sync --module=%t.kmod --function=empty --input=4xf32=1 --input=4xf32=2 2>&1 | FileCheck %s

#cpu = #hal.executable.target<"llvm-cpu", "system-elf-x86_64">

module {
  hal.executable.source private @executable attributes {
    objects = #hal.executable.objects<{#cpu = [#hal.executable.object<{path = "kernels.so"}>]}>
  } {
    hal.executable.export public @simple_mul ordinal(0)
        layout(#hal.pipeline.layout<constants = 1, bindings = [
          #hal.pipeline.binding<storage_buffer, ReadOnly>,
          #hal.pipeline.binding<storage_buffer, ReadOnly>,
          #hal.pipeline.binding<storage_buffer>
        ]>) count(%device: !hal.device, %workload: index) -> (index, index, index) {
      %c1 = arith.constant 1 : index
      hal.return %workload, %c1, %c1 : index, index, index
    } attributes {workgroup_size = [64, 1, 1]}
  }

  // The workload is 0, so the count region gives 0 x 1 x 1 workgroups.
  func.func @empty(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
    %c0 = arith.constant 0 : index
    %n = arith.constant 4 : i32
    // CHECK: error: function 'module.__hal_record_command_buffer_0' at bytecode offset {{[0-9]+}} ({{.*}}recording_error.mlir:[[# @LINE + 1]]:5): import 'hal.command_buffer.dispatch.indirect' failed: Dispatch of 'simple_mul': workgroup count (0, 1, 1) has a zero component (each must be >= 1)
    %0 = flow.dispatch @executable::@simple_mul[%c0](%n, %a, %b) : (i32, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    // CHECK-NEXT: called from function 'module.empty' at bytecode offset {{[0-9]+}} ({{.*}}recording_error.mlir:[[# @LINE + 1]]:5)
    return %0 : tensor<4xf32>
  }
}
