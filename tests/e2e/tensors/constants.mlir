// Tensor constants (element lists and splats) read by generated kernels,
// and one the host returns (written into a buffer by a generated copy).
// Non-splat constants inside SPIR-V kernels are not supported yet: cpu only.
// REQUIRES: device-cpu
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=scaled --input="4xf32=1 1 2 2" | FileCheck %s --check-prefix=SCALED
// RUN: %kiln-run-module --module=%t.kmod --function=folded | FileCheck %s --check-prefix=FOLDED

func.func @scaled(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %half = arith.constant dense<0.5> : tensor<4xf32>
  %0 = arith.mulf %x, %a : tensor<4xf32>
  %1 = arith.mulf %0, %half : tensor<4xf32>
  return %1 : tensor<4xf32>
}
// SCALED: 4xf32=0.5 1 3 4

// Folded by the compiler into one constant, which the function returns.
func.func @folded() -> tensor<4xf32> {
  %a = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %b = arith.constant dense<0.5> : tensor<4xf32>
  %c = arith.mulf %a, %b : tensor<4xf32>
  return %c : tensor<4xf32>
}
// FOLDED: 4xf32=0.5 1 1.5 2
