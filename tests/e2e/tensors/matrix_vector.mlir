// Matrix-vector products (issue 16, item 5: the MLP at batch 1). A
// contraction whose m or n is 1, with a reduction of at least 256, is marked
// generated_on_gpu by --kiln-select-library-calls: GPU targets drop its
// library call and run the generated kernel, whose dispatch gives each
// output element a workgroup that shares the dot product among its threads
// (compiler/targets/gpu/cooperative_reduction.h); the CPU keeps oneDNN's
// call. Each product is checked against the same product written with two
// reduction loops (k = 32 * k1 + k2) and kiln.library = "none", which every
// target sums in order in one thread. Inputs are sines of their indices,
// computed on the device.
// RUN: %kiln-compile %s --iree-hal-target-backends=%target_backend -o %t.kmod
// RUN: %kiln-check-module --device=%device --module=%t.kmod | FileCheck %s --check-prefix=CHECKS
// RUN: %kiln-compile %s --iree-hal-target-backends=cuda -o %t.cuda.kmod
// RUN: %kiln-dump-module %t.cuda.kmod | FileCheck %s --check-prefix=CUDA
// RUN: %kiln-compile %s --iree-hal-target-backends=llvm-cpu -o %t.cpu.kmod
// RUN: %kiln-dump-module %t.cpu.kmod | FileCheck %s --check-prefix=CPU

// CHECKS-NOT: FAILED
// CHECKS: [  PASSED  ] 5 tests.
// Only the product that insists on the library keeps its cuBLASLt call.
// CUDA-NOT: cublasLt matmul 1x1024x1024 f32 transpose_b bias relu:
// CUDA: cublasLt matmul 1x1024x1024 f32 transpose_b bias relu:
// CUDA-NOT: cublasLt
// CPU-DAG: oneDNN matmul 1x1024x1024 f32 transpose_b bias relu
// CPU-DAG: oneDNN matmul 1x384x512 f32
// CPU-DAG: oneDNN matmul 384x1x512 f32

