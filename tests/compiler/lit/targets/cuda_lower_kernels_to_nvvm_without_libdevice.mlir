// RUN: %kiln-opt %s --split-input-file --verify-diagnostics --kiln-cuda-lower-kernels-to-nvvm=libdevice=false | FileCheck %s

// The CUDA backend's math without libdevice (a build that found no CUDA
// toolkit): f32 polynomial approximations where they are accurate, an error
// that says libdevice is missing where they are not.

// math.exp on f32 (and on f16 through f32) is a polynomial of plain
// arithmetic: no call, no llvm.exp.
// CHECK-LABEL: llvm.func @exp(
// CHECK-NOT:     llvm.call
// CHECK-NOT:     llvm.intr.exp
// CHECK:         llvm.fpext %{{.*}} : f16 to f32
// CHECK:         llvm.intr.fma
// CHECK:         llvm.fptrunc %{{.*}} : f32 to f16
// CHECK:         llvm.return
#layout = #hal.pipeline.layout<constants = 0, bindings = [#hal.pipeline.binding<storage_buffer>]>
func.func @exp() {
  %c0 = arith.constant 0 : index
  %out = hal.interface.binding.subspan layout(#layout) binding(0) offset(%c0) : memref<4xf16>
  %x = memref.load %out[%c0] : memref<4xf16>
  %y = math.exp %x : f16
  memref.store %y, %out[%c0] : memref<4xf16>
  return
}

// -----

// math.sin's polynomial is not accurate enough (IREE's math suite): it
// needs libdevice.
#layout = #hal.pipeline.layout<constants = 0, bindings = [#hal.pipeline.binding<storage_buffer>]>
func.func @sin() {
  %c0 = arith.constant 0 : index
  %out = hal.interface.binding.subspan layout(#layout) binding(0) offset(%c0) : memref<4xf32>
  %x = memref.load %out[%c0] : memref<4xf32>
  // expected-error @+1 {{'math.sin' op on 'f32' needs libdevice in the CUDA backend, which was not found when kiln was built}}
  %y = math.sin %x : f32
  memref.store %y, %out[%c0] : memref<4xf32>
  return
}

// -----

// There are no f64 approximations.
#layout = #hal.pipeline.layout<constants = 0, bindings = [#hal.pipeline.binding<storage_buffer>]>
func.func @exp_f64() {
  %c0 = arith.constant 0 : index
  %out = hal.interface.binding.subspan layout(#layout) binding(0) offset(%c0) : memref<4xf64>
  %x = memref.load %out[%c0] : memref<4xf64>
  // expected-error @+1 {{'math.exp' op on 'f64' needs libdevice in the CUDA backend}}
  %y = math.exp %x : f64
  memref.store %y, %out[%c0] : memref<4xf64>
  return
}
