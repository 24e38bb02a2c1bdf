// RUN: %kiln-opt %s --split-input-file --kiln-form-dispatches=library-calls=true --kiln-select-library-calls=blocked-activations=true | FileCheck %s
// RUN: %kiln-opt %s --split-input-file --kiln-form-dispatches=library-calls=true --kiln-select-library-calls | FileCheck %s --check-prefix=OFF

// --kiln-select-library-calls=blocked-activations=true (the pipeline's
// choice where cpu is a target and cuda is not): a convolution's result
// that only convolution calls read, as their image x or addend z, stays in
// oneDNN's blocked layout between them (y_blocked on the producer, x_blocked
// or z_blocked on each consumer). Without the option no call says so.

// OFF-NOT: _blocked

// A chain: %a goes to the second convolution as x and to the third as its
// residual z, %b to the third as x; the third's result is returned (NCHW),
// and the first's image is the function's argument (NCHW).

#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
#ch = affine_map<(n, c, h, w) -> (c)>
// CHECK-LABEL: hal.executable.source private @chain_dispatch_0
// CHECK: kind = "convolution", n = 1 : i64, r = 3 : i64, s = 3 : i64, stride_h = 1 : i64, stride_w = 1 : i64, w = 12 : i64, x = 0 : i64, y = 3 : i64, y_blocked = true}
// CHECK-LABEL: hal.executable.source private @chain_dispatch_1
// CHECK: kind = "convolution", n = 1 : i64, r = 1 : i64, s = 1 : i64, stride_h = 1 : i64, stride_w = 1 : i64, w = 10 : i64, x = 0 : i64, x_blocked = true, y = 2 : i64, y_blocked = true}
// CHECK-LABEL: hal.executable.source private @chain_dispatch_2
// CHECK: kind = "convolution", n = 1 : i64, r = 1 : i64, s = 1 : i64, stride_h = 1 : i64, stride_w = 1 : i64, w = 10 : i64, x = 0 : i64, x_blocked = true, y = 3 : i64, z = 2 : i64, z_blocked = true}
func.func @chain(%x: tensor<1x16x12x12xf32>, %f1: tensor<16x16x3x3xf32>, %bias: tensor<16xf32>, %f2: tensor<32x16x1x1xf32>, %f3: tensor<16x32x1x1xf32>) -> tensor<1x16x10x10xf32> {
  %zero = arith.constant 0.0 : f32
  %e16 = tensor.empty() : tensor<1x16x10x10xf32>
  %i16 = linalg.fill ins(%zero : f32) outs(%e16 : tensor<1x16x10x10xf32>) -> tensor<1x16x10x10xf32>
  %conv1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %f1 : tensor<1x16x12x12xf32>, tensor<16x16x3x3xf32>) outs(%i16 : tensor<1x16x10x10xf32>) -> tensor<1x16x10x10xf32>
  %a = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%conv1, %bias : tensor<1x16x10x10xf32>, tensor<16xf32>) outs(%e16 : tensor<1x16x10x10xf32>) {
  ^bb0(%c: f32, %b: f32, %o: f32):
    %s = arith.addf %c, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x16x10x10xf32>
  %e32 = tensor.empty() : tensor<1x32x10x10xf32>
  %i32 = linalg.fill ins(%zero : f32) outs(%e32 : tensor<1x32x10x10xf32>) -> tensor<1x32x10x10xf32>
  %b = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%a, %f2 : tensor<1x16x10x10xf32>, tensor<32x16x1x1xf32>) outs(%i32 : tensor<1x32x10x10xf32>) -> tensor<1x32x10x10xf32>
  %conv3 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%b, %f3 : tensor<1x32x10x10xf32>, tensor<16x32x1x1xf32>) outs(%i16 : tensor<1x16x10x10xf32>) -> tensor<1x16x10x10xf32>
  %c = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%conv3, %a : tensor<1x16x10x10xf32>, tensor<1x16x10x10xf32>) outs(%e16 : tensor<1x16x10x10xf32>) {
  ^bb0(%p: f32, %z: f32, %o: f32):
    %s = arith.addf %p, %z : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x16x10x10xf32>
  return %c : tensor<1x16x10x10xf32>
}