func.func @linear_bias_relu() {
  %zero_f32 = arith.constant 0.0 : f32
  %zero_f16 = arith.constant 0.0 : f16
  %x_e = tensor.empty() : tensor<1x1024xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%x_e : tensor<1x1024xf32>) {
  ^bb0(%o: f32):
    %acc0 = arith.constant 0.1 : f32
    %i0 = linalg.index 0 : index
    %n0 = arith.index_cast %i0 : index to i32
    %f0 = arith.sitofp %n0 : i32 to f32
    %c0 = arith.constant 0.37 : f32
    %m0 = arith.mulf %f0, %c0 : f32
    %acc1 = arith.addf %acc0, %m0 : f32
    %i1 = linalg.index 1 : index
    %n1 = arith.index_cast %i1 : index to i32
    %f1 = arith.sitofp %n1 : i32 to f32
    %c1 = arith.constant 0.121 : f32
    %m1 = arith.mulf %f1, %c1 : f32
    %acc2 = arith.addf %acc1, %m1 : f32
    %s = math.sin %acc2 : f32
    linalg.yield %s : f32
  } -> tensor<1x1024xf32>
  %w_e = tensor.empty() : tensor<1024x1024xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%w_e : tensor<1024x1024xf32>) {
  ^bb0(%o: f32):
    %acc0 = arith.constant 0.7 : f32
    %i0 = linalg.index 0 : index
    %n0 = arith.index_cast %i0 : index to i32
    %f0 = arith.sitofp %n0 : i32 to f32
    %c0 = arith.constant 0.37 : f32
    %m0 = arith.mulf %f0, %c0 : f32
    %acc1 = arith.addf %acc0, %m0 : f32
    %i1 = linalg.index 1 : index
    %n1 = arith.index_cast %i1 : index to i32
    %f1 = arith.sitofp %n1 : i32 to f32
    %c1 = arith.constant 0.121 : f32
    %m1 = arith.mulf %f1, %c1 : f32
    %acc2 = arith.addf %acc1, %m1 : f32
    %s = math.sin %acc2 : f32
    %k = arith.constant 0.05 : f32
    %sc = arith.mulf %s, %k : f32
    linalg.yield %sc : f32
  } -> tensor<1024x1024xf32>
  %b_e = tensor.empty() : tensor<1024xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%b_e : tensor<1024xf32>) {
  ^bb0(%o: f32):
    %acc0 = arith.constant 1.3 : f32
    %i0 = linalg.index 0 : index
    %n0 = arith.index_cast %i0 : index to i32
    %f0 = arith.sitofp %n0 : i32 to f32
    %c0 = arith.constant 0.37 : f32
    %m0 = arith.mulf %f0, %c0 : f32
    %acc1 = arith.addf %acc0, %m0 : f32
    %s = math.sin %acc1 : f32
    linalg.yield %s : f32
  } -> tensor<1024xf32>
  %mm_e = tensor.empty() : tensor<1x1024xf32>
  %mm_i = linalg.fill ins(%zero_f32 : f32) outs(%mm_e : tensor<1x1024xf32>) -> tensor<1x1024xf32>
  %mm = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%x, %w : tensor<1x1024xf32>, tensor<1024x1024xf32>) outs(%mm_i : tensor<1x1024xf32>) -> tensor<1x1024xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<1x1024xf32>, tensor<1024xf32>) outs(%mm_e : tensor<1x1024xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    %r = arith.maximumf %s, %zero_f32 : f32
    linalg.yield %r : f32
  } -> tensor<1x1024xf32>
  %ref_mm_a = tensor.expand_shape %x [[0], [1, 2]] output_shape [1, 32, 32] : tensor<1x1024xf32> into tensor<1x32x32xf32>
  %ref_mm_b = tensor.expand_shape %w [[0], [1, 2]] output_shape [1024, 32, 32] : tensor<1024x1024xf32> into tensor<1024x32x32xf32>
  %ref_mm_e = tensor.empty() : tensor<1x1024xf32>
  %ref_mm_i = linalg.fill ins(%zero_f32 : f32) outs(%ref_mm_e : tensor<1x1024xf32>) -> tensor<1x1024xf32>
  %ref_mm = linalg.generic {indexing_maps = [affine_map<(m, n, k1, k2) -> (m, k1, k2)>, affine_map<(m, n, k1, k2) -> (n, k1, k2)>, affine_map<(m, n, k1, k2) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%ref_mm_a, %ref_mm_b : tensor<1x32x32xf32>, tensor<1024x32x32xf32>) outs(%ref_mm_i : tensor<1x1024xf32>) attrs = {kiln.library = "none"} {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %prod = arith.mulf %p, %q : f32
    %sum = arith.addf %acc, %prod : f32
    linalg.yield %sum : f32
  } -> tensor<1x1024xf32>
  %ref = linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]} ins(%ref_mm, %b : tensor<1x1024xf32>, tensor<1024xf32>) outs(%ref_mm_e : tensor<1x1024xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    %r = arith.maximumf %s, %zero_f32 : f32
    linalg.yield %r : f32
  } -> tensor<1x1024xf32>
  check.expect_almost_eq(%y, %ref, atol 1.0e-04) : tensor<1x1024xf32>
  return
}

