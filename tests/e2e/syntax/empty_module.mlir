// A file with nothing but comments is an empty module, as in MLIR: it
// compiles to a module that exports nothing. So does an explicit empty module.
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-dump-module %t.kmod | FileCheck %s
// RUN: not %kiln-run-module --module=%t.kmod --function=main 2>&1 | FileCheck %s --check-prefix=RUN1
// RUN: echo "module {}" | %kiln-compile - -o %t.explicit.kmod
// RUN: %kiln-dump-module %t.explicit.kmod | FileCheck %s

// CHECK: exports: 0
// RUN1: {{^}}error: {{.*}}main
