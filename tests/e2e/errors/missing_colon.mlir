// A custom-form op without the `:` before its type: reported just after the last token
// before the missing `:` (where MLIR reports it).
// RUN: not %kiln-compile %s -o %t.kmod 2>&1 | FileCheck %s
// CHECK: {{^}}{{.*}}missing_colon.mlir:9:25: error: expected ':'
// CHECK-NEXT: %0 = arith.addi %a, %a i32
// CHECK-NEXT: {{^ *\^$}}

func.func @f(%a: i32) -> i32 {
  %0 = arith.addi %a, %a i32
  return %0 : i32
}
