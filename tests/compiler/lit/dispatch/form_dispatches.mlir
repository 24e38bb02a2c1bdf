// RUN: %kiln-opt %s --split-input-file --kiln-form-dispatches | FileCheck %s

// Each linalg op on tensors becomes a dispatch of a generated executable. Its
// tensor operands are read-only bindings, its results bindings after them;
// the scalars it reads from outside and the dynamic dims of its tensors are
// 32-bit constants, in order of first use; the
// tensor.empty of the result becomes the result's binding, so the kernel
// writes in place. The host computes the workgroup count from the workgroup
// tiles (1024 elements of work per workgroup here).

#map = affine_map<(d0) -> (d0)>
// CHECK-LABEL: hal.executable.source private @scale_dispatch_0
// CHECK: hal.executable.export public @scale_dispatch_0 ordinal(0) layout(#hal.pipeline.layout<constants = 2, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>)
// CHECK-SAME: attributes {workgroup_size = [128 : index, 1 : index, 1 : index]}
// CHECK: builtin.module
// CHECK: func.func @scale_dispatch_0() attributes {kiln.workgroup_loops = 1 : index, kiln.workgroup_size = array<i64: 128, 1, 1>}
// CHECK-DAG: %[[N:.+]] = hal.interface.constant.load layout({{.+}}) ordinal(0) : index
// CHECK-DAG: %[[S:.+]] = hal.interface.constant.load layout({{.+}}) ordinal(1) : f32
// CHECK: %[[IN:.+]] = hal.interface.binding.subspan layout({{.+}}) binding(0) alignment(64) offset(%{{.+}}) flags({{ ?}}ReadOnly) : memref<?xf32>{%[[N]]}
// CHECK: %[[INT:.+]] = bufferization.to_tensor %[[IN]] restrict : memref<?xf32> to tensor<?xf32>
// CHECK: %[[OUT:.+]] = hal.interface.binding.subspan layout({{.+}}) binding(1) alignment(64) offset(%{{.+}}) : memref<?xf32>{%[[N]]}
// CHECK: %[[OUTT:.+]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<?xf32> to tensor<?xf32>
// CHECK: %[[R:.+]] = linalg.generic {{.*}} ins(%[[INT]] : tensor<?xf32>) outs(%[[OUTT]] : tensor<?xf32>) attrs = {kiln.workgroup_tiles = array<i64: 1024>}
// CHECK: arith.mulf %{{.+}}, %[[S]] : f32
// CHECK: bufferization.materialize_in_destination %[[R]] in restrict writable %[[OUT]] : (tensor<?xf32>, memref<?xf32>) -> ()

// CHECK-LABEL: func.func @scale(
// CHECK-SAME: %[[A:[^:]+]]: tensor<?xf32>, %[[SCALE:.+]]: f32)
func.func @scale(%a: tensor<?xf32>, %s: f32) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  // CHECK: %[[DIM:.+]] = tensor.dim %[[A]]
  // CHECK: %[[ROUNDED:.+]] = arith.addi %[[DIM]], %c1023
  // CHECK: %[[COUNT:.+]] = arith.divui %[[ROUNDED]], %c1024
  // CHECK: %[[R:.+]] = flow.dispatch @scale_dispatch_0::@scale_dispatch_0[%[[COUNT]], %c1, %c1](%[[DIM]], %[[SCALE]], %[[A]]) : (index, f32, tensor<?xf32>{%[[DIM]]}) -> tensor<?xf32>{%[[DIM]]}
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%a : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %unused: f32):
    %m = arith.mulf %x, %s : f32
    linalg.yield %m : f32
  } -> tensor<?xf32>
  // CHECK: return %[[R]]
  return %r : tensor<?xf32>
}

// -----

// A reduction: its accumulator's linalg.fill is cloned into the dispatch
// (and fills the result's binding), constants are cloned, each workgroup
// takes one row of work (the row is 1024 or more elements long), and a 2-D
// static result of 6 rows of 300 is cut into 2 workgroups of 3 whole rows
// (a tile that covers a static loop whole leaves it untiled).

