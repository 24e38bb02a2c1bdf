// The custom-dispatch workflow (seed 004) for CUDA: objects per target, an
// export in each layout spelling and count-region form, dispatches with a
// push constant, a tied (in-place) result, and tensors of dynamic size.
// REQUIRES: device-cpu
// RUN: %kiln-compile %s --object-search-path=%S/Inputs/objects --mlir-print-ir-after=kiln-hal-memoize-command-buffers -o %t.kmod 2>&1 | FileCheck %s
// RUN: %kiln-dump-module %t.kmod | FileCheck %s --check-prefix=DUMP

#nvptx_sm_52_target = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_52"}>
#nvptx_sm_80_target = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_80"}>
#cuda = #hal.device.target<"cuda", [#nvptx_sm_52_target, #nvptx_sm_80_target]> : !hal.device

module @example attributes {hal.device.targets = [#cuda]} {
  hal.executable.source private @executable attributes {
    objects = #hal.executable.objects<{
      #nvptx_sm_52_target = [#hal.executable.object<{path = "kernels_sm_52.ptx"}>],
      #nvptx_sm_80_target = [#hal.executable.object<{path = "Inputs/kernels_sm_80.ptx"}>]
    }>
  } {
    hal.executable.export public @simple_mul ordinal(0)
        layout(#hal.pipeline.layout<push_constants = 1, sets = [
          <0, bindings = [
            <0, storage_buffer, ReadOnly>,
            <1, storage_buffer, ReadOnly>,
            <2, storage_buffer>
          ]>
        ]>) attributes {workgroup_size = [64 : index, 1 : index, 1 : index]} {
    ^bb0(%device: !hal.device, %workload: index):
      %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%workload]
      %c1 = arith.constant 1 : index
      hal.return %x, %c1, %c1 : index, index, index
    }
    hal.executable.export public @simple_mul_inplace ordinal(1)
        layout(#hal.pipeline.layout<constants = 1, bindings = [
          #hal.pipeline.binding<storage_buffer, ReadOnly>,
          #hal.pipeline.binding<storage_buffer>
        ]>) count(%device: !hal.device, %workload: index) -> (index, index, index) {
      %x = affine.apply affine_map<()[s0] -> ((s0 + 63) floordiv 64)>()[%workload]
      %c1 = arith.constant 1 : index
      hal.return %x, %c1, %c1 : index, index, index
    } attributes {workgroup_size = [64, 1, 1]}
  }

  func.func @mixed_invocation(%arg0: tensor<?xf32>, %arg1: tensor<?xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %dim = tensor.dim %arg0, %c0 : tensor<?xf32>
    %dim_i32 = arith.index_cast %dim : index to i32
    %0 = flow.dispatch @executable::@simple_mul[%dim](%dim_i32, %arg0, %arg1) : (i32, tensor<?xf32>{%dim}, tensor<?xf32>{%dim}) -> tensor<?xf32>{%dim}
    %1 = flow.dispatch @executable::@simple_mul_inplace[%dim](%dim_i32, %0, %arg1) : (i32, tensor<?xf32>{%dim}, tensor<?xf32>{%dim}) -> %arg1{%dim}
    return %1 : tensor<?xf32>
  }
}

