// RUN: %kiln-opt %s --split-input-file --kiln-form-dispatches=library-calls=true --kiln-select-library-calls | FileCheck %s
// RUN: %kiln-opt %s --split-input-file --kiln-form-dispatches --kiln-select-library-calls="allow-tf32=true" | FileCheck %s --check-prefix=NOSPLIT

// A matmul with its bias and ReLU (ONNX's Gemm + Relu, B stored [n, k]):
// one dispatch whose export carries the cuBLASLt call, bindings in order
// (x, weight, bias, result).

#mk = affine_map<(m, n, k) -> (m, k)>
#nk = affine_map<(m, n, k) -> (n, k)>
#mn = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
#row = affine_map<(m, n) -> (n)>
// CHECK-LABEL: hal.executable.source private @linear_relu_dispatch_0
// CHECK: hal.executable.export public @linear_relu_dispatch_0
// CHECK-SAME: kiln.library_call = {a = 0 : i64, activation = "relu", allow_tf32 = false, b = 1 : i64, batch_count = 1 : i64, batch_stride_a = 0 : i64, batch_stride_b = 0 : i64, batch_stride_d = 0 : i64, bias = 2 : i64, d = 3 : i64, element_type = "f32", k = 128 : i64, kind = "matmul", m = 64 : i64, n = 128 : i64, transpose_a = false, transpose_b = true}
// CHECK-NOT: hal.executable.source
// CHECK-LABEL: func.func @linear_relu(
// NOSPLIT-LABEL: func.func @linear_relu(
func.func @linear_relu(%x: tensor<64x128xf32>, %w: tensor<128x128xf32>, %bias: tensor<128xf32>) -> tensor<64x128xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<64x128xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<64x128xf32>) -> tensor<64x128xf32>
  %mm = linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%x, %w : tensor<64x128xf32>, tensor<128x128xf32>) outs(%init : tensor<64x128xf32>) -> tensor<64x128xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%mm, %bias : tensor<64x128xf32>, tensor<128xf32>) outs(%empty : tensor<64x128xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<64x128xf32>
  return %r : tensor<64x128xf32>
}

// -----

// A consumer the library cannot compute (a tanh) stays apart: the matmul is
// a library call of its own and the tanh a generated kernel reading its
// result. Without library calls both are one generated kernel.

// CHECK-LABEL: hal.executable.source private @matmul_tanh_dispatch_0
// CHECK: kiln.library_call = {a = 0 : i64, activation = "none", {{.*}} kind = "matmul", m = 32 : i64, n = 64 : i64, transpose_a = false, transpose_b = false}
// CHECK: linalg.matmul
// CHECK-LABEL: hal.executable.source private @matmul_tanh_dispatch_1
// CHECK-NOT: kiln.library_call
// CHECK: math.tanh
// CHECK-LABEL: func.func @matmul_tanh(
// CHECK-COUNT-2: flow.dispatch
// NOSPLIT-LABEL: hal.executable.source private @matmul_tanh_dispatch_0
// NOSPLIT-NOT: kiln.library_call
// NOSPLIT: linalg.matmul
// NOSPLIT: math.tanh
// NOSPLIT-LABEL: func.func @matmul_tanh(
// NOSPLIT-COUNT-1: flow.dispatch
// NOSPLIT-NOT: flow.dispatch
#id = affine_map<(m, n) -> (m, n)>
func.func @matmul_tanh(%a: tensor<32x64xf32>, %b: tensor<64x64xf32>) -> tensor<32x64xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<32x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<32x64xf32>) -> tensor<32x64xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf32>, tensor<64x64xf32>) outs(%init : tensor<32x64xf32>) -> tensor<32x64xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<32x64xf32>) outs(%empty : tensor<32x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %t = math.tanh %x : f32
    linalg.yield %t : f32
  } -> tensor<32x64xf32>
  return %r : tensor<32x64xf32>
}

// -----

// A batched matmul whose B is one matrix for every batch (batch stride 0),
// with A transposed and a residual added (the call's C).

