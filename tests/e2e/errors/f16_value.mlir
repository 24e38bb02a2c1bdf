// f16 values parse and verify, but the VM has no 16-bit float registers:
// code generation rejects the value where it is defined.
// RUN: not %kiln-compile %s -o %t.kmod 2>&1 | FileCheck %s
// CHECK: {{^}}{{.*}}f16_value.mlir:9:{{(3|8)}}: error: {{.*}}f16
// CHECK-NEXT: %h = arith.truncf %x : f32 to f16
// CHECK-NEXT: {{^ *\^$}}

func.func @f(%x: f32) -> f32 {
  %h = arith.truncf %x : f32 to f16
  %y = arith.extf %h : f16 to f32
  return %y : f32
}
