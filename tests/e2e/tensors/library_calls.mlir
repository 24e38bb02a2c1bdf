// Library calls (issue 16, item 1): each function computes a contraction
// that cuBLASLt or cuDNN takes when the module is compiled for cuda (a
// matmul with a bias and ReLU, a batched matmul over one shared matrix with
// a residual, a GELU epilogue, a matmul whose reduction is two loops, a
// convolution with bias, residual and ReLU, an f16 matmul), and the same
// contraction marked kiln.library = "none", which keeps its generated
// kernel: the two must agree on every device. On cuda the first runs the
// library (kiln-dump-module lists the calls), on cpu oneDNN where the
// driver has it; on vulkan both are generated kernels. Inputs are sines of
// their indices, computed on the device. By default where cuda is a
// target the convolution (112 output pixels) becomes im2col + a GEMM
// library's matmul
// (--kiln-convolutions-to-matmuls), whose epilogue stays a generated
// kernel (its bias runs along the stored matrix's rows); with
// --im2col-max-pixels=-1 it stays a convolution library's call.
// RUN: %kiln-compile %s --iree-hal-target-backends=%target_backend -o %t.kmod
// RUN: %kiln-check-module --device=%device --module=%t.kmod | FileCheck %s --check-prefix=CHECKS
// RUN: %kiln-compile %s --iree-hal-target-backends=%target_backend --im2col-max-pixels=-1 -o %t.conv.kmod
// RUN: %kiln-check-module --device=%device --module=%t.conv.kmod | FileCheck %s --check-prefix=CHECKS
// RUN: %kiln-compile %s --iree-hal-target-backends=cuda -o %t.im2col.kmod
// RUN: %kiln-dump-module %t.im2col.kmod | FileCheck %s --check-prefix=IM2COL
// RUN: %kiln-compile %s --iree-hal-target-backends=cuda --im2col-max-pixels=-1 -o %t.cuda.kmod
// RUN: %kiln-dump-module %t.cuda.kmod | FileCheck %s --check-prefix=DUMP
// RUN: %kiln-compile %s --iree-hal-target-backends=cuda --library-calls=false -o %t.generated.kmod
// RUN: %kiln-dump-module %t.generated.kmod | FileCheck %s --check-prefix=GENERATED
// RUN: %kiln-compile %s --iree-hal-target-backends=llvm-cpu --im2col-max-pixels=-1 -o %t.cpu.kmod
// RUN: %kiln-dump-module %t.cpu.kmod | FileCheck %s --check-prefix=CPUDUMP
// RUN: %kiln-compile %s --iree-hal-target-backends=cuda --allow-tf32 --im2col-max-pixels=-1 -o %t.tf32.kmod
// RUN: %kiln-dump-module %t.tf32.kmod | FileCheck %s --check-prefix=TF32

// CHECKS-NOT: FAILED
// CHECKS: [  PASSED  ] 7 tests.
// DUMP-DAG: cublasLt matmul 64x128x96 f32 transpose_b bias relu
// DUMP-DAG: cublasLt matmul 4x40x32x48 f32 transpose_a c
// DUMP-DAG: cublasLt matmul 32x96x64 f32 bias gelu_tanh
// DUMP-DAG: cublasLt matmul 16x24x64 f32
// DUMP-DAG: cuDNN conv 1x8x18x18 * 16x3x3 stride 2,1 dilation 1,2 f32 bias z relu
// DUMP-DAG: cublasLt matmul 32x48x64 f16
// IM2COL-DAG: cublasLt matmul 16x112x72 f32:
// IM2COL-NOT: cuDNN
// GENERATED-NOT: {{cublasLt|cuDNN}}
// CPUDUMP-DAG: oneDNN matmul 64x128x96 f32 transpose_b bias relu
// CPUDUMP-DAG: oneDNN conv 1x8x18x18 * 16x3x3 stride 2,1 dilation 1,2 f32 bias z relu
// TF32-DAG: cublasLt matmul 64x128x96 f32 transpose_b bias relu tf32
// TF32-DAG: cuDNN conv 1x8x18x18 * 16x3x3 stride 2,1 dilation 1,2 f32 bias z relu tf32

