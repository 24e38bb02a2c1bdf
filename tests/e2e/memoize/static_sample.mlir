// The custom-dispatch sample with static shapes: its three dispatches (a
// barrier before each one that reads the previous result) are recorded once,
// on the first call, into a reusable command buffer kept in a global, and
// each call submits it with its own buffers. Run on both CPU devices, with
// and without memoization (--memoize-command-buffers=false records on every
// call); the results are the same.
// REQUIRES: device-cpu
// RUN: %kiln-compile %s --object-search-path=%cpu_kernels_dir --print-ir-after-lowering -o %t.kmod | FileCheck %s --check-prefix=IR
// RUN: %kiln-run-module --device=cpu --module=%t.kmod --function=mixed_invocation --input="8xf32=1 2 3 4 5 6 7 8" --input=8xf32=4 | FileCheck %s --check-prefix=RESULT
// RUN: %kiln-run-module --device=cpu-sync --module=%t.kmod --function=mixed_invocation --input="8xf32=1 2 3 4 5 6 7 8" --input=8xf32=4 | FileCheck %s --check-prefix=RESULT
// RUN: %kiln-dump-module %t.kmod | FileCheck %s --check-prefix=DUMP
// The lowered IR is itself a program: compiled again (nothing left to
// memoize), it computes the same.
// RUN: %kiln-compile %s --object-search-path=%cpu_kernels_dir --print-ir-after-lowering -o %t.kmod > %t.lowered.mlir
// RUN: %kiln-compile %t.lowered.mlir --print-ir-after-lowering -o %t.again.kmod | FileCheck %s --check-prefix=AGAIN
// RUN: %kiln-run-module --device=cpu-sync --module=%t.again.kmod --function=mixed_invocation --input="8xf32=1 2 3 4 5 6 7 8" --input=8xf32=4 | FileCheck %s --check-prefix=RESULT
// RUN: %kiln-compile %s --object-search-path=%cpu_kernels_dir --memoize-command-buffers=false --print-ir-after-lowering -o %t.oneshot.kmod | FileCheck %s --check-prefix=ONESHOT
// RUN: %kiln-run-module --device=cpu --module=%t.oneshot.kmod --function=mixed_invocation --input="8xf32=1 2 3 4 5 6 7 8" --input=8xf32=4 | FileCheck %s --check-prefix=RESULT
// RUN: %kiln-run-module --device=cpu-sync --module=%t.oneshot.kmod --function=mixed_invocation --input="8xf32=1 2 3 4 5 6 7 8" --input=8xf32=4 | FileCheck %s --check-prefix=RESULT

// (a * b + b) * (a * b) for b = 4: (4a + 4) * 4a.
// RESULT: EXEC @mixed_invocation
// RESULT-NEXT: result[0]: hal.buffer_view
// RESULT-NEXT: 8xf32=32 96 192 320 480 672 896 1152

