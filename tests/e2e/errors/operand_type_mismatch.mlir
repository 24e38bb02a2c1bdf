// arith.addi of an i32 and an f32: reported at the f32 operand (where
// MLIR reports it) or at the op.
// RUN: not %kiln-compile %s -o %t.kmod 2>&1 | FileCheck %s
// CHECK: {{^}}{{.*}}operand_type_mismatch.mlir:9:{{(23|3|8)}}: error: {{.*}}{{(type|f32|i32)}}
// CHECK-NEXT: %0 = arith.addi %a, %b : i32
// CHECK-NEXT: {{^ *\^$}}

func.func @f(%a: i32, %b: f32) -> i32 {
  %0 = arith.addi %a, %b : i32
  return %0 : i32
}
