// A type kiln (and MLIR) does not know: reported at it.
// RUN: not %kiln-compile %s -o %t.kmod 2>&1 | FileCheck %s
// CHECK: {{^}}{{.*}}unknown_type.mlir:8:27: error: {{.*}}type
// CHECK-NEXT: %0 = arith.constant 1 : int32
// CHECK-NEXT: {{^ *\^$}}

func.func @f() -> i32 {
  %0 = arith.constant 1 : int32
  return %0 : i32
}
