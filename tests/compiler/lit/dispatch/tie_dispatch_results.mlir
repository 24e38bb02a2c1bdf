// RUN: %kiln-opt %s --split-input-file --kiln-form-dispatches=library-calls=true --kiln-select-library-calls --kiln-tie-dispatch-results | FileCheck %s

// An elementwise dispatch whose operand dies there (the matmul's result,
// read by the exp alone) writes its result over it: the flow.dispatch ties
// the result to the operand, the kernel's one binding is read and written
// (no ReadOnly), and the output subspan is the operand's binding. The
// matmul is a library call: its kernel is left as it is.

#id = affine_map<(i, j) -> (i, j)>
// CHECK-LABEL: hal.executable.source private @dies_dispatch_0
// CHECK: hal.executable.export public @dies_dispatch_0 ordinal(0) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>)
// CHECK-SAME: kiln.library_call
// CHECK-LABEL: hal.executable.source private @dies_dispatch_1
// CHECK: hal.executable.export public @dies_dispatch_1 ordinal(0) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>)
// CHECK: func.func @dies_dispatch_1()
// CHECK: %[[IN:.+]] = hal.interface.binding.subspan layout(<bindings = [#hal.pipeline.binding<storage_buffer>]>) binding(0) alignment(64) offset(%{{.+}}) : memref<64x64xf32>
// CHECK: %[[X:.+]] = bufferization.to_tensor %[[IN]] restrict : memref<64x64xf32> to tensor<64x64xf32>
// CHECK: %[[OUT:.+]] = hal.interface.binding.subspan layout(<bindings = [#hal.pipeline.binding<storage_buffer>]>) binding(0) alignment(64) offset(%{{.+}}) : memref<64x64xf32>
// CHECK: %[[INIT:.+]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<64x64xf32> to tensor<64x64xf32>
// CHECK: %[[R:.+]] = linalg.generic {{.*}} ins(%[[X]] : tensor<64x64xf32>) outs(%[[INIT]] : tensor<64x64xf32>)
// CHECK: math.exp
// CHECK: bufferization.materialize_in_destination %[[R]] in restrict writable %[[OUT]]
// CHECK-LABEL: func.func @dies(
// CHECK: %[[MM:.+]] = flow.dispatch @dies_dispatch_0::@dies_dispatch_0{{.*}} -> tensor<64x64xf32>
// CHECK: %[[E:.+]] = flow.dispatch @dies_dispatch_1::@dies_dispatch_1[{{.*}}](%[[MM]]) : (tensor<64x64xf32>) -> %[[MM]]
// CHECK: return %[[E]]
func.func @dies(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e2 = tensor.empty() : tensor<64x64xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<64x64xf32>) outs(%e2 : tensor<64x64xf32>) {
  ^bb0(%v: f32, %unused: f32):
    %r = math.exp %v : f32
    linalg.yield %r : f32
  } -> tensor<64x64xf32>
  return %x : tensor<64x64xf32>
}

// -----

// Of two results, the first is tied to the operand that dies (the second
// operand: the others are function arguments); the second keeps a binding
// of its own, which moves from 4 to 3 as the first result's goes.

