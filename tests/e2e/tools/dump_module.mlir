// kiln-dump-module: module metadata, exports, per-function register counts and
// a disassembly whose lines carry the source location (this file's path,
// line and column) of the op they came from; --output=json has the same.
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-dump-module %t.kmod | FileCheck %s
// RUN: %kiln-dump-module %t.kmod --output=json | FileCheck %s --check-prefix=JSON
// RUN: %kiln-compile %s -o %t.stripped.kmod --strip-debug-info
// RUN: %kiln-dump-module %t.stripped.kmod | FileCheck %s --check-prefix=STRIPPED

// CHECK: module: dump
// CHECK: exports: 1
// CHECK-NEXT: @square
// CHECK-LABEL: {{^}}function {{[0-9]+}} 'square'
// CHECK-NEXT: registers: i32 {{[1-9][0-9]*}}, i64 0, f32 0, f64 0, ref 0
// CHECK: mul.i32 {{.*}}dump_module.mlir:[[@LINE+10]]:{{(5|10)$}}
// CHECK: return {{.*}}dump_module.mlir:[[@LINE+10]]:5

// JSON: "name": {{ *}}"dump"
// JSON: square

// STRIPPED: mul.i32
// STRIPPED-NOT: dump_module.mlir:
module @dump {
  func.func @square(%x: i32) -> i32 {
    %r = arith.muli %x, %x : i32
    return %r : i32
  }
}
