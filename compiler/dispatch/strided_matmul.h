// Strided matmuls: a contraction as a GEMM library computes it when every
// operand is a strided view of one contiguous array (a binding).
//
// A GEMM library (cuBLASLt, oneDNN) reads each operand of
//
//   D[b] = A[b] · B[b]        b < batch_count
//
// as a matrix per batch with a leading dimension (ld: the elements between
// two rows as stored), a batch stride and the offset of its first element:
// A's element (b, i, p) at offset + b * batch_stride + i * ld + p, or
// p * ld + i where A is stored transposed (k×m). So a contraction takes a
// library call without copies even where its operands are not whole
// bindings: the query, key and value heads of attention are column ranges
// of one qkv matrix ([seq, 3 * hidden]), read head by head:
//
//   QK^T: batch 12 (heads), A = q: offset 0, ld 2304, batch stride 64;
//         B = k: offset 768, transposed (k×n stored n×k), ld 2304, batch
//         stride 64; all from the binding of the qkv matmul's result.
//
// The layout of an operand (StridedLayoutOf) is what the views between it
// and its array make of that array's row-major order: tensor.extract_slice
// (offsets, steps, dropped unit dimensions), expand_shape (always strided),
// collapse_shape (where the merged dimensions are contiguous), to_tensor
// and a binding's subspan (static, identity layout, no byte offset). The
// contraction's loops (linalg's inferContractionDims: batch, m, n, k) must
// then group into one strided dimension each per operand, with the matrix's
// inner dimension contiguous (MatchStridedMatmul). Loops of extent 1 are
// left out: they select nothing.
#pragma once

#include <cstdint>
#include <optional>

#include "llvm/ADT/SmallVector.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Value.h"

namespace kiln::compiler {

// Element (i0, ..., in) of a value is element offset + sum_j ij * strides[j]
// of `base`, a contiguous row-major array (a binding's subspan in a kernel;
// on the host, the tensor a dispatch would bind).
struct StridedLayout {
  mlir::Value base;
  int64_t offset = 0;
  llvm::SmallVector<int64_t> strides;
};

// The layout of `value` through the views above, or nullopt where a view
// is not strided (a collapse of non-contiguous dimensions) or a shape is
// dynamic. A value made by anything but a view is its own base.
std::optional<StridedLayout> StridedLayoutOf(mlir::Value value);

// `value` as its own base (row-major), or nullopt for a dynamic shape.
std::optional<StridedLayout> RowMajorLayout(mlir::Value value);

// One operand of a strided matmul (elements). `transposed`: the matrix
// (rows×cols) is stored cols×rows (only A and B). `ld` is the stride of the
// stored rows, at least the stored row length; `batch_stride` is 0 for one
// matrix read by every batch.
struct MatrixLayout {
  bool transposed = false;
  int64_t ld = 0;
  int64_t batch_stride = 0;
  int64_t offset = 0;
};

struct StridedMatmul {
  int64_t batch_count = 1, m = 1, n = 1, k = 1;
  MatrixLayout a, b, d;
  // The loops of each group (extent-1 loops left out), outer to inner as D
  // stores them: an operand shaped like the result (an addend) is laid out
  // along them (ResultShapedLayout).
  llvm::SmallVector<unsigned> batch_loops, m_loops, n_loops;
};

// `op` as a strided matmul, its inputs and its result laid out as `a`, `b`
// and `d` (the result's dimensions as op's result has them), or nullopt
// where it is no matmul or a layout is one a library cannot read.
std::optional<StridedMatmul> MatchStridedMatmul(mlir::linalg::LinalgOp op, const StridedLayout& a,
                                                const StridedLayout& b, const StridedLayout& d);

// The layout of an operand shaped like `op`'s result (an epilogue's addend
// C), laid out as `c`: rows of `matmul`'s m loops, columns of its n loops
// (contiguous), batches of its batch loops (or 0 where it has none).
std::optional<MatrixLayout> ResultShapedLayout(const StridedMatmul& matmul,
                                               mlir::linalg::LinalgOp op, const StridedLayout& c);

}  // namespace kiln::compiler