// -----

// What stays NCHW: a result the function also returns (%a), one a
// generated kernel also reads (%c, a tanh), one with 8 channels (%e, not
// whole blocks of 16), and so each convolution reading one of them.

#id = affine_map<(n, c, h, w) -> (n, c, h, w)>
// CHECK-LABEL: hal.executable.source private @plain_dispatch_0
// CHECK-NOT: _blocked
// CHECK-LABEL: func.func @plain(
func.func @plain(%x: tensor<1x16x12x12xf32>, %f: tensor<16x16x3x3xf32>, %g: tensor<8x16x3x3xf32>, %h: tensor<16x8x3x3xf32>) -> (tensor<1x16x10x10xf32>, tensor<1x16x8x8xf32>, tensor<1x16x10x10xf32>, tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e10 = tensor.empty() : tensor<1x16x10x10xf32>
  %i10 = linalg.fill ins(%zero : f32) outs(%e10 : tensor<1x16x10x10xf32>) -> tensor<1x16x10x10xf32>
  %e8 = tensor.empty() : tensor<1x16x8x8xf32>
  %i8 = linalg.fill ins(%zero : f32) outs(%e8 : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %a = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %f : tensor<1x16x12x12xf32>, tensor<16x16x3x3xf32>) outs(%i10 : tensor<1x16x10x10xf32>) -> tensor<1x16x10x10xf32>
  %b = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%a, %f : tensor<1x16x10x10xf32>, tensor<16x16x3x3xf32>) outs(%i8 : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %f : tensor<1x16x12x12xf32>, tensor<16x16x3x3xf32>) outs(%i10 : tensor<1x16x10x10xf32>) -> tensor<1x16x10x10xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : tensor<1x16x10x10xf32>) outs(%e10 : tensor<1x16x10x10xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.tanh %v : f32
    linalg.yield %r : f32
  } -> tensor<1x16x10x10xf32>
  %d = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%c, %f : tensor<1x16x10x10xf32>, tensor<16x16x3x3xf32>) outs(%i8 : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %e8c = tensor.empty() : tensor<1x8x10x10xf32>
  %i8c = linalg.fill ins(%zero : f32) outs(%e8c : tensor<1x8x10x10xf32>) -> tensor<1x8x10x10xf32>
  %e = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %g : tensor<1x16x12x12xf32>, tensor<8x16x3x3xf32>) outs(%i8c : tensor<1x8x10x10xf32>) -> tensor<1x8x10x10xf32>
  %k = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%e, %h : tensor<1x8x10x10xf32>, tensor<16x8x3x3xf32>) outs(%i8 : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  return %a, %b, %t, %d, %k : tensor<1x16x10x10xf32>, tensor<1x16x8x8xf32>, tensor<1x16x10x10xf32>, tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>
}

// -----

// An export dispatched from two places is blocked at both or at neither.
// @conv_b's image is @conv_a's result at one site and the function's
// argument at the other: @conv_b's x stays NCHW, so @conv_a's result does
// (one of its readers takes NCHW), and so @conv_c's x does too, although
// @conv_a's result is all @conv_c ever reads. @conv_e's two sites both
// read a result of @conv_d (dispatched twice, read by @conv_e alone): they
// agree, and both exports are blocked.

