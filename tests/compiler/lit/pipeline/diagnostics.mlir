// Diagnostics are `file:line:col: error: message`, the source line and a
// caret (MLIR's SourceMgrDiagnosticHandler); standard input is <stdin>.
// RUN: not %kiln-compile %s -o %t.kmod 2>&1 | FileCheck %s --strict-whitespace
// RUN: echo "func.func @f() { %%x = arith.bogus }" | not %kiln-compile - -o %t.kmod 2>&1 | FileCheck %s --check-prefix=STDIN
// CHECK: diagnostics.mlir:[[@LINE+5]]:8: error: 'arith.addi' op requires the same type for all operands and results
// CHECK-NEXT: {{^}}  %r = "arith.addi"(%x, %y) : (i32, i64) -> i32
// CHECK-NEXT: {{^}}       ^
// STDIN: <stdin>:1:{{[0-9]+}}: error:
func.func @f(%x: i32, %y: i64) -> i32 {
  %r = "arith.addi"(%x, %y) : (i32, i64) -> i32
  return %r : i32
}