func.func @linear_bias_relu() {
  %zero = arith.constant 0.0 : f32
  %x_e = tensor.empty() : tensor<64x96xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%x_e : tensor<64x96xf32>) {
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
    %c1 = arith.constant 0.12100000000000001 : f32
    %m1 = arith.mulf %f1, %c1 : f32
    %acc2 = arith.addf %acc1, %m1 : f32
    %s = math.sin %acc2 : f32
    linalg.yield %s : f32
  } -> tensor<64x96xf32>
  %w_e = tensor.empty() : tensor<128x96xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%w_e : tensor<128x96xf32>) {
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
    %c1 = arith.constant 0.12100000000000001 : f32
    %m1 = arith.mulf %f1, %c1 : f32
    %acc2 = arith.addf %acc1, %m1 : f32
    %s = math.sin %acc2 : f32
    linalg.yield %s : f32
  } -> tensor<128x96xf32>
  %b_e = tensor.empty() : tensor<128xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%b_e : tensor<128xf32>) {
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
  } -> tensor<128xf32>
  %out_e = tensor.empty() : tensor<64x128xf32>
  %lib_init = linalg.fill ins(%zero : f32) outs(%out_e : tensor<64x128xf32>) -> tensor<64x128xf32>
  %lib_mm = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%x, %w : tensor<64x96xf32>, tensor<128x96xf32>) outs(%lib_init : tensor<64x128xf32>) -> tensor<64x128xf32>
  %lib = linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]} ins(%lib_mm, %b : tensor<64x128xf32>, tensor<128xf32>) outs(%out_e : tensor<64x128xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<64x128xf32>
  %gen_init = linalg.fill ins(%zero : f32) outs(%out_e : tensor<64x128xf32>) -> tensor<64x128xf32>
  %gen_mm = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] {kiln.library = "none"} ins(%x, %w : tensor<64x96xf32>, tensor<128x96xf32>) outs(%gen_init : tensor<64x128xf32>) -> tensor<64x128xf32>
  %gen = linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]} ins(%gen_mm, %b : tensor<64x128xf32>, tensor<128xf32>) outs(%out_e : tensor<64x128xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<64x128xf32>
  check.expect_almost_eq(%lib, %gen, atol 1.0e-04) : tensor<64x128xf32>
  return
}

