// A store to a global that is not declared.
// RUN: not %kiln-compile %s -o %t.kmod 2>&1 | FileCheck %s
// CHECK: {{^}}{{.*}}unknown_global.mlir:8:3: error: {{.*}}no_such_global
// CHECK-NEXT: util.global.store %c, @no_such_global : i32
// CHECK-NEXT: {{^ *\^$}}

func.func @f(%c: i32) {
  util.global.store %c, @no_such_global : i32
  return
}
