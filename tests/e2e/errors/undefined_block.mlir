// A branch to a block that does not exist: reported at the reference.
// RUN: not %kiln-compile %s -o %t.kmod 2>&1 | FileCheck %s
// CHECK: {{^}}{{.*}}undefined_block.mlir:8:9: error: reference to an undefined block
// CHECK-NEXT: cf.br ^nowhere
// CHECK-NEXT: {{^ *\^$}}

func.func @f() {
  cf.br ^nowhere
}
