// cf.br passes an f32 to a block argument of type i32: reported at the
// branch.
// RUN: not %kiln-compile %s -o %t.kmod 2>&1 | FileCheck %s
// CHECK: {{^}}{{.*}}branch_argument_type.mlir:9:3: error: {{.*}}type
// CHECK-NEXT: cf.br ^next(%x : f32)
// CHECK-NEXT: {{^ *\^$}}

func.func @f(%x: f32) -> i32 {
  cf.br ^next(%x : f32)
^next(%y: i32):
  return %y : i32
}