// The function: the allocations stay; at the submit point the global is
// loaded, recorded if null, and submitted with a, b and the two results as
// binding-table slots 0-3.
// IR-LABEL: func.func @mixed_invocation(
// IR-NOT:     hal.command_buffer.
// IR:         %[[A:.+]] = call @hal.buffer_view.buffer(%arg0)
// IR:         %[[B:.+]] = call @hal.buffer_view.buffer(%arg1)
// IR:         %[[T0:.+]] = call @hal.allocator.allocate(
// IR:         %[[T1:.+]] = call @hal.allocator.allocate(
// IR:         %[[FENCE:.+]] = call @hal.fence.create(%[[DEVICE:.+]]) :
// IR:         %[[NULL:.+]] = "vm.const.ref.null"() : () -> !hal.fence
// IR:         %[[CACHED:.+]] = util.global.load @__hal_command_buffer_0 : !hal.command_buffer
// IR:         %[[EMPTY:.+]] = "vm.ref.is_null"(%[[CACHED]]) : (!hal.command_buffer) -> i1
// IR:         cf.cond_br %[[EMPTY]], ^[[RECORD:.+]], ^[[REUSE:[a-z0-9]+]]
// IR:       ^[[RECORD]]:
// IR-NEXT:    %[[NEW:.+]] = call @__hal_record_command_buffer_0() : () -> !hal.command_buffer
// IR-NEXT:    util.global.store %[[NEW]], @__hal_command_buffer_0 : !hal.command_buffer
// IR:         call @hal.device.queue.execute.indirect$rrrrrrrr_(%[[DEVICE]], %[[NULL]], %[[FENCE]], %{{.+}}, %[[A]], %[[B]], %[[T0]], %[[T1]])
// IR-NEXT:    call @hal.fence.await(%[[FENCE]],
// IR-NOT:     hal.command_buffer.
// IR:         return
// IR:       util.global private mutable @__hal_command_buffer_0 : !hal.command_buffer
// The recording: a reusable command buffer (mode 1), the three dispatches
// on slots (lhs, rhs, out), the barriers, end.
// IR-LABEL: func.func private @__hal_record_command_buffer_0() -> !hal.command_buffer {
// IR-DAG:     %[[ONE:.+]] = arith.constant 1 : i32
// IR-DAG:     %[[ZERO:.+]] = arith.constant 0 : i32
// IR-DAG:     %[[TWO:.+]] = arith.constant 2 : i32
// IR-DAG:     %[[THREE:.+]] = arith.constant 3 : i32
// IR-DAG:     %[[N:.+]] = arith.constant 8 : i32
// IR-DAG:     %[[OFFSET:.+]] = arith.constant 0 : i64
// IR-DAG:     %[[LENGTH:.+]] = arith.constant 32 : i64
// IR:         %[[CB:.+]] = call @hal.command_buffer.create(%{{.+}}, %[[ONE]])
// IR:         %[[EXE:.+]] = util.global.load @__hal_executable_executable : !hal.executable
// IR-NEXT:    call @hal.command_buffer.dispatch.indirect$rriiiiiiiIIiIIiII_(%[[CB]], %[[EXE]], %[[ZERO]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[N]], %[[ZERO]], %[[OFFSET]], %[[LENGTH]], %[[ONE]], %[[OFFSET]], %[[LENGTH]], %[[TWO]], %[[OFFSET]], %[[LENGTH]]) {dispatch = @executable::@simple_mul}
// IR-NEXT:    call @hal.command_buffer.execution_barrier(%[[CB]])
// IR-NEXT:    call @hal.command_buffer.dispatch.indirect$rriiiiiiiIIiIIiII_(%[[CB]], %[[EXE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[N]], %[[TWO]], %[[OFFSET]], %[[LENGTH]], %[[ONE]], %[[OFFSET]], %[[LENGTH]], %[[THREE]], %[[OFFSET]], %[[LENGTH]]) {dispatch = @executable::@simple_add}
// IR-NEXT:    call @hal.command_buffer.execution_barrier(%[[CB]])
// IR-NEXT:    call @hal.command_buffer.dispatch.indirect$rriiiiiiiIIiII_(%[[CB]], %[[EXE]], %[[TWO]], %[[ONE]], %[[ONE]], %[[ONE]], %[[ONE]], %[[N]], %[[TWO]], %[[OFFSET]], %[[LENGTH]], %[[THREE]], %[[OFFSET]], %[[LENGTH]]) {dispatch = @executable::@simple_mul_inplace}
// IR-NEXT:    call @hal.command_buffer.end(%[[CB]])
// IR-NEXT:    return %[[CB]] : !hal.command_buffer

// AGAIN:     util.global private mutable @__hal_command_buffer_0 : !hal.command_buffer
// AGAIN-NOT: __hal_command_buffer_1

