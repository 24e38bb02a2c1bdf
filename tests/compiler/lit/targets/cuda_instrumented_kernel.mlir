// RUN: %kiln-opt %s --kiln-gpu-distribute-to-threads --kiln-cuda-lower-kernels-to-nvvm | FileCheck %s

// An instrumented kernel (--kiln-instrument-dispatches) on CUDA: the thread
// distribution turns the workgroup barrier into bar.sync 0 and the leader
// into "threadIdx is 0" (only x: the workgroup is 64x1x1), so that exactly
// one thread per block records, after every thread is done;
// hal.interface.timestamp is %globaltimer (ns). The ring and the site id are
// the last pointer and the last i32 parameter, as for any binding and
// constant.

#layout = #hal.pipeline.layout<constants = 2, bindings = [
  #hal.pipeline.binding<storage_buffer>,
  #hal.pipeline.binding<storage_buffer, Instrumentation>]>

// CHECK-LABEL: llvm.func @kernel(
// CHECK-SAME:      %[[OUT:[^:]+]]: !llvm.ptr, %[[RING:[^:]+]]: !llvm.ptr, %[[N:[^:]+]]: i32, %[[SITE:[^:]+]]: i32)
// CHECK-SAME:      attributes {nvvm.kernel, nvvm.reqntid = array<i32: 64, 1, 1>}
// CHECK:         %[[START:.+]] = nvvm.read.ptx.sreg.globaltimer : i64
// CHECK:         nvvm.barrier0
// CHECK:         %[[TID:.+]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK:         %[[TID64:.+]] = llvm.zext %[[TID]] : i32 to i64
// CHECK:         %[[FIRST:.+]] = llvm.icmp "eq" %[[TID64]], %{{.+}} : i64
// CHECK:         llvm.cond_br %[[FIRST]], ^[[RECORD:.+]], ^[[DONE:[^ ]+]]
// CHECK:       ^[[RECORD]]:
// CHECK:         %[[END:.+]] = nvvm.read.ptx.sreg.globaltimer : i64
// CHECK:         llvm.atomicrmw add %{{.+}}, %{{.+}} acq_rel : !llvm.ptr, i32
// CHECK:         llvm.store %[[SITE]], %{{.+}} : i32, !llvm.ptr
// CHECK:       ^[[DONE]]:
// CHECK:         llvm.return
module {
  func.func @kernel() attributes {kiln.workgroup_size = array<i64: 64, 1, 1>} {
    %start = hal.interface.timestamp : i64
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = hal.interface.constant.load layout(#layout) ordinal(0) : index
    %out = hal.interface.binding.subspan layout(#layout) binding(0) alignment(64) offset(%c0) : memref<?xf32>{%n}
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%out : memref<?xf32>)
    hal.interface.workgroup.barrier
    %leader = hal.interface.workgroup.leader : i1
    scf.if %leader {
      %end = hal.interface.timestamp : i64
      %site = hal.interface.constant.load layout(#layout) ordinal(1) : i32
      %one = arith.constant 1 : i32
      %ring = hal.interface.binding.subspan layout(#layout) binding(1) alignment(32) offset(%c0) : memref<16xi32>
      %slot = memref.atomic_rmw addi %one, %ring[%c0] : (i32, memref<16xi32>) -> i32
      %delta = arith.subi %end, %start : i64
      %low = arith.trunci %delta : i64 to i32
      %word = arith.addi %low, %slot : i32
      memref.store %word, %ring[%c1] : memref<16xi32>
      memref.store %site, %ring[%c0] : memref<16xi32>
    }
    return
  }
}
