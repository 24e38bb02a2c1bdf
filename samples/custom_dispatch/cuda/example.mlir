// Custom dispatch of hand-authored CUDA kernels (kernels.cu, compiled by nvcc
// to kernels_sm_75.ptx and kernels_sm_80.ptx). The workflow of IREE's CUDA
// custom-dispatch sample: declare one PTX object per target architecture,
// describe each export's pipeline layout and workgroup count (the CUDA grid;
// workgroup_size is the block size), and dispatch the exports on tensors. Both
// images go into one cuda-nvptx-fb executable; the CUDA driver loads the one
// that best matches the device.
//
//   kiln-compile example.mlir --object-search-path=<dir of the .ptx files> -o example.kmod
//   kiln-run-module --device=cuda --module=example.kmod --function=mixed_invocation \
//       --input=8xf32=2 --input=8xf32=4
//   kiln-run-module --device=cuda --module=example.kmod --function=instrumented_mul \
//       --input=1000xf32=2 --input=1000xf32=4 --instrument_file=mul.kins
//   kiln-dump-instruments mul.kins

#nvptx_sm_75_target = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_75"}>
#nvptx_sm_80_target = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_80"}>

#cuda_device = #hal.device.target<"cuda", [#nvptx_sm_75_target, #nvptx_sm_80_target]> : !hal.device

module @example attributes {hal.device.targets = [#cuda_device]} {

  hal.executable.source private @executable attributes {
    objects = #hal.executable.objects<{
      #nvptx_sm_75_target = [
        #hal.executable.object<{path = "kernels_sm_75.ptx"}>
      ],
      #nvptx_sm_80_target = [
        #hal.executable.object<{path = "kernels_sm_80.ptx"}>
      ]
    }>
  } {
    // ret = lhs * rhs, in the seed's older layout spelling and region form.
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

    // ret = lhs + rhs, in the newer layout spelling and count form.
    hal.executable.export public @simple_mul_inplace ordinal(1)
        layout(#hal.pipeline.layout<constants = 1, bindings = [
          #hal.pipeline.binding<storage_buffer, ReadOnly>,
          #hal.pipeline.binding<storage_buffer>
        ]>) attributes {workgroup_size = [64 : index, 1 : index, 1 : index]} {
    ^bb0(%device: !hal.device, %workload: index):
      %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%workload]
      %c1 = arith.constant 1 : index
      hal.return %x, %c1, %c1 : index, index, index
    }

    // ret = lhs * rhs, recording one entry per block into the context's
    // instrumentation ring. The Instrumentation binding and the constant after
    // `dim` are the ring and the dispatch site's id: the program's
    // flow.dispatch passes neither, kiln binds the ring and passes the id.
    hal.executable.export public @simple_mul_instrumented ordinal(2)
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
    %0 = flow.dispatch @executable::@simple_mul[%dim](%dim_i32, %arg0, %arg1) : (i32, tensor<?xf32>{%dim}, tensor<?xf32>{%dim}) -> tensor<?xf32>{%dim}

    // Code that kiln generates a kernel for (PTX), between the hand-written ones.
    %1 = arith.addf %0, %arg1 : tensor<?xf32>

    // rhs *= lhs, in place: the result is %1's storage.
    %2 = flow.dispatch @executable::@simple_mul_inplace[%dim](%dim_i32, %0, %1) : (i32, tensor<?xf32>{%dim}, tensor<?xf32>{%dim}) -> %1{%dim}

    return %2 : tensor<?xf32>
  }

  // lhs * rhs by the instrumented kernel: run with --instrument_file=FILE,
  // then kiln-dump-instruments FILE counts one record per block.
  func.func @instrumented_mul(%lhs: tensor<?xf32>, %rhs: tensor<?xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %dim = tensor.dim %lhs, %c0 : tensor<?xf32>
    %dim_i32 = arith.index_cast %dim : index to i32
    %0 = flow.dispatch @executable::@simple_mul_instrumented[%dim](%dim_i32, %lhs, %rhs) : (i32, tensor<?xf32>{%dim}, tensor<?xf32>{%dim}) -> tensor<?xf32>{%dim}
    return %0 : tensor<?xf32>
  }
}