// Without memoization: one one-shot command buffer per call.
// ONESHOT-LABEL: func.func @mixed_invocation(
// ONESHOT:         %[[CB:.+]] = call @hal.command_buffer.create(%{{.+}}, %{{.+}}) :
// ONESHOT-COUNT-3: call @hal.command_buffer.dispatch$
// ONESHOT:         call @hal.command_buffer.end(%[[CB]])
// ONESHOT:         call @hal.device.queue.execute(%{{.+}}, %{{.+}}, %{{.+}}, %[[CB]])
// ONESHOT-NOT:     indirect
// ONESHOT-NOT:     __hal_command_buffer

// Every dispatch site is listed, in the recording function, with its source
// location (checked next to each dispatch below), and the recording function
// calls the dispatch.indirect import (checked at the end).
// DUMP:      globals: 0 bytes, 3 refs, initializer function {{[0-9]+}} '__hal_initialize'
// DUMP:        @__hal_command_buffer_0 : !hal.command_buffer at ref slot {{[0-9]+}}

#x86_64_target = #hal.executable.target<"llvm-cpu", "system-elf-x86_64">

module @example {
  hal.executable.source private @executable attributes {
    objects = #hal.executable.objects<{#x86_64_target = [#hal.executable.object<{path = "kernels.so"}>]}>
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
    } attributes {workgroup_size = [64 : index, 1 : index, 1 : index]}
    hal.executable.export public @simple_add ordinal(1)
        layout(#hal.pipeline.layout<constants = 1, bindings = [
          #hal.pipeline.binding<storage_buffer, ReadOnly>,
          #hal.pipeline.binding<storage_buffer, ReadOnly>,
          #hal.pipeline.binding<storage_buffer>
        ]>) count(%device: !hal.device, %workload: index) -> (index, index, index) {
      %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%workload]
      %c1 = arith.constant 1 : index
      hal.return %x, %c1, %c1 : index, index, index
    } attributes {workgroup_size = [64 : index, 1 : index, 1 : index]}
    hal.executable.export public @simple_mul_inplace ordinal(2)
        layout(#hal.pipeline.layout<constants = 1, bindings = [
          #hal.pipeline.binding<storage_buffer, ReadOnly>,
          #hal.pipeline.binding<storage_buffer>
        ]>) count(%device: !hal.device, %workload: index) -> (index, index, index) {
      %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%workload]
      %c1 = arith.constant 1 : index
      hal.return %x, %c1, %c1 : index, index, index
    } attributes {workgroup_size = [64 : index, 1 : index, 1 : index]}
  }

  func.func @mixed_invocation(%arg0: tensor<8xf32>, %arg1: tensor<8xf32>) -> tensor<8xf32> {
    %c8 = arith.constant 8 : index
    %n = arith.constant 8 : i32
    // DUMP:      dispatch of @simple_mul in function {{[0-9]+}} '__hal_record_command_buffer_0' at offset {{[0-9]+}} ({{.*}}static_sample.mlir:[[# @LINE + 1]]:5)
    %0 = flow.dispatch @executable::@simple_mul[%c8](%n, %arg0, %arg1) : (i32, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    // DUMP-NEXT: dispatch of @simple_add in function {{[0-9]+}} '__hal_record_command_buffer_0' at offset {{[0-9]+}} ({{.*}}static_sample.mlir:[[# @LINE + 1]]:5)
    %1 = flow.dispatch @executable::@simple_add[%c8](%n, %0, %arg1) : (i32, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
    // DUMP-NEXT: dispatch of @simple_mul_inplace in function {{[0-9]+}} '__hal_record_command_buffer_0' at offset {{[0-9]+}} ({{.*}}static_sample.mlir:[[# @LINE + 1]]:5)
    %2 = flow.dispatch @executable::@simple_mul_inplace[%c8](%n, %0, %1) : (i32, tensor<8xf32>, tensor<8xf32>) -> %1
    return %2 : tensor<8xf32>
  }
}

// DUMP:      function {{[0-9]+}} '__hal_record_command_buffer_0'
// DUMP:        call.import @hal.command_buffer.create(
// DUMP-COUNT-3: call.import @hal.command_buffer.dispatch.indirect(
