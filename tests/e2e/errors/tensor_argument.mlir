// Tensors arrive as buffer views of a hal element type: an element type the
// HAL cannot describe (i3) is rejected at the argument.
// RUN: not %kiln-compile %s -o %t.kmod 2>&1 | FileCheck %s
// CHECK: {{^}}{{.*}}tensor_argument.mlir:8:14: error: tensor element type 'i3' is not supported
// CHECK-NEXT: func.func @f(%t: tensor<4xi3>) -> tensor<4xi3> {
// CHECK-NEXT: {{^ *\^$}}

func.func @f(%t: tensor<4xi3>) -> tensor<4xi3> {
  return %t : tensor<4xi3>
}
