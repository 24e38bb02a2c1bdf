// kiln-dump-module: module metadata, exports, per-function register counts and
// a disassembly whose lines carry the source location (this file's path,
// line and column) of the op they came from; --output=json has the same.
// The globals are public: symbol-dce would remove unused private ones.
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-dump-module %t.kmod | FileCheck %s
// RUN: %kiln-dump-module %t.kmod --output=json | FileCheck %s --check-prefix=JSON
// RUN: %kiln-compile %s -o %t.stripped.kmod --strip-debug-info
// RUN: %kiln-dump-module %t.stripped.kmod | FileCheck %s --check-prefix=STRIPPED

// CHECK: module: dump
// CHECK: exports: 1
// CHECK-NEXT: @square
// CHECK: globals: 12 bytes, 0 refs, initializer function
// CHECK-NEXT: @total : i64 at byte 0 (8 bytes)
// CHECK-NEXT: @scale : f32 at byte 8 (4 bytes)
// CHECK-LABEL: {{^}}function {{[0-9]+}} 'square'
// CHECK-NEXT: registers: i32 {{[1-9][0-9]*}}, i64 0, f32 0, f64 0, ref 0
// CHECK: mul.i32 {{.*}}dump_module.mlir:[[@LINE+16]]:{{(5|10)$}}
// CHECK: return {{.*}}dump_module.mlir:[[@LINE+16]]:5

// JSON: "name": {{ *}}"dump"
// JSON: square
// JSON: "named": [
// JSON-NEXT: {
// JSON-NEXT: "name": "total",
// JSON-NEXT: "type": "i64",

// STRIPPED: mul.i32
// STRIPPED-NOT: dump_module.mlir:
module @dump {
  util.global mutable @total : i64 = 0 : i64
  util.global @scale : f32 = 2.5 : f32
  func.func @square(%x: i32) -> i32 {
    %r = arith.muli %x, %x : i32
    return %r : i32
  }
}