func.func @linear_library_always() {
  %zero_f32 = arith.constant 0.0 : f32
  %zero_f16 = arith.constant 0.0 : f16
  %x_e = tensor.empty() : tensor<1x1024xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%x_e : tensor<1x1024xf32>) {
  ^bb0(%o: f32):
    %acc0 = arith.constant 0.2 : f32
    %i0 = linalg.index 0 : index
    %n0 = arith.index_cast %i0 : index to i32
    %f0 = arith.sitofp %n0 : i32 to f32
    %c0 = arith.constant 0.37 : f32
    %m0 = arith.mulf %f0, %c0 : f32
    %acc1 = arith.addf %acc0, %m0 : f32
    %i1 = linalg.index 1 : index
    %n1 = arith.index_cast %i1 : index to i32
    %f1 = arith.sitofp %n1 : i32 to f32
    %c1 = arith.constant 0.121 : f32
    %m1 = arith.mulf %f1, %c1 : f32
    %acc2 = arith.addf %acc1, %m1 : f32
    %s = math.sin %acc2 : f32
    linalg.yield %s : f32
  } -> tensor<1x1024xf32>
  %w_e = tensor.empty() : tensor<1024x1024xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%w_e : tensor<1024x1024xf32>) {
  ^bb0(%o: f32):
    %acc0 = arith.constant 0.9 : f32
    %i0 = linalg.index 0 : index
    %n0 = arith.index_cast %i0 : index to i32
    %f0 = arith.sitofp %n0 : i32 to f32
    %c0 = arith.constant 0.37 : f32
    %m0 = arith.mulf %f0, %c0 : f32
    %acc1 = arith.addf %acc0, %m0 : f32
    %i1 = linalg.index 1 : index
    %n1 = arith.index_cast %i1 : index to i32
    %f1 = arith.sitofp %n1 : i32 to f32
    %c1 = arith.constant 0.121 : f32
    %m1 = arith.mulf %f1, %c1 : f32
    %acc2 = arith.addf %acc1, %m1 : f32
    %s = math.sin %acc2 : f32
    %k = arith.constant 0.05 : f32
    %sc = arith.mulf %s, %k : f32
    linalg.yield %sc : f32
  } -> tensor<1024x1024xf32>
  %b_e = tensor.empty() : tensor<1024xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%b_e : tensor<1024xf32>) {
  ^bb0(%o: f32):
    %acc0 = arith.constant 1.1 : f32
    %i0 = linalg.index 0 : index
    %n0 = arith.index_cast %i0 : index to i32
    %f0 = arith.sitofp %n0 : i32 to f32
    %c0 = arith.constant 0.37 : f32
    %m0 = arith.mulf %f0, %c0 : f32
    %acc1 = arith.addf %acc0, %m0 : f32
    %s = math.sin %acc1 : f32
    linalg.yield %s : f32
  } -> tensor<1024xf32>
  %mm_e = tensor.empty() : tensor<1x1024xf32>
  %mm_i = linalg.fill ins(%zero_f32 : f32) outs(%mm_e : tensor<1x1024xf32>) -> tensor<1x1024xf32>
  %mm = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] {kiln.library = "always"} ins(%x, %w : tensor<1x1024xf32>, tensor<1024x1024xf32>) outs(%mm_i : tensor<1x1024xf32>) -> tensor<1x1024xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<1x1024xf32>, tensor<1024xf32>) outs(%mm_e : tensor<1x1024xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    %r = arith.maximumf %s, %zero_f32 : f32
    linalg.yield %r : f32
  } -> tensor<1x1024xf32>
  %ref_mm_a = tensor.expand_shape %x [[0], [1, 2]] output_shape [1, 32, 32] : tensor<1x1024xf32> into tensor<1x32x32xf32>
  %ref_mm_b = tensor.expand_shape %w [[0], [1, 2]] output_shape [1024, 32, 32] : tensor<1024x1024xf32> into tensor<1024x32x32xf32>
  %ref_mm_e = tensor.empty() : tensor<1x1024xf32>
  %ref_mm_i = linalg.fill ins(%zero_f32 : f32) outs(%ref_mm_e : tensor<1x1024xf32>) -> tensor<1x1024xf32>
  %ref_mm = linalg.generic {indexing_maps = [affine_map<(m, n, k1, k2) -> (m, k1, k2)>, affine_map<(m, n, k1, k2) -> (n, k1, k2)>, affine_map<(m, n, k1, k2) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%ref_mm_a, %ref_mm_b : tensor<1x32x32xf32>, tensor<1024x32x32xf32>) outs(%ref_mm_i : tensor<1x1024xf32>) attrs = {kiln.library = "none"} {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %prod = arith.mulf %p, %q : f32
    %sum = arith.addf %acc, %prod : f32
    linalg.yield %sum : f32
  } -> tensor<1x1024xf32>
  %ref = linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]} ins(%ref_mm, %b : tensor<1x1024xf32>, tensor<1024xf32>) outs(%ref_mm_e : tensor<1x1024xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    %r = arith.maximumf %s, %zero_f32 : f32
    linalg.yield %r : f32
  } -> tensor<1x1024xf32>
  check.expect_almost_eq(%y, %ref, atol 1.0e-04) : tensor<1x1024xf32>
  return
}

