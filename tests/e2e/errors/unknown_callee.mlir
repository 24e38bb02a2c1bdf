// A call to a function that does not exist: reported at the call.
// RUN: not %kiln-compile %s -o %t.kmod 2>&1 | FileCheck %s
// CHECK: {{^}}{{.*}}unknown_callee.mlir:8:3: error: {{.*}}does_not_exist
// CHECK-NEXT: func.call @does_not_exist(%a) : (i32) -> ()
// CHECK-NEXT: {{^ *\^$}}

func.func @f(%a: i32) {
  func.call @does_not_exist(%a) : (i32) -> ()
  return
}
