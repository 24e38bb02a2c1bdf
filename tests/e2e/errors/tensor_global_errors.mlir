// Tensor globals and host reads kiln cannot compile: a global of dynamic
// shape (its buffer is allocated once) and a host tensor.extract of an f16
// element (the VM has no f16 registers), each reported at its source line.
// REQUIRES: device-cpu
// RUN: not %kiln-compile %s -o %t.kmod 2>&1 | FileCheck %s
// CHECK: {{^}}{{.*}}tensor_global_errors.mlir:13:1: error: tensor global @dynamic of type 'tensor<?xf32>' must have a static shape
// CHECK-NEXT: util.global private mutable @dynamic : tensor<?xf32>
// CHECK-NEXT: {{^\^$}}
// CHECK: {{^}}{{.*}}tensor_global_errors.mlir:22:{{(3|8)}}: error: tensor.extract of a 'f16' element on the host: the VM has no registers for it
// CHECK-NEXT: %e = tensor.extract %h[%i] : tensor<4xf16>
// CHECK-NEXT: {{^ *\^$}}

util.global private mutable @dynamic : tensor<?xf32>

func.func @read() -> tensor<?xf32> {
  %v = util.global.load @dynamic : tensor<?xf32>
  return %v : tensor<?xf32>
}

func.func @half(%x: tensor<4xf16>, %i: index) -> f16 {
  %h = arith.addf %x, %x : tensor<4xf16>
  %e = tensor.extract %h[%i] : tensor<4xf16>
  return %e : f16
}
