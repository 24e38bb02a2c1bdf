// cf.assert with two operands (generic form): reported at the op.
// RUN: not %kiln-compile %s -o %t.kmod 2>&1 | FileCheck %s
// CHECK: {{^}}{{.*}}wrong_operand_count_assert.mlir:8:3: error: {{.*}}operand
// CHECK-NEXT: "cf.assert"(%c, %c) {msg = "two conditions"} : (i1, i1) -> ()
// CHECK-NEXT: {{^ *\^$}}

func.func @f(%c: i1) {
  "cf.assert"(%c, %c) {msg = "two conditions"} : (i1, i1) -> ()
  return
}