#row = affine_map<(i, j) -> (i, j)>
#out = affine_map<(i, j) -> (i)>
// CHECK-LABEL: hal.executable.source private @rowsum_dispatch_0
// CHECK: func.func @rowsum_dispatch_0()
// CHECK: %[[OUT:.+]] = bufferization.to_tensor %{{.+}} restrict writable
// CHECK: %[[FILL:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[OUT]] : tensor<?xf32>)
// CHECK: linalg.generic {{.*}} outs(%[[FILL]] : tensor<?xf32>) attrs = {kiln.workgroup_tiles = array<i64: 1, 0>}
// CHECK-LABEL: func.func @rowsum(
func.func @rowsum(%a: tensor<?x?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%n) : tensor<?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  // CHECK: %[[ROWS:.+]] = tensor.dim %arg0, %c0
  // CHECK: flow.dispatch @rowsum_dispatch_0::@rowsum_dispatch_0[%[[ROWS]], %c1, %c1]
  %r = linalg.generic {indexing_maps = [#row, #out], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<?x?xf32>) outs(%f : tensor<?xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %y = arith.addf %x, %acc : f32
    linalg.yield %y : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// CHECK-LABEL: hal.executable.source private @static2d_dispatch_0
// CHECK: %[[C:.+]] = arith.constant dense<2.000000e+00> : tensor<6x300xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.+}}, %[[C]] : tensor<6x300xf32>, tensor<6x300xf32>) {{.*}} attrs = {kiln.workgroup_tiles = array<i64: 3, 0>}
// CHECK-LABEL: func.func @static2d(
func.func @static2d(%a: tensor<6x300xf32>) -> tensor<6x300xf32> {
  %c = arith.constant dense<2.0> : tensor<6x300xf32>
  %e = tensor.empty() : tensor<6x300xf32>
  // CHECK: flow.dispatch @static2d_dispatch_0::@static2d_dispatch_0[%c2, %c1, %c1](%arg0) : (tensor<6x300xf32>) -> tensor<6x300xf32>
  %r = linalg.generic {indexing_maps = [#row, #row, #row], iterator_types = ["parallel", "parallel"]}
      ins(%a, %c : tensor<6x300xf32>, tensor<6x300xf32>) outs(%e : tensor<6x300xf32>) {
  ^bb0(%x: f32, %y: f32, %unused: f32):
    %m = arith.mulf %x, %y : f32
    linalg.yield %m : f32
  } -> tensor<6x300xf32>
  return %r : tensor<6x300xf32>
}

// -----

// A matmul whose one use is an elementwise epilogue (bias + ReLU) joins the
// epilogue's dispatch: the epilogue is the root, the matmul and the fill of
// its accumulator are cloned in, and tiling fuses them into each tile.
// CHECK-LABEL: hal.executable.source private @linear_dispatch_0
// CHECK: func.func @linear_dispatch_0()
// CHECK: %[[FILL:.+]] = linalg.fill
// CHECK: %[[MM:.+]] = linalg.matmul {{.*}}outs(%[[FILL]] :
// CHECK: linalg.generic {{.*}}ins(%[[MM]], %{{.+}} : tensor<?x?xf32>, tensor<?xf32>) {{.*}}kiln.workgroup_tiles
// CHECK-NOT: hal.executable.source
// CHECK-LABEL: func.func @linear(
// CHECK: flow.dispatch @linear_dispatch_0::@linear_dispatch_0
// CHECK-NOT: flow.dispatch
func.func @linear(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %bias: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %b, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<?x?xf32>, tensor<?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %z = arith.maximumf %s, %zero : f32
    linalg.yield %z : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// The same at batch 1 with static shapes (a matrix-vector product): the
// joined matmul's K = 1024 counts as each output element's work, so each
// workgroup takes one output element (1024 workgroups, whose threads share
// the dot product) instead of one workgroup taking all 1024.
// CHECK-LABEL: hal.executable.source private @linear_b1_dispatch_0
// CHECK: linalg.matmul
// CHECK: linalg.generic {{.*}}kiln.workgroup_tiles = array<i64: 0, 1>
// CHECK-LABEL: func.func @linear_b1(
// CHECK: flow.dispatch @linear_b1_dispatch_0::@linear_b1_dispatch_0[%c1024, %c1, %c1]
func.func @linear_b1(%a: tensor<1x1024xf32>, %b: tensor<1024x1024xf32>, %bias: tensor<1024xf32>) -> tensor<1x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x1024xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1024xf32>) -> tensor<1x1024xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<1x1024xf32>, tensor<1024x1024xf32>) outs(%f : tensor<1x1024xf32>) -> tensor<1x1024xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<1x1024xf32>, tensor<1024xf32>) outs(%e : tensor<1x1024xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %z = arith.maximumf %s, %zero : f32
    linalg.yield %z : f32
  } -> tensor<1x1024xf32>
  return %r : tensor<1x1024xf32>
}

// -----

// A fill that initializes two reductions, one of them through a reshape
// (fusion reshapes a reduction's init with its result), is cloned into each
// of them, not a dispatch of its own whose buffer both would share.
// CHECK-LABEL: func.func @shared_fill(
// CHECK-COUNT-2: flow.dispatch
// CHECK-NOT:     flow.dispatch
func.func @shared_fill(%x: tensor<128x384xf32>) -> (tensor<128x1xf32>, tensor<128xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<128xf32>) -> tensor<128xf32>
  %init = tensor.expand_shape %fill [[0, 1]] output_shape [128, 1] : tensor<128xf32> into tensor<128x1xf32>
  %x3 = tensor.expand_shape %x [[0, 1], [2]] output_shape [128, 1, 384] : tensor<128x384xf32> into tensor<128x1x384xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(a, b, c) -> (a, b, c)>, affine_map<(a, b, c) -> (a, b)>],
                         iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x3 : tensor<128x1x384xf32>) outs(%init : tensor<128x1xf32>) {
    ^bb0(%v: f32, %a: f32):
      %r = arith.addf %v, %a : f32
      linalg.yield %r : f32
    } -> tensor<128x1xf32>
  %squares = linalg.generic {indexing_maps = [affine_map<(a, b) -> (a, b)>, affine_map<(a, b) -> (a)>],
                             iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<128x384xf32>) outs(%fill : tensor<128xf32>) {
    ^bb0(%v: f32, %a: f32):
      %m = arith.mulf %v, %v : f32
      %r = arith.addf %m, %a : f32
      linalg.yield %r : f32
    } -> tensor<128xf32>
  return %sum, %squares : tensor<128x1xf32>, tensor<128xf32>
}

