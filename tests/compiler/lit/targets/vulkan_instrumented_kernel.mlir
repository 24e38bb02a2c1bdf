// RUN: %kiln-opt %s --split-input-file --verify-diagnostics --kiln-gpu-distribute-to-threads --kiln-vulkan-lower-kernels-to-spirv | FileCheck %s

// An instrumented kernel (--kiln-instrument-dispatches) on Vulkan. The
// device clock is OpReadClockKHR (SPV_KHR_shader_clock), which MLIR's SPIR-V
// dialect lacks (compiler/targets/vulkan/shader_clock.h): the 64-bit read,
// used as its low word (trunci) and high word (trunci of shrui by 32),
// becomes one read of both words, a load of the placeholder variable
// @kiln_shader_clock that the serialized module's patch turns into
// OpReadClockKHR with Device scope. No 64-bit integer is left.

#layout = #hal.pipeline.layout<constants = 1, bindings = [
  #hal.pipeline.binding<storage_buffer, Instrumentation>]>

// CHECK:       spirv.GlobalVariable @kiln_shader_clock : !spirv.ptr<vector<2xi32>, Private>
// CHECK-LABEL: spirv.func @kernel()
// CHECK:         %[[ADDRESS:.+]] = spirv.mlir.addressof @kiln_shader_clock
// CHECK-NEXT:    %[[WORDS:.+]] = spirv.Load "Private" %[[ADDRESS]] : vector<2xi32>
// CHECK-DAG:     %[[LOW:.+]] = spirv.CompositeExtract %[[WORDS]][0 : i32] : vector<2xi32>
// CHECK-DAG:     %[[HIGH:.+]] = spirv.CompositeExtract %[[WORDS]][1 : i32] : vector<2xi32>
// The ring's counter: an atomic add with Device scope.
// CHECK:         spirv.AtomicIAdd <Device> <AcquireRelease>
// CHECK:         spirv.Store "StorageBuffer" %{{.+}}, %[[LOW]] : i32
// CHECK:         spirv.Store "StorageBuffer" %{{.+}}, %[[HIGH]] : i32
// CHECK-NOT:     i64
module {
  func.func @kernel() attributes {kiln.workgroup_size = array<i64: 64, 1, 1>} {
    %start = hal.interface.timestamp : i64
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %ring = hal.interface.binding.subspan layout(#layout) binding(0) alignment(32) offset(%c0) : memref<16xi32>
    %low = arith.trunci %start : i64 to i32
    %c32 = arith.constant 32 : i64
    %shifted = arith.shrui %start, %c32 : i64
    %high = arith.trunci %shifted : i64 to i32
    %one = arith.constant 1 : i32
    %slot = memref.atomic_rmw addi %one, %ring[%c0] : (i32, memref<16xi32>) -> i32
    %i = arith.index_castui %slot : i32 to index
    memref.store %low, %ring[%i] : memref<16xi32>
    memref.store %high, %ring[%c1] : memref<16xi32>
    return
  }
}

// -----

// Any other use of the 64-bit clock is an error: the Vulkan target has no
// 64-bit integers for it.
module {
  func.func @kernel() attributes {kiln.workgroup_size = array<i64: 64, 1, 1>} {
    // expected-error @+1 {{'hal.interface.timestamp' op is used as a 64-bit value by arith.addi; the Vulkan target reads the device clock as two 32-bit words}}
    %start = hal.interface.timestamp : i64
    %sum = arith.addi %start, %start : i64
    return
  }
}
