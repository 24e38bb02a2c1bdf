// A named module with attributes: the name becomes the .kmod's module name
// (kiln-dump-module shows it; kiln-run-module accepts module.function), and
// unknown attributes on the module and on functions are accepted.
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=answer | FileCheck %s --check-prefix=RUN1 --match-full-lines
// RUN: %kiln-run-module --module=%t.kmod --function=my_module.answer | FileCheck %s --check-prefix=RUN1 --match-full-lines
// RUN: %kiln-dump-module %t.kmod | FileCheck %s --check-prefix=DUMP

// RUN1: EXEC @answer
// RUN1-NEXT: result[0]: i32=42
// DUMP: my_module
// DUMP: answer
module @my_module attributes {kiln.version = 1 : i64, test.note = "any attribute", test.flag} {
  func.func @answer() -> i32 attributes {test.inline = false} {
    %c = arith.constant 42 : i32
    return %c : i32
  }
}
