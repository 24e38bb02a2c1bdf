// scf.if declares an i32 result but its then region yields an f32: MLIR's
// verifier reports it at the scf.if, with a note at the scf.yield.
// RUN: not %kiln-compile %s -o %t.kmod 2>&1 | FileCheck %s
// CHECK: {{^}}{{.*}}yield_type.mlir:12:8: error: 'scf.if' op along control flow edge from Operation scf.yield to parent: successor operand type #0 'f32' should match successor input type #0 'i32'
// CHECK-NEXT: %r = scf.if %c -> (i32) {
// CHECK-NEXT: {{^ *\^$}}
// CHECK-NEXT: {{^}}{{.*}}yield_type.mlir:13:5: note: region branch point
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