#id = affine_map<(i, j) -> (i, j)>
// CHECK-LABEL: hal.executable.source private @renumbered_dispatch_1
// CHECK: hal.executable.export public @renumbered_dispatch_1 ordinal(0) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>)
// CHECK: %[[C:.+]] = hal.interface.binding.subspan {{.*}} binding(0) {{.*}} flags({{ ?}}ReadOnly)
// CHECK: %[[MM:.+]] = hal.interface.binding.subspan {{.*}} binding(1) alignment(64) offset(%{{.+}}) : memref<64x64xf32>
// CHECK: %[[D:.+]] = hal.interface.binding.subspan {{.*}} binding(2) {{.*}} flags({{ ?}}ReadOnly)
// CHECK: %[[OUT0:.+]] = hal.interface.binding.subspan {{.*}} binding(1) alignment(64) offset(%{{.+}}) : memref<64x64xf32>
// CHECK: %[[OUT1:.+]] = hal.interface.binding.subspan {{.*}} binding(3) alignment(64) offset(%{{.+}}) : memref<64x64xf32>
// CHECK: %[[R:.+]]:2 = linalg.generic
// CHECK: bufferization.materialize_in_destination %[[R]]#0 in restrict writable %[[OUT0]]
// CHECK: bufferization.materialize_in_destination %[[R]]#1 in restrict writable %[[OUT1]]
// CHECK-LABEL: func.func @renumbered(
// CHECK-SAME: %[[ARG0:[^:]+]]: tensor<64x64xf32>, %[[ARG1:[^:]+]]: tensor<64x64xf32>, %[[ARG2:[^:]+]]: tensor<64x64xf32>, %[[ARG3:[^:]+]]: tensor<64x64xf32>)
// CHECK: %[[P:.+]] = flow.dispatch @renumbered_dispatch_0::
// CHECK: flow.dispatch @renumbered_dispatch_1::@renumbered_dispatch_1[{{.*}}](%[[ARG2]], %[[P]], %[[ARG3]]) : (tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>) -> (%[[P]], tensor<64x64xf32>)
func.func @renumbered(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>, %d: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e0 = tensor.empty() : tensor<64x64xf32>
  %e1 = tensor.empty() : tensor<64x64xf32>
  %x:2 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %mm, %d : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>) outs(%e0, %e1 : tensor<64x64xf32>, tensor<64x64xf32>) {
  ^bb0(%u: f32, %v: f32, %w: f32, %o0: f32, %o1: f32):
    %s = arith.subf %u, %v : f32
    %t = arith.mulf %w, %w : f32
    linalg.yield %s, %t : f32, f32
  } -> (tensor<64x64xf32>, tensor<64x64xf32>)
  return %x#0, %x#1 : tensor<64x64xf32>, tensor<64x64xf32>
}

// -----

// A matmul kept as a generated kernel (kiln.library = "none") joins its
// epilogue, whose init is the tensor.empty that the matmul's accumulator
// fill starts from too: --kiln-form-dispatches left it (the result is
// materialized from it into its binding). Tied, the init becomes the
// binding's to_tensor, which the operand's binding (2) now is.

#id = affine_map<(i, j) -> (i, j)>
// CHECK-LABEL: hal.executable.source private @shared_empty_dispatch_1
// CHECK: hal.executable.export public @shared_empty_dispatch_1 ordinal(0) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>)
// CHECK: %[[IN:.+]] = hal.interface.binding.subspan {{.*}} binding(2) alignment(64) offset(%{{.+}}) : memref<64x64xf32>
// CHECK: %[[X:.+]] = bufferization.to_tensor %[[IN]] restrict :
// CHECK: %[[OUT:.+]] = hal.interface.binding.subspan {{.*}} binding(2) alignment(64) offset(%{{.+}}) : memref<64x64xf32>
// CHECK: %[[EMPTY:.+]] = tensor.empty() : tensor<64x64xf32>
// CHECK: %[[FILL:.+]] = linalg.fill ins(%{{.+}} : f32) outs(%[[EMPTY]] : tensor<64x64xf32>)
// CHECK: %[[MM:.+]] = linalg.matmul {{.*}}outs(%[[FILL]] : tensor<64x64xf32>)
// CHECK: %[[INIT:.+]] = bufferization.to_tensor %[[OUT]] restrict writable :
// CHECK: %[[R:.+]] = linalg.generic {{.*}}ins(%[[MM]], %[[X]] : tensor<64x64xf32>, tensor<64x64xf32>) outs(%[[INIT]] : tensor<64x64xf32>)
// CHECK: bufferization.materialize_in_destination %[[R]] in restrict writable %[[OUT]]
// CHECK-LABEL: func.func @shared_empty(
// CHECK: %[[P:.+]] = flow.dispatch @shared_empty_dispatch_0::
// CHECK: flow.dispatch @shared_empty_dispatch_1::{{.*}}(%arg1, %arg0, %[[P]]) : (tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>) -> %[[P]]
func.func @shared_empty(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %mm2 = linalg.matmul {kiln.library = "none"} ins(%b, %a : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %x = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm2, %mm : tensor<64x64xf32>, tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%v: f32, %u: f32, %unused: f32):
    %r = arith.subf %v, %u : f32
    linalg.yield %r : f32
  } -> tensor<64x64xf32>
  return %x : tensor<64x64xf32>
}

