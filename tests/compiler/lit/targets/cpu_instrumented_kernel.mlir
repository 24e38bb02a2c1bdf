// RUN: %kiln-opt %s --kiln-cpu-lower-kernels-to-llvm | FileCheck %s

// An instrumented kernel (--kiln-instrument-dispatches) on the CPU: a
// workgroup is one call, so the workgroup barrier disappears and the leader
// is `true`; hal.interface.timestamp is clock_gettime(CLOCK_MONOTONIC = 1)
// into a timespec on the stack, sec * 1e9 + nsec; the ring's `next` is
// claimed with an atomic add.

#layout = #hal.pipeline.layout<constants = 1, bindings = [
  #hal.pipeline.binding<storage_buffer, Instrumentation>]>

// CHECK:       llvm.func @clock_gettime(i32, !llvm.ptr) -> i32
// CHECK-LABEL: llvm.func @kernel(
// CHECK-SAME:      %[[STATE:.+]]: !llvm.ptr) -> i32
// Both timespecs are static stack slots in the entry block.
// CHECK:         llvm.alloca %{{.+}} x !llvm.struct<(i64, i64)> {alignment = 8 : i64}
// CHECK:         llvm.alloca %{{.+}} x !llvm.struct<(i64, i64)> {alignment = 8 : i64}
// CLOCK_MONOTONIC is 1 (the constant right before the call):
// CHECK:         %[[MONOTONIC:[0-9]+]] = llvm.mlir.constant(1 : i32) : i32{{[[:space:]]+}}%{{[0-9]+}} = llvm.call @clock_gettime(%[[MONOTONIC]], %[[SPEC:[0-9]+]]) : (i32, !llvm.ptr) -> i32
// CHECK-NEXT:    %[[SEC_PTR:.+]] = llvm.getelementptr %[[SPEC]][0, 0]
// CHECK-NEXT:    %[[NSEC_PTR:.+]] = llvm.getelementptr %[[SPEC]][0, 1]
// CHECK-NEXT:    %[[SEC:.+]] = llvm.load %[[SEC_PTR]] : !llvm.ptr -> i64
// CHECK-NEXT:    %[[NSEC:.+]] = llvm.load %[[NSEC_PTR]] : !llvm.ptr -> i64
// CHECK-NEXT:    %[[BILLION:.+]] = llvm.mlir.constant(1000000000 : i64) : i64
// CHECK-NEXT:    %[[NS:.+]] = llvm.mul %[[SEC]], %[[BILLION]] : i64
// CHECK-NEXT:    %[[START:.+]] = llvm.add %[[NS]], %[[NSEC]] : i64
// CHECK:         %[[TRUE:.+]] = llvm.mlir.constant(true) : i1
// CHECK-NEXT:    llvm.cond_br %[[TRUE]], ^[[LEADER:.+]], ^[[DONE:[^ ]+]]
// CHECK:       ^[[LEADER]]:
// CHECK:         llvm.call @clock_gettime
// CHECK:         %[[END:.+]] = llvm.add
// CHECK:         llvm.atomicrmw add %{{.+}}, %{{.+}} acq_rel : !llvm.ptr, i32
// CHECK:         llvm.sub %[[END]], %[[START]] : i64
// CHECK:         llvm.store %{{.+}}, %{{.+}} : i32, !llvm.ptr
// CHECK:       ^[[DONE]]:
// CHECK:         llvm.return
module {
  func.func @kernel() {
    %start = hal.interface.timestamp : i64
    hal.interface.workgroup.barrier
    %leader = hal.interface.workgroup.leader : i1
    scf.if %leader {
      %end = hal.interface.timestamp : i64
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %one = arith.constant 1 : i32
      %ring = hal.interface.binding.subspan layout(#layout) binding(0) alignment(32) offset(%c0) : memref<16xi32>
      %slot = memref.atomic_rmw addi %one, %ring[%c0] : (i32, memref<16xi32>) -> i32
      %delta = arith.subi %end, %start : i64
      %low = arith.trunci %delta : i64 to i32
      %sum = arith.addi %low, %slot : i32
      memref.store %sum, %ring[%c1] : memref<16xi32>
    }
    return
  }
}
