// RUN: %kiln-opt %s --split-input-file --verify-diagnostics --kiln-gpu-distribute-to-threads --kiln-cuda-lower-kernels-to-nvvm=libdevice=true | FileCheck %s

// --kiln-cuda-lower-kernels-to-nvvm lowers a module of thread-distributed
// kernels to the LLVM dialect with kiln's CUDA dispatch ABI: each kernel is
// an llvm.func marked nvvm.kernel (a PTX .entry of its own name) whose
// parameters are ALL the bindings of its layout as pointers, in order, then
// ALL the layout's constants as i32, with .reqntid = kiln.workgroup_size.
// Workgroup ids are blockIdx (ctaid), the thread id is threadIdx (tid, with
// its range); a subspan is a memref descriptor over its pointer parameter.

// Binding 1 is unused, constant 1 too: both stay parameters (the driver
// passes them all). The constant read as index is zero-extended.
// CHECK-LABEL: llvm.func @add(
// CHECK-SAME:      %[[A:[^:]+]]: !llvm.ptr, %{{[^:]+}}: !llvm.ptr, %[[OUT:[^:]+]]: !llvm.ptr, %[[N:[^:]+]]: i32, %{{[^:]+}}: i32)
// CHECK-SAME:      attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>}
// CHECK:         %[[TID:.+]] = nvvm.read.ptx.sreg.tid.x range <i32, 0, 128> : i32
// CHECK:         %[[N64:.+]] = llvm.zext %[[N]] : i32 to i64
// The descriptor of binding 0: the pointer (plus the byte offset, 0 here) as
// allocated and aligned pointer, offset 0, size n, stride 1.
// CHECK:         %[[BASE:.+]] = llvm.getelementptr %[[A]][%{{.+}}] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK:         %[[D0:.+]] = llvm.insertvalue %[[BASE]], %{{.+}}[0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
// CHECK:         %[[D1:.+]] = llvm.insertvalue %[[BASE]], %[[D0]][1]
// CHECK:         llvm.insertvalue %[[N64]], %{{.+}}[3, 0]
// CHECK:         llvm.getelementptr %[[OUT]][%{{.+}}] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK:         nvvm.read.ptx.sreg.ctaid.x : i32
// CHECK:         llvm.load %{{.+}} : !llvm.ptr -> f32
// CHECK:         llvm.fadd
// CHECK:         llvm.store %{{.+}}, %{{.+}} : f32, !llvm.ptr
#layout = #hal.pipeline.layout<constants = 2, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>]>
#map = affine_map<(d0) -> (d0)>
#min = affine_map<()[s0, s1] -> (1024, s0 - s1)>
func.func @add() attributes {kiln.workgroup_size = array<i64: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1024 = arith.constant 1024 : index
  %n = hal.interface.constant.load layout(#layout) ordinal(0) : index
  %a = hal.interface.binding.subspan layout(#layout) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : memref<?xf32>{%n}
  %out = hal.interface.binding.subspan layout(#layout) binding(2) alignment(64) offset(%c0) : memref<?xf32>{%n}
  %id = hal.interface.workgroup.id[0] : index
  %begin = arith.muli %id, %c1024 : index
  %size = affine.min #min()[%n, %begin]
  %sa = memref.subview %a[%begin] [%size] [1] : memref<?xf32> to memref<?xf32, strided<[1], offset: ?>>
  %so = memref.subview %out[%begin] [%size] [1] : memref<?xf32> to memref<?xf32, strided<[1], offset: ?>>
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%sa : memref<?xf32, strided<[1], offset: ?>>)
      outs(%so : memref<?xf32, strided<[1], offset: ?>>) {
  ^bb0(%x: f32, %z: f32):
    %s = arith.addf %x, %x : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A byte offset moves the descriptor's pointer; a constant read as f32 is
// its parameter's bits. An intermediate in workgroup memory is a global in
// addrspace 3 (PTX .shared), one per alloc; gpu.barrier is bar.sync 0.
// CHECK:       llvm.mlir.global private @offset_2d_shared() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<8 x array<8 x f32>>
// CHECK-LABEL: llvm.func @offset_2d(
// CHECK-SAME:      %[[IN:[^:]+]]: !llvm.ptr, %{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: !llvm.ptr, %{{[^:]+}}: i32, %{{[^:]+}}: i32, %[[SCALE:[^:]+]]: i32)
// CHECK-SAME:      nvvm.reqntid = array<i32: 64, 1, 1>
// CHECK-DAG:     %[[C64:.+]] = llvm.mlir.constant(64 : index) : i64
// CHECK-DAG:     llvm.bitcast %[[SCALE]] : i32 to f32
// CHECK:         llvm.getelementptr %[[IN]][%[[C64]]] : (!llvm.ptr, i64) -> !llvm.ptr, i8
// CHECK:         llvm.mlir.addressof @offset_2d_shared : !llvm.ptr<3>
// CHECK:         llvm.store %{{.+}}, %{{.+}} : f32, !llvm.ptr<3>
// CHECK:         nvvm.barrier0
// CHECK:         llvm.load %{{.+}} : !llvm.ptr<3> -> f32
#layout = #hal.pipeline.layout<constants = 3, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>]>
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (0, d1)>
func.func @offset_2d() attributes {kiln.workgroup_size = array<i64: 64, 1, 1>} {
  %c64 = arith.constant 64 : index
  %c0 = arith.constant 0 : index
  %n = hal.interface.constant.load layout(#layout) ordinal(0) : index
  %scale = hal.interface.constant.load layout(#layout) ordinal(2) : f32
  %in = hal.interface.binding.subspan layout(#layout) binding(0) alignment(64) offset(%c64) flags(ReadOnly) : memref<?x8xf32>{%n}
  %out = hal.interface.binding.subspan layout(#layout) binding(2) alignment(64) offset(%c0) : memref<?x8xf32>{%n}
  %id = hal.interface.workgroup.id[0] : index
  %sin = memref.subview %in[%id, 0] [8, 8] [1, 1] : memref<?x8xf32> to memref<8x8xf32, strided<[8, 1], offset: ?>>
  %sout = memref.subview %out[%id, 0] [8, 8] [1, 1] : memref<?x8xf32> to memref<8x8xf32, strided<[8, 1], offset: ?>>
  %tmp = memref.alloc() : memref<8x8xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sin : memref<8x8xf32, strided<[8, 1], offset: ?>>) outs(%tmp : memref<8x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %m = arith.mulf %x, %scale : f32
    linalg.yield %m : f32
  }
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%tmp, %tmp : memref<8x8xf32>, memref<8x8xf32>) outs(%sout : memref<8x8xf32, strided<[8, 1], offset: ?>>) {
  ^bb0(%x: f32, %f: f32, %y: f32):
    %s = arith.subf %x, %f : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// The workgroup count and size are gridDim and blockDim; math.exp on f32 is
// libdevice's __nv_expf (never llvm.exp, which NVPTX cannot select).
// CHECK-LABEL: llvm.func @count_and_size(
// CHECK-SAME:      nvvm.reqntid = array<i32: 128, 1, 1>
// CHECK-DAG:     nvvm.read.ptx.sreg.nctaid.y : i32
// CHECK-DAG:     nvvm.read.ptx.sreg.ntid.z : i32
// CHECK-NOT:     llvm.intr.exp
// CHECK:         llvm.call @__nv_expf(%{{.*}}) : (f32) -> f32
// CHECK:         llvm.return
#layout = #hal.pipeline.layout<constants = 0, bindings = [#hal.pipeline.binding<storage_buffer>]>
func.func @count_and_size() {
  %c0 = arith.constant 0 : index
  %out = hal.interface.binding.subspan layout(#layout) binding(0) offset(%c0) : memref<4xf32>
  %count = hal.interface.workgroup.count[1] : index
  %size = hal.interface.workgroup.size[2] : index
  %sum = arith.addi %count, %size : index
  %i = arith.index_cast %sum : index to i32
  %f = arith.sitofp %i : i32 to f32
  %e = math.exp %f : f32
  memref.store %e, %out[%c0] : memref<4xf32>
  return
}

// -----

// Transcendental math becomes libdevice calls: __nv_<op>f on f32, __nv_<op>
// on f64, f16 through f32 (extf, the f32 call, truncf); arith.remf is fmod.
// Ops with a PTX instruction stay LLVM intrinsics (sqrt, fabs), rsqrt is
// 1 / sqrt. The declarations are what EmitPtx links libdevice for.
// CHECK-DAG:   llvm.func @__nv_sinf(f32) -> f32
// CHECK-DAG:   llvm.func @__nv_powf(f32, f32) -> f32
// CHECK-DAG:   llvm.func @__nv_atan2f(f32, f32) -> f32
// CHECK-DAG:   llvm.func @__nv_fmodf(f32, f32) -> f32
// CHECK-DAG:   llvm.func @__nv_log10(f64) -> f64
// CHECK-DAG:   llvm.func @__nv_exp2f(f32) -> f32
// CHECK-LABEL: llvm.func @math(
// CHECK:         %[[X:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK:         %[[Y:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f64
// CHECK:         %[[H:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f16
// CHECK:         %[[H32:.*]] = llvm.fpext %[[H]] {{.*}}: f16 to f32
// CHECK:         %[[SIN:.*]] = llvm.call @__nv_sinf(%[[X]]) : (f32) -> f32
// CHECK:         %[[POW:.*]] = llvm.call @__nv_powf(%[[SIN]], %[[X]]) : (f32, f32) -> f32
// CHECK:         %[[ATAN2:.*]] = llvm.call @__nv_atan2f(%[[POW]], %[[X]]) : (f32, f32) -> f32
// CHECK:         %[[ROOT:.*]] = llvm.intr.sqrt(%[[ATAN2]]) : (f32) -> f32
// CHECK:         %[[RSQRT:.*]] = llvm.fdiv %{{.*}}, %[[ROOT]] : f32
// CHECK:         %[[SQRT:.*]] = llvm.intr.sqrt(%[[RSQRT]]) : (f32) -> f32
// CHECK:         llvm.call @__nv_fmodf(%[[SQRT]], %[[X]]) : (f32, f32) -> f32
// CHECK:         llvm.call @__nv_log10(%[[Y]]) : (f64) -> f64
// CHECK:         %[[EXP2:.*]] = llvm.call @__nv_exp2f(%[[H32]]) : (f32) -> f32
// CHECK:         %[[ABS:.*]] = llvm.intr.fabs(%[[EXP2]]) : (f32) -> f32
// CHECK:         llvm.fptrunc %[[ABS]] {{.*}}: f32 to f16
// CHECK-NOT:     math.
// CHECK:         llvm.return
#layout = #hal.pipeline.layout<constants = 0, bindings = [#hal.pipeline.binding<storage_buffer>, #hal.pipeline.binding<storage_buffer>, #hal.pipeline.binding<storage_buffer>]>
func.func @math() {
  %c0 = arith.constant 0 : index
  %a = hal.interface.binding.subspan layout(#layout) binding(0) offset(%c0) : memref<4xf32>
  %b = hal.interface.binding.subspan layout(#layout) binding(1) offset(%c0) : memref<4xf64>
  %c = hal.interface.binding.subspan layout(#layout) binding(2) offset(%c0) : memref<4xf16>
  %x = memref.load %a[%c0] : memref<4xf32>
  %y = memref.load %b[%c0] : memref<4xf64>
  %h = memref.load %c[%c0] : memref<4xf16>
  %s = math.sin %x : f32
  %p = math.powf %s, %x : f32
  %t = math.atan2 %p, %x : f32
  %r = math.rsqrt %t : f32
  %q = math.sqrt %r : f32
  %m = arith.remf %q, %x : f32
  memref.store %m, %a[%c0] : memref<4xf32>
  %l = math.log10 %y : f64
  memref.store %l, %b[%c0] : memref<4xf64>
  %e = math.exp2 %h : f16
  %abs = math.absf %e : f16
  memref.store %abs, %c[%c0] : memref<4xf16>
  return
}

// -----

// A math op with no lowering (libdevice has no f128 functions) is an error
// at the op.
#layout = #hal.pipeline.layout<constants = 0, bindings = [#hal.pipeline.binding<storage_buffer>]>
func.func @sin_f128() {
  %c0 = arith.constant 0 : index
  %out = hal.interface.binding.subspan layout(#layout) binding(0) offset(%c0) : memref<4xf128>
  %x = memref.load %out[%c0] : memref<4xf128>
  // expected-error @+1 {{'math.sin' op on 'f128' has no lowering in the CUDA backend}}
  %y = math.sin %x : f128
  memref.store %y, %out[%c0] : memref<4xf128>
  return
}

// -----

// A kernel's parameters come from one layout.
#one = #hal.pipeline.layout<constants = 0, bindings = [#hal.pipeline.binding<storage_buffer>]>
#two = #hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer>]>
func.func @two_layouts() {
  %c0 = arith.constant 0 : index
  %out = hal.interface.binding.subspan layout(#one) binding(0) offset(%c0) : memref<4xi32>
  // expected-error @+1 {{a CUDA kernel's parameters come from one layout}}
  %k = hal.interface.constant.load layout(#two) ordinal(0) : i32
  memref.store %k, %out[%c0] : memref<4xi32>
  return
}
