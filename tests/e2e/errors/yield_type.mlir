// scf.if declares an i32 result but its then region yields an f32.
// RUN: not %kiln-compile %s -o %t.kmod 2>&1 | FileCheck %s
// CHECK: {{^}}{{.*}}yield_type.mlir:9:5: error: {{.*}}{{(type|f32|i32)}}
// CHECK-NEXT: scf.yield %x : f32
// CHECK-NEXT: {{^ *\^$}}

func.func @f(%c: i1, %x: f32, %y: i32) -> i32 {
  %r = scf.if %c -> (i32) {
    scf.yield %x : f32
  } else {
    scf.yield %y : i32
  }
  return %r : i32
}
