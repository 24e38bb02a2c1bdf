// Dispatches in several blocks and across calls, on every device (the
// executable has CPU, CUDA and Vulkan objects: one SPIR-V module per export):
// each block records and submits its own command buffer, a tensor crosses a
// call as a buffer view, and an in-place dispatch writes into the buffer the
// callee returned.
// RUN: %kiln-compile %s --target=%kiln_targets --object-search-path=%e2e_kernels_dir -o %t.kmod
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=chain --input="3xf32=1 2 3" --input="3xf32=4 5 6" --input=1 | FileCheck %s --check-prefix=MUL
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=chain --input="3xf32=1 2 3" --input="3xf32=4 5 6" --input=0 | FileCheck %s --check-prefix=ADD
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=rows --input=8xf32=2 --input=8xf32=3 | FileCheck %s --check-prefix=ROWS
// More elements than one workgroup of every export (2, 1 and 64 wide), exactly:
// (a + b) * a = (0.5 + 0.25) * 0.5.
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=chain --input=1000xf32=0.5 --input=1000xf32=0.25 --input=0 --expected_output=1000xf32=0.375 | FileCheck %s --check-prefix=LARGE

// (a * b) * a and (a + b) * a for a = 1 2 3, b = 4 5 6.
// MUL: EXEC @chain
// MUL-NEXT: result[0]: hal.buffer_view
// MUL-NEXT: 3xf32=4 20 54
// ADD: 3xf32=5 14 27
// ROWS: 2x4xf32=[6 6 6 6][6 6 6 6]
// LARGE: [SUCCESS]

#x86_64 = #hal.executable.target<"llvm-cpu", "system-elf-x86_64">
#cuda_sm75 = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_75"}>
#vulkan = #hal.executable.target<"vulkan-spirv", "vulkan-spirv-fb">

module {
  hal.executable.source private @executable attributes {
    objects = #hal.executable.objects<{
      #x86_64 = [#hal.executable.object<{path = "dispatch_test_kernels.so"}>],
      #cuda_sm75 = [#hal.executable.object<{path = "dispatch_test_kernels_sm_75.ptx"}>],
      #vulkan = [#hal.executable.object<{path = "simple_mul.spv"}>,
                 #hal.executable.object<{path = "simple_add.spv"}>,
                 #hal.executable.object<{path = "simple_mul_inplace.spv"}>]
    }>
  } {
    hal.executable.export public @simple_mul ordinal(0)
        layout(#hal.pipeline.layout<constants = 1, bindings = [
          #hal.pipeline.binding<storage_buffer, ReadOnly>,
          #hal.pipeline.binding<storage_buffer, ReadOnly>,
          #hal.pipeline.binding<storage_buffer>
        ]>) count(%device: !hal.device, %workload: index) -> (index, index, index) {
      %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 2)>()[%workload]
      %c1 = arith.constant 1 : index
      hal.return %x, %c1, %c1 : index, index, index
    } attributes {workgroup_size = [2, 1, 1]}
    hal.executable.export public @simple_add ordinal(1)
        layout(#hal.pipeline.layout<constants = 1, bindings = [
          #hal.pipeline.binding<storage_buffer, ReadOnly>,
          #hal.pipeline.binding<storage_buffer, ReadOnly>,
          #hal.pipeline.binding<storage_buffer>
        ]>) count(%device: !hal.device, %workload: index) -> (index, index, index) {
      %c1 = arith.constant 1 : index
      hal.return %workload, %c1, %c1 : index, index, index
    } attributes {workgroup_size = [1, 1, 1]}
    hal.executable.export public @simple_mul_inplace ordinal(2)
        layout(#hal.pipeline.layout<constants = 1, bindings = [
          #hal.pipeline.binding<storage_buffer, ReadOnly>,
          #hal.pipeline.binding<storage_buffer>
        ]>) count(%device: !hal.device, %workload: index) -> (index, index, index) {
      %x = affine.apply affine_map<()[s0] -> ((s0 + 63) floordiv 64)>()[%workload]
      %c1 = arith.constant 1 : index
      hal.return %x, %c1, %c1 : index, index, index
    } attributes {workgroup_size = [64, 1, 1]}
  }

  // a * b or a + b: a dispatch in each successor block.
  func.func private @pick(%a: tensor<?xf32>, %b: tensor<?xf32>, %mul: i1) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %a, %c0 : tensor<?xf32>
    %n_i32 = arith.index_cast %n : index to i32
    cf.cond_br %mul, ^product, ^sum
  ^product:
    %0 = flow.dispatch @executable::@simple_mul[%n](%n_i32, %a, %b) : (i32, tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> tensor<?xf32>{%n}
    return %0 : tensor<?xf32>
  ^sum:
    %1 = flow.dispatch @executable::@simple_add[%n](%n_i32, %a, %b) : (i32, tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> tensor<?xf32>{%n}
    return %1 : tensor<?xf32>
  }

  func.func @chain(%a: tensor<?xf32>, %b: tensor<?xf32>, %mul: i1) -> tensor<?xf32> {
    %p = call @pick(%a, %b, %mul) : (tensor<?xf32>, tensor<?xf32>, i1) -> tensor<?xf32>
    %c0 = arith.constant 0 : index
    %n = tensor.dim %p, %c0 : tensor<?xf32>
    %n_i32 = arith.index_cast %n : index to i32
    %0 = flow.dispatch @executable::@simple_mul_inplace[%n](%n_i32, %a, %p) : (i32, tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> %p{%n}
    return %0 : tensor<?xf32>
  }

  // A 2-D result over 1-D operands: rows = n / 4 (a dynamic and a static dim).
  func.func @rows(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?x4xf32> {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %n = tensor.dim %a, %c0 : tensor<?xf32>
    %rows = arith.divui %n, %c4 : index
    %n_i32 = arith.index_cast %n : index to i32
    %0 = flow.dispatch @executable::@simple_mul[%n](%n_i32, %a, %b) : (i32, tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> tensor<?x4xf32>{%rows}
    return %0 : tensor<?x4xf32>
  }
}
