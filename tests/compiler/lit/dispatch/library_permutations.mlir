// RUN: %kiln-opt %s --split-input-file --kiln-form-dispatches=library-calls=true --kiln-select-library-calls | FileCheck %s
// RUN: %kiln-opt %s --split-input-file --kiln-form-dispatches --kiln-select-library-calls | FileCheck %s --check-prefix=NOLIB

// --kiln-form-dispatches with library calls folds the transposes around a
// library contraction into it (compiler/dispatch/library_permutations.h),
// and --kiln-select-library-calls records the strided operands it then
// reads and writes (strided_matmul.h): ld, offset and batch stride per
// operand, all in the binding of the tensor the views start from.

// Attention's scores, QK^T: the query and key heads are column ranges of
// one qkv matrix, transposed to [heads, seq, head] (the key to [heads,
// head, seq]) and collapsed to a batch of 4 heads. With library calls both
// transposes fold into the batched matmul, which reads the qkv binding
// twice: A (the query) with ld 192 and batch stride 16, B (the key) at
// offset 64, stored transposed with ld 192. One dispatch; without library
// calls three (the transposes and the matmul).

// CHECK-DAG: #[[A:.+]] = affine_map<(d0, d1, d2, d3) -> (d1, d0, d3)>
// CHECK-DAG: #[[B:.+]] = affine_map<(d0, d1, d2, d3) -> (d2, d0, d3)>
// CHECK-DAG: #[[D:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: hal.executable.source private @scores_dispatch_0
// CHECK: kiln.library_call = {a = 0 : i64, activation = "none", allow_tf32 = false, b = 0 : i64, batch_count = 4 : i64, batch_stride_a = 16 : i64, batch_stride_b = 16 : i64, batch_stride_d = 1024 : i64, d = 1 : i64, element_type = "f32", k = 16 : i64, kind = "matmul", lda = 192 : i64, ldb = 192 : i64, m = 32 : i64, n = 32 : i64, offset_b = 64 : i64, transpose_a = false, transpose_b = true}
// CHECK: %[[QKV:.+]] = bufferization.to_tensor
// CHECK-DAG: %[[Q:.+]] = tensor.extract_slice %[[QKV]][0, 0, 0] [1, 32, 64] [1, 1, 1]
// CHECK-DAG: %[[K:.+]] = tensor.extract_slice %[[QKV]][0, 0, 64] [1, 32, 64] [1, 1, 1]
// CHECK-DAG: %[[Q4:.+]] = tensor.expand_shape %[[Q]] {{\[\[}}0], [1], [2, 3]] output_shape [1, 32, 4, 16]
// CHECK-DAG: %[[K4:.+]] = tensor.expand_shape %[[K]] {{\[\[}}0], [1], [2, 3]] output_shape [1, 32, 4, 16]
// CHECK-DAG: %[[Q3:.+]] = tensor.extract_slice %[[Q4]][0, 0, 0, 0] [1, 32, 4, 16] [1, 1, 1, 1] : tensor<1x32x4x16xf32> to tensor<32x4x16xf32>
// CHECK-DAG: %[[K3:.+]] = tensor.extract_slice %[[K4]][0, 0, 0, 0] [1, 32, 4, 16] [1, 1, 1, 1] : tensor<1x32x4x16xf32> to tensor<32x4x16xf32>
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[D]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[Q3]], %[[K3]] :
// CHECK-NOT: linalg.transpose
// CHECK-LABEL: func.func @scores(
// CHECK-COUNT-1: flow.dispatch
// CHECK-NOT: flow.dispatch
// NOLIB-LABEL: func.func @scores(
// NOLIB-COUNT-3: flow.dispatch

