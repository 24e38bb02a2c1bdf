// Recording a memoized command buffer: a dispatch whose workgroup count has a
// zero (an empty tensor) records nothing and the call succeeds; a recording
// that fails is an error of the call that recorded it.
// REQUIRES: device-cpu
// RUN: %kiln-compile %s --object-search-path=%cpu_kernels_dir -o %t.kmod
// RUN: %kiln-compile %s --object-search-path=%cpu_kernels_dir --output-format=mlir -o - | FileCheck %s --check-prefix=IR
//
// A workload of 0 gives 0 x 1 x 1 workgroups: the in-place dispatch is
// skipped, so its operand comes back unchanged (b, not a * b), exit 0.
// RUN: %kiln-run-module --device=cpu --module=%t.kmod --function=empty --input=4xf32=3 --input=4xf32=2 | FileCheck %s --check-prefix=EMPTY
// RUN: %kiln-run-module --device=cpu-sync --module=%t.kmod --function=empty --input=4xf32=3 --input=4xf32=2 | FileCheck %s --check-prefix=EMPTY
// EMPTY:      EXEC @empty
// EMPTY-NEXT: result[0]: hal.buffer_view
// EMPTY-NEXT: 4xf32=2 2 2 2
//
// A negative workload (-1 x 1 x 1 workgroups) makes the recording fail: the
// error is located at the dispatch in the recording function, called from
// the call's submit point (both checked next to the dispatch below). The
// memoized global is only stored after a recording succeeds.
// RUN: not %kiln-run-module --device=cpu --module=%t.kmod --function=negative --input=4xf32=1 --input=4xf32=2 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not %kiln-run-module --device=cpu-sync --module=%t.kmod --function=negative --input=4xf32=1 --input=4xf32=2 2>&1 | FileCheck %s --check-prefix=NEGATIVE
//
// Both functions are memoized: their dispatches are in recording functions,
// with their constant workgroup counts.
// IR-LABEL: vm.func @empty(
// IR:         vm.call @__hal_record_command_buffer_{{[0-9]+}}()
// IR:         vm.call.import @hal.device.queue.execute.indirect(
// IR-LABEL: vm.func @negative(
// IR:         vm.call @__hal_record_command_buffer_{{[0-9]+}}()
// IR:         vm.call.import @hal.device.queue.execute.indirect(
// IR-LABEL: vm.func private @__hal_record_command_buffer_{{[0-9]+}}()
// IR-DAG:     %[[ZERO:[0-9]+]] = vm.const.i32 0 {{.*}}: i32
// IR-DAG:     %[[ONE:[0-9]+]] = vm.const.i32 1 {{.*}}: i32
// IR:         vm.call.import @hal.command_buffer.dispatch.indirect(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %[[ZERO]], %[[ONE]], %[[ONE]], {{.+}}) {dispatch = @executable::@simple_mul_inplace}
// IR-LABEL: vm.func private @__hal_record_command_buffer_{{[0-9]+}}()
// IR-DAG:     %[[MINUS_ONE:[0-9]+]] = vm.const.i32 -1 {{.*}}: i32
// IR-DAG:     %[[ONE:[0-9]+]] = vm.const.i32 1 {{.*}}: i32
// IR:         vm.call.import @hal.command_buffer.dispatch.indirect(%{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %[[MINUS_ONE]], %[[ONE]], %[[ONE]], {{.+}}) {dispatch = @executable::@simple_mul}

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
    hal.executable.export public @simple_mul_inplace ordinal(1)
        layout(#hal.pipeline.layout<constants = 1, bindings = [
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
    %0 = flow.dispatch @executable::@simple_mul_inplace[%c0](%n, %a, %b) : (i32, tensor<4xf32>, tensor<4xf32>) -> %b
    return %0 : tensor<4xf32>
  }

  // The workload is -1, so the count region gives -1 x 1 x 1 workgroups.
  func.func @negative(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
    %c-1 = arith.constant -1 : index
    %n = arith.constant 4 : i32
    // NEGATIVE:      error: function 'module.__hal_record_command_buffer_{{[0-9]+}}' at bytecode offset {{[0-9]+}} ({{.*}}recording_error.mlir:[[# @LINE + 2]]:10): import 'hal.command_buffer.dispatch.indirect' failed: argument 3 (workgroup count): -1 is negative
    // NEGATIVE-NEXT: called from function 'module.negative' at bytecode offset {{[0-9]+}} ({{.*}}recording_error.mlir:[[# @LINE + 1]]:10)
    %0 = flow.dispatch @executable::@simple_mul[%c-1](%n, %a, %b) : (i32, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
