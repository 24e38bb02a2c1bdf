// --kiln-cpu-lower-kernels-to-llvm lowers a module of generated kernels to
// the LLVM dialect with kiln's CPU kernel ABI (hal/cpu/kernel_abi.h): each
// kernel `func.func @f()` becomes `llvm.func @f(%state: !llvm.ptr) -> i32`
// returning 0, and the hal.interface ops read the dispatch state
// kiln_hal_dispatch_state_t, a literal struct whose fields LLVM's data layout
// places as the C compiler does:
//   0 workgroup_id[3]  1 workgroup_count[3]  2 workgroup_size[3]
//   3 constant_count   4 constants           5 binding_count
//   6 bindings         7 binding_lengths
// RUN: %kiln-opt %s --split-input-file --verify-diagnostics --kiln-cpu-lower-kernels-to-llvm | FileCheck %s

#layout = #hal.pipeline.layout<constants = 3, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>]>

// Workgroup id, count and size along a dimension: state->field[d], a u32
// zero-extended to index (i64). The state and what it points to do not
// change during a call: the loads are invariant.
// CHECK-LABEL: llvm.func @workgroup(
// CHECK-SAME:      %[[STATE:.+]]: !llvm.ptr) -> i32
// CHECK-DAG:     %[[ZERO:.+]] = llvm.mlir.constant(0 : i32) : i32
// CHECK:         %[[ID_PTR:.+]] = llvm.getelementptr %[[STATE]][0, 0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(array<3 x i32>, array<3 x i32>, array<3 x i32>, i32, ptr, i32, ptr, ptr)>
// CHECK:         %[[ID32:.+]] = llvm.load %[[ID_PTR]] invariant : !llvm.ptr -> i32
// CHECK:         %[[ID:.+]] = llvm.zext %[[ID32]] : i32 to i64
// CHECK:         %[[COUNT_PTR:.+]] = llvm.getelementptr %[[STATE]][0, 1, 1]
// CHECK:         %[[COUNT32:.+]] = llvm.load %[[COUNT_PTR]] invariant : !llvm.ptr -> i32
// CHECK:         %[[COUNT:.+]] = llvm.zext %[[COUNT32]] : i32 to i64
// CHECK:         %[[SIZE_PTR:.+]] = llvm.getelementptr %[[STATE]][0, 2, 2]
// CHECK:         %[[SIZE32:.+]] = llvm.load %[[SIZE_PTR]] invariant : !llvm.ptr -> i32
// CHECK:         %[[SIZE:.+]] = llvm.zext %[[SIZE32]] : i32 to i64
// CHECK:         llvm.store %[[ID]], %{{.+}} : i64, !llvm.ptr
// CHECK:         llvm.store %[[COUNT]], %{{.+}} : i64, !llvm.ptr
// CHECK:         llvm.store %[[SIZE]], %{{.+}} : i64, !llvm.ptr
// CHECK:         llvm.return %[[ZERO]] : i32
func.func @workgroup() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %out = hal.interface.binding.subspan layout(#layout) binding(1) offset(%c0) : memref<3xindex>
  %id = hal.interface.workgroup.id[0] : index
  %count = hal.interface.workgroup.count[1] : index
  %size = hal.interface.workgroup.size[2] : index
  memref.store %id, %out[%c0] : memref<3xindex>
  memref.store %count, %out[%c1] : memref<3xindex>
  memref.store %size, %out[%c2] : memref<3xindex>
  return
}

