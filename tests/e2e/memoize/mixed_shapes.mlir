// Static and dynamic shapes in one module: the static function's command
// buffer is memoized, the dynamic one (its workgroup count and constant come
// from tensor.dim of an argument) is recorded on every call as before. Both
// compute the same.
// REQUIRES: device-cpu
// RUN: %kiln-compile %s --object-search-path=%cpu_kernels_dir -o %t.kmod
// RUN: %kiln-compile %s --object-search-path=%cpu_kernels_dir --output-format=mlir -o - | FileCheck %s --check-prefix=IR
// RUN: %kiln-run-module --device=cpu --module=%t.kmod --function=static_mul --input="4xf32=1 2 3 4" --input="4xf32=5 6 7 8" | FileCheck %s --check-prefix=RESULT
// RUN: %kiln-run-module --device=cpu-sync --module=%t.kmod --function=dynamic_mul --input="4xf32=1 2 3 4" --input="4xf32=5 6 7 8" | FileCheck %s --check-prefix=RESULT

// RESULT: result[0]: hal.buffer_view
// RESULT-NEXT: 4xf32=5 12 21 32

// IR-LABEL: vm.func @static_mul(
// IR:         vm.call @__hal_record_command_buffer_0()
// IR:         vm.call.import @hal.device.queue.execute.indirect(
// IR-LABEL: vm.func @dynamic_mul(
// IR-NOT:     __hal_record_command_buffer
// IR:         %[[CB:[0-9]+]] = vm.call.import @hal.command_buffer.create(%{{[^,]+}}, %{{[^,]+}})
// IR:         vm.call.import @hal.command_buffer.dispatch(%[[CB]], {{.+}}) {dispatch = @executable::@simple_mul}
// IR:         vm.call.import @hal.command_buffer.end(%[[CB]])
// IR:         vm.call.import @hal.device.queue.execute(%{{.+}}, %{{.+}}, %{{.+}}, %[[CB]])
// IR-NOT:     indirect
// IR:         vm.return
// IR-LABEL: vm.func private @__hal_record_command_buffer_0()
// IR-NOT:   __hal_record_command_buffer_1

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
  }

  func.func @static_mul(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
    %c4 = arith.constant 4 : index
    %n = arith.constant 4 : i32
    %0 = flow.dispatch @executable::@simple_mul[%c4](%n, %a, %b) : (i32, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }

  func.func @dynamic_mul(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %d = tensor.dim %a, %c0 : tensor<?xf32>
    %n = arith.index_cast %d : index to i32
    %0 = flow.dispatch @executable::@simple_mul[%d](%n, %a, %b) : (i32, tensor<?xf32>{%d}, tensor<?xf32>{%d}) -> tensor<?xf32>{%d}
    return %0 : tensor<?xf32>
  }
}
