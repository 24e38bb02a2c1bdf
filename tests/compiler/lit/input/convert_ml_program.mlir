// RUN: %kiln-opt %s --split-input-file --verify-diagnostics --kiln-convert-ml-program | FileCheck %s

// ml_program globals become util globals (value, mutability and visibility
// kept); global_load is a util.global.load, global_load_const an immutable
// one, global_store a util.global.store.

// CHECK-LABEL: module @globals
module @globals {
  // CHECK: util.global private mutable @state = dense<[5.000000e-01, 2.500000e-01]> : tensor<2xf32>
  ml_program.global private mutable @state(dense<[0.5, 0.25]> : tensor<2xf32>) : tensor<2xf32>
  // CHECK: util.global private @scale = dense<2.000000e+00> : tensor<2xf32>
  ml_program.global private @scale(dense<2.0> : tensor<2xf32>) : tensor<2xf32>
  // CHECK: util.global private mutable @uninitialized : tensor<3xi32>
  ml_program.global private mutable @uninitialized : tensor<3xi32>
  // CHECK: util.global private mutable @count = 7 : i32
  ml_program.global private mutable @count(7 : i32) : i32
  // CHECK-NOT: ml_program
  // CHECK-LABEL: func.func @f
  func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
    // CHECK: %[[S:.+]] = util.global.load @state : tensor<2xf32>
    %s = ml_program.global_load @state : tensor<2xf32>
    // CHECK: %[[K:.+]] = util.global.load immutable @scale : tensor<2xf32>
    %k = ml_program.global_load_const @scale : tensor<2xf32>
    // CHECK: %[[R:.+]] = arith.mulf %[[S]], %[[K]]
    %r = arith.mulf %s, %k : tensor<2xf32>
    // CHECK: util.global.store %[[R]], @state : tensor<2xf32>
    ml_program.global_store @state = %r : tensor<2xf32>
    // CHECK: %[[N:.+]] = util.global.load @count : i32
    %n = ml_program.global_load @count : i32
    // CHECK: util.global.store %[[N]], @count : i32
    ml_program.global_store @count = %n : i32
    return %r : tensor<2xf32>
  }
}

// -----

// A value bound when the program is loaded: kiln has nothing to bind it to.
// expected-error @+1 {{ml_program.global @weights has an external value (#ml_program.extern), which kiln cannot bind}}
ml_program.global private @weights(#ml_program.extern : tensor<4xf32>) : tensor<4xf32>