// -----

// A softmax over rows of 128 (as --kiln-decompose-aggregates and fusion
// leave it): the max, the exp (read by the sum and the divide), the sum and
// the divide are one dispatch whose workgroups take whole rows, 8 rows of
// 128 each (the row loop is not tiled; the reductions are fused into each
// tile, broadcast along it).
#x3 = affine_map<(i, j, k) -> (i, j, k)>
#r3 = affine_map<(i, j, k) -> (i, j)>
// CHECK-LABEL: hal.executable.source private @softmax_dispatch_0
// CHECK: func.func @softmax_dispatch_0() attributes {kiln.workgroup_loops = 2 : index
// CHECK: %[[MAX:.+]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: arith.maxnumf
// CHECK: %[[EXP:.+]] = linalg.generic {{.*}}ins(%{{.+}}, %[[MAX]] :
// CHECK: math.exp
// CHECK: %[[SUM:.+]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[EXP]] :
// CHECK: linalg.generic {{.*}}ins(%[[EXP]], %[[SUM]] : {{.*}}kiln.workgroup_tiles = array<i64: 1, 8, 0>
// CHECK-NOT: hal.executable.source
// CHECK-LABEL: func.func @softmax(
// CHECK: flow.dispatch @softmax_dispatch_0::@softmax_dispatch_0[%c16, %c12, %c1](%arg0)
// CHECK-NOT: flow.dispatch
func.func @softmax(%x: tensor<12x128x128xf32>) -> tensor<12x128x128xf32> {
  %zero = arith.constant 0.0 : f32
  %lowest = arith.constant 0xFFC00000 : f32
  %e = tensor.empty() : tensor<12x128x128xf32>
  %e2 = tensor.empty() : tensor<12x128xf32>
  %f1 = linalg.fill ins(%lowest : f32) outs(%e2 : tensor<12x128xf32>) -> tensor<12x128xf32>
  %max = linalg.generic {indexing_maps = [#x3, #r3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<12x128x128xf32>) outs(%f1 : tensor<12x128xf32>) {
  ^bb0(%v: f32, %a: f32):
    %m = arith.maxnumf %v, %a : f32
    linalg.yield %m : f32
  } -> tensor<12x128xf32>
  %exp = linalg.generic {indexing_maps = [#x3, #r3, #x3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %max : tensor<12x128x128xf32>, tensor<12x128xf32>) outs(%e : tensor<12x128x128xf32>) {
  ^bb0(%v: f32, %m: f32, %o: f32):
    %d = arith.subf %v, %m : f32
    %p = math.exp %d : f32
    linalg.yield %p : f32
  } -> tensor<12x128x128xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<12x128xf32>) -> tensor<12x128xf32>
  %sum = linalg.generic {indexing_maps = [#x3, #r3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%exp : tensor<12x128x128xf32>) outs(%f2 : tensor<12x128xf32>) {
  ^bb0(%v: f32, %a: f32):
    %s = arith.addf %v, %a : f32
    linalg.yield %s : f32
  } -> tensor<12x128xf32>
  %r = linalg.generic {indexing_maps = [#x3, #r3, #x3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%exp, %sum : tensor<12x128x128xf32>, tensor<12x128xf32>) outs(%e : tensor<12x128x128xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %q = arith.divf %v, %s : f32
    linalg.yield %q : f32
  } -> tensor<12x128x128xf32>
  return %r : tensor<12x128x128xf32>
}

// -----

// Rows longer than a workgroup may hold whole (f32 rows of 8192 elements,
// 32 KiB, where the bound is 4 KiB), or of a dynamic length: the reduction is a dispatch of its own, and the
// elementwise op that reads it broadcast is tiled along the row.
#x2 = affine_map<(i, j) -> (i, j)>
#r2 = affine_map<(i, j) -> (i)>
// CHECK-LABEL: func.func @long_rows(
// CHECK: %[[SUM:.+]] = flow.dispatch @long_rows_dispatch_0::@long_rows_dispatch_0
// CHECK: flow.dispatch @long_rows_dispatch_1::@long_rows_dispatch_1[%c8, %c4, %c1](%arg0, %[[SUM]])
func.func @long_rows(%x: tensor<4x8192xf32>) -> tensor<4x8192xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8192xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#x2, #r2], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8192xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%v: f32, %a: f32):
    %s = arith.addf %v, %a : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#x2, #r2, #x2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<4x8192xf32>, tensor<4xf32>) outs(%e : tensor<4x8192xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %q = arith.divf %v, %s : f32
    linalg.yield %q : f32
  } -> tensor<4x8192xf32>
  return %r : tensor<4x8192xf32>
}

// CHECK-LABEL: func.func @dynamic_rows(
// CHECK: %[[SUM:.+]] = flow.dispatch @dynamic_rows_dispatch_0::@dynamic_rows_dispatch_0
// CHECK: flow.dispatch @dynamic_rows_dispatch_1::@dynamic_rows_dispatch_1{{.*}}(%{{.+}}, %arg0, %[[SUM]])
func.func @dynamic_rows(%x: tensor<4x?xf32>) -> tensor<4x?xf32> {
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c1 : tensor<4x?xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%n) : tensor<4x?xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#x2, #r2], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x?xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%v: f32, %a: f32):
    %s = arith.addf %v, %a : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#x2, #r2, #x2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<4x?xf32>, tensor<4xf32>) outs(%e : tensor<4x?xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %q = arith.divf %v, %s : f32
    linalg.yield %q : f32
  } -> tensor<4x?xf32>
  return %r : tensor<4x?xf32>
}

