// A chain of ten dependent dispatches in one static block (the shape
// kiln-benchmark-module times to compare memoized and one-shot command
// buffers): recorded once with nine barriers, replayed per call with the
// three buffers as slots. a * b^10 for b = 2 is a * 1024.
// REQUIRES: device-cpu
// RUN: %kiln-compile %s --object-search-path=%cpu_kernels_dir -o %t.kmod
// RUN: %kiln-compile %s --object-search-path=%cpu_kernels_dir --output-format=mlir -o - | FileCheck %s --check-prefix=IR
// RUN: %kiln-run-module --device=cpu --module=%t.kmod --function=chain --input="16xf32=1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16" --input=16xf32=2 | FileCheck %s --check-prefix=RESULT
// RUN: %kiln-run-module --device=cpu-sync --module=%t.kmod --function=chain --input="16xf32=1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16" --input=16xf32=2 | FileCheck %s --check-prefix=RESULT
// RUN: %kiln-compile %s --object-search-path=%cpu_kernels_dir --memoize-command-buffers=false -o %t.oneshot.kmod
// RUN: %kiln-run-module --device=cpu-sync --module=%t.oneshot.kmod --function=chain --input="16xf32=1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16" --input=16xf32=2 | FileCheck %s --check-prefix=RESULT
//
// Timing it (cpu-sync, per call):
//   kiln-benchmark-module --device=cpu-sync --module=chain.kmod --function=chain \
//       --input=16xf32=1 --input=16xf32=2 --benchmark_repetitions=5

// RESULT: result[0]: hal.buffer_view
// RESULT-NEXT: 16xf32=1024 2048 3072 4096 5120 6144 7168 8192 9216 10240 11264 12288 13312 14336 15360 16384

