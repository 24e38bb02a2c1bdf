// kiln-compile's command line is LLVM's, as in mlir-opt and iree-compile:
// one positional input ('-' or none: standard input), the module on standard
// output unless -o says otherwise, and a malformed or extra argument is an
// error before anything is compiled.
// RUN: %kiln-compile %s > %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=twice --input=21 | FileCheck %s --check-prefix=RESULT --match-full-lines
// RUN: cat %s | %kiln-compile - -o %t.stdin.kmod
// RUN: %kiln-run-module --module=%t.stdin.kmod --function=twice --input=5 | FileCheck %s --check-prefix=STDIN --match-full-lines
// RUN: cat %s | %kiln-compile | %kiln-run-module --module=- --function=twice --input=1 | FileCheck %s --check-prefix=PIPE --match-full-lines
// RUN: not %kiln-compile %s %s -o %t.two.kmod 2>&1 | FileCheck %s --check-prefix=EXTRA
// RUN: not %kiln-compile %s --memoize-command-buffers false -o %t.bool.kmod 2>&1 | FileCheck %s --check-prefix=EXTRA
// RUN: not %kiln-compile %s --memoize-command-buffers=maybe -o %t.bool.kmod 2>&1 | FileCheck %s --check-prefix=BOOL
// RUN: %kiln-compile %s --memoize-command-buffers=false -o %t.nomemo.kmod
// RUN: not %kiln-compile %s --no-such-flag -o %t.flag.kmod 2>&1 | FileCheck %s --check-prefix=FLAG
// RUN: not %kiln-compile %s --target=cuda,metal -o %t.target.kmod 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not %kiln-compile %s --iree-hal-target-backends=llvm-cpu,rocm -o %t.target.kmod 2>&1 | FileCheck %s --check-prefix=BACKEND
// RUN: not %kiln-compile %t.does-not-exist.mlir -o %t.none.kmod 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: %kiln-compile --version | FileCheck %s --check-prefix=VERSION
// RUN: not %kiln-compile %s -o %t.dir/ 2>&1 | FileCheck %s --check-prefix=OUTPUT

// RESULT: EXEC @twice
// RESULT-NEXT: result[0]: i32=42
// STDIN: result[0]: i32=10
// PIPE: result[0]: i32=2
// EXTRA: kiln-compile{{.*}}: Too many positional arguments specified!
// BOOL: for the --memoize-command-buffers option: 'maybe' is invalid value for boolean argument!
// FLAG: Unknown command line argument '--no-such-flag'
// TARGET: error: unknown target 'metal' (targets: cpu, cuda, vulkan)
// BACKEND: error: unknown target 'rocm' (targets: cpu, cuda, vulkan)
// MISSING: error: cannot open input file {{.*}}does-not-exist.mlir
// VERSION: kiln-compile version {{[0-9]+\.[0-9]+\.[0-9]+}} (MLIR/LLVM 22.{{.*}})
// OUTPUT: error: {{.*}}
func.func @twice(%x: i32) -> i32 {
  %r = arith.addi %x, %x : i32
  return %r : i32
}
