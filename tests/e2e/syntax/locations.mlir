// loc(...) trailers: the module's debug table records the location a trailer
// gives (file, line and column from the trailer, not from this file), which
// runtime errors and kiln-dump-module show. Trailers on functions, block
// arguments and ops with results are accepted too, and loc(unknown).
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=add --input=2 --input=3 | FileCheck %s --check-prefix=ADD --match-full-lines
// RUN: not %kiln-run-module --module=%t.kmod --function=fails --input=0 2>&1 | FileCheck %s --check-prefix=FAIL
// RUN: %kiln-dump-module %t.kmod | FileCheck %s --check-prefix=DUMP

// ADD: EXEC @add
// ADD-NEXT: result[0]: i32=5
func.func @add(%a: i32 loc("args.py":1:1), %b: i32 loc(unknown)) -> i32 {
  %s = arith.addi %a, %b : i32 loc("model.py":20:8)
  return %s : i32 loc("model.py":21:4)
} loc("model.py":19:1)

// FAIL: error: {{.*}}model.py:30:5
// DUMP: model.py:20:8
func.func @fails(%x: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %ok = arith.cmpi ne, %x, %c0 : i32 loc("model.py":29:5)
  cf.assert %ok, "x must not be zero" loc("model.py":30:5)
  return %x : i32
}
