// A function body whose block does not end in a terminator (all on one
// line, so the line is certain wherever the error points).
// RUN: not %kiln-compile %s -o %t.kmod 2>&1 | FileCheck %s
// CHECK: {{^}}{{.*}}missing_terminator.mlir:8:{{[0-9]+}}: error: {{.*}}terminator
// CHECK-NEXT: func.func @f() -> i32 { %c = arith.constant 1 : i32 }
// CHECK-NEXT: {{^ *\^$}}

func.func @f() -> i32 { %c = arith.constant 1 : i32 }
