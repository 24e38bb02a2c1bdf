// Elementwise dispatches written in place (--kiln-tie-dispatch-results): a
// dispatch whose operand dies there writes its result over that operand's
// buffer. @chain is a chain of elementwise dispatches kept apart by
// reductions of two results (max and argmax, which join no other dispatch):
//
//   (m, a) = max/argmax over j of y(x)    4x8x32 -> 4x32 (f32, i32)
//   e1 = m / 2 + a                        written over m
//   (m2, a2) = max/argmax over i of e1    4x32 -> 32
//   e2 = m2 - a2                          written over m2 (and returned)
//   e3 = e1 - e2 (broadcast along i)      written over e1 (returned): its other
//                                         reader, the second reduction, runs before
//
// m, a and e1 take 512 bytes each, m2 and a2 256. Without ties the arena
// holds m, a and e1 at once: 1536 bytes. With them, e1 and e3 are written
// over m, whose buffer, returned as e3, leaves the arena for one of its
// own: the arena holds a, then m2 and a2, 512 bytes. @renumbered ties the first of two results,
// so the second's binding moves down by one. @shared_init ties the
// epilogue of a generated matmul, whose init the matmul's accumulator
// shared (one tensor.empty): the init becomes the binding. @wide runs the same chain on 8x16x4096
// (32 workgroups per elementwise dispatch) beside a copy of it that nothing
// is tied in (m and m2 read once more, by 0 * m), and returns the
// differences of their results: zeros.
// RUN: %kiln-compile %s --iree-hal-target-backends=%target_backend -o %t.kmod
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=chain --input=4x8x32xf32=1 | FileCheck %s --check-prefix=CHAIN
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=renumbered --input=2x8x16xf32=1 --input=2x16xf32=12.5 | FileCheck %s --check-prefix=RENUMBERED
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=shared_init --input=2x8x16xf32=1 --input=2x16xf32=1 --input=16x16xf32=0.75 | FileCheck %s --check-prefix=SHARED
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=wide --expected_output=4096xf32=0 --expected_output=8x4096xf32=0 | FileCheck %s --check-prefix=WIDE
// RUN: %kiln-dump-module %t.kmod | FileCheck %s --check-prefix=ARENA
// RUN: %kiln-compile %s --iree-hal-target-backends=%target_backend --in-place=false -o %t.apart.kmod
// RUN: %kiln-dump-module %t.apart.kmod | FileCheck %s --check-prefix=APART
// RUN: %kiln-run-module --device=%device --module=%t.apart.kmod --function=chain --input=4x8x32xf32=1 | FileCheck %s --check-prefix=CHAIN
// RUN: %kiln-compile %s --iree-hal-target-backends=%target_backend --mlir-print-ir-after=kiln-tie-dispatch-results -o %t.unused.kmod 2>&1 | FileCheck %s --check-prefix=TIED

// y = (5i + 3j + 7k) mod 11 for x = 1; the values below are numpy's.
// CHAIN: EXEC @chain
// CHAIN-NEXT: result[0]: hal.buffer_view
// CHAIN-NEXT: 32xf32=12 9 11 8 11 10.5 10 9.5 10 9.5 9 12 9 11 8 11 10.5 10 9.5 10 9.5 9 12 9 11 8 11 10.5 10 9.5 10 9.5
// CHAIN-NEXT: result[1]: hal.buffer_view
// CHAIN-NEXT: 4x32xf32=[0 -3 0 -3 -1 0 -1 0 -2 -1 -2 0 -3 0 -3 -1 0 -1 0 -2 -1 -2 0 -3 0 -3 -1 0 -1 0 -2 -1][-2.5 -1 -2.5 -1 1 -4.5 1 -4.5 0 1 0 -2.5 -1 -2.5 -1 1 -4.5 1 -4.5 0 1 0 -2.5 -1 -2.5 -1 1 -4.5 1 -4.5 0 1][-7 1 -0.5 1 -1.5 -2.5 -1.5 -2.5 2 -3.5 2 -7 1 -0.5 1 -1.5 -2.5 -1.5 -2.5 2 -3.5 2 -7 1 -0.5 1 -1.5 -2.5 -1.5 -2.5 2 -3.5][-5 3 -5 3 -6 -0.5 0.5 -0.5 -0.5 -1.5 -0.5 -5 3 -5 3 -6 -0.5 0.5 -0.5 -0.5 -1.5 -0.5 -5 3 -5 3 -6 -0.5 0.5 -0.5 -0.5 -1.5]