func.func @vector_matrix() {
  %zero_f32 = arith.constant 0.0 : f32
  %zero_f16 = arith.constant 0.0 : f16
  %x_e = tensor.empty() : tensor<1x512xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%x_e : tensor<1x512xf32>) {
  ^bb0(%o: f32):
    %acc0 = arith.constant 0.3 : f32
    %i0 = linalg.index 0 : index
    %n0 = arith.index_cast %i0 : index to i32
    %f0 = arith.sitofp %n0 : i32 to f32
    %c0 = arith.constant 0.37 : f32
    %m0 = arith.mulf %f0, %c0 : f32
    %acc1 = arith.addf %acc0, %m0 : f32
    %i1 = linalg.index 1 : index
    %n1 = arith.index_cast %i1 : index to i32
    %f1 = arith.sitofp %n1 : i32 to f32
    %c1 = arith.constant 0.121 : f32
    %m1 = arith.mulf %f1, %c1 : f32
    %acc2 = arith.addf %acc1, %m1 : f32
    %s = math.sin %acc2 : f32
    linalg.yield %s : f32
  } -> tensor<1x512xf32>
  %w_e = tensor.empty() : tensor<512x384xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%w_e : tensor<512x384xf32>) {
  ^bb0(%o: f32):
    %acc0 = arith.constant 0.5 : f32
    %i0 = linalg.index 0 : index
    %n0 = arith.index_cast %i0 : index to i32
    %f0 = arith.sitofp %n0 : i32 to f32
    %c0 = arith.constant 0.37 : f32
    %m0 = arith.mulf %f0, %c0 : f32
    %acc1 = arith.addf %acc0, %m0 : f32
    %i1 = linalg.index 1 : index
    %n1 = arith.index_cast %i1 : index to i32
    %f1 = arith.sitofp %n1 : i32 to f32
    %c1 = arith.constant 0.121 : f32
    %m1 = arith.mulf %f1, %c1 : f32
    %acc2 = arith.addf %acc1, %m1 : f32
    %s = math.sin %acc2 : f32
    %k = arith.constant 0.05 : f32
    %sc = arith.mulf %s, %k : f32
    linalg.yield %sc : f32
  } -> tensor<512x384xf32>
  %y_e = tensor.empty() : tensor<1x384xf32>
  %y_i = linalg.fill ins(%zero_f32 : f32) outs(%y_e : tensor<1x384xf32>) -> tensor<1x384xf32>
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>] ins(%x, %w : tensor<1x512xf32>, tensor<512x384xf32>) outs(%y_i : tensor<1x384xf32>) -> tensor<1x384xf32>
  %ref_a = tensor.expand_shape %x [[0], [1, 2]] output_shape [1, 16, 32] : tensor<1x512xf32> into tensor<1x16x32xf32>
  %ref_b = tensor.expand_shape %w [[0, 1], [2]] output_shape [16, 32, 384] : tensor<512x384xf32> into tensor<16x32x384xf32>
  %ref_e = tensor.empty() : tensor<1x384xf32>
  %ref_i = linalg.fill ins(%zero_f32 : f32) outs(%ref_e : tensor<1x384xf32>) -> tensor<1x384xf32>
  %ref = linalg.generic {indexing_maps = [affine_map<(m, n, k1, k2) -> (m, k1, k2)>, affine_map<(m, n, k1, k2) -> (k1, k2, n)>, affine_map<(m, n, k1, k2) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%ref_a, %ref_b : tensor<1x16x32xf32>, tensor<16x32x384xf32>) outs(%ref_i : tensor<1x384xf32>) attrs = {kiln.library = "none"} {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %prod = arith.mulf %p, %q : f32
    %sum = arith.addf %acc, %prod : f32
    linalg.yield %sum : f32
  } -> tensor<1x384xf32>
  check.expect_almost_eq(%y, %ref, atol 1.0e-04) : tensor<1x384xf32>
  return
}