func.func @batched_residual() {
  %zero = arith.constant 0.0 : f32
  %a_e = tensor.empty() : tensor<4x48x40xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} outs(%a_e : tensor<4x48x40xf32>) {
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
    %c1 = arith.constant 0.12100000000000001 : f32
    %m1 = arith.mulf %f1, %c1 : f32
    %acc2 = arith.addf %acc1, %m1 : f32
    %i2 = linalg.index 2 : index
    %n2 = arith.index_cast %i2 : index to i32
    %f2 = arith.sitofp %n2 : i32 to f32
    %c2 = arith.constant 0.276 : f32
    %m2 = arith.mulf %f2, %c2 : f32
    %acc3 = arith.addf %acc2, %m2 : f32
    %s = math.sin %acc3 : f32
    linalg.yield %s : f32
  } -> tensor<4x48x40xf32>
  %bm_e = tensor.empty() : tensor<48x32xf32>
  %bm = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%bm_e : tensor<48x32xf32>) {
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
    %c1 = arith.constant 0.12100000000000001 : f32
    %m1 = arith.mulf %f1, %c1 : f32
    %acc2 = arith.addf %acc1, %m1 : f32
    %s = math.sin %acc2 : f32
    linalg.yield %s : f32
  } -> tensor<48x32xf32>
  %res_e = tensor.empty() : tensor<4x40x32xf32>
  %res = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} outs(%res_e : tensor<4x40x32xf32>) {
  ^bb0(%o: f32):
    %acc0 = arith.constant 2.1 : f32
    %i0 = linalg.index 0 : index
    %n0 = arith.index_cast %i0 : index to i32
    %f0 = arith.sitofp %n0 : i32 to f32
    %c0 = arith.constant 0.37 : f32
    %m0 = arith.mulf %f0, %c0 : f32
    %acc1 = arith.addf %acc0, %m0 : f32
    %i1 = linalg.index 1 : index
    %n1 = arith.index_cast %i1 : index to i32
    %f1 = arith.sitofp %n1 : i32 to f32
    %c1 = arith.constant 0.12100000000000001 : f32
    %m1 = arith.mulf %f1, %c1 : f32
    %acc2 = arith.addf %acc1, %m1 : f32
    %i2 = linalg.index 2 : index
    %n2 = arith.index_cast %i2 : index to i32
    %f2 = arith.sitofp %n2 : i32 to f32
    %c2 = arith.constant 0.276 : f32
    %m2 = arith.mulf %f2, %c2 : f32
    %acc3 = arith.addf %acc2, %m2 : f32
    %s = math.sin %acc3 : f32
    linalg.yield %s : f32
  } -> tensor<4x40x32xf32>
  %out_e = tensor.empty() : tensor<4x40x32xf32>
  %lib_init = linalg.fill ins(%zero : f32) outs(%out_e : tensor<4x40x32xf32>) -> tensor<4x40x32xf32>
  %lib_mm = linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (b, k, m)>, affine_map<(b, m, n, k) -> (k, n)>, affine_map<(b, m, n, k) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %bm : tensor<4x48x40xf32>, tensor<48x32xf32>) outs(%lib_init : tensor<4x40x32xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %t = arith.mulf %p, %q : f32
    %u = arith.addf %acc, %t : f32
    linalg.yield %u : f32
  } -> tensor<4x40x32xf32>
  %lib = linalg.generic {indexing_maps = [affine_map<(b, m, n) -> (b, m, n)>, affine_map<(b, m, n) -> (b, m, n)>, affine_map<(b, m, n) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%res, %lib_mm : tensor<4x40x32xf32>, tensor<4x40x32xf32>) outs(%out_e : tensor<4x40x32xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<4x40x32xf32>
  %gen_init = linalg.fill ins(%zero : f32) outs(%out_e : tensor<4x40x32xf32>) -> tensor<4x40x32xf32>
  %gen_mm = linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (b, k, m)>, affine_map<(b, m, n, k) -> (k, n)>, affine_map<(b, m, n, k) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %bm : tensor<4x48x40xf32>, tensor<48x32xf32>) outs(%gen_init : tensor<4x40x32xf32>) attrs = {kiln.library = "none"} {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %t = arith.mulf %p, %q : f32
    %u = arith.addf %acc, %t : f32
    linalg.yield %u : f32
  } -> tensor<4x40x32xf32>
  %gen = linalg.generic {indexing_maps = [affine_map<(b, m, n) -> (b, m, n)>, affine_map<(b, m, n) -> (b, m, n)>, affine_map<(b, m, n) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%res, %gen_mm : tensor<4x40x32xf32>, tensor<4x40x32xf32>) outs(%out_e : tensor<4x40x32xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<4x40x32xf32>
  check.expect_almost_eq(%lib, %gen, atol 1.0e-04) : tensor<4x40x32xf32>
  return
}

func.func @matmul_gelu_tanh() {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %three = arith.constant 3.0 : f32
  %c = arith.constant 0.044715 : f32
  %sq = arith.constant 0.797884583 : f32
  %x_e = tensor.empty() : tensor<32x64xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%x_e : tensor<32x64xf32>) {
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
    %c1 = arith.constant 0.12100000000000001 : f32
    %m1 = arith.mulf %f1, %c1 : f32
    %acc2 = arith.addf %acc1, %m1 : f32
    %s = math.sin %acc2 : f32
    linalg.yield %s : f32
  } -> tensor<32x64xf32>
  %w_e = tensor.empty() : tensor<64x96xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%w_e : tensor<64x96xf32>) {
  ^bb0(%o: f32):
    %acc0 = arith.constant 1.1 : f32
    %i0 = linalg.index 0 : index
    %n0 = arith.index_cast %i0 : index to i32
    %f0 = arith.sitofp %n0 : i32 to f32
    %c0 = arith.constant 0.37 : f32
    %m0 = arith.mulf %f0, %c0 : f32
    %acc1 = arith.addf %acc0, %m0 : f32
    %i1 = linalg.index 1 : index
    %n1 = arith.index_cast %i1 : index to i32
    %f1 = arith.sitofp %n1 : i32 to f32
    %c1 = arith.constant 0.12100000000000001 : f32
    %m1 = arith.mulf %f1, %c1 : f32
    %acc2 = arith.addf %acc1, %m1 : f32
    %s = math.sin %acc2 : f32
    linalg.yield %s : f32
  } -> tensor<64x96xf32>
  %b_e = tensor.empty() : tensor<96xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%b_e : tensor<96xf32>) {
  ^bb0(%o: f32):
    %acc0 = arith.constant 0.5 : f32
    %i0 = linalg.index 0 : index
    %n0 = arith.index_cast %i0 : index to i32
    %f0 = arith.sitofp %n0 : i32 to f32
    %c0 = arith.constant 0.37 : f32
    %m0 = arith.mulf %f0, %c0 : f32
    %acc1 = arith.addf %acc0, %m0 : f32
    %s = math.sin %acc1 : f32
    linalg.yield %s : f32
  } -> tensor<96xf32>
  %out_e = tensor.empty() : tensor<32x96xf32>
  %lib_init = linalg.fill ins(%zero : f32) outs(%out_e : tensor<32x96xf32>) -> tensor<32x96xf32>
  %lib_mm = linalg.matmul ins(%x, %w : tensor<32x64xf32>, tensor<64x96xf32>) outs(%lib_init : tensor<32x96xf32>) -> tensor<32x96xf32>
  %lib = linalg.generic {indexing_maps = [affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]} ins(%b, %lib_mm : tensor<96xf32>, tensor<32x96xf32>) outs(%out_e : tensor<32x96xf32>) {
  ^bb0(%q: f32, %p: f32, %o: f32):
    %v = arith.addf %q, %p : f32
    %cube = math.powf %v, %three : f32
    %k = arith.mulf %cube, %c : f32
    %inner = arith.addf %v, %k : f32
    %scaled = arith.mulf %sq, %inner : f32
    %th = math.tanh %scaled : f32
    %plus = arith.addf %th, %one : f32
    %hv = arith.mulf %v, %half : f32
    %g = arith.mulf %hv, %plus : f32
    linalg.yield %g : f32
  } -> tensor<32x96xf32>
  %gen_init = linalg.fill ins(%zero : f32) outs(%out_e : tensor<32x96xf32>) -> tensor<32x96xf32>
  %gen_mm = linalg.matmul {kiln.library = "none"} ins(%x, %w : tensor<32x64xf32>, tensor<64x96xf32>) outs(%gen_init : tensor<32x96xf32>) -> tensor<32x96xf32>
  %gen = linalg.generic {indexing_maps = [affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]} ins(%b, %gen_mm : tensor<96xf32>, tensor<32x96xf32>) outs(%out_e : tensor<32x96xf32>) {
  ^bb0(%q: f32, %p: f32, %o: f32):
    %v = arith.addf %q, %p : f32
    %cube = math.powf %v, %three : f32
    %k = arith.mulf %cube, %c : f32
    %inner = arith.addf %v, %k : f32
    %scaled = arith.mulf %sq, %inner : f32
    %th = math.tanh %scaled : f32
    %plus = arith.addf %th, %one : f32
    %hv = arith.mulf %v, %half : f32
    %g = arith.mulf %hv, %plus : f32
    linalg.yield %g : f32
  } -> tensor<32x96xf32>
  check.expect_almost_eq(%lib, %gen, atol 1.0e-04) : tensor<32x96xf32>
  return
}