func.func @scores(%qkv: tensor<1x32x192xf32>) -> tensor<4x32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %q = tensor.extract_slice %qkv[0, 0, 0] [1, 32, 64] [1, 1, 1] : tensor<1x32x192xf32> to tensor<1x32x64xf32>
  %k = tensor.extract_slice %qkv[0, 0, 64] [1, 32, 64] [1, 1, 1] : tensor<1x32x192xf32> to tensor<1x32x64xf32>
  %q4 = tensor.expand_shape %q [[0], [1], [2, 3]] output_shape [1, 32, 4, 16] : tensor<1x32x64xf32> into tensor<1x32x4x16xf32>
  %k4 = tensor.expand_shape %k [[0], [1], [2, 3]] output_shape [1, 32, 4, 16] : tensor<1x32x64xf32> into tensor<1x32x4x16xf32>
  %qt_e = tensor.empty() : tensor<1x4x32x16xf32>
  %qt = linalg.transpose ins(%q4 : tensor<1x32x4x16xf32>) outs(%qt_e : tensor<1x4x32x16xf32>) permutation = [0, 2, 1, 3]
  %kt_e = tensor.empty() : tensor<1x4x16x32xf32>
  %kt = linalg.transpose ins(%k4 : tensor<1x32x4x16xf32>) outs(%kt_e : tensor<1x4x16x32xf32>) permutation = [0, 2, 3, 1]
  %q3 = tensor.collapse_shape %qt [[0, 1], [2], [3]] : tensor<1x4x32x16xf32> into tensor<4x32x16xf32>
  %k3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<1x4x16x32xf32> into tensor<4x16x32xf32>
  %s_e = tensor.empty() : tensor<4x32x32xf32>
  %s_f = linalg.fill ins(%zero : f32) outs(%s_e : tensor<4x32x32xf32>) -> tensor<4x32x32xf32>
  %s = linalg.batch_matmul ins(%q3, %k3 : tensor<4x32x16xf32>, tensor<4x16x32xf32>) outs(%s_f : tensor<4x32x32xf32>) -> tensor<4x32x32xf32>
  return %s : tensor<4x32x32xf32>
}

// -----

// AV and the heads back into rows: the value heads fold into the batched
// matmul as B (offset 128, ld 192, batch stride 16), and the transpose of
// its result ([4, 32, 16] -> [32, 4, 16]) into its result map: it writes
// the heads side by side into rows of 64 (ld 64, batch stride 16), which
// the residual add reads through reshapes. Two dispatches; four without
// library calls.

// CHECK-DAG: #[[P:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[V:.+]] = affine_map<(d0, d1, d2, d3) -> (d3, d0, d2)>
// CHECK-DAG: #[[O:.+]] = affine_map<(d0, d1, d2, d3) -> (d1, d0, d2)>
// CHECK-LABEL: hal.executable.source private @heads_dispatch_0
// CHECK: kiln.library_call = {a = 1 : i64, activation = "none", allow_tf32 = false, b = 0 : i64, batch_count = 4 : i64, batch_stride_a = 1024 : i64, batch_stride_b = 16 : i64, batch_stride_d = 16 : i64, d = 2 : i64, element_type = "f32", k = 32 : i64, kind = "matmul", ldb = 192 : i64, ldd = 64 : i64, m = 32 : i64, n = 16 : i64, offset_b = 128 : i64, transpose_a = false, transpose_b = false}
// CHECK: linalg.generic {indexing_maps = [#[[P]], #[[V]], #[[O]]]
// CHECK-SAME: outs(%{{.+}} : tensor<32x4x16xf32>)
// CHECK-NOT: linalg.transpose
// CHECK-LABEL: hal.executable.source private @heads_dispatch_1
// CHECK: tensor.expand_shape %{{.+}} {{\[\[}}0, 1], [2], [3]] output_shape [1, 32, 4, 16] : tensor<32x4x16xf32> into tensor<1x32x4x16xf32>
// CHECK: arith.addf
// CHECK-LABEL: func.func @heads(
// CHECK: %[[HEADS:.+]] = flow.dispatch @heads_dispatch_0::@heads_dispatch_0{{.*}} -> tensor<32x4x16xf32>
// CHECK: flow.dispatch @heads_dispatch_1::@heads_dispatch_1{{.*}}(%[[HEADS]], %arg2)
// CHECK-NOT: flow.dispatch
// NOLIB-LABEL: func.func @heads(
// NOLIB-COUNT-4: flow.dispatch

