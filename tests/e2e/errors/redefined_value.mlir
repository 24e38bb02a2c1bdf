// A value defined twice: reported at the second definition.
// RUN: not %kiln-compile %s -o %t.kmod 2>&1 | FileCheck %s
// CHECK: {{^}}{{.*}}redefined_value.mlir:9:3: error: {{.*}}%x
// CHECK-NEXT: %x = arith.muli %a, %a : i32
// CHECK-NEXT: {{^ *\^$}}

func.func @f(%a: i32) -> i32 {
  %x = arith.addi %a, %a : i32
  %x = arith.muli %a, %a : i32
  return %x : i32
}