// -----

// Operands that do not die at the dispatch: one used again later (here
// returned), and a function argument (the caller's buffer).

#id = affine_map<(i, j) -> (i, j)>
// CHECK-LABEL: func.func @used_twice(
// CHECK-NOT: -> %
// CHECK: return
func.func @used_twice(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e2 = tensor.empty() : tensor<64x64xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<64x64xf32>) outs(%e2 : tensor<64x64xf32>) {
  ^bb0(%v: f32, %unused: f32):
    %r = math.exp %v : f32
    linalg.yield %r : f32
  } -> tensor<64x64xf32>
  return %x, %mm : tensor<64x64xf32>, tensor<64x64xf32>
}

// CHECK-LABEL: hal.executable.source private @argument_dispatch_0
// CHECK: layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>)
// CHECK-LABEL: func.func @argument(
// CHECK-NOT: -> %
// CHECK: return
func.func @argument(%a: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %e = tensor.empty() : tensor<64x64xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%v: f32, %unused: f32):
    %r = math.exp %v : f32
    linalg.yield %r : f32
  } -> tensor<64x64xf32>
  return %x : tensor<64x64xf32>
}

// -----

// Operands that die, of the result's type, but read other than element for
// element: broadcast (row 0 for every row) and transposed. Each element of
// the operand would be read after other iterations have written it.

#id = affine_map<(i, j) -> (i, j)>
#row0 = affine_map<(i, j) -> (0, j)>
#transposed = affine_map<(i, j) -> (j, i)>
// CHECK-LABEL: hal.executable.source private @broadcast_dispatch_1
// CHECK: layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>)
// CHECK-LABEL: func.func @broadcast(
// CHECK-NOT: -> %
// CHECK: return
func.func @broadcast(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e2 = tensor.empty() : tensor<64x64xf32>
  %x = linalg.generic {indexing_maps = [#row0, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<64x64xf32>) outs(%e2 : tensor<64x64xf32>) {
  ^bb0(%v: f32, %unused: f32):
    %r = math.exp %v : f32
    linalg.yield %r : f32
  } -> tensor<64x64xf32>
  return %x : tensor<64x64xf32>
}

// CHECK-LABEL: hal.executable.source private @transposed_dispatch_1
// CHECK: layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>)
// CHECK-LABEL: func.func @transposed(
// CHECK-NOT: -> %
// CHECK: return
func.func @transposed(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e2 = tensor.empty() : tensor<64x64xf32>
  %x = linalg.generic {indexing_maps = [#transposed, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<64x64xf32>) outs(%e2 : tensor<64x64xf32>) {
  ^bb0(%v: f32, %unused: f32):
    %r = math.exp %v : f32
    linalg.yield %r : f32
  } -> tensor<64x64xf32>
  return %x : tensor<64x64xf32>
}

// -----

// Roots that are not elementwise over the operand: a reduction (of the
// result's type: out[i, j] = sum over k of mm[i, j] * w[j, k]), a result of
// another element type, a result of another shape (the operand reshaped
// inside the kernel: the reshape reads it, not the root).

#id = affine_map<(i, j) -> (i, j)>
// CHECK-LABEL: func.func @reduction(
// CHECK-NOT: -> %
// CHECK: return
func.func @reduction(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %w: tensor<64x8xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e2 = tensor.empty() : tensor<64x64xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (j, k)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%mm, %w : tensor<64x64xf32>, tensor<64x8xf32>) outs(%f2 : tensor<64x64xf32>) {
  ^bb0(%v: f32, %u: f32, %acc: f32):
    %p = arith.mulf %v, %u : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  return %x : tensor<64x64xf32>
}

// CHECK-LABEL: func.func @element_type(
// CHECK-NOT: -> %
// CHECK: return
func.func @element_type(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e2 = tensor.empty() : tensor<64x64xf16>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<64x64xf32>) outs(%e2 : tensor<64x64xf16>) {
  ^bb0(%v: f32, %unused: f16):
    %r = arith.truncf %v : f32 to f16
    linalg.yield %r : f16
  } -> tensor<64x64xf16>
  return %x : tensor<64x64xf16>
}

// CHECK-LABEL: hal.executable.source private @shape_dispatch_1
// CHECK: tensor.collapse_shape
// CHECK-LABEL: func.func @shape(
// CHECK-NOT: -> %
// CHECK: return
func.func @shape(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<4096xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %flat = tensor.collapse_shape %mm [[0, 1]] : tensor<64x64xf32> into tensor<4096xf32>
  %e2 = tensor.empty() : tensor<4096xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%flat : tensor<4096xf32>) outs(%e2 : tensor<4096xf32>) {
  ^bb0(%v: f32, %unused: f32):
    %r = math.exp %v : f32
    linalg.yield %r : f32
  } -> tensor<4096xf32>
  return %x : tensor<4096xf32>
}

