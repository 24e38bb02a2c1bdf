// A bare return in a function that has a result.
// RUN: not %kiln-compile %s -o %t.kmod 2>&1 | FileCheck %s
// CHECK: {{^}}{{.*}}missing_return_value.mlir:8:3: error: {{.*}}{{(return|result|operand|value)}}
// CHECK-NEXT: return
// CHECK-NEXT: {{^ *\^$}}

func.func @f() -> i32 {
  return
}
