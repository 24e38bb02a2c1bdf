// Tensors are for a later milestone: a tensor-typed function argument is
// rejected by code generation (the error is on the function's line).
// RUN: not %kiln-compile %s -o %t.kmod 2>&1 | FileCheck %s
// CHECK: {{^}}{{.*}}tensor_argument.mlir:8:{{[0-9]+}}: error: {{.*}}tensor
// CHECK-NEXT: func.func @f(%t: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT: {{^ *\^$}}

func.func @f(%t: tensor<4xf32>) -> tensor<4xf32> {
  return %t : tensor<4xf32>
}