// The host-level IR (typed hal ops, before the conversion to the VM):
// CHECK-LABEL: func.func @mixed_invocation(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view) -> !hal.buffer_view attributes {kiln.abi_type = (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>} {
// CHECK-DAG:     %[[F32:.+]] = arith.constant 536870944 : i32
// CHECK-DAG:     %[[DYN:.+]] = arith.constant -1 : index
// CHECK-DAG:     %[[C64:.+]] = arith.constant 64 : index
// CHECK:         %[[DEV:.+]] = util.global.load immutable @__hal_device : !hal.device
// CHECK:         %[[ALLOC:.+]] = hal.device.allocator<%[[DEV]] : !hal.device> : !hal.allocator
// CHECK:         %[[EXE:.+]] = util.global.load immutable @__hal_executable_executable : !hal.executable
// CHECK:         hal.buffer_view.assert<%arg0 : !hal.buffer_view> message("argument 0 of @mixed_invocation") shape([%[[DYN]]]) type(%[[F32]])
// CHECK:         %[[BUF0:.+]] = hal.buffer_view.buffer<%arg0 : !hal.buffer_view> : !hal.buffer
// CHECK:         %[[DIM:.+]] = hal.buffer_view.dim<%arg0 : !hal.buffer_view>[0] : index
// CHECK:         hal.buffer_view.assert<%arg1 : !hal.buffer_view> message("argument 1 of @mixed_invocation")
// CHECK:         %[[BUF1:.+]] = hal.buffer_view.buffer<%arg1 : !hal.buffer_view> : !hal.buffer
// CHECK:         %[[N:.+]] = arith.index_cast %[[DIM]] : index to i32
// The workgroup count: ceildiv(%dim, 64), as --lower-affine expands it.
// CHECK:         arith.divsi %{{.+}}, %[[C64]] : index
// CHECK:         %[[X:.+]] = arith.select
// CHECK:         %[[LEN:.+]] = arith.muli %[[DIM]], %{{.+}} : index
// %arg1's size is checked against %arg0's dim (item 6), %arg0's holds by construction.
// CHECK:         hal.buffer.assert<%[[BUF1]] : !hal.buffer> message("@mixed_invocation: operand 2 (tensor<?xf32>) of the dispatch of @executable::@simple_mul at {{.*}}cuda_dispatch.mlir:47:10") minimum_length(%[[LEN]])
// CHECK:         %[[OUT:.+]] = hal.allocator.allocate<%[[ALLOC]] : !hal.allocator> type(%{{.+}}) usage(%{{.+}}) : !hal.buffer{%[[LEN]]}
// CHECK:         %[[CMD:.+]] = hal.command_buffer.create device(%[[DEV]] : !hal.device) mode(OneShot) : !hal.command_buffer
// CHECK:         hal.command_buffer.dispatch<%[[CMD]] : !hal.command_buffer> target(%[[EXE]] : !hal.executable)[%{{.+}}] workgroups([%[[X]], %{{.+}}, %{{.+}}]) constants([%[[N]]]) bindings([
// CHECK-NEXT:      (%[[BUF0]] : !hal.buffer)[%{{.+}}, %[[LEN]]],
// CHECK-NEXT:      (%[[BUF1]] : !hal.buffer)[%{{.+}}, %[[LEN]]],
// CHECK-NEXT:      (%[[OUT]] : !hal.buffer)[%{{.+}}, %[[LEN]]]
// CHECK-NEXT:    ]) attributes {dispatch = @executable::@simple_mul}
// The in-place dispatch reads what the first one wrote: a barrier first.
// CHECK:         hal.command_buffer.execution_barrier<%[[CMD]] : !hal.command_buffer>
// CHECK-NEXT:    hal.command_buffer.dispatch<%[[CMD]] : !hal.command_buffer> target(%[[EXE]] : !hal.executable)[%{{.+}}] workgroups([%{{.+}}, %{{.+}}, %{{.+}}]) constants([%[[N]]]) bindings([
// CHECK-NEXT:      (%[[OUT]] : !hal.buffer)[%{{.+}}, %[[LEN]]],
// CHECK-NEXT:      (%[[BUF1]] : !hal.buffer)[%{{.+}}, %[[LEN]]]
// CHECK-NEXT:    ]) attributes {dispatch = @executable::@simple_mul_inplace}
// CHECK-NEXT:    hal.command_buffer.finalize<%[[CMD]] : !hal.command_buffer>
// CHECK-NEXT:    %[[FENCE:.+]] = hal.fence.create device(%[[DEV]] : !hal.device) : !hal.fence
// CHECK-NEXT:    hal.device.queue.execute<%[[DEV]] : !hal.device> signal(%[[FENCE]]) commands(%[[CMD]])
// CHECK-NEXT:    hal.fence.await until([%[[FENCE]]]) timeout_millis(%{{.+}})
// CHECK-NEXT:    %[[VIEW:.+]] = hal.buffer_view.create buffer(%[[BUF1]] : !hal.buffer) shape([%[[DIM]]]) type(%[[F32]]) : !hal.buffer_view
// CHECK-NEXT:    return %[[VIEW]] : !hal.buffer_view
// CHECK-LABEL: util.initializer {
// CHECK:         %[[D:.+]] = hal.devices.get %{{.+}} : !hal.device
// CHECK:         util.global.store %[[D]], @__hal_device : !hal.device
// CHECK:         %[[E:.+]] = hal.executable.create device(%[[D]] : !hal.device) target(@executable) : !hal.executable
// CHECK:         util.global.store %[[E]], @__hal_executable_executable : !hal.executable

// DUMP:      imports:
// DUMP-DAG:    hal.devices.get (i32) -> (ref)
// DUMP-DAG:    hal.executable.load (ref, ref, ref, ref) -> (ref)
// DUMP-DAG:    hal.buffer_view.assert (ref, ref, i32, i64) -> ()
// DUMP-DAG:    hal.command_buffer.dispatch (ref, ref, i32, i32, i32, i32, i32, i32, ref, i64, i64, ref, i64, i64, ref, i64, i64) -> ()
// DUMP-DAG:    hal.command_buffer.dispatch (ref, ref, i32, i32, i32, i32, i32, i32, ref, i64, i64, ref, i64, i64) -> ()
// DUMP:      globals: 0 bytes, 2 refs, initializer function {{[0-9]+}} '__initializer'
// DUMP:      executables: 1
// DUMP-NEXT:   @executable
// DUMP-NEXT:     variant cuda cuda-nvptx-fb target_arch = [sm_52, sm_80]: {{[0-9]+}} bytes in rodata [{{[0-9]+}}]
// DUMP:          export 0 @simple_mul workgroup_size [64, 1, 1] layout #hal.pipeline.layout<constants = 1
// DUMP:          export 1 @simple_mul_inplace workgroup_size [64, 1, 1] layout #hal.pipeline.layout<constants = 1
// DUMP:          dispatch of @simple_mul in function 0 'mixed_invocation' at offset {{[0-9]+}} ({{.*}}cuda_dispatch.mlir:47:10)
// DUMP-NEXT:     dispatch of @simple_mul_inplace in function 0 'mixed_invocation' at offset {{[0-9]+}} ({{.*}}cuda_dispatch.mlir:48:10)