// s = c - m, t = 3a + 1, a.
// RENUMBERED: EXEC @renumbered
// RENUMBERED-NEXT: result[0]: hal.buffer_view
// RENUMBERED-NEXT: 2x16xf32=[2.5 2.5 2.5 2.5 2.5 3.5 2.5 3.5 2.5 3.5 2.5 2.5 2.5 2.5 2.5 2.5][3.5 2.5 3.5 2.5 2.5 2.5 2.5 2.5 2.5 3.5 2.5 3.5 2.5 3.5 2.5 2.5]
// RENUMBERED-NEXT: result[1]: hal.buffer_view
// RENUMBERED-NEXT: 2x16xi32=[22 4 19 1 16 19 13 16 10 13 7 22 4 19 1 16][16 10 13 7 22 4 19 1 16 19 13 16 10 13 7 22]
// RENUMBERED-NEXT: result[2]: hal.buffer_view
// RENUMBERED-NEXT: 2x16xi32=[7 1 6 0 5 6 4 5 3 4 2 7 1 6 0 5][5 3 4 2 7 1 6 0 5 6 4 5 3 4 2 7]

// o = 12 - m, a.
// SHARED: EXEC @shared_init
// SHARED-NEXT: result[0]: hal.buffer_view
// SHARED-NEXT: 2x16xf32=[2 1.75 1.5 1.25 1 1.75 0.5 1.25 0 0.75 -0.5 -0.75 -1 -1.25 -1.5 -1.75][3 1.75 2.5 1.25 1 0.75 0.5 0.25 0 0.75 -0.5 0.25 -1 -0.25 -1.5 -1.75]
// SHARED-NEXT: result[1]: hal.buffer_view
// SHARED-NEXT: 2x16xi32=[7 1 6 0 5 6 4 5 3 4 2 7 1 6 0 5][5 3 4 2 7 1 6 0 5 6 4 5 3 4 2 7]

// WIDE: [SUCCESS]

// ARENA-LABEL: @chain -> function
// ARENA-NEXT: arena: 512 bytes

// kiln-compile --in-place=false: the same results, each in a buffer of its
// own.
// APART-LABEL: @chain -> function
// APART-NEXT: arena: 1536 bytes