// -----

// A library call: the matmul's epilogue adds the exp, which dies there and
// is read element for element by the elementwise root, but the library
// writes its output on its own terms (the exp is its addend C). Without
// --kiln-select-library-calls the same dispatch would be tied.

#id = affine_map<(i, j) -> (i, j)>
// CHECK-LABEL: hal.executable.source private @library_call_dispatch_1
// CHECK: hal.executable.export public @library_call_dispatch_1 ordinal(0) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>)
// CHECK-SAME: kiln.library_call = {{{.*}}c = 2 : i64
// CHECK-LABEL: func.func @library_call(
// CHECK: %[[EXP:.+]] = flow.dispatch @library_call_dispatch_0::
// CHECK: flow.dispatch @library_call_dispatch_1::{{.*}}(%arg0, %arg1, %[[EXP]]) : (tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
func.func @library_call(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<64x64xf32>
  %ex = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c : tensor<64x64xf32>) outs(%e0 : tensor<64x64xf32>) {
  ^bb0(%v: f32, %unused: f32):
    %r = math.exp %v : f32
    linalg.yield %r : f32
  } -> tensor<64x64xf32>
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e2 = tensor.empty() : tensor<64x64xf32>
  %x = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %ex : tensor<64x64xf32>, tensor<64x64xf32>) outs(%e2 : tensor<64x64xf32>) {
  ^bb0(%v: f32, %u: f32, %unused: f32):
    %r = arith.addf %v, %u : f32
    linalg.yield %r : f32
  } -> tensor<64x64xf32>
  return %x : tensor<64x64xf32>
}

// -----

// Dispatches of kernels as --kiln-form-dispatches makes them, written out,
// with dynamic sizes: tied where the operand and the result have the same
// dims, in the kernel (one constant) and on the host (one value; the
// tensor.dim of the operand reads no data); not where the result's dims are
// another value, nor where the export is dispatched from two places (its
// layout is shared by both).

