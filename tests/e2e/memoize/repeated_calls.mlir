// One memoized function called several times in one invocation, each time
// with different buffers (arguments swapped, earlier results, one buffer
// twice): the command buffer recorded by the first call is replayed with
// each call's binding table, and every result is exact. @segments has two
// memoized segments around a call of @f.
// REQUIRES: device-cpu
// RUN: %kiln-compile %s --object-search-path=%cpu_kernels_dir -o %t.kmod
// RUN: %kiln-compile %s --object-search-path=%cpu_kernels_dir --output-format=mlir -o - | FileCheck %s --check-prefix=IR
// RUN: %kiln-run-module --device=cpu --module=%t.kmod --function=calls --input="4xf32=1 2 3 4" --input="4xf32=1 1 2 2" | FileCheck %s --check-prefix=CALLS
// RUN: %kiln-run-module --device=cpu-sync --module=%t.kmod --function=calls --input="4xf32=1 2 3 4" --input="4xf32=1 1 2 2" | FileCheck %s --check-prefix=CALLS
// RUN: %kiln-run-module --device=cpu --module=%t.kmod --function=segments --input="4xf32=1 2 3 4" --input="4xf32=1 1 2 2" | FileCheck %s --check-prefix=SEGMENTS
// RUN: %kiln-run-module --device=cpu-sync --module=%t.kmod --function=segments --input="4xf32=1 2 3 4" --input="4xf32=1 1 2 2" | FileCheck %s --check-prefix=SEGMENTS
// RUN: %kiln-compile %s --object-search-path=%cpu_kernels_dir --memoize-command-buffers=false -o %t.oneshot.kmod
// RUN: %kiln-run-module --device=cpu --module=%t.oneshot.kmod --function=calls --input="4xf32=1 2 3 4" --input="4xf32=1 1 2 2" | FileCheck %s --check-prefix=CALLS
// RUN: %kiln-run-module --device=cpu-sync --module=%t.oneshot.kmod --function=segments --input="4xf32=1 2 3 4" --input="4xf32=1 1 2 2" | FileCheck %s --check-prefix=SEGMENTS

// f(a, b) = (a * b + b) * (a * b), for a = 1 2 3 4, b = 1 1 2 2:
//   f(a, b) = 2 6 48 80; f(b, a) = 2 8 54 96;
//   f(f(a, b), b) = 6 42 9408 25920; f(a, a) = 2 24 108 320.
// CALLS: EXEC @calls
// CALLS-NEXT: result[0]: hal.buffer_view
// CALLS-NEXT: 4xf32=2 6 48 80
// CALLS-NEXT: result[1]: hal.buffer_view
// CALLS-NEXT: 4xf32=2 8 54 96
// CALLS-NEXT: result[2]: hal.buffer_view
// CALLS-NEXT: 4xf32=6 42 9408 25920
// CALLS-NEXT: result[3]: hal.buffer_view
// CALLS-NEXT: 4xf32=2 24 108 320

// p = a * b = 1 2 6 8; q = f(p, b) = 2 6 168 288; q + p = 3 8 174 296.
// SEGMENTS: EXEC @segments
// SEGMENTS-NEXT: result[0]: hal.buffer_view
// SEGMENTS-NEXT: 4xf32=3 8 174 296

// IR-LABEL: vm.func @f(
// IR:         vm.global.load.ref @[[F:__hal_command_buffer_[0-9]+]] {{.*}}: !vm.ref<!hal.command_buffer>
// IR:         vm.call @[[RECORD_F:__hal_record_command_buffer_[0-9]+]]()
// IR:         vm.call.import @hal.device.queue.execute.indirect(%{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}) :
// IR-LABEL: vm.func @calls(
// IR-NOT:     command_buffer
// IR-COUNT-4: vm.call @f(
// IR-NOT:     command_buffer
// IR-LABEL: vm.func @segments(
// IR:         vm.global.load.ref @[[FIRST:__hal_command_buffer_[0-9]+]] {{.*}}: !vm.ref<!hal.command_buffer>
// IR:         vm.call @[[RECORD_FIRST:__hal_record_command_buffer_[0-9]+]]()
// IR:         vm.call.import @hal.device.queue.execute.indirect(%{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}) :
// IR:         vm.call @f(
// IR:         vm.global.load.ref @[[SECOND:__hal_command_buffer_[0-9]+]] {{.*}}: !vm.ref<!hal.command_buffer>
// IR:         vm.call @[[RECORD_SECOND:__hal_record_command_buffer_[0-9]+]]()
// IR:         vm.call.import @hal.device.queue.execute.indirect(%{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}) :
// IR-DAG:   vm.func private @[[RECORD_F]]()
// IR-DAG:   vm.func private @[[RECORD_FIRST]]()
// IR-DAG:   vm.func private @[[RECORD_SECOND]]()
// IR-DAG:   vm.global.ref mutable @[[F]] {sym_visibility = "private"} : !vm.ref<!hal.command_buffer>
// IR-DAG:   vm.global.ref mutable @[[FIRST]] {sym_visibility = "private"} : !vm.ref<!hal.command_buffer>
// IR-DAG:   vm.global.ref mutable @[[SECOND]] {sym_visibility = "private"} : !vm.ref<!hal.command_buffer>

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
      hal.return %c1, %c1, %c1 : index, index, index
    } attributes {workgroup_size = [64, 1, 1]}
    hal.executable.export public @simple_add ordinal(1)
        layout(#hal.pipeline.layout<constants = 1, bindings = [
          #hal.pipeline.binding<storage_buffer, ReadOnly>,
          #hal.pipeline.binding<storage_buffer, ReadOnly>,
          #hal.pipeline.binding<storage_buffer>
        ]>) count(%device: !hal.device, %workload: index) -> (index, index, index) {
      %c1 = arith.constant 1 : index
      hal.return %c1, %c1, %c1 : index, index, index
    } attributes {workgroup_size = [64, 1, 1]}
    hal.executable.export public @simple_mul_inplace ordinal(2)
        layout(#hal.pipeline.layout<constants = 1, bindings = [
          #hal.pipeline.binding<storage_buffer, ReadOnly>,
          #hal.pipeline.binding<storage_buffer>
        ]>) count(%device: !hal.device, %workload: index) -> (index, index, index) {
      %c1 = arith.constant 1 : index
      hal.return %c1, %c1, %c1 : index, index, index
    } attributes {workgroup_size = [64, 1, 1]}
  }

  func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
    %c4 = arith.constant 4 : index
    %n = arith.constant 4 : i32
    %0 = flow.dispatch @executable::@simple_mul[%c4](%n, %a, %b) : (i32, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %1 = flow.dispatch @executable::@simple_add[%c4](%n, %0, %b) : (i32, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %2 = flow.dispatch @executable::@simple_mul_inplace[%c4](%n, %0, %1) : (i32, tensor<4xf32>, tensor<4xf32>) -> %1
    return %2 : tensor<4xf32>
  }

  func.func @calls(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
    %r0 = call @f(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %r1 = call @f(%b, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %r2 = call @f(%r0, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %r3 = call @f(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    return %r0, %r1, %r2, %r3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  }

  func.func @segments(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
    %c4 = arith.constant 4 : index
    %n = arith.constant 4 : i32
    %p = flow.dispatch @executable::@simple_mul[%c4](%n, %a, %b) : (i32, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %q = call @f(%p, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %s = flow.dispatch @executable::@simple_add[%c4](%n, %q, %p) : (i32, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    return %s : tensor<4xf32>
  }
}