func.func @matrix_column() {
  %zero_f32 = arith.constant 0.0 : f32
  %zero_f16 = arith.constant 0.0 : f16
  %a_e = tensor.empty() : tensor<384x512xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%a_e : tensor<384x512xf32>) {
  ^bb0(%o: f32):
    %acc0 = arith.constant 0.4 : f32
    %i0 = linalg.index 0 : index
    %n0 = arith.index_cast %i0 : index to i32
    %f0 = arith.sitofp %n0 : i32 to f32
    %c0 = arith.constant 0.37 : f32
    %m0 = arith.mulf %f0, %c0 : f32
    %acc1 = arith.addf %acc0, %m0 : f32
    %i1 = linalg.index 1 : index
    %n1 = arith.index_cast %i1 : index to i32
    %f1 = arith.sitofp %n1 : i32 to f32
    %c1 = arith.constant 0.121 : f32
    %m1 = arith.mulf %f1, %c1 : f32
    %acc2 = arith.addf %acc1, %m1 : f32
    %s = math.sin %acc2 : f32
    %k = arith.constant 0.05 : f32
    %sc = arith.mulf %s, %k : f32
    linalg.yield %sc : f32
  } -> tensor<384x512xf32>
  %v_e = tensor.empty() : tensor<512x1xf32>
  %v = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%v_e : tensor<512x1xf32>) {
  ^bb0(%o: f32):
    %acc0 = arith.constant 0.6 : f32
    %i0 = linalg.index 0 : index
    %n0 = arith.index_cast %i0 : index to i32
    %f0 = arith.sitofp %n0 : i32 to f32
    %c0 = arith.constant 0.37 : f32
    %m0 = arith.mulf %f0, %c0 : f32
    %acc1 = arith.addf %acc0, %m0 : f32
    %i1 = linalg.index 1 : index
    %n1 = arith.index_cast %i1 : index to i32
    %f1 = arith.sitofp %n1 : i32 to f32
    %c1 = arith.constant 0.121 : f32
    %m1 = arith.mulf %f1, %c1 : f32
    %acc2 = arith.addf %acc1, %m1 : f32
    %s = math.sin %acc2 : f32
    linalg.yield %s : f32
  } -> tensor<512x1xf32>
  %y_e = tensor.empty() : tensor<384x1xf32>
  %y_i = linalg.fill ins(%zero_f32 : f32) outs(%y_e : tensor<384x1xf32>) -> tensor<384x1xf32>
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>] ins(%a, %v : tensor<384x512xf32>, tensor<512x1xf32>) outs(%y_i : tensor<384x1xf32>) -> tensor<384x1xf32>
  %ref_a = tensor.expand_shape %a [[0], [1, 2]] output_shape [384, 16, 32] : tensor<384x512xf32> into tensor<384x16x32xf32>
  %ref_b = tensor.expand_shape %v [[0, 1], [2]] output_shape [16, 32, 1] : tensor<512x1xf32> into tensor<16x32x1xf32>
  %ref_e = tensor.empty() : tensor<384x1xf32>
  %ref_i = linalg.fill ins(%zero_f32 : f32) outs(%ref_e : tensor<384x1xf32>) -> tensor<384x1xf32>
  %ref = linalg.generic {indexing_maps = [affine_map<(m, n, k1, k2) -> (m, k1, k2)>, affine_map<(m, n, k1, k2) -> (k1, k2, n)>, affine_map<(m, n, k1, k2) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%ref_a, %ref_b : tensor<384x16x32xf32>, tensor<16x32x1xf32>) outs(%ref_i : tensor<384x1xf32>) attrs = {kiln.library = "none"} {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %prod = arith.mulf %p, %q : f32
    %sum = arith.addf %acc, %prod : f32
    linalg.yield %sum : f32
  } -> tensor<384x1xf32>
  check.expect_almost_eq(%y, %ref, atol 1.0e-04) : tensor<384x1xf32>
  return
}

