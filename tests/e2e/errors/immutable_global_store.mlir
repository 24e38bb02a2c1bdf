// A store to a global declared without `mutable`.
// RUN: not %kiln-compile %s -o %t.kmod 2>&1 | FileCheck %s
// CHECK: {{^}}{{.*}}immutable_global_store.mlir:10:3: error: {{.*}}mutable
// CHECK-NEXT: util.global.store %c, @limit : i32
// CHECK-NEXT: {{^ *\^$}}

util.global private @limit : i32 = 10 : i32

func.func @f(%c: i32) {
  util.global.store %c, @limit : i32
  return
}
