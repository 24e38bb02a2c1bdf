// util ops in IREE's spelling round-trip through kiln-opt (parse, verify,
// print, parse again): globals of every scalar type with and without initial
// values, a tensor global, an initializer, loads and stores, and the value
// hints unfoldable_constant and optimization_barrier.
// RUN: %kiln-opt %s | %kiln-opt | FileCheck %s

// CHECK: util.global private mutable @counter = 10 : i32
util.global private mutable @counter : i32 = 10 : i32
// CHECK: util.global private @x : i32{{$}}
util.global private @x : i32
// CHECK: util.global private @flag = true
util.global private @flag : i1 = true
// CHECK: util.global private @byte = -3 : i8
util.global private @byte : i8 = -3 : i8
// CHECK: util.global private @short = 300 : i16
util.global private @short : i16 = 300 : i16
// CHECK: util.global private @wide = 1099511627776 : i64
util.global private @wide : i64 = 1099511627776 : i64
// CHECK: util.global private @idx = 42 : index
util.global private @idx = 42 : index
// CHECK: util.global private @half = 1.500000e+00 : f32
util.global private @half : f32 = 1.5 : f32
// CHECK: util.global private mutable @tenth = 1.000000e-01 : f64
util.global private mutable @tenth : f64 = 0.1 : f64
// CHECK: util.global @public_one : f32
util.global @public_one : f32
// CHECK: util.global private @table = dense<[1, 2, 3]> : tensor<3xi32>
util.global private @table = dense<[1, 2, 3]> : tensor<3xi32>
// A tensor global whose initial value has another element type (IREE allows it).
// CHECK: util.global private @converted : tensor<4xf32> = dense<4> : tensor<4xi32>
util.global private @converted : tensor<4xf32> = dense<4> : tensor<4xi32>
// CHECK: util.global private @tagged {kiln.note = "kept"} : i32
util.global private @tagged {kiln.note = "kept"} : i32

// An initializer may store immutable globals: it gives them their value.
// CHECK:      util.initializer {
// CHECK-NEXT:   %[[C:.+]] = arith.constant 7 : i32
// CHECK-NEXT:   util.global.store %[[C]], @x : i32
// CHECK-NEXT:   util.return
// CHECK-NEXT: }
util.initializer {
  %c = arith.constant 7 : i32
  util.global.store %c, @x : i32
  util.return
}

// Initializers may branch (after scf-to-cf they usually do).
// CHECK:      util.initializer {
// CHECK:        cf.cond_br
// CHECK:      ^bb1:
// CHECK:        util.return
util.initializer {
  %v = util.global.load @counter : i32
  %z = arith.constant 0 : i32
  %p = arith.cmpi sgt, %v, %z : i32
  cf.cond_br %p, ^bb1, ^bb2
^bb1:
  util.global.store %z, @counter : i32
  util.return
^bb2:
  util.return
}

// CHECK-LABEL: func.func @bump
func.func @bump() -> i32 {
  // CHECK: %[[OLD:.+]] = util.global.load @counter : i32
  %old = util.global.load @counter : i32
  %c1 = arith.constant 1 : i32
  %new = arith.addi %old, %c1 : i32
  // CHECK: util.global.store %{{.+}}, @counter : i32
  util.global.store %new, @counter : i32
  // CHECK: util.global.load immutable @table : tensor<3xi32>
  %t = util.global.load immutable @table : tensor<3xi32>
  return %old : i32
}

// CHECK-LABEL: func.func @hints
func.func @hints() -> (i32, f32, tensor<2xi8>) {
  // CHECK: %[[A:.+]] = util.unfoldable_constant 5 : i32
  %a = util.unfoldable_constant 5 : i32
  // CHECK: util.unfoldable_constant 2.500000e+00 : f32
  %b = util.unfoldable_constant 2.5 : f32
  // CHECK: util.unfoldable_constant dense<[1, -1]> : tensor<2xi8>
  %t = util.unfoldable_constant dense<[1, -1]> : tensor<2xi8>
  // CHECK: %{{.+}}:2 = util.optimization_barrier %[[A]], %{{.+}} : i32, f32
  %x, %y = util.optimization_barrier %a, %b : i32, f32
  // CHECK: util.optimization_barrier %{{.+}} : tensor<2xi8>
  %u = util.optimization_barrier %t : tensor<2xi8>
  return %x, %y, %u : i32, f32, tensor<2xi8>
}

// Unfoldable constants survive canonicalization: nothing folds them away.
// RUN: %kiln-opt %s --canonicalize | FileCheck %s --check-prefix=CANON
// CANON-LABEL: func.func @not_folded
// CANON: %[[A:.+]] = util.unfoldable_constant 5 : i32
// CANON: %[[B:.+]] = util.unfoldable_constant 6 : i32
// CANON: arith.addi %[[A]], %[[B]] : i32
func.func @not_folded() -> i32 {
  %a = util.unfoldable_constant 5 : i32
  %b = util.unfoldable_constant 6 : i32
  %c = arith.addi %a, %b : i32
  return %c : i32
}
