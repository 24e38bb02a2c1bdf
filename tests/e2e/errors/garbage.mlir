// Text that is not MLIR at all.
// RUN: not %kiln-compile %s -o %t.kmod 2>&1 | FileCheck %s
// CHECK: {{^}}{{.*}}garbage.mlir:7:{{[0-9]+}}: error: {{.+}}
// CHECK-NEXT: this is not MLIR, just words; { and ] and 0x12 and "text"
// CHECK-NEXT: {{^ *\^$}}

this is not MLIR, just words; { and ] and 0x12 and "text"
