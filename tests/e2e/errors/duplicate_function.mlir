// Two functions with the same name: reported at the second.
// RUN: not %kiln-compile %s -o %t.kmod 2>&1 | FileCheck %s
// CHECK: {{^}}{{.*}}duplicate_function.mlir:11:1: error: {{.*}}twice
// CHECK-NEXT: func.func @twice() {  // the second definition
// CHECK-NEXT: {{^ *\^$}}

func.func @twice() {
  return
}

func.func @twice() {  // the second definition
  return
}