func.func @linear_f16() {
  %zero_f32 = arith.constant 0.0 : f32
  %zero_f16 = arith.constant 0.0 : f16
  %x_e = tensor.empty() : tensor<1x1024xf16>
  %x = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%x_e : tensor<1x1024xf16>) {
  ^bb0(%o: f16):
    %acc0 = arith.constant 0.1 : f32
    %i0 = linalg.index 0 : index
    %n0 = arith.index_cast %i0 : index to i32
    %f0 = arith.sitofp %n0 : i32 to f32
    %c0 = arith.constant 0.37 : f32
    %m0 = arith.mulf %f0, %c0 : f32
    %acc1 = arith.addf %acc0, %m0 : f32
    %i1 = linalg.index 1 : index
    %n1 = arith.index_cast %i1 : index to i32
    %f1 = arith.sitofp %n1 : i32 to f32
    %c1 = arith.constant 0.121 : f32
    %m1 = arith.mulf %f1, %c1 : f32
    %acc2 = arith.addf %acc1, %m1 : f32
    %s = math.sin %acc2 : f32
    %k = arith.constant 0.05 : f32
    %sc = arith.mulf %s, %k : f32
    %h = arith.truncf %sc : f32 to f16
    linalg.yield %h : f16
  } -> tensor<1x1024xf16>
  %w_e = tensor.empty() : tensor<768x1024xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%w_e : tensor<768x1024xf16>) {
  ^bb0(%o: f16):
    %acc0 = arith.constant 0.7 : f32
    %i0 = linalg.index 0 : index
    %n0 = arith.index_cast %i0 : index to i32
    %f0 = arith.sitofp %n0 : i32 to f32
    %c0 = arith.constant 0.37 : f32
    %m0 = arith.mulf %f0, %c0 : f32
    %acc1 = arith.addf %acc0, %m0 : f32
    %i1 = linalg.index 1 : index
    %n1 = arith.index_cast %i1 : index to i32
    %f1 = arith.sitofp %n1 : i32 to f32
    %c1 = arith.constant 0.121 : f32
    %m1 = arith.mulf %f1, %c1 : f32
    %acc2 = arith.addf %acc1, %m1 : f32
    %s = math.sin %acc2 : f32
    %k = arith.constant 0.02 : f32
    %sc = arith.mulf %s, %k : f32
    %h = arith.truncf %sc : f32 to f16
    linalg.yield %h : f16
  } -> tensor<768x1024xf16>
  %y_e = tensor.empty() : tensor<1x768xf16>
  %y_i = linalg.fill ins(%zero_f16 : f16) outs(%y_e : tensor<1x768xf16>) -> tensor<1x768xf16>
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%x, %w : tensor<1x1024xf16>, tensor<768x1024xf16>) outs(%y_i : tensor<1x768xf16>) -> tensor<1x768xf16>
  %ref_a = tensor.expand_shape %x [[0], [1, 2]] output_shape [1, 32, 32] : tensor<1x1024xf16> into tensor<1x32x32xf16>
  %ref_b = tensor.expand_shape %w [[0], [1, 2]] output_shape [768, 32, 32] : tensor<768x1024xf16> into tensor<768x32x32xf16>
  %ref_e = tensor.empty() : tensor<1x768xf16>
  %ref_i = linalg.fill ins(%zero_f16 : f16) outs(%ref_e : tensor<1x768xf16>) -> tensor<1x768xf16>
  %ref = linalg.generic {indexing_maps = [affine_map<(m, n, k1, k2) -> (m, k1, k2)>, affine_map<(m, n, k1, k2) -> (n, k1, k2)>, affine_map<(m, n, k1, k2) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%ref_a, %ref_b : tensor<1x32x32xf16>, tensor<768x32x32xf16>) outs(%ref_i : tensor<1x768xf16>) attrs = {kiln.library = "none"} {
  ^bb0(%p: f16, %q: f16, %acc: f16):
    %prod = arith.mulf %p, %q : f16
    %sum = arith.addf %acc, %prod : f16
    linalg.yield %sum : f16
  } -> tensor<1x768xf16>
  check.expect_almost_eq(%y, %ref, atol 2.0e-02) : tensor<1x768xf16>
  return
}
