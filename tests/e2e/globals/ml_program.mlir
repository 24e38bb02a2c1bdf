// ml_program globals (as torch-mlir and StableHLO importers emit model
// state): a mutable tensor global updated across calls, a constant one read
// with global_load_const, and a scalar global; generated kernels on %device.
// RUN: %kiln-compile %s --iree-hal-target-backends=%target_backend -o %t.kmod
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=run --input="3xf32=1 2 3" | FileCheck %s --match-full-lines

ml_program.global private mutable @state(dense<[0.5, 0.25, 0.125]> : tensor<3xf32>) : tensor<3xf32>
ml_program.global private @scale(dense<[2.0, 4.0, 8.0]> : tensor<3xf32>) : tensor<3xf32>
ml_program.global private mutable @calls(0 : i32) : i32

// state = state * scale + x; calls += 1.
func.func private @step(%x: tensor<3xf32>) -> tensor<3xf32> {
  %s = ml_program.global_load @state : tensor<3xf32>
  %k = ml_program.global_load_const @scale : tensor<3xf32>
  %0 = arith.mulf %s, %k : tensor<3xf32>
  %1 = arith.addf %0, %x : tensor<3xf32>
  ml_program.global_store @state = %1 : tensor<3xf32>
  %n = ml_program.global_load @calls : i32
  %one = arith.constant 1 : i32
  %n1 = arith.addi %n, %one : i32
  ml_program.global_store @calls = %n1 : i32
  return %1 : tensor<3xf32>
}

// 0.5 0.25 0.125 * 2 4 8 + 1 2 3 = 2 3 4; then 2 3 4 * 2 4 8 + 1 2 3 = 5 14 35.
// CHECK: EXEC @run
// CHECK-NEXT: result[0]: hal.buffer_view
// CHECK-NEXT: 3xf32=2 3 4
// CHECK-NEXT: result[1]: hal.buffer_view
// CHECK-NEXT: 3xf32=5 14 35
// CHECK-NEXT: result[2]: i32=2
func.func @run(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, i32) {
  %a = call @step(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %b = call @step(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %n = ml_program.global_load @calls : i32
  return %a, %b, %n : tensor<3xf32>, tensor<3xf32>, i32
}
