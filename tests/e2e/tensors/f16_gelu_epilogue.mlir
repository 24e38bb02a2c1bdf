// A GELU epilogue in f16 (GPT-2's MLP in an f16 export: the bias add and
// gelu_new with its constants rounded to f16, 0.044715 -> 0.04471, a
// relative change of 1.5e-4). The epilogue analysis compares the activation
// within the element type's precision, so the matmul, its bias and the GELU
// are one cuBLASLt call on cuda (CUBLASLT_EPILOGUE_GELU_BIAS); the same
// product marked kiln.library = "none" is a generated kernel, and the two
// agree within f16's rounding. Inputs are sines of their indices, computed
// on the device.
// RUN: %kiln-compile %s --iree-hal-target-backends=%target_backend -o %t.kmod
// RUN: %kiln-check-module --device=%device --module=%t.kmod | FileCheck %s --check-prefix=CHECKS
// RUN: %kiln-compile %s --iree-hal-target-backends=cuda -o %t.cuda.kmod
// RUN: %kiln-dump-module %t.cuda.kmod | FileCheck %s --check-prefix=CUDA

// CHECKS-NOT: FAILED
// CHECKS: [  PASSED  ] 1 test.
// CUDA: cublasLt matmul 128x256x64 f16 bias gelu_tanh:
// CUDA-NOT: cublasLt

func.func @linear_gelu_f16() {
  %zero_f16 = arith.constant 0.0 : f16
  %x_e = tensor.empty() : tensor<128x64xf16>
  %x = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%x_e : tensor<128x64xf16>) {
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
    %k = arith.constant 0.5 : f32
    %sc = arith.mulf %s, %k : f32
    %h = arith.truncf %sc : f32 to f16
    linalg.yield %h : f16
  } -> tensor<128x64xf16>
  %w_e = tensor.empty() : tensor<64x256xf16>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%w_e : tensor<64x256xf16>) {
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
    %k = arith.constant 0.2 : f32
    %sc = arith.mulf %s, %k : f32
    %h = arith.truncf %sc : f32 to f16
    linalg.yield %h : f16
  } -> tensor<64x256xf16>
  %b_e = tensor.empty() : tensor<256xf16>
  %b = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%b_e : tensor<256xf16>) {
  ^bb0(%o: f16):
    %acc0 = arith.constant 1.3 : f32
    %i0 = linalg.index 0 : index
    %n0 = arith.index_cast %i0 : index to i32
    %f0 = arith.sitofp %n0 : i32 to f32
    %c0 = arith.constant 0.37 : f32
    %m0 = arith.mulf %f0, %c0 : f32
    %acc1 = arith.addf %acc0, %m0 : f32
    %s = math.sin %acc1 : f32
    %k = arith.constant 0.5 : f32
    %sc = arith.mulf %s, %k : f32
    %h = arith.truncf %sc : f32 to f16
    linalg.yield %h : f16
  } -> tensor<256xf16>
  %mm_e = tensor.empty() : tensor<128x256xf16>
  %mm_i = linalg.fill ins(%zero_f16 : f16) outs(%mm_e : tensor<128x256xf16>) -> tensor<128x256xf16>
  %mm = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>] ins(%x, %w : tensor<128x64xf16>, tensor<64x256xf16>) outs(%mm_i : tensor<128x256xf16>) -> tensor<128x256xf16>
  %y = linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<128x256xf16>, tensor<256xf16>) outs(%mm_e : tensor<128x256xf16>) {
  ^bb0(%a: f16, %c: f16, %o: f16):
    %s = arith.addf %a, %c : f16
    %three = arith.constant 3.0 : f16
    %p = math.powf %s, %three : f16
    %k = arith.constant 0.044715 : f16
    %kp = arith.mulf %p, %k : f16
    %in = arith.addf %s, %kp : f16
    %r2 = arith.constant 0.7978845608 : f16
    %t0 = arith.mulf %in, %r2 : f16
    %th = math.tanh %t0 : f16
    %one = arith.constant 1.0 : f16
    %t1 = arith.addf %th, %one : f16
    %half = arith.constant 0.5 : f16
    %h = arith.mulf %s, %half : f16
    %g = arith.mulf %h, %t1 : f16
    linalg.yield %g : f16
  } -> tensor<128x256xf16>
  %ref_mm_e = tensor.empty() : tensor<128x256xf16>
  %ref_mm_i = linalg.fill ins(%zero_f16 : f16) outs(%ref_mm_e : tensor<128x256xf16>) -> tensor<128x256xf16>
  %ref_mm = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>] {kiln.library = "none"} ins(%x, %w : tensor<128x64xf16>, tensor<64x256xf16>) outs(%ref_mm_i : tensor<128x256xf16>) -> tensor<128x256xf16>
  %ref = linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]} ins(%ref_mm, %b : tensor<128x256xf16>, tensor<256xf16>) outs(%ref_mm_e : tensor<128x256xf16>) {
  ^bb0(%a: f16, %c: f16, %o: f16):
    %s = arith.addf %a, %c : f16
    %three = arith.constant 3.0 : f16
    %p = math.powf %s, %three : f16
    %k = arith.constant 0.044715 : f16
    %kp = arith.mulf %p, %k : f16
    %in = arith.addf %s, %kp : f16
    %r2 = arith.constant 0.7978845608 : f16
    %t0 = arith.mulf %in, %r2 : f16
    %th = math.tanh %t0 : f16
    %one = arith.constant 1.0 : f16
    %t1 = arith.addf %th, %one : f16
    %half = arith.constant 0.5 : f16
    %h = arith.mulf %s, %half : f16
    %g = arith.mulf %h, %t1 : f16
    linalg.yield %g : f16
  } -> tensor<128x256xf16>
  check.expect_almost_eq(%y, %ref, atol 1.0e-02) : tensor<128x256xf16>
  return
}