func.func @grouped_reduction() {
  %zero = arith.constant 0.0 : f32
  %x_e = tensor.empty() : tensor<16x4x16xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} outs(%x_e : tensor<16x4x16xf32>) {
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
    %c1 = arith.constant 0.12100000000000001 : f32
    %m1 = arith.mulf %f1, %c1 : f32
    %acc2 = arith.addf %acc1, %m1 : f32
    %i2 = linalg.index 2 : index
    %n2 = arith.index_cast %i2 : index to i32
    %f2 = arith.sitofp %n2 : i32 to f32
    %c2 = arith.constant 0.276 : f32
    %m2 = arith.mulf %f2, %c2 : f32
    %acc3 = arith.addf %acc2, %m2 : f32
    %s = math.sin %acc3 : f32
    linalg.yield %s : f32
  } -> tensor<16x4x16xf32>
  %w_e = tensor.empty() : tensor<4x16x24xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} outs(%w_e : tensor<4x16x24xf32>) {
  ^bb0(%o: f32):
    %acc0 = arith.constant 1.7 : f32
    %i0 = linalg.index 0 : index
    %n0 = arith.index_cast %i0 : index to i32
    %f0 = arith.sitofp %n0 : i32 to f32
    %c0 = arith.constant 0.37 : f32
    %m0 = arith.mulf %f0, %c0 : f32
    %acc1 = arith.addf %acc0, %m0 : f32
    %i1 = linalg.index 1 : index
    %n1 = arith.index_cast %i1 : index to i32
    %f1 = arith.sitofp %n1 : i32 to f32
    %c1 = arith.constant 0.12100000000000001 : f32
    %m1 = arith.mulf %f1, %c1 : f32
    %acc2 = arith.addf %acc1, %m1 : f32
    %i2 = linalg.index 2 : index
    %n2 = arith.index_cast %i2 : index to i32
    %f2 = arith.sitofp %n2 : i32 to f32
    %c2 = arith.constant 0.276 : f32
    %m2 = arith.mulf %f2, %c2 : f32
    %acc3 = arith.addf %acc2, %m2 : f32
    %s = math.sin %acc3 : f32
    linalg.yield %s : f32
  } -> tensor<4x16x24xf32>
  %out_e = tensor.empty() : tensor<16x24xf32>
  %lib_init = linalg.fill ins(%zero : f32) outs(%out_e : tensor<16x24xf32>) -> tensor<16x24xf32>
  %lib = linalg.generic {indexing_maps = [affine_map<(m, n, h, d) -> (m, h, d)>, affine_map<(m, n, h, d) -> (h, d, n)>, affine_map<(m, n, h, d) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%x, %w : tensor<16x4x16xf32>, tensor<4x16x24xf32>) outs(%lib_init : tensor<16x24xf32>) attrs = {kiln.library = "always"} {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %t = arith.mulf %p, %q : f32
    %u = arith.addf %acc, %t : f32
    linalg.yield %u : f32
  } -> tensor<16x24xf32>
  %gen_init = linalg.fill ins(%zero : f32) outs(%out_e : tensor<16x24xf32>) -> tensor<16x24xf32>
  %gen = linalg.generic {indexing_maps = [affine_map<(m, n, h, d) -> (m, h, d)>, affine_map<(m, n, h, d) -> (h, d, n)>, affine_map<(m, n, h, d) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%x, %w : tensor<16x4x16xf32>, tensor<4x16x24xf32>) outs(%gen_init : tensor<16x24xf32>) attrs = {kiln.library = "none"} {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %t = arith.mulf %p, %q : f32
    %u = arith.addf %acc, %t : f32
    linalg.yield %u : f32
  } -> tensor<16x24xf32>
  check.expect_almost_eq(%lib, %gen, atol 1.0e-04) : tensor<16x24xf32>
  return
}

func.func @conv_bias_residual_relu() {
  %zero = arith.constant 0.0 : f32
  %x_e = tensor.empty() : tensor<1x8x18x18xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%x_e : tensor<1x8x18x18xf32>) {
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
    %c1 = arith.constant 0.12100000000000001 : f32
    %m1 = arith.mulf %f1, %c1 : f32
    %acc2 = arith.addf %acc1, %m1 : f32
    %i2 = linalg.index 2 : index
    %n2 = arith.index_cast %i2 : index to i32
    %f2 = arith.sitofp %n2 : i32 to f32
    %c2 = arith.constant 0.276 : f32
    %m2 = arith.mulf %f2, %c2 : f32
    %acc3 = arith.addf %acc2, %m2 : f32
    %i3 = linalg.index 3 : index
    %n3 = arith.index_cast %i3 : index to i32
    %f3 = arith.sitofp %n3 : i32 to f32
    %c3 = arith.constant 0.065 : f32
    %m3 = arith.mulf %f3, %c3 : f32
    %acc4 = arith.addf %acc3, %m3 : f32
    %s = math.sin %acc4 : f32
    linalg.yield %s : f32
  } -> tensor<1x8x18x18xf32>
  %f_e = tensor.empty() : tensor<16x8x3x3xf32>
  %f = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%f_e : tensor<16x8x3x3xf32>) {
  ^bb0(%o: f32):
    %acc0 = arith.constant 1.9 : f32
    %i0 = linalg.index 0 : index
    %n0 = arith.index_cast %i0 : index to i32
    %f0 = arith.sitofp %n0 : i32 to f32
    %c0 = arith.constant 0.37 : f32
    %m0 = arith.mulf %f0, %c0 : f32
    %acc1 = arith.addf %acc0, %m0 : f32
    %i1 = linalg.index 1 : index
    %n1 = arith.index_cast %i1 : index to i32
    %f1 = arith.sitofp %n1 : i32 to f32
    %c1 = arith.constant 0.12100000000000001 : f32
    %m1 = arith.mulf %f1, %c1 : f32
    %acc2 = arith.addf %acc1, %m1 : f32
    %i2 = linalg.index 2 : index
    %n2 = arith.index_cast %i2 : index to i32
    %f2 = arith.sitofp %n2 : i32 to f32
    %c2 = arith.constant 0.276 : f32
    %m2 = arith.mulf %f2, %c2 : f32
    %acc3 = arith.addf %acc2, %m2 : f32
    %i3 = linalg.index 3 : index
    %n3 = arith.index_cast %i3 : index to i32
    %f3 = arith.sitofp %n3 : i32 to f32
    %c3 = arith.constant 0.065 : f32
    %m3 = arith.mulf %f3, %c3 : f32
    %acc4 = arith.addf %acc3, %m3 : f32
    %s = math.sin %acc4 : f32
    linalg.yield %s : f32
  } -> tensor<16x8x3x3xf32>
  %b_e = tensor.empty() : tensor<16xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%b_e : tensor<16xf32>) {
  ^bb0(%o: f32):
    %acc0 = arith.constant 0.8 : f32
    %i0 = linalg.index 0 : index
    %n0 = arith.index_cast %i0 : index to i32
    %f0 = arith.sitofp %n0 : i32 to f32
    %c0 = arith.constant 0.37 : f32
    %m0 = arith.mulf %f0, %c0 : f32
    %acc1 = arith.addf %acc0, %m0 : f32
    %s = math.sin %acc1 : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  %z_e = tensor.empty() : tensor<1x16x8x14xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%z_e : tensor<1x16x8x14xf32>) {
  ^bb0(%o: f32):
    %acc0 = arith.constant 2.6 : f32
    %i0 = linalg.index 0 : index
    %n0 = arith.index_cast %i0 : index to i32
    %f0 = arith.sitofp %n0 : i32 to f32
    %c0 = arith.constant 0.37 : f32
    %m0 = arith.mulf %f0, %c0 : f32
    %acc1 = arith.addf %acc0, %m0 : f32
    %i1 = linalg.index 1 : index
    %n1 = arith.index_cast %i1 : index to i32
    %f1 = arith.sitofp %n1 : i32 to f32
    %c1 = arith.constant 0.12100000000000001 : f32
    %m1 = arith.mulf %f1, %c1 : f32
    %acc2 = arith.addf %acc1, %m1 : f32
    %i2 = linalg.index 2 : index
    %n2 = arith.index_cast %i2 : index to i32
    %f2 = arith.sitofp %n2 : i32 to f32
    %c2 = arith.constant 0.276 : f32
    %m2 = arith.mulf %f2, %c2 : f32
    %acc3 = arith.addf %acc2, %m2 : f32
    %i3 = linalg.index 3 : index
    %n3 = arith.index_cast %i3 : index to i32
    %f3 = arith.sitofp %n3 : i32 to f32
    %c3 = arith.constant 0.065 : f32
    %m3 = arith.mulf %f3, %c3 : f32
    %acc4 = arith.addf %acc3, %m3 : f32
    %s = math.sin %acc4 : f32
    linalg.yield %s : f32
  } -> tensor<1x16x8x14xf32>
  %out_e = tensor.empty() : tensor<1x16x8x14xf32>
  %lib_init = linalg.fill ins(%zero : f32) outs(%out_e : tensor<1x16x8x14xf32>) -> tensor<1x16x8x14xf32>
  %lib_conv = linalg.conv_2d_nchw_fchw {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%x, %f : tensor<1x8x18x18xf32>, tensor<16x8x3x3xf32>) outs(%lib_init : tensor<1x16x8x14xf32>) -> tensor<1x16x8x14xf32>
  %lib = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (c)>, affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%lib_conv, %b, %z : tensor<1x16x8x14xf32>, tensor<16xf32>, tensor<1x16x8x14xf32>) outs(%out_e : tensor<1x16x8x14xf32>) {
  ^bb0(%p: f32, %q: f32, %y: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    %t = arith.addf %y, %s : f32
    %r = arith.maximumf %t, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x16x8x14xf32>
  %gen_init = linalg.fill ins(%zero : f32) outs(%out_e : tensor<1x16x8x14xf32>) -> tensor<1x16x8x14xf32>
  %gen_conv = linalg.conv_2d_nchw_fchw {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>, kiln.library = "none"} ins(%x, %f : tensor<1x8x18x18xf32>, tensor<16x8x3x3xf32>) outs(%gen_init : tensor<1x16x8x14xf32>) -> tensor<1x16x8x14xf32>
  %gen = linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (c)>, affine_map<(n, c, h, w) -> (n, c, h, w)>, affine_map<(n, c, h, w) -> (n, c, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%gen_conv, %b, %z : tensor<1x16x8x14xf32>, tensor<16xf32>, tensor<1x16x8x14xf32>) outs(%out_e : tensor<1x16x8x14xf32>) {
  ^bb0(%p: f32, %q: f32, %y: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    %t = arith.addf %y, %s : f32
    %r = arith.maximumf %t, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x16x8x14xf32>
  check.expect_almost_eq(%lib, %gen, atol 1.0e-04) : tensor<1x16x8x14xf32>
  return
}

// A convolution of an asymmetric zero padding: with library calls, im2col
// reads through the padding (no padded copy); against the convolution of
// the padded copy.
func.func @padded_conv() {
  %zero = arith.constant 0.0 : f32
  %x_e = tensor.empty() : tensor<1x8x18x18xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%x_e : tensor<1x8x18x18xf32>) {
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
    %c1 = arith.constant 0.12100000000000001 : f32
    %m1 = arith.mulf %f1, %c1 : f32
    %acc2 = arith.addf %acc1, %m1 : f32
    %i2 = linalg.index 2 : index
    %n2 = arith.index_cast %i2 : index to i32
    %f2 = arith.sitofp %n2 : i32 to f32
    %c2 = arith.constant 0.276 : f32
    %m2 = arith.mulf %f2, %c2 : f32
    %acc3 = arith.addf %acc2, %m2 : f32
    %i3 = linalg.index 3 : index
    %n3 = arith.index_cast %i3 : index to i32
    %f3 = arith.sitofp %n3 : i32 to f32
    %c3 = arith.constant 0.065 : f32
    %m3 = arith.mulf %f3, %c3 : f32
    %acc4 = arith.addf %acc3, %m3 : f32
    %s = math.sin %acc4 : f32
    linalg.yield %s : f32
  } -> tensor<1x8x18x18xf32>
  %f_e = tensor.empty() : tensor<16x8x3x3xf32>
  %f = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%f_e : tensor<16x8x3x3xf32>) {
  ^bb0(%o: f32):
    %acc0 = arith.constant 1.9 : f32
    %i0 = linalg.index 0 : index
    %n0 = arith.index_cast %i0 : index to i32
    %f0 = arith.sitofp %n0 : i32 to f32
    %c0 = arith.constant 0.37 : f32
    %m0 = arith.mulf %f0, %c0 : f32
    %acc1 = arith.addf %acc0, %m0 : f32
    %i1 = linalg.index 1 : index
    %n1 = arith.index_cast %i1 : index to i32
    %f1 = arith.sitofp %n1 : i32 to f32
    %c1 = arith.constant 0.12100000000000001 : f32
    %m1 = arith.mulf %f1, %c1 : f32
    %acc2 = arith.addf %acc1, %m1 : f32
    %i2 = linalg.index 2 : index
    %n2 = arith.index_cast %i2 : index to i32
    %f2 = arith.sitofp %n2 : i32 to f32
    %c2 = arith.constant 0.276 : f32
    %m2 = arith.mulf %f2, %c2 : f32
    %acc3 = arith.addf %acc2, %m2 : f32
    %i3 = linalg.index 3 : index
    %n3 = arith.index_cast %i3 : index to i32
    %f3 = arith.sitofp %n3 : i32 to f32
    %c3 = arith.constant 0.065 : f32
    %m3 = arith.mulf %f3, %c3 : f32
    %acc4 = arith.addf %acc3, %m3 : f32
    %s = math.sin %acc4 : f32
    linalg.yield %s : f32
  } -> tensor<16x8x3x3xf32>
  %padded = tensor.pad %x low[0, 0, 1, 2] high[0, 0, 2, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x8x18x18xf32> to tensor<1x8x21x21xf32>
  %out_e = tensor.empty() : tensor<1x16x10x10xf32>
  %lib_init = linalg.fill ins(%zero : f32) outs(%out_e : tensor<1x16x10x10xf32>) -> tensor<1x16x10x10xf32>
  %lib = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%padded, %f : tensor<1x8x21x21xf32>, tensor<16x8x3x3xf32>) outs(%lib_init : tensor<1x16x10x10xf32>) -> tensor<1x16x10x10xf32>
  %gen_init = linalg.fill ins(%zero : f32) outs(%out_e : tensor<1x16x10x10xf32>) -> tensor<1x16x10x10xf32>
  %gen = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>, kiln.library = "none"} ins(%padded, %f : tensor<1x8x21x21xf32>, tensor<16x8x3x3xf32>) outs(%gen_init : tensor<1x16x10x10xf32>) -> tensor<1x16x10x10xf32>
  check.expect_almost_eq(%lib, %gen, atol 1.0e-04) : tensor<1x16x10x10xf32>
  return
}