#layout = #hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>
// CHECK-LABEL: hal.executable.source private @ex
// CHECK: @conv_a ordinal(0)
// CHECK-SAME: x = 0 : i64, y = 2 : i64}
// CHECK: @conv_b ordinal(1)
// CHECK-SAME: x = 0 : i64, y = 2 : i64}
// CHECK: @conv_c ordinal(2)
// CHECK-SAME: x = 0 : i64, y = 2 : i64}
// CHECK: @conv_d ordinal(3)
// CHECK-SAME: x = 0 : i64, y = 2 : i64, y_blocked = true}
// CHECK: @conv_e ordinal(4)
// CHECK-SAME: x = 0 : i64, x_blocked = true, y = 2 : i64}
hal.executable.source private @ex {
  hal.executable.export public @conv_a ordinal(0) layout(#layout) attributes {kiln.library_call = {c = 16 : i64, element_type = "f32", filter = 1 : i64, h = 12 : i64, k = 16 : i64, kind = "convolution", n = 1 : i64, r = 3 : i64, s = 3 : i64, w = 12 : i64, x = 0 : i64, y = 2 : i64}}
  hal.executable.export public @conv_b ordinal(1) layout(#layout) attributes {kiln.library_call = {c = 16 : i64, element_type = "f32", filter = 1 : i64, h = 10 : i64, k = 16 : i64, kind = "convolution", n = 1 : i64, r = 3 : i64, s = 3 : i64, w = 10 : i64, x = 0 : i64, y = 2 : i64}}
  hal.executable.export public @conv_c ordinal(2) layout(#layout) attributes {kiln.library_call = {c = 16 : i64, element_type = "f32", filter = 1 : i64, h = 10 : i64, k = 16 : i64, kind = "convolution", n = 1 : i64, r = 3 : i64, s = 3 : i64, w = 10 : i64, x = 0 : i64, y = 2 : i64}}
  hal.executable.export public @conv_d ordinal(3) layout(#layout) attributes {kiln.library_call = {c = 16 : i64, element_type = "f32", filter = 1 : i64, h = 12 : i64, k = 16 : i64, kind = "convolution", n = 1 : i64, r = 3 : i64, s = 3 : i64, w = 12 : i64, x = 0 : i64, y = 2 : i64}}
  hal.executable.export public @conv_e ordinal(4) layout(#layout) attributes {kiln.library_call = {c = 16 : i64, element_type = "f32", filter = 1 : i64, h = 10 : i64, k = 16 : i64, kind = "convolution", n = 1 : i64, r = 3 : i64, s = 3 : i64, w = 10 : i64, x = 0 : i64, y = 2 : i64}}
}
func.func @sites(%x: tensor<1x16x12x12xf32>, %f: tensor<16x16x3x3xf32>, %other: tensor<1x16x10x10xf32>) -> (tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>) {
  %c1 = arith.constant 1 : index
  %a = flow.dispatch @ex::@conv_a[%c1](%x, %f) : (tensor<1x16x12x12xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x10x10xf32>
  %b1 = flow.dispatch @ex::@conv_b[%c1](%a, %f) : (tensor<1x16x10x10xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x8x8xf32>
  %b2 = flow.dispatch @ex::@conv_b[%c1](%other, %f) : (tensor<1x16x10x10xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x8x8xf32>
  %c = flow.dispatch @ex::@conv_c[%c1](%a, %f) : (tensor<1x16x10x10xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x8x8xf32>
  %d1 = flow.dispatch @ex::@conv_d[%c1](%x, %f) : (tensor<1x16x12x12xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x10x10xf32>
  %d2 = flow.dispatch @ex::@conv_d[%c1](%x, %f) : (tensor<1x16x12x12xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x10x10xf32>
  %e1 = flow.dispatch @ex::@conv_e[%c1](%d1, %f) : (tensor<1x16x10x10xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x8x8xf32>
  %e2 = flow.dispatch @ex::@conv_e[%c1](%d2, %f) : (tensor<1x16x10x10xf32>, tensor<16x16x3x3xf32>) -> tensor<1x16x8x8xf32>
  return %b1, %b2, %c, %e1, %e2 : tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>, tensor<1x16x8x8xf32>
}