// -----

// A matmul reads each operand broadcast along a parallel loop: an
// elementwise producer of an operand (a dequantization, here a scale) stays
// a dispatch of its own rather than being computed again for every tile.
#x2 = affine_map<(i, j) -> (i, j)>
// CHECK-LABEL: func.func @scaled_operand(
// CHECK: %[[SCALED:.+]] = flow.dispatch @scaled_operand_dispatch_0::@scaled_operand_dispatch_0
// CHECK: flow.dispatch @scaled_operand_dispatch_1::@scaled_operand_dispatch_1{{.*}}(%[[SCALED]], %arg1)
func.func @scaled_operand(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %scaled = linalg.generic {indexing_maps = [#x2, #x2], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %v, %two : f32
    linalg.yield %m : f32
  } -> tensor<64x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %mm = linalg.matmul ins(%scaled, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %mm : tensor<64x64xf32>
}

// -----

// An elementwise producer of a reduction the consumer reduces whole (a
// 131072-long argmax's input, made by a tensor.insert into a fill) would be
// held whole in the one workgroup: it stays a dispatch of its own. The same
// producer of a 64-long reduction joins it.
#v = affine_map<(i) -> (i)>
#s = affine_map<(i) -> ()>
// CHECK-LABEL: func.func @long_reduction_input(
// CHECK: %[[INPUT:.+]] = flow.dispatch @long_reduction_input_dispatch_0::@long_reduction_input_dispatch_0
// CHECK: flow.dispatch @long_reduction_input_dispatch_1::@long_reduction_input_dispatch_1{{.*}}(%[[INPUT]])
// CHECK-LABEL: func.func @short_reduction_input(
// CHECK: flow.dispatch @short_reduction_input_dispatch_0::@short_reduction_input_dispatch_0[%c1, %c1, %c1]()
// CHECK-NOT: flow.dispatch
func.func @long_reduction_input(%at: index) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<131072xf32>
  %x = linalg.generic {indexing_maps = [#v], iterator_types = ["parallel"]} outs(%e : tensor<131072xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %hit = arith.cmpi eq, %i, %at : index
    %y = arith.select %hit, %one, %zero : f32
    linalg.yield %y : f32
  } -> tensor<131072xf32>
  %e0 = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [#v, #s], iterator_types = ["reduction"]}
      ins(%x : tensor<131072xf32>) outs(%f : tensor<f32>) {
  ^bb0(%v: f32, %a: f32):
    %m = arith.maximumf %v, %a : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

func.func @short_reduction_input() -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %x = linalg.generic {indexing_maps = [#v], iterator_types = ["parallel"]} outs(%e : tensor<64xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %c = arith.index_cast %i : index to i32
    %y = arith.sitofp %c : i32 to f32
    linalg.yield %y : f32
  } -> tensor<64xf32>
  %e0 = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %r = linalg.generic {indexing_maps = [#v, #s], iterator_types = ["reduction"]}
      ins(%x : tensor<64xf32>) outs(%f : tensor<f32>) {
  ^bb0(%v: f32, %a: f32):
    %m = arith.maximumf %v, %a : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// A global average pooling (as ResNet ends): the sum over each channel's 7x7
// joins the divide, and the op making what it sums (here an exp) joins the
// sum, so each tile computes 49 of the exp's elements per channel it covers.
// The tile takes 1024 / 49 = 20 channels, not 1024: a GPU workgroup keeps
// those elements in workgroup memory (20 x 49 x 4 bytes, not 200 KiB).
#p4 = affine_map<(n, c, h, w) -> (n, c, h, w)>
#p2 = affine_map<(n, c, h, w) -> (n, c)>
#e2 = affine_map<(n, c) -> (n, c)>
// CHECK-LABEL: hal.executable.source private @average_pool_dispatch_0
// CHECK: math.exp
// CHECK: iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// CHECK: kiln.workgroup_tiles = array<i64: 0, 20>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.divf
// CHECK-NOT: hal.executable.source
// CHECK-LABEL: func.func @average_pool(
// CHECK: flow.dispatch @average_pool_dispatch_0::@average_pool_dispatch_0[%c103, %c1, %c1](%arg0)
// CHECK-NOT: flow.dispatch
func.func @average_pool(%x: tensor<1x2048x7x7xf32>) -> tensor<1x2048xf32> {
  %zero = arith.constant 0.0 : f32
  %count = arith.constant 49.0 : f32
  %e4 = tensor.empty() : tensor<1x2048x7x7xf32>
  %exp = linalg.generic {indexing_maps = [#p4, #p4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<1x2048x7x7xf32>) outs(%e4 : tensor<1x2048x7x7xf32>) {
  ^bb0(%v: f32, %o: f32):
    %y = math.exp %v : f32
    linalg.yield %y : f32
  } -> tensor<1x2048x7x7xf32>
  %e2 = tensor.empty() : tensor<1x2048xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x2048xf32>) -> tensor<1x2048xf32>
  %sum = linalg.generic {indexing_maps = [#p4, #p2], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%exp : tensor<1x2048x7x7xf32>) outs(%f : tensor<1x2048xf32>) {
  ^bb0(%v: f32, %a: f32):
    %s = arith.addf %v, %a : f32
    linalg.yield %s : f32
  } -> tensor<1x2048xf32>
  %mean = linalg.generic {indexing_maps = [#e2, #e2], iterator_types = ["parallel", "parallel"]}
      ins(%sum : tensor<1x2048xf32>) outs(%e2 : tensor<1x2048xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.divf %v, %count : f32
    linalg.yield %m : f32
  } -> tensor<1x2048xf32>
  return %mean : tensor<1x2048xf32>
}
