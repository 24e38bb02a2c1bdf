// Instruction selection of the benchmark programs (tests/benchmarks) is as
// good as the hand-written compiler's was (its codegen_quality_test, before
// kiln moved onto MLIR): fib is a br.lt.imm, two add.imm and two calls,
// returning directly on both paths; the 1e8 loop's iteration is mul, rem,
// add and one for.step.
// RUN: %kiln-opt %kiln_source_dir/tests/benchmarks/fib.mlir --kiln-scf-to-cf --canonicalize --kiln-convert-to-vm --kiln-vm-fuse | FileCheck %s --check-prefix=FIB
// RUN: %kiln-opt %kiln_source_dir/tests/benchmarks/loop.mlir --kiln-scf-to-cf --canonicalize --kiln-convert-to-vm --kiln-vm-fuse | FileCheck %s --check-prefix=LOOP

// FIB-LABEL: vm.func @fib
// FIB-SAME:   (%[[N:.+]]: i32) -> i32
// FIB-NEXT:   vm.br.lt.imm.i32.s %[[N]], 2, ^bb1, ^bb2
// FIB-NEXT: ^bb1:
// FIB-NEXT:   vm.return %[[N]] : i32
// FIB-NEXT: ^bb2:
// FIB-NEXT:   %[[N1:.+]] = vm.add.imm.i32 %[[N]], -1 : i32
// FIB-NEXT:   %[[F1:.+]] = vm.call @fib(%[[N1]]) : (i32) -> i32
// FIB-NEXT:   %[[N2:.+]] = vm.add.imm.i32 %[[N]], -2 : i32
// FIB-NEXT:   %[[F2:.+]] = vm.call @fib(%[[N2]]) : (i32) -> i32
// FIB-NEXT:   %[[S:.+]] = vm.add.i32 %[[F1]], %[[F2]] : i32
// FIB-NEXT:   vm.return %[[S]] : i32
// FIB-NEXT: }

// LOOP-LABEL: vm.func @loop
// LOOP-SAME:   (%[[N:.+]]: i64) -> i64
// LOOP-NEXT:   %[[C0:.+]] = vm.const.i64 0 : i64
// LOOP-NEXT:   %[[C3:.+]] = vm.const.i64 3 : i64
// LOOP-NEXT:   %[[C7:.+]] = vm.const.i64 7 : i64
// LOOP-NEXT:   vm.br.lt.i64.s %[[C0]], %[[N]], ^bb2(%[[C0]], %[[C0]] : i64, i64), ^bb1
// LOOP-NEXT: ^bb1:
// LOOP-NEXT:   vm.return %[[C0]] : i64
// LOOP-NEXT: ^bb2(%[[I:.+]]: i64, %[[ACC:.+]]: i64):
// LOOP-NEXT:   %[[T:.+]] = vm.mul.i64 %[[I]], %[[C3]] : i64
// LOOP-NEXT:   %[[R:.+]] = vm.rem.i64.s %[[T]], %[[C7]] : i64
// LOOP-NEXT:   %[[NEXT:.+]] = vm.add.i64 %[[ACC]], %[[R]] : i64
// LOOP-NEXT:   vm.for.step.i64 %[[I]], 1, %[[N]], ^bb2(%[[NEXT]] : i64), ^bb3
// LOOP-NEXT: ^bb3:
// LOOP-NEXT:   vm.return %[[NEXT]] : i64
// LOOP-NEXT: }