// The three elementwise dispatches of @chain are tied: e3 to e1, which only
// the second reduction read, before it. In @wide the tied copy has the same
// three ties and the other copy none (m and m2 are read again after).
// TIED-LABEL: func.func @chain(
// TIED: %[[R1:.+]]:2 = flow.dispatch @chain_dispatch_0::
// TIED-NEXT: %[[E1:.+]] = flow.dispatch @chain_dispatch_1::{{.*}}(%[[R1]]#0, %[[R1]]#1) : (tensor<4x32xf32>, tensor<4x32xi32>) -> %[[R1]]#0
// TIED-NEXT: %[[R2:.+]]:2 = flow.dispatch @chain_dispatch_2::{{.*}}(%[[E1]])
// TIED-NEXT: %[[E2:.+]] = flow.dispatch @chain_dispatch_3::{{.*}}(%[[R2]]#0, %[[R2]]#1) : (tensor<32xf32>, tensor<32xi32>) -> %[[R2]]#0
// TIED-NEXT: flow.dispatch @chain_dispatch_4::{{.*}}(%[[E1]], %[[E2]]) : (tensor<4x32xf32>, tensor<32xf32>) -> %[[E1]]
// TIED-LABEL: hal.executable.source private @renumbered_dispatch_1
// TIED: layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>)
// TIED-LABEL: func.func @renumbered(
// TIED: %[[R:.+]]:2 = flow.dispatch @renumbered_dispatch_0::
// TIED-NEXT: flow.dispatch @renumbered_dispatch_1::{{.*}}(%arg1, %[[R]]#0, %[[R]]#1) : (tensor<2x16xf32>, tensor<2x16xf32>, tensor<2x16xi32>) -> (%[[R]]#0, tensor<2x16xi32>)
// TIED-LABEL: hal.executable.source private @shared_init_dispatch_1
// TIED: %[[FILL:.+]] = linalg.fill
// TIED: %[[MM:.+]] = linalg.matmul {{.*}}outs(%[[FILL]] :
// TIED: %[[INIT:.+]] = bufferization.to_tensor %{{.+}} restrict writable
// TIED: linalg.generic {{.*}}ins(%[[MM]], %{{.+}} : tensor<2x16xf32>, tensor<2x16xf32>) outs(%[[INIT]] : tensor<2x16xf32>)
// TIED-LABEL: func.func @shared_init(
// TIED: %[[R:.+]]:2 = flow.dispatch @shared_init_dispatch_0::
// TIED-NEXT: flow.dispatch @shared_init_dispatch_1::{{.*}}(%arg1, %arg2, %[[R]]#0) : (tensor<2x16xf32>, tensor<16x16xf32>, tensor<2x16xf32>) -> %[[R]]#0
// TIED-LABEL: func.func @wide(
// TIED-COUNT-3: -> %
// TIED-NOT: -> %
// TIED: return

#x3 = affine_map<(i, j, k) -> (i, j, k)>
#r3 = affine_map<(i, j, k) -> (i, k)>
#id2 = affine_map<(i, k) -> (i, k)>
#col = affine_map<(i, k) -> (k)>
#id1 = affine_map<(k) -> (k)>

