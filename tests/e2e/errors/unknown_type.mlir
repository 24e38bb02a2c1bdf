// A type kiln (and MLIR) does not know: reported just before it (MLIR reports
// a token that is not what it expects at the end of the previous token).
// RUN: not %kiln-compile %s -o %t.kmod 2>&1 | FileCheck %s
// CHECK: {{^}}{{.*}}unknown_type.mlir:9:26: error: expected non-function type
// CHECK-NEXT: %0 = arith.constant 1 : int32
// CHECK-NEXT: {{^ *\^$}}

func.func @f() -> i32 {
  %0 = arith.constant 1 : int32
  return %0 : i32
}
