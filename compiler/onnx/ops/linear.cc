// Linear algebra: MatMul (numpy's matmul: 1-D operands, broadcast batch
// dimensions), Gemm, MatMulInteger; Einsum lives in einsum.cc.
//
// Products become linalg.matmul where the batch dimensions allow it (an
// N-D operand times a matrix is one matmul over the collapsed rows),
// linalg.batch_matmul where both operands have the same batch dimensions,
// and a contraction linalg.generic that reads the batch dimensions broadcast
// otherwise.
#include "compiler/onnx/layer_builders.h"
#include "compiler/onnx/node_importer.h"
#include "compiler/onnx/op_registry.h"
#include "compiler/onnx/ops/layer_ops.h"
#include "compiler/onnx/tensor_builders.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace kiln::onnx_import {
namespace {

using mlir::utils::IteratorType;

mlir::Value MultiplyAdd(mlir::OpBuilder& b, mlir::Location loc, mlir::Value x, mlir::Value y,
                        mlir::Value acc) {
  if (llvm::isa<mlir::FloatType>(acc.getType())) {
    return b.create<mlir::arith::AddFOp>(loc, acc, b.create<mlir::arith::MulFOp>(loc, x, y));
  }
  return b.create<mlir::arith::AddIOp>(loc, acc, b.create<mlir::arith::MulIOp>(loc, x, y));
}

// The product of `a` [batch..., M, K] and `b` [batch..., K, N] (both of rank
// >= 2, the same element type) as numpy's matmul broadcasts the batches.
mlir::FailureOr<mlir::Value> BuildBatchedProduct(NodeImporter& node, mlir::Value a, mlir::Value b) {
  mlir::OpBuilder& builder = node.builder();
  mlir::Location loc = node.loc();
  mlir::MLIRContext* context = builder.getContext();
  auto a_type = llvm::cast<mlir::RankedTensorType>(a.getType());
  auto b_type = llvm::cast<mlir::RankedTensorType>(b.getType());
  mlir::Type element_type = a_type.getElementType();
  const int64_t a_rank = a_type.getRank();
  const int64_t b_rank = b_type.getRank();
  llvm::SmallVector<mlir::OpFoldResult> a_sizes = TensorSizes(builder, loc, a);
  llvm::SmallVector<mlir::OpFoldResult> b_sizes = TensorSizes(builder, loc, b);
  const int64_t a_k = a_type.getDimSize(a_rank - 1);
  const int64_t b_k = b_type.getDimSize(b_rank - 2);
  if (!mlir::ShapedType::isDynamic(a_k) && !mlir::ShapedType::isDynamic(b_k) && a_k != b_k) {
    return node.Fail("the operands' inner dimensions differ (" + std::to_string(a_k) + " and " +
                     std::to_string(b_k) + ")");
  }
  mlir::OpFoldResult m = a_sizes[a_rank - 2];
  mlir::OpFoldResult n = b_sizes[b_rank - 1];
  mlir::Value zero = ScalarConstant(builder, loc, element_type, 0);

  // A matrix B multiplies the rows of every batch at once: [batch... * M,
  // K] x [K, N], unless two of those dimensions are dynamic: kiln-compile
  // crashes on the expand_shape of a group with two dynamic sizes
  // (onnx-gaps/expand-shape-dynamic-group.mlir); the contraction generic
  // below reads B broadcast instead.
  int64_t dynamic_rows = 0;
  for (int64_t i = 0; i < a_rank - 1; ++i) dynamic_rows += a_type.isDynamicDim(i) ? 1 : 0;
  if (b_rank == 2 && (a_rank == 2 || dynamic_rows < 2)) {
    mlir::Value rows = a;
    llvm::SmallVector<mlir::ReassociationIndices> groups;
    if (a_rank > 2) {
      mlir::ReassociationIndices leading;
      for (int64_t i = 0; i < a_rank - 1; ++i) leading.push_back(i);
      groups = {leading, {a_rank - 1}};
      rows = CollapseDims(builder, loc, a, groups);
    }
    mlir::OpFoldResult row_count =
        ProductOfSizes(builder, loc, llvm::ArrayRef(a_sizes).drop_back());
    mlir::Value init = FilledTensor(builder, loc, {row_count, n}, zero);
    mlir::Value product =
        builder.create<mlir::linalg::MatmulOp>(loc, init.getType(), mlir::ValueRange{rows, b}, init)
            .getResult(0);
    if (a_rank == 2) return product;
    llvm::SmallVector<mlir::OpFoldResult> sizes(a_sizes.begin(), a_sizes.end() - 1);
    sizes.push_back(n);
    return ExpandDims(builder, loc, product, groups, sizes);
  }

  // The batch dimensions of the result, aligned at the end.
  const int64_t batch_rank = std::max(a_rank, b_rank) - 2;
  llvm::SmallVector<mlir::OpFoldResult> batch(batch_rank);
  bool same_batches = a_rank == b_rank;
  for (int64_t d = 0; d < batch_rank; ++d) {
    const int64_t a_dim = d - (batch_rank - (a_rank - 2));
    const int64_t b_dim = d - (batch_rank - (b_rank - 2));
    const int64_t a_size = a_dim >= 0 ? a_type.getDimSize(a_dim) : 1;
    const int64_t b_size = b_dim >= 0 ? b_type.getDimSize(b_dim) : 1;
    if (a_size != b_size) same_batches = false;
    if (!mlir::ShapedType::isDynamic(a_size) && !mlir::ShapedType::isDynamic(b_size) &&
        a_size != b_size && a_size != 1 && b_size != 1) {
      return node.Fail("the operands' batch dimensions do not broadcast (" +
                       std::to_string(a_size) + " and " + std::to_string(b_size) + ")");
    }
    // A dynamic size meets another as an equal one (tensor_builders.h).
    if (a_dim >= 0 && a_size != 1 && !mlir::ShapedType::isDynamic(a_size)) {
      batch[d] = a_sizes[a_dim];
    } else if (b_dim >= 0 && b_size != 1 && !mlir::ShapedType::isDynamic(b_size)) {
      batch[d] = b_sizes[b_dim];
    } else if (a_dim >= 0 && mlir::ShapedType::isDynamic(a_size)) {
      batch[d] = a_sizes[a_dim];
    } else if (b_dim >= 0 && mlir::ShapedType::isDynamic(b_size)) {
      batch[d] = b_sizes[b_dim];
    } else {
      batch[d] = builder.getIndexAttr(1);
    }
  }
  llvm::SmallVector<mlir::OpFoldResult> result_sizes(batch);
  result_sizes.push_back(m);
  result_sizes.push_back(n);

  // (Collapsing two dynamic batch sizes into one would need the expand_shape
  // kiln-compile crashes on, as above.)
  int64_t dynamic_batches = 0;
  for (int64_t d = 0; d < batch_rank && a_rank == b_rank; ++d) {
    dynamic_batches += a_type.isDynamicDim(d) ? 1 : 0;
  }
  if (same_batches && dynamic_batches < 2) {
    // One batch dimension: [B, M, K] x [B, K, N].
    mlir::Value a3 = a, b3 = b;
    llvm::SmallVector<mlir::ReassociationIndices> groups;
    if (batch_rank != 1) {
      mlir::ReassociationIndices leading;
      for (int64_t i = 0; i < batch_rank; ++i) leading.push_back(i);
      groups = {leading, {batch_rank}, {batch_rank + 1}};
      a3 = CollapseDims(builder, loc, a, groups);
      b3 = CollapseDims(builder, loc, b, groups);
    }
    mlir::OpFoldResult batch_count = ProductOfSizes(builder, loc, batch);
    mlir::Value init = FilledTensor(builder, loc, {batch_count, m, n}, zero);
    mlir::Value product = builder
                              .create<mlir::linalg::BatchMatmulOp>(loc, init.getType(),
                                                                   mlir::ValueRange{a3, b3}, init)
                              .getResult(0);
    if (batch_rank == 1) return product;
    return ExpandDims(builder, loc, product, groups, result_sizes);
  }

  // Broadcast batches: loops (batch..., m, n, k).
  const int64_t loops = batch_rank + 3;
  auto operand_map = [&](mlir::RankedTensorType type, int64_t row, int64_t column) {
    auto batch_type = mlir::RankedTensorType::get(type.getShape().drop_back(2),
                                                  type.getElementType());
    mlir::AffineMap map = TrailingBroadcastMap(context, batch_type, loops, 0, batch);
    llvm::SmallVector<mlir::AffineExpr> exprs(map.getResults());
    exprs.push_back(mlir::getAffineDimExpr(row, context));
    exprs.push_back(mlir::getAffineDimExpr(column, context));
    return mlir::AffineMap::get(loops, 0, exprs, context);
  };
  const int64_t m_loop = batch_rank, n_loop = batch_rank + 1, k_loop = batch_rank + 2;
  llvm::SmallVector<mlir::AffineMap> maps = {operand_map(a_type, m_loop, k_loop),
                                             operand_map(b_type, k_loop, n_loop)};
  mlir::AffineMap out_map = mlir::AffineMap::getMultiDimIdentityMap(loops, context).dropResult(k_loop);
  llvm::SmallVector<IteratorType> iterators(loops, IteratorType::parallel);
  iterators[k_loop] = IteratorType::reduction;
  mlir::Value init = FilledTensor(builder, loc, result_sizes, zero);
  return BuildGeneric(builder, loc, {a, b}, maps, init, out_map, iterators,
                      [](mlir::OpBuilder& nested, mlir::Location nested_loc, mlir::ValueRange args) {
                        return MultiplyAdd(nested, nested_loc, args[0], args[1], args[2]);
                      });
}

mlir::FailureOr<mlir::Value> BuildMatMul(NodeImporter& node, mlir::Value a, mlir::Value b) {
  mlir::OpBuilder& builder = node.builder();
  mlir::Location loc = node.loc();
  mlir::FailureOr<int64_t> a_rank = RankOf(node, a);
  mlir::FailureOr<int64_t> b_rank = RankOf(node, b);
  if (mlir::failed(a_rank) || mlir::failed(b_rank)) return mlir::failure();
  if (*a_rank == 0 || *b_rank == 0) return node.Fail("operands of rank 0 are not supported");
  // numpy: a vector is a matrix of one row (left) or one column (right)
  // whose unit dimension the result drops.
  if (*a_rank == 1) {
    llvm::SmallVector<mlir::OpFoldResult> sizes = TensorSizes(builder, loc, a);
    a = ExpandDims(builder, loc, a, {{0, 1}}, {builder.getIndexAttr(1), sizes[0]});
  }
  if (*b_rank == 1) {
    llvm::SmallVector<mlir::OpFoldResult> sizes = TensorSizes(builder, loc, b);
    b = ExpandDims(builder, loc, b, {{0, 1}}, {sizes[0], builder.getIndexAttr(1)});
  }
  mlir::FailureOr<mlir::Value> product = BuildBatchedProduct(node, a, b);
  if (mlir::failed(product) || (*a_rank > 1 && *b_rank > 1)) return product;
  auto type = llvm::cast<mlir::RankedTensorType>(product->getType());
  const int64_t rank = type.getRank();
  if (*a_rank == 1 && *b_rank == 1) return CollapseDims(builder, loc, *product, {});
  // Drop the unit M (or N) dimension: merge the last two dimensions.
  llvm::SmallVector<mlir::ReassociationIndices> groups;
  for (int64_t i = 0; i < rank - 2; ++i) groups.push_back({i});
  groups.push_back({rank - 2, rank - 1});
  return CollapseDims(builder, loc, *product, groups);
}

mlir::LogicalResult ConvertMatMul(NodeImporter& node) {
  const OnnxElementType type = node.InputElementType(0);
  if (!IsFloat(type) && type != onnx::TensorProto::INT32 && type != onnx::TensorProto::INT64 &&
      type != onnx::TensorProto::UINT32 && type != onnx::TensorProto::UINT64) {
    return node.Fail("operands of type " + OnnxElementTypeName(type) + " are not supported");
  }
  if (node.InputElementType(1) != type) return node.Fail("the operands' types differ");
  mlir::FailureOr<mlir::Value> product = BuildMatMul(node, node.Input(0), node.Input(1));
  if (mlir::failed(product)) return mlir::failure();
  node.SetOutput(0, *product, type);
  return mlir::success();
}

mlir::LogicalResult ConvertMatMulInteger(NodeImporter& node) {
  mlir::FailureOr<int64_t> a_rank = RankOf(node, node.Input(0));
  mlir::FailureOr<int64_t> b_rank = RankOf(node, node.Input(1));
  if (mlir::failed(a_rank) || mlir::failed(b_rank)) return mlir::failure();
  // A's zero points may be one per row (dimension -2); B's one per column
  // (the last dimension) broadcast as numpy does.
  mlir::FailureOr<mlir::Value> a = SubtractZeroPoint(node, 0, 2, *a_rank - 2);
  if (mlir::failed(a)) return mlir::failure();
  mlir::FailureOr<mlir::Value> b = SubtractZeroPoint(node, 1, 3, -1);
  if (mlir::failed(b)) return mlir::failure();
  mlir::FailureOr<mlir::Value> product = BuildMatMul(node, *a, *b);
  if (mlir::failed(product)) return mlir::failure();
  node.SetOutput(0, *product, onnx::TensorProto::INT32);
  return mlir::success();
}

mlir::LogicalResult ConvertGemm(NodeImporter& node) {
  mlir::OpBuilder& b = node.builder();
  mlir::Location loc = node.loc();
  mlir::MLIRContext* context = b.getContext();
  const OnnxElementType type = node.InputElementType(0);
  mlir::Value lhs = node.Input(0);
  mlir::Value rhs = node.Input(1);
  auto lhs_type = llvm::dyn_cast<mlir::RankedTensorType>(lhs.getType());
  auto rhs_type = llvm::dyn_cast<mlir::RankedTensorType>(rhs.getType());
  if (!lhs_type || !rhs_type || lhs_type.getRank() != 2 || rhs_type.getRank() != 2) {
    return node.Fail("A and B must be matrices");
  }
  if (node.InputElementType(1) != type) return node.Fail("the operands' types differ");
  const bool trans_a = node.IntAttribute("transA", 0) != 0;
  const bool trans_b = node.IntAttribute("transB", 0) != 0;
  const float alpha = node.FloatAttribute("alpha", 1.0f);
  const float beta = node.FloatAttribute("beta", 1.0f);
  const bool has_c = node.HasInput(2);
  if (!IsFloat(type) && (alpha != 1.0f || (has_c && beta != 1.0f))) {
    return node.Fail("alpha and beta other than 1 are supported for floating-point types only");
  }
  mlir::Type element_type = lhs_type.getElementType();
  llvm::SmallVector<mlir::OpFoldResult> lhs_sizes = TensorSizes(b, loc, lhs);
  llvm::SmallVector<mlir::OpFoldResult> rhs_sizes = TensorSizes(b, loc, rhs);
  mlir::OpFoldResult m = lhs_sizes[trans_a ? 1 : 0];
  mlir::OpFoldResult n = rhs_sizes[trans_b ? 0 : 1];
  const int64_t lhs_k = lhs_type.getDimSize(trans_a ? 0 : 1);
  const int64_t rhs_k = rhs_type.getDimSize(trans_b ? 1 : 0);
  if (!mlir::ShapedType::isDynamic(lhs_k) && !mlir::ShapedType::isDynamic(rhs_k) &&
      lhs_k != rhs_k) {
    return node.Fail("the operands' inner dimensions differ (" + std::to_string(lhs_k) + " and " +
                     std::to_string(rhs_k) + ")");
  }
  // C is added after the product (not its accumulator's initial value:
  // kiln-compile loses the accumulation of a contraction whose init another
  // dispatch computes, onnx-gaps/contraction-init-from-dispatch.mlir).
  mlir::Value init = FilledTensor(b, loc, {m, n}, ScalarConstant(b, loc, element_type, 0));
  auto matmul =
      b.create<mlir::linalg::MatmulOp>(loc, init.getType(), mlir::ValueRange{lhs, rhs}, init);
  if (trans_a || trans_b) {
    mlir::AffineExpr dm, dn, dk;
    mlir::bindDims(context, dm, dn, dk);
    llvm::SmallVector<mlir::AffineMap> maps = {
        mlir::AffineMap::get(3, 0, trans_a ? llvm::ArrayRef{dk, dm} : llvm::ArrayRef{dm, dk},
                             context),
        mlir::AffineMap::get(3, 0, trans_b ? llvm::ArrayRef{dn, dk} : llvm::ArrayRef{dk, dn},
                             context),
        mlir::AffineMap::get(3, 0, {dm, dn}, context)};
    matmul.setIndexingMapsAttr(b.getAffineMapArrayAttr(maps));
  }
  mlir::Value result = matmul.getResult(0);
  if (alpha != 1.0f || has_c) {
    llvm::SmallVector<mlir::Value> operands = {result};
    if (has_c) {
      if (node.InputElementType(2) != type) return node.Fail("C has another type than A and B");
      mlir::FailureOr<mlir::Value> c = BroadcastToSizes(node, node.Input(2), {m, n}, element_type);
      if (mlir::failed(c)) return mlir::failure();
      operands.push_back(*c);
    }
    mlir::FailureOr<mlir::Value> scaled = BuildElementwise(
        node, operands, element_type,
        [&](mlir::OpBuilder& nested, mlir::Location nested_loc, mlir::ValueRange x) -> mlir::Value {
          mlir::Value y = x[0];
          if (alpha != 1.0f) {
            y = nested.create<mlir::arith::MulFOp>(
                nested_loc, y, ScalarConstant(nested, nested_loc, element_type, alpha));
          }
          if (x.size() > 1) {
            mlir::Value c = x[1];
            if (beta != 1.0f) {
              c = nested.create<mlir::arith::MulFOp>(
                  nested_loc, c, ScalarConstant(nested, nested_loc, element_type, beta));
            }
            y = IsFloat(type) ? nested.create<mlir::arith::AddFOp>(nested_loc, y, c).getResult()
                              : nested.create<mlir::arith::AddIOp>(nested_loc, y, c).getResult();
          }
          return y;
        });
    if (mlir::failed(scaled)) return mlir::failure();
    result = *scaled;
  }
  node.SetOutput(0, result, type);
  return mlir::success();
}

}  // namespace

void RegisterLinearOps(OpRegistry& registry) {
  registry.Register("MatMul", ConvertMatMul, 1);
  registry.Register("MatMulInteger", ConvertMatMulInteger, 10);
  // Gemm-7 made C broadcast unidirectionally (Gemm-6 had a broadcast flag).
  registry.Register("Gemm", ConvertGemm, 7);
  RegisterEinsumOp(registry);
}

}  // namespace kiln::onnx_import