#a = affine_map<(b, m, n, k) -> (b, k, m)>
#b = affine_map<(b, m, n, k) -> (k, n)>
#c = affine_map<(b, m, n, k) -> (b, m, n)>
#id3 = affine_map<(b, m, n) -> (b, m, n)>
// CHECK-LABEL: hal.executable.source private @batched_residual_dispatch_0
// CHECK: kiln.library_call = {a = 0 : i64, activation = "none", allow_tf32 = false, b = 1 : i64, batch_count = 4 : i64, batch_stride_a = 2048 : i64, batch_stride_b = 0 : i64, batch_stride_c = 1024 : i64, batch_stride_d = 1024 : i64, c = 2 : i64, d = 3 : i64, element_type = "f16", k = 64 : i64, kind = "matmul", m = 32 : i64, n = 32 : i64, transpose_a = true, transpose_b = false}
// NOSPLIT: kiln.library_call = {{{.*}}allow_tf32 = true
func.func @batched_residual(%a: tensor<4x64x32xf16>, %b: tensor<64x32xf16>, %res: tensor<4x32x32xf16>) -> tensor<4x32x32xf16> {
  %zero = arith.constant 0.0 : f16
  %empty = tensor.empty() : tensor<4x32x32xf16>
  %init = linalg.fill ins(%zero : f16) outs(%empty : tensor<4x32x32xf16>) -> tensor<4x32x32xf16>
  %mm = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : tensor<4x64x32xf16>, tensor<64x32xf16>) outs(%init : tensor<4x32x32xf16>) {
  ^bb0(%x: f16, %y: f16, %acc: f16):
    %p = arith.mulf %x, %y : f16
    %s = arith.addf %acc, %p : f16
    linalg.yield %s : f16
  } -> tensor<4x32x32xf16>
  %r = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%res, %mm : tensor<4x32x32xf16>, tensor<4x32x32xf16>) outs(%empty : tensor<4x32x32xf16>) {
  ^bb0(%x: f16, %y: f16, %o: f16):
    %s = arith.addf %x, %y : f16
    linalg.yield %s : f16
  } -> tensor<4x32x32xf16>
  return %r : tensor<4x32x32xf16>
}

// -----

// A convolution with a per-channel bias, a residual and a ReLU (a ResNet
// block's last convolution): one cuDNN call.

