// cf.cond_br on an i32: the condition must be i1. Reported at the
// operand (MLIR) or at the branch.
// RUN: not %kiln-compile %s -o %t.kmod 2>&1 | FileCheck %s
// CHECK: {{^}}{{.*}}cond_br_condition_type.mlir:9:{{(14|3)}}: error: {{.*}}i1
// CHECK-NEXT: cf.cond_br %x, ^a, ^b
// CHECK-NEXT: {{^ *\^$}}

func.func @f(%x: i32) -> i32 {
  cf.cond_br %x, ^a, ^b
^a:
  return %x : i32
^b:
  return %x : i32
}
