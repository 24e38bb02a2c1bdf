// A use of a value that is never defined: reported at the use.
// RUN: not %kiln-compile %s -o %t.kmod 2>&1 | FileCheck %s
// CHECK: {{^}}{{.*}}undefined_value.mlir:8:23: error: use of undeclared SSA value name
// CHECK-NEXT: %0 = arith.addi %a, %x : i32
// CHECK-NEXT: {{^ *\^$}}

func.func @f(%a: i32) -> i32 {
  %0 = arith.addi %a, %x : i32
  return %0 : i32
}
