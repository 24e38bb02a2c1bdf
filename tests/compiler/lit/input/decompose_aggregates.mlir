// RUN: %kiln-opt %s --kiln-decompose-aggregates | FileCheck %s

// linalg.softmax becomes its parts: a max reduction, exp(x - max), a sum
// reduction and the division, each a linalg op that dispatch formation knows.

// CHECK-LABEL: func.func @softmax
func.func @softmax(%x: tensor<2x16xf32>) -> tensor<2x16xf32> {
  %e = tensor.empty() : tensor<2x16xf32>
  // CHECK-NOT: linalg.softmax
  // CHECK: %[[MAX:.+]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
  // CHECK: arith.maxnumf
  // CHECK: %[[EXP:.+]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
  // CHECK: arith.subf
  // CHECK: math.exp
  // CHECK: %[[SUM:.+]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
  // CHECK: arith.addf
  // CHECK: %[[R:.+]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
  // CHECK: arith.divf
  // CHECK: return %[[R]]
  %s = linalg.softmax dimension(1) ins(%x : tensor<2x16xf32>) outs(%e : tensor<2x16xf32>) -> tensor<2x16xf32>
  return %s : tensor<2x16xf32>
}
