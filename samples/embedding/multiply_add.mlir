// The program kiln-embedding-tensors-sample runs: two dispatches of the
// hand-written CPU kernels of samples/custom_dispatch/cpu (kernels.so) on
// tensors the host application passes in.
//
//   multiply_add(a, b) = a * b + b
//
// Built by CMake: kiln-compile multiply_add.mlir
//   --object-search-path=<dir of kernels.so> -o multiply_add.kmod

#x86_64_target = #hal.executable.target<"llvm-cpu", "system-elf-x86_64">

#cpu_device = #hal.device.target<"local", [#x86_64_target]> : !hal.device

module @embedding attributes {hal.device.targets = [#cpu_device]} {

  hal.executable.source private @kernels attributes {
    objects = #hal.executable.objects<{
      #x86_64_target = [
        #hal.executable.object<{path = "kernels.so"}>
      ]
    }>
  } {
    // binding2 = binding0 * binding1; constant 0 is the element count.
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

    // binding2 = binding0 + binding1.
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
  }

  func.func @multiply_add(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %a, %c0 : tensor<?xf32>
    %n_i32 = arith.index_cast %n : index to i32
    %product = flow.dispatch @kernels::@simple_mul[%n](%n_i32, %a, %b) : (i32, tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> tensor<?xf32>{%n}
    %sum = flow.dispatch @kernels::@simple_add[%n](%n_i32, %product, %b) : (i32, tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> tensor<?xf32>{%n}
    return %sum : tensor<?xf32>
  }
}
