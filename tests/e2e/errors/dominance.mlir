// A value defined in a later block (^def) used in a block that it does not
// dominate (^use): reported at the using op.
// RUN: not %kiln-compile %s -o %t.kmod 2>&1 | FileCheck %s
// CHECK: {{^}}{{.*}}dominance.mlir:11:3: error: {{.*}}dominat
// CHECK-NEXT: return %v : i32  // %v is defined below, in ^def
// CHECK-NEXT: {{^ *\^$}}

func.func @f(%c: i1) -> i32 {
  cf.cond_br %c, ^use, ^def
^use:
  return %v : i32  // %v is defined below, in ^def
^def:
  %v = arith.constant 1 : i32
  return %v : i32
}
