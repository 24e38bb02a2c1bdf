// A string literal that never ends: reported at its opening quote.
// RUN: not %kiln-compile %s -o %t.kmod 2>&1 | FileCheck %s
// CHECK: {{^}}{{.*}}unterminated_string.mlir:8:17: error: {{.*}}{{(string|unterminated|quote)}}
// CHECK-NEXT: cf.assert %c, "this message never ends
// CHECK-NEXT: {{^ *\^$}}

func.func @f(%c: i1) {
  cf.assert %c, "this message never ends
  return
}