#produce = #hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer>]>
#one_dim = #hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>
#two_dims = #hal.pipeline.layout<constants = 2, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>
#map = affine_map<(d0) -> (d0)>
hal.executable.source private @produce {
  hal.executable.export public @produce ordinal(0) layout(#produce)
}
// CHECK-LABEL: hal.executable.source private @sqrt
// CHECK: hal.executable.export public @sqrt ordinal(0) layout(#hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer>]>)
// CHECK: %[[N:.+]] = hal.interface.constant.load layout(<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer>]>) ordinal(0) : index
// CHECK: hal.interface.binding.subspan layout(<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer>]>) binding(0) alignment(64) offset(%{{.+}}) : memref<?xf32>{%[[N]]}
// CHECK: hal.interface.binding.subspan layout(<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer>]>) binding(0) alignment(64) offset(%{{.+}}) : memref<?xf32>{%[[N]]}
hal.executable.source private @sqrt {
  hal.executable.export public @sqrt ordinal(0) layout(#one_dim)
  builtin.module {
    func.func @sqrt() attributes {kiln.workgroup_loops = 1 : index} {
      %c0 = arith.constant 0 : index
      %n = hal.interface.constant.load layout(#one_dim) ordinal(0) : index
      %in = hal.interface.binding.subspan layout(#one_dim) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : memref<?xf32>{%n}
      %x = bufferization.to_tensor %in restrict : memref<?xf32> to tensor<?xf32>
      %out = hal.interface.binding.subspan layout(#one_dim) binding(1) alignment(64) offset(%c0) : memref<?xf32>{%n}
      %init = bufferization.to_tensor %out restrict writable : memref<?xf32> to tensor<?xf32>
      %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%x : tensor<?xf32>) outs(%init : tensor<?xf32>) attrs = {kiln.workgroup_tiles = array<i64: 1024>} {
      ^bb0(%a: f32, %unused: f32):
        %s = math.sqrt %a : f32
        linalg.yield %s : f32
      } -> tensor<?xf32>
      bufferization.materialize_in_destination %r in restrict writable %out : (tensor<?xf32>, memref<?xf32>) -> ()
      return
    }
  }
}
// CHECK-LABEL: hal.executable.source private @sqrt_two_dims
// CHECK: layout(#hal.pipeline.layout<constants = 2, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>)
hal.executable.source private @sqrt_two_dims {
  hal.executable.export public @sqrt_two_dims ordinal(0) layout(#two_dims)
  builtin.module {
    func.func @sqrt_two_dims() attributes {kiln.workgroup_loops = 1 : index} {
      %c0 = arith.constant 0 : index
      %n = hal.interface.constant.load layout(#two_dims) ordinal(0) : index
      %m = hal.interface.constant.load layout(#two_dims) ordinal(1) : index
      %in = hal.interface.binding.subspan layout(#two_dims) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : memref<?xf32>{%n}
      %x = bufferization.to_tensor %in restrict : memref<?xf32> to tensor<?xf32>
      %out = hal.interface.binding.subspan layout(#two_dims) binding(1) alignment(64) offset(%c0) : memref<?xf32>{%m}
      %init = bufferization.to_tensor %out restrict writable : memref<?xf32> to tensor<?xf32>
      %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%x : tensor<?xf32>) outs(%init : tensor<?xf32>) attrs = {kiln.workgroup_tiles = array<i64: 1024>} {
      ^bb0(%a: f32, %unused: f32):
        %s = math.sqrt %a : f32
        linalg.yield %s : f32
      } -> tensor<?xf32>
      bufferization.materialize_in_destination %r in restrict writable %out : (tensor<?xf32>, memref<?xf32>) -> ()
      return
    }
  }
}
// CHECK-LABEL: hal.executable.source private @sqrt_twice
// CHECK: layout(#hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>)
hal.executable.source private @sqrt_twice {
  hal.executable.export public @sqrt_twice ordinal(0) layout(#one_dim)
  builtin.module {
    func.func @sqrt_twice() attributes {kiln.workgroup_loops = 1 : index} {
      %c0 = arith.constant 0 : index
      %n = hal.interface.constant.load layout(#one_dim) ordinal(0) : index
      %in = hal.interface.binding.subspan layout(#one_dim) binding(0) alignment(64) offset(%c0) flags(ReadOnly) : memref<?xf32>{%n}
      %x = bufferization.to_tensor %in restrict : memref<?xf32> to tensor<?xf32>
      %out = hal.interface.binding.subspan layout(#one_dim) binding(1) alignment(64) offset(%c0) : memref<?xf32>{%n}
      %init = bufferization.to_tensor %out restrict writable : memref<?xf32> to tensor<?xf32>
      %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%x : tensor<?xf32>) outs(%init : tensor<?xf32>) attrs = {kiln.workgroup_tiles = array<i64: 1024>} {
      ^bb0(%a: f32, %unused: f32):
        %s = math.sqrt %a : f32
        linalg.yield %s : f32
      } -> tensor<?xf32>
      bufferization.materialize_in_destination %r in restrict writable %out : (tensor<?xf32>, memref<?xf32>) -> ()
      return
    }
  }
}

// CHECK-LABEL: func.func @same_dims(
// CHECK: %[[P:.+]] = flow.dispatch @produce::@produce
// CHECK: %[[D:.+]] = tensor.dim %[[P]]
// CHECK: flow.dispatch @sqrt::@sqrt[%[[D]]](%[[D]], %[[P]]) : (index, tensor<?xf32>{%[[D]]}) -> %[[P]]{%[[D]]}
func.func @same_dims(%n: index) -> (tensor<?xf32>, index) {
  %c0 = arith.constant 0 : index
  %p = flow.dispatch @produce::@produce[%n](%n) : (index) -> tensor<?xf32>{%n}
  %d = tensor.dim %p, %c0 : tensor<?xf32>
  %r = flow.dispatch @sqrt::@sqrt[%d](%d, %p) : (index, tensor<?xf32>{%d}) -> tensor<?xf32>{%d}
  return %r, %d : tensor<?xf32>, index
}

// CHECK-LABEL: func.func @other_dims(
// CHECK-NOT: -> %
// CHECK: return
func.func @other_dims(%n: index, %m: index) -> tensor<?xf32> {
  %p = flow.dispatch @produce::@produce[%n](%n) : (index) -> tensor<?xf32>{%n}
  %r = flow.dispatch @sqrt_two_dims::@sqrt_two_dims[%n](%n, %m, %p) : (index, index, tensor<?xf32>{%n}) -> tensor<?xf32>{%m}
  return %r : tensor<?xf32>
}

// CHECK-LABEL: func.func @one_export_twice(
// CHECK-NOT: -> %
// CHECK: return
func.func @one_export_twice(%n: index) -> (tensor<?xf32>, tensor<?xf32>) {
  %p = flow.dispatch @produce::@produce[%n](%n) : (index) -> tensor<?xf32>{%n}
  %q = flow.dispatch @produce::@produce[%n](%n) : (index) -> tensor<?xf32>{%n}
  %r = flow.dispatch @sqrt_twice::@sqrt_twice[%n](%n, %p) : (index, tensor<?xf32>{%n}) -> tensor<?xf32>{%n}
  %s = flow.dispatch @sqrt_twice::@sqrt_twice[%n](%n, %q) : (index, tensor<?xf32>{%n}) -> tensor<?xf32>{%n}
  return %r, %s : tensor<?xf32>, tensor<?xf32>
}

// -----

// An operand that an earlier dispatch reads too (through a ReadOnly
// binding) still dies at the elementwise dispatch: the scheduler orders
// that read before the write over it. Read by a later dispatch instead,
// it does not die there.

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
// CHECK-LABEL: func.func @read_before(
// CHECK: %[[MM:.+]] = flow.dispatch @read_before_dispatch_0::
// CHECK: flow.dispatch @read_before_dispatch_1::{{.*}}(%[[MM]]) : (tensor<64x64xf32>) -> tensor<64xf32>
// CHECK: flow.dispatch @read_before_dispatch_2::{{.*}}(%[[MM]]) : (tensor<64x64xf32>) -> %[[MM]]
func.func @read_before(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> (tensor<64xf32>, tensor<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %er = tensor.empty() : tensor<64xf32>
  %fr = linalg.fill ins(%zero : f32) outs(%er : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%mm : tensor<64x64xf32>) outs(%fr : tensor<64xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %e2 = tensor.empty() : tensor<64x64xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<64x64xf32>) outs(%e2 : tensor<64x64xf32>) {
  ^bb0(%v: f32, %unused: f32):
    %r = math.exp %v : f32
    linalg.yield %r : f32
  } -> tensor<64x64xf32>
  return %sum, %x : tensor<64xf32>, tensor<64x64xf32>
}

// CHECK-LABEL: func.func @read_after(
// CHECK: %[[MM:.+]] = flow.dispatch @read_after_dispatch_0::
// CHECK: flow.dispatch @read_after_dispatch_1::{{.*}}(%[[MM]]) : (tensor<64x64xf32>) -> tensor<64x64xf32>
// CHECK: flow.dispatch @read_after_dispatch_2::{{.*}}(%[[MM]]) : (tensor<64x64xf32>) -> tensor<64xf32>
func.func @read_after(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> (tensor<64xf32>, tensor<64x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %e2 = tensor.empty() : tensor<64x64xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<64x64xf32>) outs(%e2 : tensor<64x64xf32>) {
  ^bb0(%v: f32, %unused: f32):
    %r = math.exp %v : f32
    linalg.yield %r : f32
  } -> tensor<64x64xf32>
  %er = tensor.empty() : tensor<64xf32>
  %fr = linalg.fill ins(%zero : f32) outs(%er : tensor<64xf32>) -> tensor<64xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%mm : tensor<64x64xf32>) outs(%fr : tensor<64xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %sum, %x : tensor<64xf32>, tensor<64x64xf32>
}
