// arith.addi with one operand (generic form, so the parser accepts the
// shape and the verifier must count). The op's location is its first token,
// the result name, or its name (both conventions accepted).
// RUN: not %kiln-compile %s -o %t.kmod 2>&1 | FileCheck %s
// CHECK: {{^}}{{.*}}wrong_operand_count.mlir:10:{{(3|8)}}: error: {{.*}}operand
// CHECK-NEXT: %0 = "arith.addi"(%a) : (i32) -> i32
// CHECK-NEXT: {{^ *\^$}}

func.func @f(%a: i32) -> i32 {
  %0 = "arith.addi"(%a) : (i32) -> i32
  return %0 : i32
}
