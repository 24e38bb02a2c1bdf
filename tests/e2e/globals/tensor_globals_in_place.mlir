// A hand-written dispatch that writes its second operand in place
// (simple_mul_inplace: inout = inout * lhs), given tensor globals and a host
// constant: an immutable global's buffer and a constant's are never written
// (the dispatch writes a copy, every call sees the original values), a
// mutable global's buffer is written in place and stays the global's value.
// Memoized command buffers replay with each call's buffers.
// RUN: %kiln-compile %s --target=%kiln_targets --object-search-path=%e2e_kernels_dir -o %t.kmod
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=twice --input="4xf32=2 2 2 2" | FileCheck %s --match-full-lines
// RUN: %kiln-compile %s --target=%kiln_targets --object-search-path=%e2e_kernels_dir --memoize-command-buffers=false -o %t.oneshot.kmod
// RUN: %kiln-run-module --device=%device --module=%t.oneshot.kmod --function=twice --input="4xf32=2 2 2 2" | FileCheck %s --match-full-lines

// Each call: w * x = 2 4 6 8 and c * x = 20 40 60 80 from the unchanged
// values; acc = acc * x in place: 2, then 4.
// CHECK: EXEC @twice
// CHECK-NEXT: result[0]: hal.buffer_view
// CHECK-NEXT: 4xf32=2 4 6 8
// CHECK-NEXT: result[1]: hal.buffer_view
// CHECK-NEXT: 4xf32=2 4 6 8
// CHECK-NEXT: result[2]: hal.buffer_view
// CHECK-NEXT: 4xf32=20 40 60 80
// CHECK-NEXT: result[3]: hal.buffer_view
// CHECK-NEXT: 4xf32=20 40 60 80
// CHECK-NEXT: result[4]: hal.buffer_view
// CHECK-NEXT: 4xf32=1 2 3 4
// CHECK-NEXT: result[5]: hal.buffer_view
// CHECK-NEXT: 4xf32=4 4 4 4

#x86_64 = #hal.executable.target<"llvm-cpu", "system-elf-x86_64">
#cuda_sm75 = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_75"}>
#vulkan = #hal.executable.target<"vulkan-spirv", "vulkan-spirv-fb">

module {
  hal.executable.source private @executable attributes {
    objects = #hal.executable.objects<{
      #x86_64 = [#hal.executable.object<{path = "dispatch_test_kernels.so"}>],
      #cuda_sm75 = [#hal.executable.object<{path = "dispatch_test_kernels_sm_75.ptx"}>],
      #vulkan = [#hal.executable.object<{path = "simple_mul_inplace.spv"}>]
    }>
  } {
    hal.executable.export public @simple_mul_inplace ordinal(0)
        layout(#hal.pipeline.layout<constants = 1, bindings = [
          #hal.pipeline.binding<storage_buffer, ReadOnly>,
          #hal.pipeline.binding<storage_buffer>
        ]>) count(%device: !hal.device, %workload: index) -> (index, index, index) {
      %x = affine.apply affine_map<()[s0] -> ((s0 + 63) floordiv 64)>()[%workload]
      %c1 = arith.constant 1 : index
      hal.return %x, %c1, %c1 : index, index, index
    } attributes {workgroup_size = [64, 1, 1]}
  }

  util.global private @w = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  util.global private mutable @acc = dense<1.0> : tensor<4xf32>

  func.func private @step(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
    %c4 = arith.constant 4 : index
    %n = arith.constant 4 : i32
    %w = util.global.load @w : tensor<4xf32>
    %wx = flow.dispatch @executable::@simple_mul_inplace[%c4](%n, %x, %w) : (i32, tensor<4xf32>, tensor<4xf32>) -> %w
    %c = arith.constant dense<[10.0, 20.0, 30.0, 40.0]> : tensor<4xf32>
    %cx = flow.dispatch @executable::@simple_mul_inplace[%c4](%n, %x, %c) : (i32, tensor<4xf32>, tensor<4xf32>) -> %c
    %acc = util.global.load @acc : tensor<4xf32>
    %ax = flow.dispatch @executable::@simple_mul_inplace[%c4](%n, %x, %acc) : (i32, tensor<4xf32>, tensor<4xf32>) -> %acc
    util.global.store %ax, @acc : tensor<4xf32>
    return %wx, %cx : tensor<4xf32>, tensor<4xf32>
  }

  func.func @twice(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
    %wx1, %cx1 = call @step(%x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
    %wx2, %cx2 = call @step(%x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
    %w = util.global.load @w : tensor<4xf32>
    %acc = util.global.load @acc : tensor<4xf32>
    return %wx1, %wx2, %cx1, %cx2, %w, %acc : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  }
}
