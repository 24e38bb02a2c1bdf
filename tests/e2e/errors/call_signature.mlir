// A call whose operand types do not match the callee's signature.
// RUN: not %kiln-compile %s -o %t.kmod 2>&1 | FileCheck %s
// CHECK: {{^}}{{.*}}call_signature.mlir:10:3: error: 'func.call' op operand type mismatch: expected operand type 'i64', but provided 'i32' for operand number 0
// CHECK-NEXT: func.call @takes_i64(%a) : (i32) -> ()
// CHECK-NEXT: {{^ *\^$}}

func.func private @takes_i64(%x: i64)

func.func @f(%a: i32) {
  func.call @takes_i64(%a) : (i32) -> ()
  return
}