func.func @matmul_f16() {
  %zero = arith.constant 0.0 : f16
  %x_e = tensor.empty() : tensor<32x64xf16>
  %x = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%x_e : tensor<32x64xf16>) {
  ^bb0(%o: f16):
    %acc0 = arith.constant 0.15 : f32
    %i0 = linalg.index 0 : index
    %n0 = arith.index_cast %i0 : index to i32
    %f0 = arith.sitofp %n0 : i32 to f32
    %c0 = arith.constant 0.37 : f32
    %m0 = arith.mulf %f0, %c0 : f32
    %acc1 = arith.addf %acc0, %m0 : f32
    %i1 = linalg.index 1 : index
    %n1 = arith.index_cast %i1 : index to i32
    %f1 = arith.sitofp %n1 : i32 to f32
    %c1 = arith.constant 0.12100000000000001 : f32
    %m1 = arith.mulf %f1, %c1 : f32
    %acc2 = arith.addf %acc1, %m1 : f32
    %s = math.sin %acc2 : f32
    %t = arith.truncf %s : f32 to f16
    linalg.yield %t : f16
  } -> tensor<32x64xf16>
  %w_e = tensor.empty() : tensor<64x48xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%w_e : tensor<64x48xf16>) {
  ^bb0(%o: f16):
    %acc0 = arith.constant 1.25 : f32
    %i0 = linalg.index 0 : index
    %n0 = arith.index_cast %i0 : index to i32
    %f0 = arith.sitofp %n0 : i32 to f32
    %c0 = arith.constant 0.37 : f32
    %m0 = arith.mulf %f0, %c0 : f32
    %acc1 = arith.addf %acc0, %m0 : f32
    %i1 = linalg.index 1 : index
    %n1 = arith.index_cast %i1 : index to i32
    %f1 = arith.sitofp %n1 : i32 to f32
    %c1 = arith.constant 0.12100000000000001 : f32
    %m1 = arith.mulf %f1, %c1 : f32
    %acc2 = arith.addf %acc1, %m1 : f32
    %s = math.sin %acc2 : f32
    %t = arith.truncf %s : f32 to f16
    linalg.yield %t : f16
  } -> tensor<64x48xf16>
  %out_e = tensor.empty() : tensor<32x48xf16>
  %lib_init = linalg.fill ins(%zero : f16) outs(%out_e : tensor<32x48xf16>) -> tensor<32x48xf16>
  %lib = linalg.matmul ins(%x, %w : tensor<32x64xf16>, tensor<64x48xf16>) outs(%lib_init : tensor<32x48xf16>) -> tensor<32x48xf16>
  %gen_init = linalg.fill ins(%zero : f16) outs(%out_e : tensor<32x48xf16>) -> tensor<32x48xf16>
  %gen = linalg.matmul {kiln.library = "none"} ins(%x, %w : tensor<32x64xf16>, tensor<64x48xf16>) outs(%gen_init : tensor<32x48xf16>) -> tensor<32x48xf16>
  // cuBLASLt accumulates in f32, the generated kernel in f16 (sums of 64
  // products of magnitude at most 1, rounded to 11 bits at each step).
  check.expect_almost_eq(%lib, %gen, atol 1.0e-01) : tensor<32x48xf16>
  return
}
