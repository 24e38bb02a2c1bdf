// One static function whose command buffer (recorded once, a CUDA graph on
// cuda) holds three kinds of kernel: a linear layer with its bias and ReLU
// (a cuBLASLt call when compiled for cuda, a generated kernel elsewhere), a
// hand-written kernel (simple_mul: PTX, C or SPIR-V) squaring its result, and
// a kernel kiln generates for the arith.addf after it. Run with two sets of
// inputs.
// RUN: %kiln-compile %s --target=%kiln_targets --object-search-path=%e2e_kernels_dir -o %t.kmod
// RUN: %kiln-compile %s --target=cuda --object-search-path=%e2e_kernels_dir -o %t.cuda.kmod
// RUN: %kiln-dump-module %t.cuda.kmod | FileCheck %s --check-prefix=DUMP

// relu(96 * 1 * 0.5 - 40) = 8, squared 64, doubled 128; and
// relu(96 * 2 * 0.5 - 44) = 52, squared 2704, doubled 5408.
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=layer --input=64x96xf32=1 --input=128x96xf32=0.5 --input=128xf32=-40 --expected_output=8192xf32=128 | FileCheck %s --check-prefix=OK
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=layer --input=64x96xf32=2 --input=128x96xf32=0.5 --input=128xf32=-44 --expected_output=8192xf32=5408 | FileCheck %s --check-prefix=OK

// OK: [SUCCESS]
// All three in the one command buffer the function records (one graph):
// DUMP:      {{^}}  @executable{{$}}
// DUMP-NEXT:   variant cuda cuda-nvptx-fb target_arch = [sm_75]:
// DUMP-NEXT:   export 0 @simple_mul workgroup_size
// DUMP-NEXT:   dispatch of @simple_mul in function [[RECORD:[0-9]+]] '__hal_record_command_buffer_0'
// DUMP:      {{^}}  @layer_dispatch_0{{$}}
// DUMP-NEXT:   variant cuda cuda-nvptx-fb target_arch = [sm_75], @layer_dispatch_0: cublasLt matmul 64x128x96 f32 transpose_b bias relu:
// DUMP-NEXT:   export 0 @layer_dispatch_0 workgroup_size
// DUMP-NEXT:   dispatch of @layer_dispatch_0 in function [[RECORD]] '__hal_record_command_buffer_0'
// DUMP:      {{^}}  @layer_dispatch_2{{$}}
// DUMP-NEXT:   variant cuda cuda-nvptx-fb target_arch = [sm_75]:
// DUMP-NEXT:   export 0 @layer_dispatch_2 workgroup_size
// DUMP-NEXT:   dispatch of @layer_dispatch_2 in function [[RECORD]] '__hal_record_command_buffer_0'

#x86_64 = #hal.executable.target<"llvm-cpu", "system-elf-x86_64">
#cuda_sm75 = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_75"}>
#vulkan = #hal.executable.target<"vulkan-spirv", "vulkan-spirv-fb">

module {
  hal.executable.source private @executable attributes {
    objects = #hal.executable.objects<{
      #x86_64 = [#hal.executable.object<{path = "dispatch_test_kernels.so"}>],
      #cuda_sm75 = [#hal.executable.object<{path = "dispatch_test_kernels_sm_75.ptx"}>],
      #vulkan = [#hal.executable.object<{path = "simple_mul.spv"}>]
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
  }

  // 2 * simple_mul(l, l) for l = relu(x w^T + b), flattened.
  func.func @layer(%x: tensor<64x96xf32>, %w: tensor<128x96xf32>, %b: tensor<128xf32>) -> tensor<8192xf32> {
    %zero = arith.constant 0.0 : f32
    %empty = tensor.empty() : tensor<64x128xf32>
    %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<64x128xf32>) -> tensor<64x128xf32>
    %mm = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%x, %w : tensor<64x96xf32>, tensor<128x96xf32>) outs(%init : tensor<64x128xf32>) -> tensor<64x128xf32>
    %l = linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<64x128xf32>, tensor<128xf32>) outs(%empty : tensor<64x128xf32>) {
    ^bb0(%p: f32, %q: f32, %o: f32):
      %s = arith.addf %p, %q : f32
      %r = arith.maximumf %s, %zero : f32
      linalg.yield %r : f32
    } -> tensor<64x128xf32>
    %flat = tensor.collapse_shape %l [[0, 1]] : tensor<64x128xf32> into tensor<8192xf32>
    %n = arith.constant 8192 : index
    %n_i32 = arith.constant 8192 : i32
    %sq = flow.dispatch @executable::@simple_mul[%n](%n_i32, %flat, %flat) : (i32, tensor<8192xf32>, tensor<8192xf32>) -> tensor<8192xf32>
    %twice = arith.addf %sq, %sq : tensor<8192xf32>
    return %twice : tensor<8192xf32>
  }
}
