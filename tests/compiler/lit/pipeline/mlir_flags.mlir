// MLIR's own flags work on kiln-compile: IR printing around each pass of the
// pipeline, pass timing, debug locations in printed IR, and a pipeline of
// one's choice in place of kiln's.
// RUN: %kiln-compile %s --mlir-print-ir-after-all -o %t.kmod 2>&1 | FileCheck %s --check-prefix=AFTER
// RUN: %kiln-compile %s --mlir-print-ir-after=kiln-serialize-executables -o %t.kmod 2>&1 | FileCheck %s --check-prefix=ONE
// RUN: %kiln-compile %s --mlir-timing -o %t.kmod 2>&1 | FileCheck %s --check-prefix=TIMING
// RUN: %kiln-compile %s --output-format=mlir --mlir-print-debuginfo | FileCheck %s --check-prefix=DEBUGINFO
// RUN: %kiln-compile %s --pass-pipeline="builtin.module(canonicalize)" --output-format=mlir | FileCheck %s --check-prefix=PIPELINE

// AFTER: IR Dump After Canonicalizer (canonicalize)
// AFTER: IR Dump After {{.*}}(kiln-serialize-executables)
// AFTER: IR Dump After {{.*}}(kiln-convert-to-vm)
// ONE-NOT: IR Dump After Canonicalizer
// ONE: IR Dump After {{.*}}(kiln-serialize-executables)
// ONE-NOT: IR Dump After
// TIMING: Execution time report
// TIMING: SerializeExecutablesPass
// TIMING: emission
// DEBUGINFO: vm.module
// DEBUGINFO: loc("{{.*}}mlir_flags.mlir":{{[0-9]+}}:{{[0-9]+}})
// PIPELINE-LABEL: func.func @scaled
// PIPELINE-NEXT: %[[C:.+]] = arith.constant 6 : i32
// PIPELINE-NEXT: %[[R:.+]] = arith.muli %arg0, %[[C]] : i32
// PIPELINE-NEXT: return %[[R]] : i32
func.func @scaled(%x: i32) -> i32 {
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %m = arith.muli %c2, %c3 : i32
  %r = arith.muli %x, %m : i32
  return %r : i32
}
