// func.return of an i32 in a function declared to return i64.
// RUN: not %kiln-compile %s -o %t.kmod 2>&1 | FileCheck %s
// CHECK: {{^}}{{.*}}return_type.mlir:9:3: error: {{.*}}{{(type|i64|i32)}}
// CHECK-NEXT: return %c : i32
// CHECK-NEXT: {{^ *\^$}}

func.func @f() -> i64 {
  %c = arith.constant 1 : i32
  return %c : i32
}
