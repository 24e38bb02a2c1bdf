// kiln-compile reads the program from standard input with `-` and writes the
// module to standard output with `-o -`; diagnostics of stdin input name
// <stdin>. kiln-run-module reads a module from standard input with --module=-.
// RUN: cat %s | %kiln-compile - -o - > %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=twice --input=21 | FileCheck %s --check-prefix=RUN1 --match-full-lines
// RUN: %kiln-compile %s -o - | %kiln-run-module --module=- --function=twice --input=5 | FileCheck %s --check-prefix=RUN2 --match-full-lines
// RUN: echo "func.func @f() { %%x = arith.bogus }" | not %kiln-compile - -o %t.bad 2>&1 | FileCheck %s --check-prefix=STDIN

// RUN1: EXEC @twice
// RUN1-NEXT: result[0]: i32=42
// RUN2: EXEC @twice
// RUN2-NEXT: result[0]: i32=10
// STDIN: <stdin>:1:{{[0-9]+}}: error:
func.func @twice(%x: i32) -> i32 {
  %r = arith.addi %x, %x : i32
  return %r : i32
}