func.func @heads(%qkv: tensor<1x32x192xf32>, %p: tensor<4x32x32xf32>, %res: tensor<1x32x64xf32>) -> tensor<1x32x64xf32> {
  %zero = arith.constant 0.0 : f32
  %v = tensor.extract_slice %qkv[0, 0, 128] [1, 32, 64] [1, 1, 1] : tensor<1x32x192xf32> to tensor<1x32x64xf32>
  %v4 = tensor.expand_shape %v [[0], [1], [2, 3]] output_shape [1, 32, 4, 16] : tensor<1x32x64xf32> into tensor<1x32x4x16xf32>
  %vt_e = tensor.empty() : tensor<1x4x32x16xf32>
  %vt = linalg.transpose ins(%v4 : tensor<1x32x4x16xf32>) outs(%vt_e : tensor<1x4x32x16xf32>) permutation = [0, 2, 1, 3]
  %v3 = tensor.collapse_shape %vt [[0, 1], [2], [3]] : tensor<1x4x32x16xf32> into tensor<4x32x16xf32>
  %o_e = tensor.empty() : tensor<4x32x16xf32>
  %o_f = linalg.fill ins(%zero : f32) outs(%o_e : tensor<4x32x16xf32>) -> tensor<4x32x16xf32>
  %o = linalg.batch_matmul ins(%p, %v3 : tensor<4x32x32xf32>, tensor<4x32x16xf32>) outs(%o_f : tensor<4x32x16xf32>) -> tensor<4x32x16xf32>
  %o4 = tensor.expand_shape %o [[0, 1], [2], [3]] output_shape [1, 4, 32, 16] : tensor<4x32x16xf32> into tensor<1x4x32x16xf32>
  %ot_e = tensor.empty() : tensor<1x32x4x16xf32>
  %ot = linalg.transpose ins(%o4 : tensor<1x4x32x16xf32>) outs(%ot_e : tensor<1x32x4x16xf32>) permutation = [0, 2, 1, 3]
  %rows = tensor.collapse_shape %ot [[0], [1], [2, 3]] : tensor<1x32x4x16xf32> into tensor<1x32x64xf32>
  %r_e = tensor.empty() : tensor<1x32x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(a, b, c) -> (a, b, c)>, affine_map<(a, b, c) -> (a, b, c)>, affine_map<(a, b, c) -> (a, b, c)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%rows, %res : tensor<1x32x64xf32>, tensor<1x32x64xf32>) outs(%r_e : tensor<1x32x64xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<1x32x64xf32>
  return %r : tensor<1x32x64xf32>
}

// -----

// A transpose no GEMM library can read (the batch moved innermost: neither
// the rows nor the columns of a head are contiguous) stays a dispatch of
// its own, the matmul reading its result packed.

// CHECK-LABEL: hal.executable.source private @not_strided_dispatch_0
// CHECK: linalg.transpose
// CHECK-LABEL: hal.executable.source private @not_strided_dispatch_1
// CHECK: kiln.library_call = {a = 0 : i64, activation = "none", allow_tf32 = false, b = 1 : i64, batch_count = 4 : i64, batch_stride_a = 512 : i64, batch_stride_b = 512 : i64, batch_stride_d = 1024 : i64, d = 2 : i64, element_type = "f32", k = 16 : i64, kind = "matmul", m = 32 : i64, n = 32 : i64, transpose_a = false, transpose_b = false}
// CHECK: linalg.batch_matmul
// CHECK-LABEL: func.func @not_strided(
// CHECK-COUNT-2: flow.dispatch

func.func @not_strided(%x: tensor<32x16x4xf32>, %b: tensor<4x16x32xf32>) -> tensor<4x32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %t_e = tensor.empty() : tensor<4x32x16xf32>
  %t = linalg.transpose ins(%x : tensor<32x16x4xf32>) outs(%t_e : tensor<4x32x16xf32>) permutation = [2, 0, 1]
  %s_e = tensor.empty() : tensor<4x32x32xf32>
  %s_f = linalg.fill ins(%zero : f32) outs(%s_e : tensor<4x32x32xf32>) -> tensor<4x32x32xf32>
  %s = linalg.batch_matmul ins(%t, %b : tensor<4x32x16xf32>, tensor<4x16x32xf32>) outs(%s_f : tensor<4x32x32xf32>) -> tensor<4x32x32xf32>
  return %s : tensor<4x32x32xf32>
}

