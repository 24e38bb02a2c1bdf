// Several results from one dispatch, static and dynamic shapes, 2-D integer
// tensors, a scalar constant operand, and a module that runs the same
// executable from two functions.




#cpu = #hal.executable.target<"llvm-cpu", "system-elf-x86_64">

module {
  hal.executable.source private @kernels attributes {
    objects = #hal.executable.objects<{#cpu = [#hal.executable.object<{path = "dispatch_test_kernels.so"}>]}>
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
