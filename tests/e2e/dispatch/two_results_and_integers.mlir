// Several results from one dispatch, static and dynamic shapes, 2-D integer
// tensors (wrapping at 32 bits), two push constants, and a module that runs
// the same executable from two functions; on every device.
// RUN: %kiln-compile %s --target=%kiln_targets --object-search-path=%e2e_kernels_dir -o %t.kmod
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=mul_add --input="4xf32=1 2 3 4" --input=4xf32=10 | FileCheck %s --check-prefix=MULADD
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=scale --input="2x3xi32=[[1 2 3][4 5 6]]" --input=i32=-3 | FileCheck %s --check-prefix=SCALE
// RUN: %if device-cpu %{ %kiln-run-module --device=cpu-sync --module=%t.kmod --function=scale --input="2x3xi32=[[1 2 3][4 5 6]]" --input=i32=-3 | FileCheck %s --check-prefix=SCALE %}
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=scale --input="2x3xi32=1 2 3 4 5 6" --input=i32=7 --expected_output="2x3xi32=7 14 21 28 35 42" | FileCheck %s --check-prefix=EXPECTED
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=scale --input="2x3xi32=2147483647 -2147483648 65536 -1 0 3" --input=i32=65537 | FileCheck %s --check-prefix=WRAP

// MULADD: EXEC @mul_add
// MULADD-NEXT: result[0]: hal.buffer_view
// MULADD-NEXT: 4xf32=10 20 30 40
// MULADD-NEXT: result[1]: hal.buffer_view
// MULADD-NEXT: 4xf32=11 12 13 14

// SCALE: EXEC @scale
// SCALE-NEXT: result[0]: hal.buffer_view
// SCALE-NEXT: 2x3xi32=[-3 -6 -9][-12 -15 -18]

// EXPECTED: [SUCCESS]

// x * 65537 mod 2^32, as signed: 2147483647 -> 2147418111, -2^31 -> -2^31,
// 65536 -> 65536 (2^32 + 2^16 wraps), -1 -> -65537.
// WRAP: 2x3xi32=[2147418111 -2147483648 65536][-65537 0 196611]

#x86_64 = #hal.executable.target<"llvm-cpu", "system-elf-x86_64">
#cuda_sm75 = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_75"}>
#vulkan = #hal.executable.target<"vulkan-spirv", "vulkan-spirv-fb">

module {
  hal.executable.source private @kernels attributes {
    objects = #hal.executable.objects<{
      #x86_64 = [#hal.executable.object<{path = "dispatch_test_kernels.so"}>],
      #cuda_sm75 = [#hal.executable.object<{path = "dispatch_test_kernels_sm_75.ptx"}>],
      #vulkan = [#hal.executable.object<{path = "mul_add.spv"}>,
                 #hal.executable.object<{path = "scale_i32.spv"}>]
    }>
  } {
    hal.executable.export public @mul_add ordinal(0)
        layout(#hal.pipeline.layout<constants = 1, bindings = [
          #hal.pipeline.binding<storage_buffer, ReadOnly>,
          #hal.pipeline.binding<storage_buffer, ReadOnly>,
          #hal.pipeline.binding<storage_buffer>,
          #hal.pipeline.binding<storage_buffer>
        ]>) count(%device: !hal.device, %workload: index) -> (index, index, index) {
      %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 2)>()[%workload]
      %c1 = arith.constant 1 : index
      hal.return %x, %c1, %c1 : index, index, index
    } attributes {workgroup_size = [2, 1, 1]}
    hal.executable.export public @scale_i32 ordinal(1)
        layout(#hal.pipeline.layout<push_constants = 2, sets = [<0, bindings = [
          <0, storage_buffer, ReadOnly>, <1, storage_buffer>]>]>)
        attributes {workgroup_size = [4 : index, 1 : index, 1 : index]} {
    ^bb0(%device: !hal.device, %rows: index, %cols: index):
      %x = affine.apply affine_map<()[s0, s1] -> ((s0 * s1) ceildiv 4)>()[%rows, %cols]
      %c1 = arith.constant 1 : index
      hal.return %x, %c1, %c1 : index, index, index
    }
  }

  func.func @mul_add(%lhs: tensor<?xf32>, %rhs: tensor<4xf32>) -> (tensor<?xf32>, tensor<4xf32>) {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %lhs, %c0 : tensor<?xf32>
    %n_i32 = arith.index_cast %n : index to i32
    %results:2 = flow.dispatch @kernels::@mul_add[%n](%n_i32, %lhs, %rhs) : (i32, tensor<?xf32>{%n}, tensor<4xf32>) -> (tensor<?xf32>{%n}, tensor<4xf32>)
    return %results#0, %results#1 : tensor<?xf32>, tensor<4xf32>
  }

  func.func @scale(%in: tensor<2x3xi32>, %factor: i32) -> tensor<2x3xi32> {
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c6 = arith.constant 6 : i32
    %out = flow.dispatch @kernels::@scale_i32[%c2, %c3](%c6, %factor, %in) : (i32, i32, tensor<2x3xi32>) -> tensor<2x3xi32>
    return %out : tensor<2x3xi32>
  }
}