// -----

// A batch that collapses two dimensions of more than one element (2 x 2
// heads) would need the contraction's batch loop split: the transpose
// stays.

// CHECK-LABEL: hal.executable.source private @batch_of_two_dims_dispatch_0
// CHECK: linalg.transpose
// CHECK-LABEL: hal.executable.source private @batch_of_two_dims_dispatch_1
// CHECK: kiln.library_call
// CHECK: linalg.batch_matmul
// CHECK-LABEL: func.func @batch_of_two_dims(
// CHECK-COUNT-2: flow.dispatch

func.func @batch_of_two_dims(%x: tensor<32x2x2x16xf32>, %b: tensor<4x16x32xf32>) -> tensor<4x32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %t_e = tensor.empty() : tensor<2x2x32x16xf32>
  %t = linalg.transpose ins(%x : tensor<32x2x2x16xf32>) outs(%t_e : tensor<2x2x32x16xf32>) permutation = [1, 2, 0, 3]
  %t3 = tensor.collapse_shape %t [[0, 1], [2], [3]] : tensor<2x2x32x16xf32> into tensor<4x32x16xf32>
  %s_e = tensor.empty() : tensor<4x32x32xf32>
  %s_f = linalg.fill ins(%zero : f32) outs(%s_e : tensor<4x32x32xf32>) -> tensor<4x32x32xf32>
  %s = linalg.batch_matmul ins(%t3, %b : tensor<4x32x16xf32>, tensor<4x16x32xf32>) outs(%s_f : tensor<4x32x32xf32>) -> tensor<4x32x32xf32>
  return %s : tensor<4x32x32xf32>
}

// -----

// A transpose that the function also returns folds into the matmul (A
// read transposed from the argument) and stays, for the return only.

// CHECK-LABEL: hal.executable.source private @shared_transpose_dispatch_0
// CHECK: linalg.transpose
// CHECK-LABEL: hal.executable.source private @shared_transpose_dispatch_1
// CHECK: kiln.library_call = {a = 0 : i64, activation = "none", allow_tf32 = false, b = 1 : i64, batch_count = 1 : i64, batch_stride_a = 0 : i64, batch_stride_b = 0 : i64, batch_stride_d = 0 : i64, d = 2 : i64, element_type = "f32", k = 16 : i64, kind = "matmul", m = 64 : i64, n = 32 : i64, transpose_a = true, transpose_b = false}
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.+}}, %{{.+}} : tensor<16x64xf32>, tensor<16x32xf32>)
// CHECK-LABEL: func.func @shared_transpose(
// CHECK: %[[T:.+]] = flow.dispatch @shared_transpose_dispatch_0::@shared_transpose_dispatch_0{{.*}}(%arg0)
// CHECK: %[[MM:.+]] = flow.dispatch @shared_transpose_dispatch_1::@shared_transpose_dispatch_1{{.*}}(%arg0, %arg1)
// CHECK: return %[[MM]], %[[T]]

func.func @shared_transpose(%x: tensor<16x64xf32>, %b: tensor<16x32xf32>) -> (tensor<64x32xf32>, tensor<64x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %t_e = tensor.empty() : tensor<64x16xf32>
  %t = linalg.transpose ins(%x : tensor<16x64xf32>) outs(%t_e : tensor<64x16xf32>) permutation = [1, 0]
  %s_e = tensor.empty() : tensor<64x32xf32>
  %s_f = linalg.fill ins(%zero : f32) outs(%s_e : tensor<64x32xf32>) -> tensor<64x32xf32>
  %s = linalg.matmul ins(%t, %b : tensor<64x16xf32>, tensor<16x32xf32>) outs(%s_f : tensor<64x32xf32>) -> tensor<64x32xf32>
  return %s, %t : tensor<64x32xf32>, tensor<64x16xf32>
}