func.func @chain(%x: tensor<4x8x32xf32>) -> (tensor<32xf32>, tensor<4x32xf32>) {
  %lowest = arith.constant 0xFF800000 : f32
  %c0_i32 = arith.constant 0 : i32
  %half = arith.constant 0.5 : f32
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c11 = arith.constant 11 : index
  // y = x * ((5i + 3j + 7k) mod 11), computed in the first reduction's dispatch.
  %ey = tensor.empty() : tensor<4x8x32xf32>
  %y = linalg.generic {indexing_maps = [#x3, #x3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<4x8x32xf32>) outs(%ey : tensor<4x8x32xf32>) {
  ^bb0(%in: f32, %unused: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k = linalg.index 2 : index
    %i5 = arith.muli %i, %c5 : index
    %j3 = arith.muli %j, %c3 : index
    %k7 = arith.muli %k, %c7 : index
    %ij = arith.addi %i5, %j3 : index
    %ijk = arith.addi %ij, %k7 : index
    %mod = arith.remui %ijk, %c11 : index
    %mod_i32 = arith.index_cast %mod : index to i32
    %f = arith.sitofp %mod_i32 : i32 to f32
    %v = arith.mulf %in, %f : f32
    linalg.yield %v : f32
  } -> tensor<4x8x32xf32>
  %em = tensor.empty() : tensor<4x32xf32>
  %fm = linalg.fill ins(%lowest : f32) outs(%em : tensor<4x32xf32>) -> tensor<4x32xf32>
  %ea = tensor.empty() : tensor<4x32xi32>
  %fa = linalg.fill ins(%c0_i32 : i32) outs(%ea : tensor<4x32xi32>) -> tensor<4x32xi32>
  %r1:2 = linalg.generic {indexing_maps = [#x3, #r3, #r3], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%y : tensor<4x8x32xf32>) outs(%fm, %fa : tensor<4x32xf32>, tensor<4x32xi32>) {
  ^bb0(%in: f32, %best: f32, %best_index: i32):
    %j = linalg.index 1 : index
    %j32 = arith.index_cast %j : index to i32
    %greater = arith.cmpf ogt, %in, %best : f32
    %v = arith.select %greater, %in, %best : f32
    %n = arith.select %greater, %j32, %best_index : i32
    linalg.yield %v, %n : f32, i32
  } -> (tensor<4x32xf32>, tensor<4x32xi32>)
  %e1e = tensor.empty() : tensor<4x32xf32>
  %e1 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%r1#0, %r1#1 : tensor<4x32xf32>, tensor<4x32xi32>) outs(%e1e : tensor<4x32xf32>) {
  ^bb0(%m: f32, %a: i32, %unused: f32):
    %af = arith.sitofp %a : i32 to f32
    %mh = arith.mulf %m, %half : f32
    %s = arith.addf %mh, %af : f32
    linalg.yield %s : f32
  } -> tensor<4x32xf32>
  %em2 = tensor.empty() : tensor<32xf32>
  %fm2 = linalg.fill ins(%lowest : f32) outs(%em2 : tensor<32xf32>) -> tensor<32xf32>
  %ea2 = tensor.empty() : tensor<32xi32>
  %fa2 = linalg.fill ins(%c0_i32 : i32) outs(%ea2 : tensor<32xi32>) -> tensor<32xi32>
  %r2:2 = linalg.generic {indexing_maps = [#id2, #col, #col], iterator_types = ["reduction", "parallel"]}
      ins(%e1 : tensor<4x32xf32>) outs(%fm2, %fa2 : tensor<32xf32>, tensor<32xi32>) {
  ^bb0(%in: f32, %best: f32, %best_index: i32):
    %i = linalg.index 0 : index
    %i32 = arith.index_cast %i : index to i32
    %greater = arith.cmpf ogt, %in, %best : f32
    %v = arith.select %greater, %in, %best : f32
    %n = arith.select %greater, %i32, %best_index : i32
    linalg.yield %v, %n : f32, i32
  } -> (tensor<32xf32>, tensor<32xi32>)
  %e2e = tensor.empty() : tensor<32xf32>
  %e2 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%r2#0, %r2#1 : tensor<32xf32>, tensor<32xi32>) outs(%e2e : tensor<32xf32>) {
  ^bb0(%m: f32, %a: i32, %unused: f32):
    %af = arith.sitofp %a : i32 to f32
    %s = arith.subf %m, %af : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %e3e = tensor.empty() : tensor<4x32xf32>
  %e3 = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%e1, %e2 : tensor<4x32xf32>, tensor<32xf32>) outs(%e3e : tensor<4x32xf32>) {
  ^bb0(%p: f32, %q: f32, %unused: f32):
    %s = arith.subf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<4x32xf32>
  return %e2, %e3 : tensor<32xf32>, tensor<4x32xf32>
}

// (m, a) as in @chain; s = c - m over m, t = 3a + 1 in a buffer of its own
// (a is returned too).
func.func @renumbered(%x: tensor<2x8x16xf32>, %c: tensor<2x16xf32>) -> (tensor<2x16xf32>, tensor<2x16xi32>, tensor<2x16xi32>) {
  %lowest = arith.constant 0xFF800000 : f32
  %c0_i32 = arith.constant 0 : i32
  %c1_i32 = arith.constant 1 : i32
  %c3_i32 = arith.constant 3 : i32
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c11 = arith.constant 11 : index
  %ey = tensor.empty() : tensor<2x8x16xf32>
  %y = linalg.generic {indexing_maps = [#x3, #x3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<2x8x16xf32>) outs(%ey : tensor<2x8x16xf32>) {
  ^bb0(%in: f32, %unused: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k = linalg.index 2 : index
    %i5 = arith.muli %i, %c5 : index
    %j3 = arith.muli %j, %c3 : index
    %k7 = arith.muli %k, %c7 : index
    %ij = arith.addi %i5, %j3 : index
    %ijk = arith.addi %ij, %k7 : index
    %mod = arith.remui %ijk, %c11 : index
    %mod_i32 = arith.index_cast %mod : index to i32
    %f = arith.sitofp %mod_i32 : i32 to f32
    %v = arith.mulf %in, %f : f32
    linalg.yield %v : f32
  } -> tensor<2x8x16xf32>
  %em = tensor.empty() : tensor<2x16xf32>
  %fm = linalg.fill ins(%lowest : f32) outs(%em : tensor<2x16xf32>) -> tensor<2x16xf32>
  %ea = tensor.empty() : tensor<2x16xi32>
  %fa = linalg.fill ins(%c0_i32 : i32) outs(%ea : tensor<2x16xi32>) -> tensor<2x16xi32>
  %r1:2 = linalg.generic {indexing_maps = [#x3, #r3, #r3], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%y : tensor<2x8x16xf32>) outs(%fm, %fa : tensor<2x16xf32>, tensor<2x16xi32>) {
  ^bb0(%in: f32, %best: f32, %best_index: i32):
    %j = linalg.index 1 : index
    %j32 = arith.index_cast %j : index to i32
    %greater = arith.cmpf ogt, %in, %best : f32
    %v = arith.select %greater, %in, %best : f32
    %n = arith.select %greater, %j32, %best_index : i32
    linalg.yield %v, %n : f32, i32
  } -> (tensor<2x16xf32>, tensor<2x16xi32>)
  %es = tensor.empty() : tensor<2x16xf32>
  %et = tensor.empty() : tensor<2x16xi32>
  %st:2 = linalg.generic {indexing_maps = [#id2, #id2, #id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%c, %r1#0, %r1#1 : tensor<2x16xf32>, tensor<2x16xf32>, tensor<2x16xi32>) outs(%es, %et : tensor<2x16xf32>, tensor<2x16xi32>) {
  ^bb0(%cv: f32, %m: f32, %a: i32, %unused: f32, %unused_i32: i32):
    %s = arith.subf %cv, %m : f32
    %a3 = arith.muli %a, %c3_i32 : i32
    %t = arith.addi %a3, %c1_i32 : i32
    linalg.yield %s, %t : f32, i32
  } -> (tensor<2x16xf32>, tensor<2x16xi32>)
  return %st#0, %st#1, %r1#1 : tensor<2x16xf32>, tensor<2x16xi32>, tensor<2x16xi32>
}

// (m, a) of y = x * ((5i + 3j + 7k) mod 11) + k / 4; o = c w - m, the
// matmul computed by its generated kernel inside o's dispatch.
func.func @shared_init(%x: tensor<2x8x16xf32>, %c: tensor<2x16xf32>, %w: tensor<16x16xf32>) -> (tensor<2x16xf32>, tensor<2x16xi32>) {
  %lowest = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %quarter = arith.constant 0.25 : f32
  %c0_i32 = arith.constant 0 : i32
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c11 = arith.constant 11 : index
  %ey = tensor.empty() : tensor<2x8x16xf32>
  %y = linalg.generic {indexing_maps = [#x3, #x3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<2x8x16xf32>) outs(%ey : tensor<2x8x16xf32>) {
  ^bb0(%in: f32, %unused: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k = linalg.index 2 : index
    %i5 = arith.muli %i, %c5 : index
    %j3 = arith.muli %j, %c3 : index
    %k7 = arith.muli %k, %c7 : index
    %ij = arith.addi %i5, %j3 : index
    %ijk = arith.addi %ij, %k7 : index
    %mod = arith.remui %ijk, %c11 : index
    %mod_i32 = arith.index_cast %mod : index to i32
    %f = arith.sitofp %mod_i32 : i32 to f32
    %k_i32 = arith.index_cast %k : index to i32
    %kf = arith.sitofp %k_i32 : i32 to f32
    %kq = arith.mulf %kf, %quarter : f32
    %v = arith.mulf %in, %f : f32
    %vk = arith.addf %v, %kq : f32
    linalg.yield %vk : f32
  } -> tensor<2x8x16xf32>
  %em = tensor.empty() : tensor<2x16xf32>
  %fm = linalg.fill ins(%lowest : f32) outs(%em : tensor<2x16xf32>) -> tensor<2x16xf32>
  %ea = tensor.empty() : tensor<2x16xi32>
  %fa = linalg.fill ins(%c0_i32 : i32) outs(%ea : tensor<2x16xi32>) -> tensor<2x16xi32>
  %r1:2 = linalg.generic {indexing_maps = [#x3, #r3, #r3], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%y : tensor<2x8x16xf32>) outs(%fm, %fa : tensor<2x16xf32>, tensor<2x16xi32>) {
  ^bb0(%in: f32, %best: f32, %best_index: i32):
    %j = linalg.index 1 : index
    %j32 = arith.index_cast %j : index to i32
    %greater = arith.cmpf ogt, %in, %best : f32
    %v = arith.select %greater, %in, %best : f32
    %n = arith.select %greater, %j32, %best_index : i32
    linalg.yield %v, %n : f32, i32
  } -> (tensor<2x16xf32>, tensor<2x16xi32>)
  %ep = tensor.empty() : tensor<2x16xf32>
  %fp = linalg.fill ins(%zero : f32) outs(%ep : tensor<2x16xf32>) -> tensor<2x16xf32>
  %p = linalg.matmul {kiln.library = "none"} ins(%c, %w : tensor<2x16xf32>, tensor<16x16xf32>) outs(%fp : tensor<2x16xf32>) -> tensor<2x16xf32>
  %eo = tensor.empty() : tensor<2x16xf32>
  %o = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%p, %r1#0 : tensor<2x16xf32>, tensor<2x16xf32>) outs(%eo : tensor<2x16xf32>) {
  ^bb0(%u: f32, %m: f32, %unused: f32):
    %s = arith.subf %u, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x16xf32>
  return %o, %r1#1 : tensor<2x16xf32>, tensor<2x16xi32>
}

// The chain on y = (5i + 3j + 7k) mod 11 + (k mod 97) / 4, of 8x16x4096,
// twice: as @chain is (`tied`), and with the operands kept alive to the end
// (`kept`: e3 also adds 0 * m and 0 * m2); e2 and e3 of one minus the
// other's.
func.func @wide() -> (tensor<4096xf32>, tensor<8x4096xf32>) {
  %lowest = arith.constant 0xFF800000 : f32
  %c0_i32 = arith.constant 0 : i32
  %half = arith.constant 0.5 : f32
  %quarter = arith.constant 0.25 : f32
  %zero = arith.constant 0.0 : f32
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c11 = arith.constant 11 : index
  %c97 = arith.constant 97 : index
  %ey = tensor.empty() : tensor<8x16x4096xf32>
  %y = linalg.generic {indexing_maps = [#x3], iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%ey : tensor<8x16x4096xf32>) {
  ^bb0(%unused: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k = linalg.index 2 : index
    %i5 = arith.muli %i, %c5 : index
    %j3 = arith.muli %j, %c3 : index
    %k7 = arith.muli %k, %c7 : index
    %ij = arith.addi %i5, %j3 : index
    %ijk = arith.addi %ij, %k7 : index
    %mod = arith.remui %ijk, %c11 : index
    %mod_i32 = arith.index_cast %mod : index to i32
    %f = arith.sitofp %mod_i32 : i32 to f32
    %kmod = arith.remui %k, %c97 : index
    %kmod_i32 = arith.index_cast %kmod : index to i32
    %kf = arith.sitofp %kmod_i32 : i32 to f32
    %kq = arith.mulf %kf, %quarter : f32
    %v = arith.addf %f, %kq : f32
    linalg.yield %v : f32
  } -> tensor<8x16x4096xf32>
  // A copy the compiler cannot see through: the two chains share nothing.
  %y_kept = util.optimization_barrier %y : tensor<8x16x4096xf32>

  // tied
  %em = tensor.empty() : tensor<8x4096xf32>
  %fm = linalg.fill ins(%lowest : f32) outs(%em : tensor<8x4096xf32>) -> tensor<8x4096xf32>
  %ea = tensor.empty() : tensor<8x4096xi32>
  %fa = linalg.fill ins(%c0_i32 : i32) outs(%ea : tensor<8x4096xi32>) -> tensor<8x4096xi32>
  %r1:2 = linalg.generic {indexing_maps = [#x3, #r3, #r3], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%y : tensor<8x16x4096xf32>) outs(%fm, %fa : tensor<8x4096xf32>, tensor<8x4096xi32>) {
  ^bb0(%in: f32, %best: f32, %best_index: i32):
    %j = linalg.index 1 : index
    %j32 = arith.index_cast %j : index to i32
    %greater = arith.cmpf ogt, %in, %best : f32
    %v = arith.select %greater, %in, %best : f32
    %n = arith.select %greater, %j32, %best_index : i32
    linalg.yield %v, %n : f32, i32
  } -> (tensor<8x4096xf32>, tensor<8x4096xi32>)
  %e1e = tensor.empty() : tensor<8x4096xf32>
  %e1 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%r1#0, %r1#1 : tensor<8x4096xf32>, tensor<8x4096xi32>) outs(%e1e : tensor<8x4096xf32>) {
  ^bb0(%m: f32, %a: i32, %unused: f32):
    %af = arith.sitofp %a : i32 to f32
    %mh = arith.mulf %m, %half : f32
    %s = arith.addf %mh, %af : f32
    linalg.yield %s : f32
  } -> tensor<8x4096xf32>
  %em2 = tensor.empty() : tensor<4096xf32>
  %fm2 = linalg.fill ins(%lowest : f32) outs(%em2 : tensor<4096xf32>) -> tensor<4096xf32>
  %ea2 = tensor.empty() : tensor<4096xi32>
  %fa2 = linalg.fill ins(%c0_i32 : i32) outs(%ea2 : tensor<4096xi32>) -> tensor<4096xi32>
  %r2:2 = linalg.generic {indexing_maps = [#id2, #col, #col], iterator_types = ["reduction", "parallel"]}
      ins(%e1 : tensor<8x4096xf32>) outs(%fm2, %fa2 : tensor<4096xf32>, tensor<4096xi32>) {
  ^bb0(%in: f32, %best: f32, %best_index: i32):
    %i = linalg.index 0 : index
    %i32 = arith.index_cast %i : index to i32
    %greater = arith.cmpf ogt, %in, %best : f32
    %v = arith.select %greater, %in, %best : f32
    %n = arith.select %greater, %i32, %best_index : i32
    linalg.yield %v, %n : f32, i32
  } -> (tensor<4096xf32>, tensor<4096xi32>)
  %e2e = tensor.empty() : tensor<4096xf32>
  %e2 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%r2#0, %r2#1 : tensor<4096xf32>, tensor<4096xi32>) outs(%e2e : tensor<4096xf32>) {
  ^bb0(%m: f32, %a: i32, %unused: f32):
    %af = arith.sitofp %a : i32 to f32
    %s = arith.subf %m, %af : f32
    linalg.yield %s : f32
  } -> tensor<4096xf32>
  %e3e = tensor.empty() : tensor<8x4096xf32>
  %e3 = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%e1, %e2 : tensor<8x4096xf32>, tensor<4096xf32>) outs(%e3e : tensor<8x4096xf32>) {
  ^bb0(%p: f32, %q: f32, %unused: f32):
    %s = arith.subf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<8x4096xf32>

  // kept
  %km = tensor.empty() : tensor<8x4096xf32>
  %kfm = linalg.fill ins(%lowest : f32) outs(%km : tensor<8x4096xf32>) -> tensor<8x4096xf32>
  %ka = tensor.empty() : tensor<8x4096xi32>
  %kfa = linalg.fill ins(%c0_i32 : i32) outs(%ka : tensor<8x4096xi32>) -> tensor<8x4096xi32>
  %k1:2 = linalg.generic {indexing_maps = [#x3, #r3, #r3], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%y_kept : tensor<8x16x4096xf32>) outs(%kfm, %kfa : tensor<8x4096xf32>, tensor<8x4096xi32>) {
  ^bb0(%in: f32, %best: f32, %best_index: i32):
    %j = linalg.index 1 : index
    %j32 = arith.index_cast %j : index to i32
    %greater = arith.cmpf ogt, %in, %best : f32
    %v = arith.select %greater, %in, %best : f32
    %n = arith.select %greater, %j32, %best_index : i32
    linalg.yield %v, %n : f32, i32
  } -> (tensor<8x4096xf32>, tensor<8x4096xi32>)
  %ke1e = tensor.empty() : tensor<8x4096xf32>
  %ke1 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%k1#0, %k1#1 : tensor<8x4096xf32>, tensor<8x4096xi32>) outs(%ke1e : tensor<8x4096xf32>) {
  ^bb0(%m: f32, %a: i32, %unused: f32):
    %af = arith.sitofp %a : i32 to f32
    %mh = arith.mulf %m, %half : f32
    %s = arith.addf %mh, %af : f32
    linalg.yield %s : f32
  } -> tensor<8x4096xf32>
  %km2 = tensor.empty() : tensor<4096xf32>
  %kfm2 = linalg.fill ins(%lowest : f32) outs(%km2 : tensor<4096xf32>) -> tensor<4096xf32>
  %ka2 = tensor.empty() : tensor<4096xi32>
  %kfa2 = linalg.fill ins(%c0_i32 : i32) outs(%ka2 : tensor<4096xi32>) -> tensor<4096xi32>
  %k2:2 = linalg.generic {indexing_maps = [#id2, #col, #col], iterator_types = ["reduction", "parallel"]}
      ins(%ke1 : tensor<8x4096xf32>) outs(%kfm2, %kfa2 : tensor<4096xf32>, tensor<4096xi32>) {
  ^bb0(%in: f32, %best: f32, %best_index: i32):
    %i = linalg.index 0 : index
    %i32 = arith.index_cast %i : index to i32
    %greater = arith.cmpf ogt, %in, %best : f32
    %v = arith.select %greater, %in, %best : f32
    %n = arith.select %greater, %i32, %best_index : i32
    linalg.yield %v, %n : f32, i32
  } -> (tensor<4096xf32>, tensor<4096xi32>)
  %ke2e = tensor.empty() : tensor<4096xf32>
  %ke2 = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%k2#0, %k2#1 : tensor<4096xf32>, tensor<4096xi32>) outs(%ke2e : tensor<4096xf32>) {
  ^bb0(%m: f32, %a: i32, %unused: f32):
    %af = arith.sitofp %a : i32 to f32
    %s = arith.subf %m, %af : f32
    linalg.yield %s : f32
  } -> tensor<4096xf32>
  %ke3e = tensor.empty() : tensor<8x4096xf32>
  %ke3 = linalg.generic {indexing_maps = [#id2, #col, #id2, #col, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%ke1, %ke2, %k1#0, %k2#0 : tensor<8x4096xf32>, tensor<4096xf32>, tensor<8x4096xf32>, tensor<4096xf32>) outs(%ke3e : tensor<8x4096xf32>) {
  ^bb0(%p: f32, %q: f32, %m: f32, %m2: f32, %unused: f32):
    %s = arith.subf %p, %q : f32
    %m0 = arith.mulf %m, %zero : f32
    %m20 = arith.mulf %m2, %zero : f32
    %t = arith.addf %s, %m0 : f32
    %u = arith.addf %t, %m20 : f32
    linalg.yield %u : f32
  } -> tensor<8x4096xf32>

  %d2 = arith.subf %e2, %ke2 : tensor<4096xf32>
  %d3 = arith.subf %e3, %ke3 : tensor<8x4096xf32>
  return %d2, %d3 : tensor<4096xf32>, tensor<8x4096xf32>
}
