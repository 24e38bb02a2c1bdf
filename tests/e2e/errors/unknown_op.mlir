// An op kiln does not know: the error points at its name.
// RUN: not %kiln-compile %s -o %t.kmod 2>&1 | FileCheck %s
// CHECK: {{^}}{{.*}}unknown_op.mlir:8:8: error: {{.*}}arith.frobnicate
// CHECK-NEXT: %0 = arith.frobnicate %a, %a : i32
// CHECK-NEXT: {{^ *\^$}}

func.func @f(%a: i32) -> i32 {
  %0 = arith.frobnicate %a, %a : i32
  return %0 : i32
}
