// Library permutations: the transposes around a library contraction folded
// into it, so that the library reads and writes its operands where they are
// (strided_matmul.h) and no dispatch runs to move them.
//
// Attention's matmuls read the heads of one qkv matrix through transposes
// ([seq, heads, head] -> [heads, seq, head], the key as [heads, head, seq])
// and write the result through one back; each transpose is a dispatch of its
// own (a kernel launch, a CUDA graph node). A transpose only renames which
// loop of the contraction steps along which dimension of its input, so the
// contraction can read that input itself:
//
//   %q4 = tensor.expand_shape %q ...           : [1, 128, 12, 64]
//   %qt = linalg.transpose ins(%q4) permutation = [0, 2, 1, 3]
//   %q3 = tensor.collapse_shape %qt [[0, 1], [2], [3]] : [12, 128, 64]
//   %s  = linalg.batch_matmul ins(%q3, %k3) ...
// ->
//   %q' = tensor.extract_slice %q4 [0, 0, 0, 0] [1, 128, 12, 64] [1, 1, 1, 1]
//             : [128, 12, 64]                  (the unit dimensions dropped)
//   %s  = linalg.generic {(b, m, n, k) -> (m, b, k), ...} ins(%q', %k') ...
//
// and likewise a transpose of the contraction's result becomes its result
// map (the init a fill of the transposed shape), the unit dimensions added
// back with an expand_shape. Between the transpose and the contraction only
// reshapes that add or drop dimensions of one element may stand (the heads
// of one batch; a batch of several would need the contraction's loops
// split).
//
// A fold is kept only where the contraction stays one a library takes
// (IsLibraryContraction, with the strided layouts of its new operands): the
// generated kernel of the dispatch then computes the same (it reads through
// the views, the transpose fused into its loops), and a transpose the
// library could not read stays a dispatch of its own. A transpose with other
// users stays for them.
#pragma once

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace kiln::compiler {

// Folds the permutations around every library contraction of `func`.
void FoldPermutationsIntoLibraryContractions(mlir::func::FuncOp func);

}  // namespace kiln::compiler
