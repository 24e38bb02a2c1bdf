// --module repeated, as iree-run-module takes it: the modules are linked in
// order after the hal module (their initializers run in that order: the
// library's @offset is set before @shifted reads it), a module's imports
// resolve against the exports of the modules before it (here @mathlib.square
// and @mathlib.shift, declared as external functions, against
// Inputs/mathlib.mlir's), and the
// function runs in the last module. The same in kiln-check-module (the tests
// are the last module's: Inputs/mathlib_tests.mlir) and
// kiln-benchmark-module. Without the library, the missing import is an error
// that names it and its module; with the library after its user, the error
// says to list the library first.
// RUN: %kiln-compile %S/Inputs/mathlib.mlir -o %t.mathlib.kmod
// RUN: %kiln-compile %s -o %t.app.kmod
// RUN: %kiln-compile %S/Inputs/mathlib_tests.mlir --iree-hal-target-backends=%target_backend -o %t.tests.kmod
// RUN: %kiln-run-module --device=%device --module=%t.mathlib.kmod --module=%t.app.kmod --function=sum_of_squares --input=3 --input=4 | FileCheck %s --check-prefix=CALL --match-full-lines
// RUN: %kiln-run-module --device=%device --module=%t.mathlib.kmod --module=%t.app.kmod --function=shifted --input=5 | FileCheck %s --check-prefix=SHIFT --match-full-lines
// RUN: %kiln-check-module --device=%device --module=%t.mathlib.kmod --module=%t.tests.kmod | FileCheck %s --check-prefix=CHECK-MODULE
// RUN: not %kiln-run-module --device=%device --module=%t.app.kmod --function=shifted --input=5 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: %if kiln-benchmark-module %{ %kiln-benchmark-module --device=%device --module=%t.mathlib.kmod --module=%t.app.kmod --function=shifted --input=5 --benchmark_min_time=0.01 | FileCheck %s --check-prefix=BENCH %}
// RUN: not %kiln-check-module --device=%device --module=%t.tests.kmod 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not %kiln-run-module --device=%device --module=%t.app.kmod --module=%t.mathlib.kmod --function=square --input=5 2>&1 | FileCheck %s --check-prefix=ORDER

// CALL: EXEC @sum_of_squares
// CALL-NEXT: result[0]: i32=25
// SHIFT: EXEC @shifted
// SHIFT-NEXT: result[0]: i32=105
// CHECK-MODULE: [==========] Running 1 test from module 'mathlib_tests'.
// CHECK-MODULE: [       OK ] mathlib_tests.test_square
// CHECK-MODULE: [  PASSED  ] 1 test.
// BENCH: BM_shifted/process_time/real_time
// ORDER: error: import 'mathlib.{{square|shift}}' of module 'app' names module 'mathlib', which comes after it: a module imports only from the modules before it (list 'mathlib' first)
// MISSING: error: missing required import 'mathlib.{{square|shift}}' (i32) -> (i32) of module '{{app|mathlib_tests}}'

module @app {
  func.func private @mathlib.square(i32) -> i32
  func.func private @mathlib.shift(i32) -> i32

  func.func @sum_of_squares(%a: i32, %b: i32) -> i32 {
    %a2 = call @mathlib.square(%a) : (i32) -> i32
    %b2 = call @mathlib.square(%b) : (i32) -> i32
    %r = arith.addi %a2, %b2 : i32
    return %r : i32
  }
  func.func @shifted(%x: i32) -> i32 {
    %r = call @mathlib.shift(%x) : (i32) -> i32
    return %r : i32
  }
}
