// MLIR's generic operation form, alone and mixed with the custom form: the
// parser must build the same ops from both (ops.h: attribute names are
// MLIR's: predicate, value, callee, msg, case_values...).
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=generic_arith --input=7 --input=5 | FileCheck %s --check-prefix=ARITH --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=generic_branches --input=3 | FileCheck %s --check-prefix=BR3 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=generic_branches --input=-3 | FileCheck %s --check-prefix=BRM3 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=generic_if --input=f32=2 | FileCheck %s --check-prefix=IF --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=generic_func --input=i64=20 | FileCheck %s --check-prefix=FUNC --match-full-lines

// ARITH: EXEC @generic_arith
// ARITH-NEXT: result[0]: i32=12
// ARITH-NEXT: result[1]: i32=35
// ARITH-NEXT: result[2]: i32=0
// ARITH-NEXT: result[3]: i32=1
// ARITH-NEXT: result[4]: f32=3.5
func.func @generic_arith(%a: i32, %b: i32) -> (i32, i32, i1, i1, f32) {
  %sum = "arith.addi"(%a, %b) : (i32, i32) -> i32
  %prod = "arith.muli"(%a, %b) {overflowFlags = #arith.overflow<none>} : (i32, i32) -> i32
  // predicate 2 is slt, 8 is ugt.
  %lt = "arith.cmpi"(%a, %b) {predicate = 2 : i64} : (i32, i32) -> i1
  %gt = "arith.cmpi"(%a, %b) {predicate = 8 : i64} : (i32, i32) -> i1
  %half = "arith.constant"() {value = 0.5 : f32} : () -> f32
  %af = "arith.sitofp"(%a) : (i32) -> f32
  %r = "arith.mulf"(%af, %half) : (f32, f32) -> f32
  return %sum, %prod, %lt, %gt, %r : i32, i32, i1, i1, f32
}

// cf.br in generic form: successors in [...], their operands in (...).
// BR3: EXEC @generic_branches
// BR3-NEXT: result[0]: i32=30
// BRM3: EXEC @generic_branches
// BRM3-NEXT: result[0]: i32=3
func.func @generic_branches(%x: i32) -> i32 {
  %c0 = "arith.constant"() {value = 0 : i32} : () -> i32
  %c10 = "arith.constant"() {value = 10 : i32} : () -> i32
  %pos = "arith.cmpi"(%x, %c0) {predicate = 4 : i64} : (i32, i32) -> i1
  cf.cond_br %pos, ^scale(%x : i32), ^negate(%x : i32)
^scale(%s: i32):
  %t = "arith.muli"(%s, %c10) : (i32, i32) -> i32
  "cf.br"(%t)[^done] : (i32) -> ()
^negate(%n: i32):
  %m = "arith.subi"(%c0, %n) : (i32, i32) -> i32
  "cf.br"(%m)[^done] : (i32) -> ()
^done(%r: i32):
  "func.return"(%r) : (i32) -> ()
}

// scf.if and scf.yield in generic form (regions in parentheses).
// IF: EXEC @generic_if
// IF-NEXT: result[0]: f32=4
func.func @generic_if(%x: f32) -> f32 {
  %zero = arith.constant 0.0 : f32
  %pos = "arith.cmpf"(%x, %zero) {predicate = 2 : i64} : (f32, f32) -> i1
  %r = "scf.if"(%pos) ({
    %sq = "arith.mulf"(%x, %x) : (f32, f32) -> f32
    "scf.yield"(%sq) : (f32) -> ()
  }, {
    "scf.yield"(%zero) : (f32) -> ()
  }) : (i1) -> f32
  return %r : f32
}

// A whole function in generic form, with a generic func.call.
// FUNC: EXEC @generic_func
// FUNC-NEXT: result[0]: i64=400
"func.func"() ({
^bb0(%n: i64):
  %r = "func.call"(%n, %n) {callee = @mul64} : (i64, i64) -> i64
  "func.return"(%r) : (i64) -> ()
}) {sym_name = "generic_func", function_type = (i64) -> i64} : () -> ()

"func.func"() ({
^bb0(%a: i64, %b: i64):
  %r = "arith.muli"(%a, %b) : (i64, i64) -> i64
  "func.return"(%r) : (i64) -> ()
}) {sym_name = "mul64", function_type = (i64, i64) -> i64, sym_visibility = "private"} : () -> ()