#id4 = affine_map<(n, c, h, w) -> (n, c, h, w)>
#ch = affine_map<(n, c, h, w) -> (c)>
// CHECK-LABEL: hal.executable.source private @conv_block_dispatch_0
// CHECK: kiln.library_call = {activation = "relu", allow_tf32 = false, bias = 2 : i64, c = 8 : i64, dilation_h = 1 : i64, dilation_w = 2 : i64, element_type = "f32", filter = 1 : i64, h = 18 : i64, k = 16 : i64, kind = "convolution", n = 1 : i64, r = 3 : i64, s = 3 : i64, stride_h = 2 : i64, stride_w = 1 : i64, w = 18 : i64, x = 0 : i64, y = 4 : i64, z = 3 : i64}
func.func @conv_block(%x: tensor<1x8x18x18xf32>, %f: tensor<16x8x3x3xf32>, %bias: tensor<16xf32>, %z: tensor<1x16x8x14xf32>) -> tensor<1x16x8x14xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x16x8x14xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x16x8x14xf32>) -> tensor<1x16x8x14xf32>
  %conv = linalg.conv_2d_nchw_fchw {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%x, %f : tensor<1x8x18x18xf32>, tensor<16x8x3x3xf32>) outs(%init : tensor<1x16x8x14xf32>) -> tensor<1x16x8x14xf32>
  %r = linalg.generic {indexing_maps = [#id4, #ch, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%conv, %bias, %z : tensor<1x16x8x14xf32>, tensor<16xf32>, tensor<1x16x8x14xf32>) outs(%empty : tensor<1x16x8x14xf32>) {
  ^bb0(%c: f32, %b: f32, %y: f32, %o: f32):
    %s = arith.addf %c, %b : f32
    %t = arith.addf %y, %s : f32
    %m = arith.maximumf %t, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x16x8x14xf32>
  return %r : tensor<1x16x8x14xf32>
}

// -----

// A filter that is an immutable global (a model's weight) in every dispatch
// of the export: the call says constant_filter (a driver may keep the filter
// in its library's layout). A mutable global's filter is not constant.

// CHECK-LABEL: hal.executable.source private @conv_weights_dispatch_0
// CHECK: kiln.library_call = {activation = "none", allow_tf32 = false, c = 8 : i64, constant_filter = true, dilation_h = 1 : i64
// CHECK-LABEL: hal.executable.source private @conv_weights_dispatch_1
// CHECK: kiln.library_call = {activation = "none", allow_tf32 = false, c = 8 : i64, dilation_h = 1 : i64
util.global private @weights = dense<0.5> : tensor<16x8x3x3xf32>
util.global private mutable @trained = dense<0.25> : tensor<16x8x3x3xf32>
func.func @conv_weights(%x: tensor<1x8x18x18xf32>) -> (tensor<1x16x16x16xf32>, tensor<1x16x16x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %f = util.global.load @weights : tensor<16x8x3x3xf32>
  %g = util.global.load @trained : tensor<16x8x3x3xf32>
  %empty = tensor.empty() : tensor<1x16x16x16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  %a = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %f : tensor<1x8x18x18xf32>, tensor<16x8x3x3xf32>) outs(%init : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  %b = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %g : tensor<1x8x18x18xf32>, tensor<16x8x3x3xf32>) outs(%init : tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  return %a, %b : tensor<1x16x16x16xf32>, tensor<1x16x16x16xf32>
}

// -----

// What stays a generated kernel: an op marked kiln.library = "none", a
// matmul below kMinLibraryWork (unless marked "always"; its operands
// are one binding, read as both A and B), and integer matmuls.

// CHECK-LABEL: hal.executable.source private @kept_dispatch_0
// CHECK-NOT: kiln.library_call
// CHECK-LABEL: hal.executable.source private @kept_dispatch_1
// CHECK-NOT: kiln.library_call
// CHECK-LABEL: hal.executable.source private @kept_dispatch_2
// CHECK: kiln.library_call = {a = 0 : i64, activation = "none", allow_tf32 = false, b = 0 : i64, {{.*}}k = 8 : i64, kind = "matmul", m = 8 : i64, n = 8 : i64
// CHECK-LABEL: hal.executable.source private @kept_dispatch_3
// CHECK-NOT: kiln.library_call
// CHECK-LABEL: func.func @kept(
func.func @kept(%a: tensor<64x64xf32>, %s: tensor<8x8xf32>, %i: tensor<64x64xi32>) -> (tensor<64x64xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<64x64xi32>) {
  %zero = arith.constant 0.0 : f32
  %izero = arith.constant 0 : i32
  %empty = tensor.empty() : tensor<64x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<64x64xf32>) -> tensor<64x64xf32>
  %none = linalg.matmul {kiln.library = "none"} ins(%a, %a : tensor<64x64xf32>, tensor<64x64xf32>) outs(%init : tensor<64x64xf32>) -> tensor<64x64xf32>
  %sempty = tensor.empty() : tensor<8x8xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%sempty : tensor<8x8xf32>) -> tensor<8x8xf32>
  %small = linalg.matmul ins(%s, %s : tensor<8x8xf32>, tensor<8x8xf32>) outs(%sinit : tensor<8x8xf32>) -> tensor<8x8xf32>
  %always = linalg.matmul {kiln.library = "always"} ins(%s, %s : tensor<8x8xf32>, tensor<8x8xf32>) outs(%sinit : tensor<8x8xf32>) -> tensor<8x8xf32>
  %iempty = tensor.empty() : tensor<64x64xi32>
  %iinit = linalg.fill ins(%izero : i32) outs(%iempty : tensor<64x64xi32>) -> tensor<64x64xi32>
  %int = linalg.matmul ins(%i, %i : tensor<64x64xi32>, tensor<64x64xi32>) outs(%iinit : tensor<64x64xi32>) -> tensor<64x64xi32>
  return %none, %small, %always, %int : tensor<64x64xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<64x64xi32>
}

