// kiln-run-module --trace_execution prints each executed instruction to
// stderr with its function, offset and source location; results still go to
// stdout. A loop traces its body once per iteration.
// RUN: %kiln-compile %s -o %t.kmod
// RUN: %kiln-run-module --module=%t.kmod --function=triple --input=4 --trace_execution 2> %t.trace | FileCheck %s --check-prefix=OUT --match-full-lines
// RUN: FileCheck %s --check-prefix=TRACE < %t.trace
// RUN: %kiln-run-module --module=%t.kmod --function=loop --input=3 --trace_execution 2> %t.loop.trace | FileCheck %s --check-prefix=LOOPOUT --match-full-lines
// RUN: FileCheck %s --check-prefix=LOOP < %t.loop.trace

// OUT: EXEC @triple
// OUT-NEXT: result[0]: i32=12

// TRACE: [trace] triple+{{[0-9]+}} {{.*}}trace_execution.mlir:[[@LINE+4]]:{{[0-9]+}}
// TRACE: [trace] triple+{{[0-9]+}} return {{.*}}trace_execution.mlir:[[@LINE+4]]:3
func.func @triple(%x: i32) -> i32 {
  %c3 = arith.constant 3 : i32
  %r = arith.muli %x, %c3 : i32
  return %r : i32
}

// Three iterations: the addition in the body is traced three times.
// LOOP-COUNT-3: [trace] loop+{{[0-9]+}} add.{{.*}}trace_execution.mlir:[[@LINE+11]]
// LOOP-NOT: [trace] loop+{{[0-9]+}} add.{{.*}}trace_execution.mlir:[[@LINE+10]]
// LOOP: return
// LOOPOUT: EXEC @loop
// LOOPOUT-NEXT: result[0]: i64=21
func.func @loop(%n: index) -> i64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0 : i64
  %seven = arith.constant 7 : i64
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (i64) {
    %next = arith.addi %acc, %seven : i64
    scf.yield %next : i64
  }
  return %r : i64
}
