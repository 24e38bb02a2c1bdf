// Custom dispatch of hand-authored Vulkan compute shaders (simple_mul.glsl,
// simple_mul_inplace.glsl and simple_mul_instrumented.glsl, compiled by glslc
// to .spv files of the same names). The workflow of IREE's Vulkan
// custom-dispatch sample: each SPIR-V module is the one object of its own
// executable, its GLSL `main` is the export @main, and the pipeline layout
// says how dispatch operands map to set 0 bindings and push constants.
//
//   kiln-compile example.mlir --object-search-path=<dir of the .spv files> -o example.kmod
//   kiln-run-module --device=vulkan --module=example.kmod --function=mixed_invocation \
//       --input=8xf32=2 --input=8xf32=4
//   kiln-run-module --device=vulkan --module=example.kmod --function=instrumented_mul \
//       --input=1000xf32=2 --input=1000xf32=4 --instrument_file=mul.kins
//   kiln-dump-instruments mul.kins

#spirv_target = #hal.executable.target<"vulkan-spirv", "vulkan-spirv-fb">

#vulkan_device = #hal.device.target<"vulkan", [#spirv_target]> : !hal.device

module @example attributes {hal.device.targets = [#vulkan_device]} {

  // ret = lhs * rhs
  hal.executable.source private @executable_a attributes {
    objects = #hal.executable.objects<{
      #spirv_target = [
        #hal.executable.object<{path = "simple_mul.spv"}>
      ]
    }>
  } {
    hal.executable.export public @main ordinal(0)
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
  }

  // rhs *= lhs, in place.
  hal.executable.source private @executable_b attributes {
    objects = #hal.executable.objects<{
      #spirv_target = [
        #hal.executable.object<{path = "simple_mul_inplace.spv"}>
      ]
    }>
  } {
    hal.executable.export public @main ordinal(0)
        layout(#hal.pipeline.layout<constants = 1, bindings = [
          #hal.pipeline.binding<storage_buffer, ReadOnly>,
          #hal.pipeline.binding<storage_buffer>
        ]>) count(%device: !hal.device, %workload: index) -> (index, index, index) {
      %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%workload]
      %c1 = arith.constant 1 : index
      hal.return %x, %c1, %c1 : index, index, index
    } attributes {workgroup_size = [64 : index, 1 : index, 1 : index]}
  }

  // ret = lhs * rhs, recording one entry per workgroup into the context's
  // instrumentation ring. The Instrumentation binding (set 0, binding 3) and
  // the push constant after `dim` are the ring and the dispatch site's id:
  // the program's flow.dispatch passes neither, kiln binds the ring and
  // passes the id.
  hal.executable.source private @executable_c attributes {
    objects = #hal.executable.objects<{
      #spirv_target = [
        #hal.executable.object<{path = "simple_mul_instrumented.spv"}>
      ]
    }>
  } {
    hal.executable.export public @main ordinal(0)
        layout(#hal.pipeline.layout<constants = 2, bindings = [
          #hal.pipeline.binding<storage_buffer, ReadOnly>,
          #hal.pipeline.binding<storage_buffer, ReadOnly>,
          #hal.pipeline.binding<storage_buffer>,
          #hal.pipeline.binding<storage_buffer, Instrumentation>
        ]>) attributes {workgroup_size = [64 : index, 1 : index, 1 : index]} {
    ^bb0(%device: !hal.device, %workload: index):
      %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%workload]
      %c1 = arith.constant 1 : index
      hal.return %x, %c1, %c1 : index, index, index
    }
  }

  // Computes (arg0 * arg1 + arg1) * (arg0 * arg1): 96 for arg0 = 2, arg1 = 4.
  func.func @mixed_invocation(%arg0: tensor<?xf32>, %arg1: tensor<?xf32>) -> tensor<?xf32> {
    // Kernels take primitive operands as 32-bit push constants.
    %c0 = arith.constant 0 : index
    %dim = tensor.dim %arg0, %c0 : tensor<?xf32>
    %dim_i32 = arith.index_cast %dim : index to i32

    // ret = lhs * rhs
    %0 = flow.dispatch @executable_a::@main[%dim](%dim_i32, %arg0, %arg1) : (i32, tensor<?xf32>{%dim}, tensor<?xf32>{%dim}) -> tensor<?xf32>{%dim}

    // Code that kiln generates a kernel for (SPIR-V), between the shaders.
    %1 = arith.addf %0, %arg1 : tensor<?xf32>

    // rhs *= lhs, in place: the result is %1's storage.
    %2 = flow.dispatch @executable_b::@main[%dim](%dim_i32, %0, %1) : (i32, tensor<?xf32>{%dim}, tensor<?xf32>{%dim}) -> %1{%dim}

    return %2 : tensor<?xf32>
  }

  // lhs * rhs by the instrumented shader: run with --instrument_file=FILE,
  // then kiln-dump-instruments FILE counts one record per workgroup.
  func.func @instrumented_mul(%lhs: tensor<?xf32>, %rhs: tensor<?xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %dim = tensor.dim %lhs, %c0 : tensor<?xf32>
    %dim_i32 = arith.index_cast %dim : index to i32
    %0 = flow.dispatch @executable_c::@main[%dim](%dim_i32, %lhs, %rhs) : (i32, tensor<?xf32>{%dim}, tensor<?xf32>{%dim}) -> tensor<?xf32>{%dim}
    return %0 : tensor<?xf32>
  }
}
