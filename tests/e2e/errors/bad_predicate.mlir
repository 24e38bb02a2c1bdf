// arith.cmpi with a predicate that does not exist: reported at it.
// RUN: not %kiln-compile %s -o %t.kmod 2>&1 | FileCheck %s
// CHECK: {{^}}{{.*}}bad_predicate.mlir:8:19: error: custom op 'arith.cmpi' expected string or keyword containing one of the following enum values for attribute 'predicate' [eq, ne, slt, sle, sgt, sge, ult, ule, ugt, uge]
// CHECK-NEXT: %b = arith.cmpi bigger, %a, %a : i32
// CHECK-NEXT: {{^ *\^$}}

func.func @f(%a: i32) -> i1 {
  %b = arith.cmpi bigger, %a, %a : i32
  return %b : i1
}
