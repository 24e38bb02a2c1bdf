// Attention with library calls that read and write strided operands
// (compiler/dispatch/library_permutations.h, strided_matmul.h): a qkv
// matmul, its split into query, key and value heads through transposes,
// QK^T, a softmax, AV and the transpose of the heads back into rows. With
// library calls the transposes fold into the two batched matmuls, which
// read the heads where the qkv matmul wrote them (lda/ldb 192, batch
// stride 16, the key and value at offsets 64 and 128) and write the heads
// into their rows (ldd 64): kiln-dump-module lists the calls, and no
// dispatch is left of the transposes (5 dispatches: qkv, QK^T, the
// softmax's 2 and AV). The same computation with kiln.library = "none" on
// its contractions keeps each of its 4 transposes a dispatch of its own and
// each contraction a generated kernel: the two
// must agree on every device, with the library (cuBLASLt, oneDNN) and
// without it (--cuda_library_calls=false, --cpu_library_calls=false: the
// exports' generated kernels, which read through the same strided views).
// RUN: %kiln-compile %s --iree-hal-target-backends=%target_backend -o %t.kmod
// RUN: %kiln-check-module --device=%device --module=%t.kmod | FileCheck %s --check-prefix=CHECKS
// RUN: %kiln-check-module --device=%device --module=%t.kmod --cpu_library_calls=false --cuda_library_calls=false | FileCheck %s --check-prefix=CHECKS
// RUN: %kiln-compile %s --iree-hal-target-backends=cuda -o %t.cuda.kmod
// RUN: %kiln-dump-module %t.cuda.kmod | FileCheck %s --check-prefix=DUMP
// RUN: %kiln-compile %s --iree-hal-target-backends=llvm-cpu -o %t.cpu.kmod
// RUN: %kiln-dump-module %t.cpu.kmod | FileCheck %s --check-prefix=CPUDUMP

// CHECKS-NOT: FAILED
// CHECKS: [  PASSED  ] 1 test.
// DUMP-DAG: cublasLt matmul 4x32x32x16 f32 transpose_b lda=192 ldb=192 offset_b=64
// DUMP-DAG: cublasLt matmul 4x32x16x32 f32 ldb=192 ldd=64 offset_b=128
// CPUDUMP-DAG: oneDNN matmul 4x32x32x16 f32 transpose_b lda=192 ldb=192 offset_b=64
// CPUDUMP-DAG: oneDNN matmul 4x32x16x32 f32 ldb=192 ldd=64 offset_b=128

