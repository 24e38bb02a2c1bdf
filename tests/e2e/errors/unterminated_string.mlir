// A string literal that never ends: reported at the end of the line (MLIR).
// RUN: not %kiln-compile %s -o %t.kmod 2>&1 | FileCheck %s
// CHECK: {{^}}{{.*}}unterminated_string.mlir:8:41: error: expected '"' in string literal
// CHECK-NEXT: cf.assert %c, "this message never ends
// CHECK-NEXT: {{^ *\^$}}

func.func @f(%c: i1) {
  cf.assert %c, "this message never ends
  return
}
