// RUN: %kiln-opt %s --split-input-file --verify-diagnostics --kiln-gpu-distribute-to-threads --kiln-vulkan-lower-kernels-to-spirv | FileCheck %s

// --kiln-vulkan-lower-kernels-to-spirv lowers a module of thread-distributed
// kernels to one spirv.module with kiln's Vulkan dispatch ABI: binding i is
// a StorageBuffer variable at descriptor set 0, binding i (a Block struct
// holding a runtime array); the layout's constants are a PushConstant block
// of N x i32; workgroup id/count and the thread id are builtins; each
// kernel is a GLCompute entry point of its own name with LocalSize =
// kiln.workgroup_size. The module requires only what it uses.

// CHECK-LABEL: spirv.module @{{.+}} Logical GLSL450 requires #spirv.vce<v1.0, [Shader, Matrix], [SPV_KHR_storage_buffer_storage_class]>
// CHECK-DAG:     spirv.GlobalVariable @[[WG:.+]] built_in("WorkgroupId") : !spirv.ptr<vector<3xi32>, Input>
// CHECK-DAG:     spirv.GlobalVariable @[[LID:.+]] built_in("LocalInvocationId") : !spirv.ptr<vector<3xi32>, Input>
// CHECK-DAG:     spirv.GlobalVariable @[[B0:.+]] bind(0, 0) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0])>, StorageBuffer>
// CHECK-DAG:     spirv.GlobalVariable @[[B1:.+]] bind(0, 1) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0])>, StorageBuffer>
// CHECK-DAG:     spirv.GlobalVariable @[[B2:.+]] bind(0, 2) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0])>, StorageBuffer>
// CHECK-DAG:     spirv.GlobalVariable @[[PC:.+]] : !spirv.ptr<!spirv.struct<(!spirv.array<1 x i32, stride=4> [0])>, PushConstant>
// CHECK:         spirv.func @add() "None"
// The constant n: element 0 of the push-constant block.
// CHECK:           %[[PC_ADDR:.+]] = spirv.mlir.addressof @[[PC]]
// CHECK:           %[[N_PTR:.+]] = spirv.AccessChain %[[PC_ADDR]][%{{.+}}, %{{.+}}]
// CHECK:           %[[N:.+]] = spirv.Load "PushConstant" %[[N_PTR]] : i32
// Each thread's elements: a structured loop, loads and stores through
// access chains into the bindings' runtime arrays.
// CHECK:           spirv.mlir.loop {
// CHECK:             spirv.AccessChain %{{.+}}[%{{.+}}, %{{.+}}] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0])>, StorageBuffer>
// CHECK:             spirv.Load "StorageBuffer"
// CHECK:             spirv.Load "StorageBuffer"
// CHECK:             spirv.FAdd
// CHECK:             spirv.Store "StorageBuffer"
// CHECK:             spirv.mlir.merge
// CHECK:           spirv.Return
// CHECK:         spirv.EntryPoint "GLCompute" @add, @[[LID]], @[[WG]]
// CHECK:         spirv.ExecutionMode @add "LocalSize", 128, 1, 1
#layout = #hal.pipeline.layout<constants = 1, bindings = [
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
  %b = hal.interface.binding.subspan layout(#layout) binding(1) alignment(64) offset(%c0) flags(ReadOnly) : memref<?xf32>{%n}
  %out = hal.interface.binding.subspan layout(#layout) binding(2) alignment(64) offset(%c0) : memref<?xf32>{%n}
  %id = hal.interface.workgroup.id[0] : index
  %begin = arith.muli %id, %c1024 : index
  %size = affine.min #min()[%n, %begin]
  %sa = memref.subview %a[%begin] [%size] [1] : memref<?xf32> to memref<?xf32, strided<[1], offset: ?>>
  %sb = memref.subview %b[%begin] [%size] [1] : memref<?xf32> to memref<?xf32, strided<[1], offset: ?>>
  %so = memref.subview %out[%begin] [%size] [1] : memref<?xf32> to memref<?xf32, strided<[1], offset: ?>>
  linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]}
      ins(%sa, %sb : memref<?xf32, strided<[1], offset: ?>>, memref<?xf32, strided<[1], offset: ?>>)
      outs(%so : memref<?xf32, strided<[1], offset: ?>>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// N-D bindings are flattened (SPIR-V has no dynamic strides): the index is
// row-major over the subspan's sizes, plus the byte offset in elements.
// Constants read as f32 are the push constant's bits. An intermediate in
// workgroup memory is a Workgroup variable; gpu.barrier orders both
// workgroup and storage-buffer memory.
// CHECK-LABEL: spirv.module
// CHECK-DAG:     spirv.GlobalVariable @{{.+}} : !spirv.ptr<!spirv.struct<(!spirv.array<64 x f32>)>, Workgroup>
// CHECK:         spirv.func @offset_2d()
// CHECK:           spirv.Bitcast %{{.+}} : i32 to f32
// CHECK:           spirv.mlir.loop
// CHECK:           spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|UniformMemory|WorkgroupMemory>
// CHECK:         spirv.ExecutionMode @offset_2d "LocalSize", 64, 1, 1
#layout = #hal.pipeline.layout<constants = 2, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>]>
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (0, d1)>
func.func @offset_2d() attributes {kiln.workgroup_size = array<i64: 64, 1, 1>} {
  %c64 = arith.constant 64 : index
  %c0 = arith.constant 0 : index
  %n = hal.interface.constant.load layout(#layout) ordinal(0) : index
  %scale = hal.interface.constant.load layout(#layout) ordinal(1) : f32
  %in = hal.interface.binding.subspan layout(#layout) binding(0) alignment(64) offset(%c64) flags(ReadOnly) : memref<?x8xf32>{%n}
  %out = hal.interface.binding.subspan layout(#layout) binding(1) alignment(64) offset(%c0) : memref<?x8xf32>{%n}
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

// What no conversion lowers is an error at the op (integer powers have no
// SPIR-V form).
#layout = #hal.pipeline.layout<constants = 0, bindings = [#hal.pipeline.binding<storage_buffer>]>
func.func @ipowi_kernel() {
  %c0 = arith.constant 0 : index
  %out = hal.interface.binding.subspan layout(#layout) binding(0) offset(%c0) : memref<4xi32>
  %x = memref.load %out[%c0] : memref<4xi32>
  // expected-error @+1 {{failed to legalize operation 'math.ipowi'}}
  %y = math.ipowi %x, %x : i32
  memref.store %y, %out[%c0] : memref<4xi32>
  return
}

// -----

// The math functions the SPIR-V conversion lacks are approximated (erf, a
// GELU's) or expanded (trunc) before it.
// CHECK-LABEL: spirv.func @approximated_kernel
// CHECK-NOT:     math.
// CHECK:         spirv.GL.Fma
// CHECK:         spirv.GL.Floor
// CHECK:         spirv.Return
#layout_math = #hal.pipeline.layout<constants = 0, bindings = [#hal.pipeline.binding<storage_buffer>]>
func.func @approximated_kernel() {
  %c0 = arith.constant 0 : index
  %out = hal.interface.binding.subspan layout(#layout_math) binding(0) offset(%c0) : memref<4xf32>
  %x = memref.load %out[%c0] : memref<4xf32>
  %e = math.erf %x : f32
  %y = math.trunc %e : f32
  memref.store %y, %out[%c0] : memref<4xf32>
  return
}

// -----

// Element types SPIR-V cannot hold in a storage buffer: a bf16 binding is
// an array of i16 whose loads become f32 by a shift (arithmetic on bf16 is
// done in f32), an i1 binding is an array of bytes written 0 or 1.

#layout_narrow = #hal.pipeline.layout<constants = 0, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>]>
// CHECK-LABEL: spirv.module
// CHECK-DAG:     spirv.GlobalVariable @{{.+}} bind(0, 0) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i16, stride=2> [0])>, StorageBuffer>
// CHECK-DAG:     spirv.GlobalVariable @{{.+}} bind(0, 1) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i8, stride=1> [0])>, StorageBuffer>
// CHECK:         spirv.func @positive()
// CHECK:           %[[BITS:.+]] = spirv.Load "StorageBuffer" %{{.+}} : i16
// CHECK:           spirv.UConvert %[[BITS]] : i16 to i32
// CHECK:           spirv.ShiftLeftLogical
// CHECK:           spirv.Bitcast %{{.+}} : i32 to f32
// CHECK:           spirv.FOrdGreaterThan %{{.+}} : f32
// CHECK:           %[[BYTE:.+]] = spirv.Select %{{.+}} : i1, i8
// CHECK:           spirv.Store "StorageBuffer" %{{.+}}, %[[BYTE]] : i8
module {
  func.func @positive() {
    %c0 = arith.constant 0 : index
    %in = hal.interface.binding.subspan layout(#layout_narrow) binding(0) offset(%c0) flags(ReadOnly) : memref<4xbf16>
    %out = hal.interface.binding.subspan layout(#layout_narrow) binding(1) offset(%c0) : memref<4xi1>
    %zero = arith.constant 0.0 : bf16
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                    iterator_types = ["parallel"]}
        ins(%in : memref<4xbf16>) outs(%out : memref<4xi1>) {
    ^bb0(%x: bf16, %y: i1):
      %gt = arith.cmpf ogt, %x, %zero : bf16
      linalg.yield %gt : i1
    }
    return
  }
}

// -----

// A reshape of a binding with dynamic sizes is that binding viewed with the
// reshaped type (folding it into the loads would need strided metadata,
// which SPIR-V lacks); a bf16 chosen between constants is stored as the
// select of their bits.
#layout_reshape = #hal.pipeline.layout<constants = 1, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>]>
// CHECK-LABEL: spirv.module
// CHECK:         spirv.func @reshaped()
// CHECK-NOT:     extract_strided_metadata
// CHECK:         spirv.Load "StorageBuffer" %{{.+}} : f32
// CHECK:         spirv.Select %{{.+}}, %{{.+}}, %{{.+}} : i1, i16
// CHECK:         spirv.Store "StorageBuffer" %{{.+}}, %{{.+}} : i16
module {
  func.func @reshaped() {
    %c0 = arith.constant 0 : index
    %n = hal.interface.constant.load layout(#layout_reshape) ordinal(0) : index
    %in = hal.interface.binding.subspan layout(#layout_reshape) binding(0) offset(%c0) flags(ReadOnly) : memref<?x1xf32>{%n}
    %out = hal.interface.binding.subspan layout(#layout_reshape) binding(1) offset(%c0) : memref<?xbf16>{%n}
    %flat = memref.collapse_shape %in [[0, 1]] : memref<?x1xf32> into memref<?xf32>
    %zero = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : bf16
    %none = arith.constant 0.0 : bf16
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                    iterator_types = ["parallel"]}
        ins(%flat : memref<?xf32>) outs(%out : memref<?xbf16>) {
    ^bb0(%x: f32, %y: bf16):
      %positive = arith.cmpf ogt, %x, %zero : f32
      %v = arith.select %positive, %one, %none : bf16
      linalg.yield %v : bf16
    }
    return
  }
}

// -----

// f32 division is refined by one Newton step (Vulkan's OpFDiv may be 2.5
// ulp off): the quotient, its residual by fma, the correction by fma, and
// the plain quotient where the refinement is NaN (a zero divisor).
#layout_div = #hal.pipeline.layout<constants = 0, bindings = [#hal.pipeline.binding<storage_buffer>]>
// CHECK-LABEL: spirv.func @divide()
// CHECK:         %[[Q:.+]] = spirv.FDiv %[[A:.+]], %[[B:.+]] : f32
// CHECK:         %[[NEG:.+]] = spirv.FNegate %[[B]] : f32
// CHECK:         %[[R:.+]] = spirv.GL.Fma %[[NEG]], %[[Q]], %[[A]] : f32
// CHECK:         %[[RCP:.+]] = spirv.FDiv %{{.+}}, %[[B]] : f32
// CHECK:         %[[REFINED:.+]] = spirv.GL.Fma %[[R]], %[[RCP]], %[[Q]] : f32
// CHECK:         %[[QUOTIENT:.+]] = spirv.Select %{{.+}}, %[[Q]], %[[REFINED]] : i1, f32
// Float arithmetic is decorated NoContraction (a driver must not fuse it
// into fmas, which round differently).
// CHECK:         spirv.FMul %[[QUOTIENT]], %[[A]] {no_contraction} : f32
func.func @divide() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %out = hal.interface.binding.subspan layout(#layout_div) binding(0) offset(%c0) : memref<4xf32>
  %a = memref.load %out[%c0] : memref<4xf32>
  %b = memref.load %out[%c1] : memref<4xf32>
  %q = arith.divf %a, %b : f32
  %m = arith.mulf %q, %a : f32
  memref.store %m, %out[%c0] : memref<4xf32>
  return
}

// -----

// exp2 of f32 is computed in the kernel to within about an ulp (the driver's
// Exp2 may be 2 ulp off, lavapipe's is): 2^f for the exact fraction f by a
// polynomial (fmas), scaled by two powers of two built from exponent bits;
// NaN passes through.
#layout = #hal.pipeline.layout<bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>]>
// CHECK-LABEL: spirv.func @exp2
// CHECK-NOT:     spirv.GL.Exp2
// CHECK:         spirv.GL.Floor
// CHECK-COUNT-7: spirv.GL.Fma
// CHECK:         spirv.ShiftLeftLogical
// CHECK:         spirv.Bitcast
// CHECK:         spirv.IsNan
// CHECK-NOT:     spirv.GL.Exp2
func.func @exp2() attributes {kiln.workgroup_size = array<i64: 128, 1, 1>} {
  %c0 = arith.constant 0 : index
  %in = hal.interface.binding.subspan layout(#layout) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : memref<128xf32>
  %out = hal.interface.binding.subspan layout(#layout) binding(1) alignment(64) offset(%c0) : memref<128xf32>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%in : memref<128xf32>) outs(%out : memref<128xf32>) {
  ^bb0(%x: f32, %o: f32):
    %e = math.exp2 %x : f32
    linalg.yield %e : f32
  }
  return
}