func.func @attention() {
  %zero = arith.constant 0.0 : f32
  %lowest = arith.constant -3.0e38 : f32
  %scale = arith.constant 0.25 : f32
  %x_e = tensor.empty() : tensor<1x32x64xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} outs(%x_e : tensor<1x32x64xf32>) {
  ^bb0(%o: f32):
    %acc0 = arith.constant 0.1 : f32
    %i0 = linalg.index 0 : index
    %n0 = arith.index_cast %i0 : index to i32
    %f0 = arith.sitofp %n0 : i32 to f32
    %c0 = arith.constant 0.37 : f32
    %m0 = arith.mulf %f0, %c0 : f32
    %acc1 = arith.addf %acc0, %m0 : f32
    %i1 = linalg.index 1 : index
    %n1 = arith.index_cast %i1 : index to i32
    %f1 = arith.sitofp %n1 : i32 to f32
    %c1 = arith.constant 0.12100000000000001 : f32
    %m1 = arith.mulf %f1, %c1 : f32
    %acc2 = arith.addf %acc1, %m1 : f32
    %i2 = linalg.index 2 : index
    %n2 = arith.index_cast %i2 : index to i32
    %f2 = arith.sitofp %n2 : i32 to f32
    %c2 = arith.constant 0.276 : f32
    %m2 = arith.mulf %f2, %c2 : f32
    %acc3 = arith.addf %acc2, %m2 : f32
    %s = math.sin %acc3 : f32
    linalg.yield %s : f32
  } -> tensor<1x32x64xf32>
  %w_e = tensor.empty() : tensor<64x192xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%w_e : tensor<64x192xf32>) {
  ^bb0(%o: f32):
    %acc0 = arith.constant 0.7 : f32
    %i0 = linalg.index 0 : index
    %n0 = arith.index_cast %i0 : index to i32
    %f0 = arith.sitofp %n0 : i32 to f32
    %c0 = arith.constant 0.37 : f32
    %m0 = arith.mulf %f0, %c0 : f32
    %acc1 = arith.addf %acc0, %m0 : f32
    %i1 = linalg.index 1 : index
    %n1 = arith.index_cast %i1 : index to i32
    %f1 = arith.sitofp %n1 : i32 to f32
    %c1 = arith.constant 0.12100000000000001 : f32
    %m1 = arith.mulf %f1, %c1 : f32
    %acc2 = arith.addf %acc1, %m1 : f32
    %s = math.sin %acc2 : f32
    linalg.yield %s : f32
  } -> tensor<64x192xf32>
  %bias_e = tensor.empty() : tensor<192xf32>
  %bias = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%bias_e : tensor<192xf32>) {
  ^bb0(%o: f32):
    %acc0 = arith.constant 1.3 : f32
    %i0 = linalg.index 0 : index
    %n0 = arith.index_cast %i0 : index to i32
    %f0 = arith.sitofp %n0 : i32 to f32
    %c0 = arith.constant 0.37 : f32
    %m0 = arith.mulf %f0, %c0 : f32
    %acc1 = arith.addf %acc0, %m0 : f32
    %s = math.sin %acc1 : f32
    linalg.yield %s : f32
  } -> tensor<192xf32>
  // with library calls: qkv = x * w + bias, as an ONNX importer writes it.
  %L_qkv_e = tensor.empty() : tensor<1x32x192xf32>
  %L_qkv_f = linalg.fill ins(%zero : f32) outs(%L_qkv_e : tensor<1x32x192xf32>) -> tensor<1x32x192xf32>
  %L_qkv_mm = linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (k, n)>, affine_map<(b, m, n, k) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %w : tensor<1x32x64xf32>, tensor<64x192xf32>) outs(%L_qkv_f : tensor<1x32x192xf32>) {
  ^bb0(%L_p: f32, %L_q: f32, %L_acc: f32):
    %L_t = arith.mulf %L_p, %L_q : f32
    %L_u = arith.addf %L_acc, %L_t : f32
    linalg.yield %L_u : f32
  } -> tensor<1x32x192xf32>
  %L_qkv = linalg.generic {indexing_maps = [affine_map<(b, m, n) -> (b, m, n)>, affine_map<(b, m, n) -> (n)>, affine_map<(b, m, n) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%L_qkv_mm, %bias : tensor<1x32x192xf32>, tensor<192xf32>) outs(%L_qkv_e : tensor<1x32x192xf32>) {
  ^bb0(%L_p: f32, %L_q: f32, %L_o: f32):
    %L_s = arith.addf %L_p, %L_q : f32
    linalg.yield %L_s : f32
  } -> tensor<1x32x192xf32>
  // Split into 4 heads of 16, transposed (the key as [heads, head, seq]).
  %L_q = tensor.extract_slice %L_qkv[0, 0, 0] [1, 32, 64] [1, 1, 1] : tensor<1x32x192xf32> to tensor<1x32x64xf32>
  %L_k = tensor.extract_slice %L_qkv[0, 0, 64] [1, 32, 64] [1, 1, 1] : tensor<1x32x192xf32> to tensor<1x32x64xf32>
  %L_v = tensor.extract_slice %L_qkv[0, 0, 128] [1, 32, 64] [1, 1, 1] : tensor<1x32x192xf32> to tensor<1x32x64xf32>
  %L_q4 = tensor.expand_shape %L_q [[0], [1], [2, 3]] output_shape [1, 32, 4, 16] : tensor<1x32x64xf32> into tensor<1x32x4x16xf32>
  %L_k4 = tensor.expand_shape %L_k [[0], [1], [2, 3]] output_shape [1, 32, 4, 16] : tensor<1x32x64xf32> into tensor<1x32x4x16xf32>
  %L_v4 = tensor.expand_shape %L_v [[0], [1], [2, 3]] output_shape [1, 32, 4, 16] : tensor<1x32x64xf32> into tensor<1x32x4x16xf32>
  %L_qt_e = tensor.empty() : tensor<1x4x32x16xf32>
  %L_qt = linalg.transpose ins(%L_q4 : tensor<1x32x4x16xf32>) outs(%L_qt_e : tensor<1x4x32x16xf32>) permutation = [0, 2, 1, 3]
  %L_kt_e = tensor.empty() : tensor<1x4x16x32xf32>
  %L_kt = linalg.transpose ins(%L_k4 : tensor<1x32x4x16xf32>) outs(%L_kt_e : tensor<1x4x16x32xf32>) permutation = [0, 2, 3, 1]
  %L_vt_e = tensor.empty() : tensor<1x4x32x16xf32>
  %L_vt = linalg.transpose ins(%L_v4 : tensor<1x32x4x16xf32>) outs(%L_vt_e : tensor<1x4x32x16xf32>) permutation = [0, 2, 1, 3]
  %L_q3 = tensor.collapse_shape %L_qt [[0, 1], [2], [3]] : tensor<1x4x32x16xf32> into tensor<4x32x16xf32>
  %L_k3 = tensor.collapse_shape %L_kt [[0, 1], [2], [3]] : tensor<1x4x16x32xf32> into tensor<4x16x32xf32>
  %L_v3 = tensor.collapse_shape %L_vt [[0, 1], [2], [3]] : tensor<1x4x32x16xf32> into tensor<4x32x16xf32>
  // QK^T, the softmax of the scaled scores, AV.
  %L_s_e = tensor.empty() : tensor<4x32x32xf32>
  %L_s_f = linalg.fill ins(%zero : f32) outs(%L_s_e : tensor<4x32x32xf32>) -> tensor<4x32x32xf32>
  %L_scores = linalg.batch_matmul ins(%L_q3, %L_k3 : tensor<4x32x16xf32>, tensor<4x16x32xf32>) outs(%L_s_f : tensor<4x32x32xf32>) -> tensor<4x32x32xf32>
  %L_row_e = tensor.empty() : tensor<4x32xf32>
  %L_max_f = linalg.fill ins(%lowest : f32) outs(%L_row_e : tensor<4x32xf32>) -> tensor<4x32xf32>
  %L_max = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%L_scores : tensor<4x32x32xf32>) outs(%L_max_f : tensor<4x32xf32>) {
  ^bb0(%L_p: f32, %L_acc: f32):
    %L_m = arith.maximumf %L_p, %L_acc : f32
    linalg.yield %L_m : f32
  } -> tensor<4x32xf32>
  %L_ex = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%L_scores, %L_max : tensor<4x32x32xf32>, tensor<4x32xf32>) outs(%L_s_e : tensor<4x32x32xf32>) {
  ^bb0(%L_p: f32, %L_m: f32, %L_o: f32):
    %L_d = arith.subf %L_p, %L_m : f32
    %L_sc = arith.mulf %L_d, %scale : f32
    %L_e = math.exp %L_sc : f32
    linalg.yield %L_e : f32
  } -> tensor<4x32x32xf32>
  %L_sum_f = linalg.fill ins(%zero : f32) outs(%L_row_e : tensor<4x32xf32>) -> tensor<4x32xf32>
  %L_sum = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%L_ex : tensor<4x32x32xf32>) outs(%L_sum_f : tensor<4x32xf32>) {
  ^bb0(%L_p: f32, %L_acc: f32):
    %L_a = arith.addf %L_p, %L_acc : f32
    linalg.yield %L_a : f32
  } -> tensor<4x32xf32>
  %L_probs = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%L_ex, %L_sum : tensor<4x32x32xf32>, tensor<4x32xf32>) outs(%L_s_e : tensor<4x32x32xf32>) {
  ^bb0(%L_p: f32, %L_t: f32, %L_o: f32):
    %L_d = arith.divf %L_p, %L_t : f32
    linalg.yield %L_d : f32
  } -> tensor<4x32x32xf32>
  %L_o_e = tensor.empty() : tensor<4x32x16xf32>
  %L_o_f = linalg.fill ins(%zero : f32) outs(%L_o_e : tensor<4x32x16xf32>) -> tensor<4x32x16xf32>
  %L_heads = linalg.batch_matmul ins(%L_probs, %L_v3 : tensor<4x32x32xf32>, tensor<4x32x16xf32>) outs(%L_o_f : tensor<4x32x16xf32>) -> tensor<4x32x16xf32>
  // The heads back into rows: [4, 32, 16] -> [1, 32, 4, 16] -> [32, 64].
  %L_h4 = tensor.expand_shape %L_heads [[0, 1], [2], [3]] output_shape [1, 4, 32, 16] : tensor<4x32x16xf32> into tensor<1x4x32x16xf32>
  %L_ht_e = tensor.empty() : tensor<1x32x4x16xf32>
  %L_ht = linalg.transpose ins(%L_h4 : tensor<1x4x32x16xf32>) outs(%L_ht_e : tensor<1x32x4x16xf32>) permutation = [0, 2, 1, 3]
  %L_out = tensor.collapse_shape %L_ht [[0, 1], [2, 3]] : tensor<1x32x4x16xf32> into tensor<32x64xf32>
  // generated kernels, transposes apart: qkv = x * w + bias, as an ONNX importer writes it.
  %G_qkv_e = tensor.empty() : tensor<1x32x192xf32>
  %G_qkv_f = linalg.fill ins(%zero : f32) outs(%G_qkv_e : tensor<1x32x192xf32>) -> tensor<1x32x192xf32>
  %G_qkv_mm = linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (k, n)>, affine_map<(b, m, n, k) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %w : tensor<1x32x64xf32>, tensor<64x192xf32>) outs(%G_qkv_f : tensor<1x32x192xf32>) attrs = {kiln.library = "none"} {
  ^bb0(%G_p: f32, %G_q: f32, %G_acc: f32):
    %G_t = arith.mulf %G_p, %G_q : f32
    %G_u = arith.addf %G_acc, %G_t : f32
    linalg.yield %G_u : f32
  } -> tensor<1x32x192xf32>
  %G_qkv = linalg.generic {indexing_maps = [affine_map<(b, m, n) -> (b, m, n)>, affine_map<(b, m, n) -> (n)>, affine_map<(b, m, n) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%G_qkv_mm, %bias : tensor<1x32x192xf32>, tensor<192xf32>) outs(%G_qkv_e : tensor<1x32x192xf32>) {
  ^bb0(%G_p: f32, %G_q: f32, %G_o: f32):
    %G_s = arith.addf %G_p, %G_q : f32
    linalg.yield %G_s : f32
  } -> tensor<1x32x192xf32>
  // Split into 4 heads of 16, transposed (the key as [heads, head, seq]).
  %G_q = tensor.extract_slice %G_qkv[0, 0, 0] [1, 32, 64] [1, 1, 1] : tensor<1x32x192xf32> to tensor<1x32x64xf32>
  %G_k = tensor.extract_slice %G_qkv[0, 0, 64] [1, 32, 64] [1, 1, 1] : tensor<1x32x192xf32> to tensor<1x32x64xf32>
  %G_v = tensor.extract_slice %G_qkv[0, 0, 128] [1, 32, 64] [1, 1, 1] : tensor<1x32x192xf32> to tensor<1x32x64xf32>
  %G_q4 = tensor.expand_shape %G_q [[0], [1], [2, 3]] output_shape [1, 32, 4, 16] : tensor<1x32x64xf32> into tensor<1x32x4x16xf32>
  %G_k4 = tensor.expand_shape %G_k [[0], [1], [2, 3]] output_shape [1, 32, 4, 16] : tensor<1x32x64xf32> into tensor<1x32x4x16xf32>
  %G_v4 = tensor.expand_shape %G_v [[0], [1], [2, 3]] output_shape [1, 32, 4, 16] : tensor<1x32x64xf32> into tensor<1x32x4x16xf32>
  %G_qt_e = tensor.empty() : tensor<1x4x32x16xf32>
  %G_qt = linalg.transpose ins(%G_q4 : tensor<1x32x4x16xf32>) outs(%G_qt_e : tensor<1x4x32x16xf32>) permutation = [0, 2, 1, 3]
  %G_kt_e = tensor.empty() : tensor<1x4x16x32xf32>
  %G_kt = linalg.transpose ins(%G_k4 : tensor<1x32x4x16xf32>) outs(%G_kt_e : tensor<1x4x16x32xf32>) permutation = [0, 2, 3, 1]
  %G_vt_e = tensor.empty() : tensor<1x4x32x16xf32>
  %G_vt = linalg.transpose ins(%G_v4 : tensor<1x32x4x16xf32>) outs(%G_vt_e : tensor<1x4x32x16xf32>) permutation = [0, 2, 1, 3]
  %G_q3 = tensor.collapse_shape %G_qt [[0, 1], [2], [3]] : tensor<1x4x32x16xf32> into tensor<4x32x16xf32>
  %G_k3 = tensor.collapse_shape %G_kt [[0, 1], [2], [3]] : tensor<1x4x16x32xf32> into tensor<4x16x32xf32>
  %G_v3 = tensor.collapse_shape %G_vt [[0, 1], [2], [3]] : tensor<1x4x32x16xf32> into tensor<4x32x16xf32>
  // QK^T, the softmax of the scaled scores, AV.
  %G_s_e = tensor.empty() : tensor<4x32x32xf32>
  %G_s_f = linalg.fill ins(%zero : f32) outs(%G_s_e : tensor<4x32x32xf32>) -> tensor<4x32x32xf32>
  %G_scores = linalg.batch_matmul {kiln.library = "none"} ins(%G_q3, %G_k3 : tensor<4x32x16xf32>, tensor<4x16x32xf32>) outs(%G_s_f : tensor<4x32x32xf32>) -> tensor<4x32x32xf32>
  %G_row_e = tensor.empty() : tensor<4x32xf32>
  %G_max_f = linalg.fill ins(%lowest : f32) outs(%G_row_e : tensor<4x32xf32>) -> tensor<4x32xf32>
  %G_max = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%G_scores : tensor<4x32x32xf32>) outs(%G_max_f : tensor<4x32xf32>) {
  ^bb0(%G_p: f32, %G_acc: f32):
    %G_m = arith.maximumf %G_p, %G_acc : f32
    linalg.yield %G_m : f32
  } -> tensor<4x32xf32>
  %G_ex = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%G_scores, %G_max : tensor<4x32x32xf32>, tensor<4x32xf32>) outs(%G_s_e : tensor<4x32x32xf32>) {
  ^bb0(%G_p: f32, %G_m: f32, %G_o: f32):
    %G_d = arith.subf %G_p, %G_m : f32
    %G_sc = arith.mulf %G_d, %scale : f32
    %G_e = math.exp %G_sc : f32
    linalg.yield %G_e : f32
  } -> tensor<4x32x32xf32>
  %G_sum_f = linalg.fill ins(%zero : f32) outs(%G_row_e : tensor<4x32xf32>) -> tensor<4x32xf32>
  %G_sum = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%G_ex : tensor<4x32x32xf32>) outs(%G_sum_f : tensor<4x32xf32>) {
  ^bb0(%G_p: f32, %G_acc: f32):
    %G_a = arith.addf %G_p, %G_acc : f32
    linalg.yield %G_a : f32
  } -> tensor<4x32xf32>
  %G_probs = linalg.generic {indexing_maps = [affine_map<(b, i, j) -> (b, i, j)>, affine_map<(b, i, j) -> (b, i)>, affine_map<(b, i, j) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%G_ex, %G_sum : tensor<4x32x32xf32>, tensor<4x32xf32>) outs(%G_s_e : tensor<4x32x32xf32>) {
  ^bb0(%G_p: f32, %G_t: f32, %G_o: f32):
    %G_d = arith.divf %G_p, %G_t : f32
    linalg.yield %G_d : f32
  } -> tensor<4x32x32xf32>
  %G_o_e = tensor.empty() : tensor<4x32x16xf32>
  %G_o_f = linalg.fill ins(%zero : f32) outs(%G_o_e : tensor<4x32x16xf32>) -> tensor<4x32x16xf32>
  %G_heads = linalg.batch_matmul {kiln.library = "none"} ins(%G_probs, %G_v3 : tensor<4x32x32xf32>, tensor<4x32x16xf32>) outs(%G_o_f : tensor<4x32x16xf32>) -> tensor<4x32x16xf32>
  // The heads back into rows: [4, 32, 16] -> [32, 4, 16] -> [32, 64].
  %G_ht_e = tensor.empty() : tensor<32x4x16xf32>
  %G_ht = linalg.transpose ins(%G_heads : tensor<4x32x16xf32>) outs(%G_ht_e : tensor<32x4x16xf32>) permutation = [1, 0, 2]
  %G_out = tensor.collapse_shape %G_ht [[0], [1, 2]] : tensor<32x4x16xf32> into tensor<32x64xf32>
  check.expect_almost_eq(%L_out, %G_out, atol 1.0e-04) : tensor<32x64xf32>
  return
}