// IR-LABEL: vm.func @chain(
// IR-NOT:     vm.call.import @hal.command_buffer.
// IR:         vm.call.import @hal.device.queue.execute.indirect(%{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}) :
// IR-NEXT:    vm.call.import @hal.fence.await(
// IR-NOT:     vm.call.import @hal.command_buffer.
// IR:         vm.return
// IR-LABEL: vm.func private @__hal_record_command_buffer_0()
// IR:         %[[CB:[0-9]+]] = vm.call.import @hal.command_buffer.create(
// IR-NEXT:    %[[EXE:[0-9]+]] = vm.global.load.ref @__hal_executable_executable
// The first dispatch binds three slots (a, b, the result), each in-place one two (b, the result):
// IR-NEXT:    vm.call.import @hal.command_buffer.dispatch.indirect(%[[CB]], %[[EXE]], %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) {dispatch = @executable::@simple_mul}
// Then nine times a barrier and the in-place dispatch:
// IR-NEXT:    vm.call.import @hal.command_buffer.execution_barrier(%[[CB]])
// IR-NEXT:    vm.call.import @hal.command_buffer.dispatch.indirect(%[[CB]], %[[EXE]], %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) {dispatch = @executable::@simple_mul_inplace}
// IR-NEXT:    vm.call.import @hal.command_buffer.execution_barrier(%[[CB]])
// IR-NEXT:    vm.call.import @hal.command_buffer.dispatch.indirect(%[[CB]], %[[EXE]], %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) {dispatch = @executable::@simple_mul_inplace}
// IR-NEXT:    vm.call.import @hal.command_buffer.execution_barrier(%[[CB]])
// IR-NEXT:    vm.call.import @hal.command_buffer.dispatch.indirect(%[[CB]], %[[EXE]], %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) {dispatch = @executable::@simple_mul_inplace}
// IR-NEXT:    vm.call.import @hal.command_buffer.execution_barrier(%[[CB]])
// IR-NEXT:    vm.call.import @hal.command_buffer.dispatch.indirect(%[[CB]], %[[EXE]], %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) {dispatch = @executable::@simple_mul_inplace}
// IR-NEXT:    vm.call.import @hal.command_buffer.execution_barrier(%[[CB]])
// IR-NEXT:    vm.call.import @hal.command_buffer.dispatch.indirect(%[[CB]], %[[EXE]], %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) {dispatch = @executable::@simple_mul_inplace}
// IR-NEXT:    vm.call.import @hal.command_buffer.execution_barrier(%[[CB]])
// IR-NEXT:    vm.call.import @hal.command_buffer.dispatch.indirect(%[[CB]], %[[EXE]], %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) {dispatch = @executable::@simple_mul_inplace}
// IR-NEXT:    vm.call.import @hal.command_buffer.execution_barrier(%[[CB]])
// IR-NEXT:    vm.call.import @hal.command_buffer.dispatch.indirect(%[[CB]], %[[EXE]], %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) {dispatch = @executable::@simple_mul_inplace}
// IR-NEXT:    vm.call.import @hal.command_buffer.execution_barrier(%[[CB]])
// IR-NEXT:    vm.call.import @hal.command_buffer.dispatch.indirect(%[[CB]], %[[EXE]], %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) {dispatch = @executable::@simple_mul_inplace}
// IR-NEXT:    vm.call.import @hal.command_buffer.execution_barrier(%[[CB]])
// IR-NEXT:    vm.call.import @hal.command_buffer.dispatch.indirect(%[[CB]], %[[EXE]], %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}, %{{[0-9]+}}) {dispatch = @executable::@simple_mul_inplace}
// IR-NEXT:    vm.call.import @hal.command_buffer.end(%[[CB]])

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
      %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%workload]
      %c1 = arith.constant 1 : index
      hal.return %x, %c1, %c1 : index, index, index
    } attributes {workgroup_size = [64, 1, 1]}
    hal.executable.export public @simple_mul_inplace ordinal(1)
        layout(#hal.pipeline.layout<constants = 1, bindings = [
          #hal.pipeline.binding<storage_buffer, ReadOnly>,
          #hal.pipeline.binding<storage_buffer>
        ]>) count(%device: !hal.device, %workload: index) -> (index, index, index) {
      %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%workload]
      %c1 = arith.constant 1 : index
      hal.return %x, %c1, %c1 : index, index, index
    } attributes {workgroup_size = [64, 1, 1]}
  }

  func.func @chain(%a: tensor<16xf32>, %b: tensor<16xf32>) -> tensor<16xf32> {
    %c16 = arith.constant 16 : index
    %n = arith.constant 16 : i32
    %t0 = flow.dispatch @executable::@simple_mul[%c16](%n, %a, %b) : (i32, tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %t1 = flow.dispatch @executable::@simple_mul_inplace[%c16](%n, %b, %t0) : (i32, tensor<16xf32>, tensor<16xf32>) -> %t0
    %t2 = flow.dispatch @executable::@simple_mul_inplace[%c16](%n, %b, %t1) : (i32, tensor<16xf32>, tensor<16xf32>) -> %t1
    %t3 = flow.dispatch @executable::@simple_mul_inplace[%c16](%n, %b, %t2) : (i32, tensor<16xf32>, tensor<16xf32>) -> %t2
    %t4 = flow.dispatch @executable::@simple_mul_inplace[%c16](%n, %b, %t3) : (i32, tensor<16xf32>, tensor<16xf32>) -> %t3
    %t5 = flow.dispatch @executable::@simple_mul_inplace[%c16](%n, %b, %t4) : (i32, tensor<16xf32>, tensor<16xf32>) -> %t4
    %t6 = flow.dispatch @executable::@simple_mul_inplace[%c16](%n, %b, %t5) : (i32, tensor<16xf32>, tensor<16xf32>) -> %t5
    %t7 = flow.dispatch @executable::@simple_mul_inplace[%c16](%n, %b, %t6) : (i32, tensor<16xf32>, tensor<16xf32>) -> %t6
    %t8 = flow.dispatch @executable::@simple_mul_inplace[%c16](%n, %b, %t7) : (i32, tensor<16xf32>, tensor<16xf32>) -> %t7
    %t9 = flow.dispatch @executable::@simple_mul_inplace[%c16](%n, %b, %t8) : (i32, tensor<16xf32>, tensor<16xf32>) -> %t8
    return %t9 : tensor<16xf32>
  }
}