// -----

// GELU's tanh form after a bias (GPT-2's MLP) is cuBLASLt's GELU_BIAS
// epilogue, whatever order the ops come in: the body is evaluated, not
// matched. GELU's erf form (BERT's) is not the tanh approximation: that
// consumer stays a generated kernel of its own. The weight [12, 64, 768]
// is read as a 768x768 matrix (the loops of a group are stored together).

#a3 = affine_map<(m, n, h, d) -> (m, h, d)>
#b3 = affine_map<(m, n, h, d) -> (h, d, n)>
#c3 = affine_map<(m, n, h, d) -> (m, n)>
#id2 = affine_map<(m, n) -> (m, n)>
#col = affine_map<(m, n) -> (n)>
// CHECK-LABEL: hal.executable.source private @gelus_dispatch_0
// CHECK: kiln.library_call = {a = 0 : i64, activation = "gelu_tanh", {{.*}} bias = 2 : i64, d = 3 : i64, element_type = "f32", k = 768 : i64, kind = "matmul", m = 16 : i64, n = 64 : i64
// CHECK-LABEL: hal.executable.source private @gelus_dispatch_1
// CHECK: kiln.library_call = {a = 0 : i64, activation = "none", {{.*}} k = 768 : i64, kind = "matmul", m = 16 : i64, n = 64 : i64
// CHECK-LABEL: hal.executable.source private @gelus_dispatch_2
// CHECK-NOT: kiln.library_call
// CHECK: math.erf
// CHECK-LABEL: func.func @gelus(
func.func @gelus(%x: tensor<16x12x64xf32>, %w: tensor<12x64x64xf32>, %bias: tensor<64xf32>) -> (tensor<16x64xf32>, tensor<16x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %three = arith.constant 3.0 : f32
  %c = arith.constant 0.044715 : f32
  %s = arith.constant 0.797884583 : f32
  %rsqrt2 = arith.constant 0.707106769 : f32
  %empty = tensor.empty() : tensor<16x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<16x64xf32>) -> tensor<16x64xf32>
  %mm = linalg.generic {indexing_maps = [#a3, #b3, #c3], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%x, %w : tensor<16x12x64xf32>, tensor<12x64x64xf32>) outs(%init : tensor<16x64xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %t = arith.mulf %p, %q : f32
    %u = arith.addf %acc, %t : f32
    linalg.yield %u : f32
  } -> tensor<16x64xf32>
  %tanh = linalg.generic {indexing_maps = [#col, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%bias, %mm : tensor<64xf32>, tensor<16x64xf32>) outs(%empty : tensor<16x64xf32>) {
  ^bb0(%b: f32, %m: f32, %o: f32):
    %v = arith.addf %b, %m : f32
    %cube = math.powf %v, %three : f32
    %k = arith.mulf %cube, %c : f32
    %inner = arith.addf %v, %k : f32
    %scaled = arith.mulf %s, %inner : f32
    %th = math.tanh %scaled : f32
    %plus = arith.addf %th, %one : f32
    %hv = arith.mulf %v, %half : f32
    %g = arith.mulf %hv, %plus : f32
    linalg.yield %g : f32
  } -> tensor<16x64xf32>
  %mm2 = linalg.generic {indexing_maps = [#a3, #b3, #c3], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%x, %w : tensor<16x12x64xf32>, tensor<12x64x64xf32>) outs(%init : tensor<16x64xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %t = arith.mulf %p, %q : f32
    %u = arith.addf %acc, %t : f32
    linalg.yield %u : f32
  } -> tensor<16x64xf32>
  %erf = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%mm2 : tensor<16x64xf32>) outs(%empty : tensor<16x64xf32>) {
  ^bb0(%m: f32, %o: f32):
    %e0 = arith.mulf %m, %rsqrt2 : f32
    %e1 = math.erf %e0 : f32
    %e2 = arith.addf %e1, %one : f32
    %e3 = arith.mulf %m, %half : f32
    %e4 = arith.mulf %e3, %e2 : f32
    linalg.yield %e4 : f32
  } -> tensor<16x64xf32>
  return %tanh, %erf : tensor<16x64xf32>, tensor<16x64xf32>
}

// -----

// A convolution below kMinLibraryWork keeps its generated kernel, unless
// marked "always".

// CHECK-LABEL: hal.executable.source private @tiny_conv_dispatch_0
// CHECK-NOT: kiln.library_call
// CHECK-LABEL: hal.executable.source private @tiny_conv_dispatch_1
// CHECK: kiln.library_call = {{{.*}}kind = "convolution"
func.func @tiny_conv(%x: tensor<1x1x4x4xf32>, %f: tensor<1x1x3x3xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x1x2x2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  %a = linalg.conv_2d_nchw_fchw ins(%x, %f : tensor<1x1x4x4xf32>, tensor<1x1x3x3xf32>) outs(%init : tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  %b = linalg.conv_2d_nchw_fchw {kiln.library = "always"} ins(%x, %f : tensor<1x1x4x4xf32>, tensor<1x1x3x3xf32>) outs(%init : tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  return %a, %b : tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>
}

// -----

// An epilogue whose values are used many times each (48 doublings: 2^48
// uses of the matmul's element if every use were followed) is evaluated op
// by op, once each: 2^48 x is no activation a library has, so the matmul is
// a call of its own and the doublings a generated kernel.

#id2d = affine_map<(m, n) -> (m, n)>
// CHECK-LABEL: hal.executable.source private @doublings_dispatch_0
// CHECK: kiln.library_call = {a = 0 : i64, activation = "none"
// CHECK-LABEL: hal.executable.source private @doublings_dispatch_1
// CHECK-NOT: kiln.library_call
// CHECK: arith.addf
func.func @doublings(%a: tensor<32x64xf32>, %b: tensor<64x64xf32>) -> tensor<32x64xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<32x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<32x64xf32>) -> tensor<32x64xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<32x64xf32>, tensor<64x64xf32>) outs(%init : tensor<32x64xf32>) -> tensor<32x64xf32>
  %r = linalg.generic {indexing_maps = [#id2d, #id2d], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<32x64xf32>) outs(%empty : tensor<32x64xf32>) {
  ^bb0(%m: f32, %o: f32):
    %d0 = arith.addf %m, %m : f32
    %d1 = arith.addf %d0, %d0 : f32
    %d2 = arith.addf %d1, %d1 : f32
    %d3 = arith.addf %d2, %d2 : f32
    %d4 = arith.addf %d3, %d3 : f32
    %d5 = arith.addf %d4, %d4 : f32
    %d6 = arith.addf %d5, %d5 : f32
    %d7 = arith.addf %d6, %d6 : f32
    %d8 = arith.addf %d7, %d7 : f32
    %d9 = arith.addf %d8, %d8 : f32
    %d10 = arith.addf %d9, %d9 : f32
    %d11 = arith.addf %d10, %d10 : f32
    %d12 = arith.addf %d11, %d11 : f32
    %d13 = arith.addf %d12, %d12 : f32
    %d14 = arith.addf %d13, %d13 : f32
    %d15 = arith.addf %d14, %d14 : f32
    %d16 = arith.addf %d15, %d15 : f32
    %d17 = arith.addf %d16, %d16 : f32
    %d18 = arith.addf %d17, %d17 : f32
    %d19 = arith.addf %d18, %d18 : f32
    %d20 = arith.addf %d19, %d19 : f32
    %d21 = arith.addf %d20, %d20 : f32
    %d22 = arith.addf %d21, %d21 : f32
    %d23 = arith.addf %d22, %d22 : f32
    %d24 = arith.addf %d23, %d23 : f32
    %d25 = arith.addf %d24, %d24 : f32
    %d26 = arith.addf %d25, %d25 : f32
    %d27 = arith.addf %d26, %d26 : f32
    %d28 = arith.addf %d27, %d27 : f32
    %d29 = arith.addf %d28, %d28 : f32
    %d30 = arith.addf %d29, %d29 : f32
    %d31 = arith.addf %d30, %d30 : f32
    %d32 = arith.addf %d31, %d31 : f32
    %d33 = arith.addf %d32, %d32 : f32
    %d34 = arith.addf %d33, %d33 : f32
    %d35 = arith.addf %d34, %d34 : f32
    %d36 = arith.addf %d35, %d35 : f32
    %d37 = arith.addf %d36, %d36 : f32
    %d38 = arith.addf %d37, %d37 : f32
    %d39 = arith.addf %d38, %d38 : f32
    %d40 = arith.addf %d39, %d39 : f32
    %d41 = arith.addf %d40, %d40 : f32
    %d42 = arith.addf %d41, %d41 : f32
    %d43 = arith.addf %d42, %d42 : f32
    %d44 = arith.addf %d43, %d43 : f32
    %d45 = arith.addf %d44, %d44 : f32
    %d46 = arith.addf %d45, %d45 : f32
    %d47 = arith.addf %d46, %d46 : f32
    linalg.yield %d47 : f32
  } -> tensor<32x64xf32>
  return %r : tensor<32x64xf32>
}

// -----

// A matrix-vector product (the MLP's layer at batch 1: m = 1, k = 1024) is
// marked generated_on_gpu: GPU targets run its generated kernel, whose
// threads share each dot product; with kiln.library = "always" the mark is
// left off and the call stays everywhere. A short one (k = 128) keeps its
// call unmarked: one thread's in-order dot product would be the generated
// kernel's, and the library's is faster.

#mk = affine_map<(m, n, k) -> (m, k)>
#nk = affine_map<(m, n, k) -> (n, k)>
#mn = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: hal.executable.source private @vector_products_dispatch_0
// CHECK: kiln.library_call = {{{.*}}, element_type = "f32", generated_on_gpu = true, k = 1024 : i64, kind = "matmul", m = 1 : i64, n = 512 : i64, transpose_a = false, transpose_b = true}
// CHECK-LABEL: hal.executable.source private @vector_products_dispatch_1
// CHECK-NOT: generated_on_gpu
// CHECK: kiln.library_call = {{{.*}}, k = 1024 : i64, kind = "matmul", m = 1 : i64, n = 512 : i64,
// CHECK-LABEL: hal.executable.source private @vector_products_dispatch_2
// CHECK-NOT: generated_on_gpu
// CHECK: kiln.library_call = {{{.*}}, k = 128 : i64, kind = "matmul", m = 1 : i64, n = 512 : i64,
// CHECK-LABEL: func.func @vector_products(
func.func @vector_products(%x: tensor<1x1024xf32>, %w: tensor<512x1024xf32>, %xs: tensor<1x128xf32>, %ws: tensor<512x128xf32>) -> (tensor<1x512xf32>, tensor<1x512xf32>, tensor<1x512xf32>) {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x512xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x512xf32>) -> tensor<1x512xf32>
  %gen = linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%x, %w : tensor<1x1024xf32>, tensor<512x1024xf32>) outs(%init : tensor<1x512xf32>) -> tensor<1x512xf32>
  %lib = linalg.matmul indexing_maps = [#mk, #nk, #mn] {kiln.library = "always"} ins(%x, %w : tensor<1x1024xf32>, tensor<512x1024xf32>) outs(%init : tensor<1x512xf32>) -> tensor<1x512xf32>
  %short = linalg.matmul indexing_maps = [#mk, #nk, #mn] ins(%xs, %ws : tensor<1x128xf32>, tensor<512x128xf32>) outs(%init : tensor<1x512xf32>) -> tensor<1x512xf32>
  return %gen, %lib, %short : tensor<1x512xf32>, tensor<1x512xf32>, tensor<1x512xf32>
}