// Constants: state->constants[k], an i32 read as is, zero-extended to index
// or bitcast to f32.
// CHECK-LABEL: llvm.func @constants(
// CHECK-SAME:      %[[STATE:.+]]: !llvm.ptr) -> i32
// CHECK:         %[[CONSTANTS_PTR:.+]] = llvm.getelementptr %[[STATE]][0, 4] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(array<3 x i32>, array<3 x i32>, array<3 x i32>, i32, ptr, i32, ptr, ptr)>
// CHECK:         %[[CONSTANTS:.+]] = llvm.load %[[CONSTANTS_PTR]] invariant : !llvm.ptr -> !llvm.ptr
// CHECK:         %[[K0_PTR:.+]] = llvm.getelementptr %[[CONSTANTS]][0] : (!llvm.ptr) -> !llvm.ptr, i32
// CHECK:         %[[K0:.+]] = llvm.load %[[K0_PTR]] invariant : !llvm.ptr -> i32
// CHECK:         %[[N:.+]] = llvm.zext %[[K0]] : i32 to i64
// CHECK:         %[[K1_PTR:.+]] = llvm.getelementptr %{{.+}}[1] : (!llvm.ptr) -> !llvm.ptr, i32
// CHECK:         %[[I:.+]] = llvm.load %[[K1_PTR]] invariant : !llvm.ptr -> i32
// CHECK:         %[[K2_PTR:.+]] = llvm.getelementptr %{{.+}}[2] : (!llvm.ptr) -> !llvm.ptr, i32
// CHECK:         %[[K2:.+]] = llvm.load %[[K2_PTR]] invariant : !llvm.ptr -> i32
// CHECK:         %[[F:.+]] = llvm.bitcast %[[K2]] : i32 to f32
// CHECK:         llvm.store %[[N]], %{{.+}} : i64, !llvm.ptr
// CHECK:         llvm.store %[[I]], %{{.+}} : i32, !llvm.ptr
// CHECK:         llvm.store %[[F]], %{{.+}} : f32, !llvm.ptr
func.func @constants() {
  %c0 = arith.constant 0 : index
  %n = hal.interface.constant.load layout(#layout) ordinal(0) : index
  %i = hal.interface.constant.load layout(#layout) ordinal(1) : i32
  %f = hal.interface.constant.load layout(#layout) ordinal(2) : f32
  %out_n = hal.interface.binding.subspan layout(#layout) binding(1) offset(%c0) : memref<index>
  %out_i = hal.interface.binding.subspan layout(#layout) binding(1) offset(%c0) : memref<i32>
  %out_f = hal.interface.binding.subspan layout(#layout) binding(1) offset(%c0) : memref<f32>
  memref.store %n, %out_n[] : memref<index>
  memref.store %i, %out_i[] : memref<i32>
  memref.store %f, %out_f[] : memref<f32>
  return
}

// A subspan is a memref descriptor over state->bindings[b] + offset bytes:
// both pointers the same, offset 0, sizes from the type and the op's dynamic
// dims, row-major strides (4 x 4 x 1 here, the outermost one computed from
// the dynamic dim).
// CHECK-LABEL: llvm.func @subspan(
// CHECK-SAME:      %[[STATE:.+]]: !llvm.ptr) -> i32
// CHECK-DAG:     %[[C64:.+]] = llvm.mlir.constant(64 : index) : i64
// CHECK:         %[[D0:.+]] = llvm.zext %{{.+}} : i32 to i64
// CHECK:         %[[D1:.+]] = llvm.zext %{{.+}} : i32 to i64
// CHECK:         %[[BINDINGS_PTR:.+]] = llvm.getelementptr %[[STATE]][0, 6] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(array<3 x i32>, array<3 x i32>, array<3 x i32>, i32, ptr, i32, ptr, ptr)>
// CHECK:         %[[BINDINGS:.+]] = llvm.load %[[BINDINGS_PTR]] invariant : !llvm.ptr -> !llvm.ptr
// CHECK:         %[[B0_PTR:.+]] = llvm.getelementptr %[[BINDINGS]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK:         %[[B0:.+]] = llvm.load %[[B0_PTR]] invariant : !llvm.ptr -> !llvm.ptr
// CHECK:         %[[BASE:.+]] = llvm.getelementptr %[[B0]][%[[C64]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK:         %[[DESC0:.+]] = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<3 x i64>, array<3 x i64>)>
// CHECK:         %[[DESC1:.+]] = llvm.insertvalue %[[BASE]], %[[DESC0]][0]
// CHECK:         %[[DESC2:.+]] = llvm.insertvalue %[[BASE]], %[[DESC1]][1]
// CHECK:         %[[OFFSET:.+]] = llvm.mlir.constant(0 : index) : i64
// CHECK:         %[[DESC3:.+]] = llvm.insertvalue %[[OFFSET]], %[[DESC2]][2]
// CHECK:         %[[DESC4:.+]] = llvm.insertvalue %[[D0]], %[[DESC3]][3, 0]
// CHECK:         %[[DESC5:.+]] = llvm.insertvalue %[[D1]], %[[DESC4]][3, 1]
// CHECK:         %[[FOUR:.+]] = llvm.mlir.constant(4 : index) : i64
// CHECK:         %[[DESC6:.+]] = llvm.insertvalue %[[FOUR]], %[[DESC5]][3, 2]
// CHECK:         %[[ONE:.+]] = llvm.mlir.constant(1 : index) : i64
// CHECK:         %[[DESC7:.+]] = llvm.insertvalue %[[ONE]], %[[DESC6]][4, 2]
// CHECK:         %[[FOUR_1:.+]] = llvm.mlir.constant(4 : index) : i64
// CHECK:         %[[DESC8:.+]] = llvm.insertvalue %[[FOUR_1]], %[[DESC7]][4, 1]
// CHECK:         %[[FOUR_2:.+]] = llvm.mlir.constant(4 : index) : i64
// CHECK:         %[[STRIDE0:.+]] = llvm.mul %[[FOUR_2]], %[[D1]] : i64
// CHECK:         llvm.insertvalue %[[STRIDE0]], %[[DESC8]][4, 0]
func.func @subspan() {
  %c64 = arith.constant 64 : index
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %d0 = hal.interface.constant.load layout(#layout) ordinal(0) : index
  %d1 = hal.interface.constant.load layout(#layout) ordinal(1) : index
  %in = hal.interface.binding.subspan layout(#layout) binding(0) alignment(64) offset(%c64) flags(ReadOnly) : memref<?x?x4xf32>{%d0, %d1}
  %x = memref.load %in[%c1, %c1, %c1] : memref<?x?x4xf32>
  %out = hal.interface.binding.subspan layout(#layout) binding(1) offset(%c0) : memref<f32>
  memref.store %x, %out[] : memref<f32>
  return
}

// A strided layout with static strides keeps them.
// CHECK-LABEL: llvm.func @strided(
// CHECK:         %[[EIGHT:.+]] = llvm.mlir.constant(8 : index) : i64
// CHECK:         llvm.insertvalue %[[EIGHT]], %{{.+}}[4, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
func.func @strided() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %in = hal.interface.binding.subspan layout(#layout) binding(0) offset(%c0) flags(ReadOnly) : memref<4x4xf32, strided<[8, 1]>>
  %x = memref.load %in[%c1, %c1] : memref<4x4xf32, strided<[8, 1]>>
  %out = hal.interface.binding.subspan layout(#layout) binding(1) offset(%c0) : memref<f32>
  memref.store %x, %out[] : memref<f32>
  return
}

// Private functions are helpers with the standard calling convention; math
// ops with an LLVM intrinsic use it, the others become libm calls.
// CHECK-LABEL: llvm.func @helper(%{{.+}}: f32) -> f32
// CHECK:         llvm.intr.exp(%{{.+}}) : (f32) -> f32
// CHECK:         llvm.call @erff(%{{.+}}) : (f32) -> f32
// CHECK-LABEL: llvm.func @calls_helper(
// CHECK:         llvm.call @helper(%{{.+}}) : (f32) -> f32
func.func private @helper(%x: f32) -> f32 {
  %e = math.exp %x : f32
  %a = math.erf %e : f32
  return %a : f32
}
func.func @calls_helper() {
  %c0 = arith.constant 0 : index
  %out = hal.interface.binding.subspan layout(#layout) binding(1) offset(%c0) : memref<f32>
  %x = memref.load %out[] : memref<f32>
  %y = func.call @helper(%x) : (f32) -> f32
  memref.store %y, %out[] : memref<f32>
  return
}

// -----

// An intermediate a kernel allocates (a fused producer's tile) is freed at
// the end of the block that made it: a kernel runs once per workgroup of
// every dispatch, and nothing it allocates outlives it.
#layout = #hal.pipeline.layout<constants = 0, bindings = [#hal.pipeline.binding<storage_buffer>]>

// CHECK-LABEL: llvm.func @intermediate(
func.func @intermediate() {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 1.0 : f32
  %out = hal.interface.binding.subspan layout(#layout) binding(0) offset(%c0) : memref<4xf32>
  // CHECK: llvm.call @malloc
  // CHECK: llvm.call @free(%{{.+}}) : (!llvm.ptr) -> ()
  // CHECK: llvm.return
  %tile = memref.alloc() : memref<4xf32>
  linalg.fill ins(%cst : f32) outs(%tile : memref<4xf32>)
  memref.copy %tile, %out : memref<4xf32> to memref<4xf32>
  return
}

// -----

// Errors: what the CPU ABI cannot honour, at the op.
#layout = #hal.pipeline.layout<constants = 0, bindings = [#hal.pipeline.binding<storage_buffer>]>

func.func @dynamic_strides() {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{has dynamic strides, which a binding cannot supply}}
  %m = hal.interface.binding.subspan layout(#layout) binding(0) offset(%c0) : memref<4x4xf32, strided<[?, 1]>>
  return
}

func.func @static_offset() {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{has the static offset 4; express it as the op's byte offset instead}}
  %m = hal.interface.binding.subspan layout(#layout) binding(0) offset(%c0) : memref<4xf32, strided<[1], offset: 4>>
  return
}

func.func private @not_a_kernel() {
  // expected-error @+1 {{is in @not_a_kernel, which is not a kernel (a public function)}}
  %id = hal.interface.workgroup.id[0] : index
  return
}

// expected-error @+1 {{is a kernel (public) but has type '(f32) -> ()'; kernels take no arguments and return nothing}}
func.func @with_arguments(%x: f32) {
  return
}

// -----

// An op nothing lowers fails the conversion, named at its location.
#layout = #hal.pipeline.layout<constants = 0, bindings = [#hal.pipeline.binding<storage_buffer>]>

func.func @unlowered() {
  %c0 = arith.constant 0 : index
  %out = hal.interface.binding.subspan layout(#layout) binding(0) offset(%c0) : memref<4xf32>
  // expected-error @+1 {{failed to legalize operation 'tensor.empty'}}
  %t = tensor.empty() : tensor<4xf32>
  %x = tensor.extract %t[%c0] : tensor<4xf32>
  memref.store %x, %out[%c0] : memref<4xf32>
  return
}
