// Indexing ops: Gather, GatherElements, GatherND, ScatterElements (and the
// deprecated Scatter), ScatterND, Compress, NonZero.
//
// Gathers are linalg.generics over the output that read the data with
// tensor.extract at the positions the indices give (negative indices wrap).
// Scatters are linalg.generics over the data whose reduction loops run over
// the updates: each output element combines the updates aimed at it, in
// order (so with reduction none the last one wins, as ONNX Runtime does).
// Compress and NonZero make outputs whose sizes depend on values: they are
// supported where those values are known at import time.
#include "compiler/onnx/node_importer.h"
#include "compiler/onnx/op_registry.h"
#include "compiler/onnx/shape_builders.h"
#include "compiler/onnx/tensor_builders.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace kiln::onnx_import {
namespace {

using mlir::OpFoldResult;
using Pred = mlir::arith::CmpIPredicate;

// Normalizes known indices into [0, size); failure (reported) when out of
// range.
mlir::LogicalResult NormalizeIndices(NodeImporter& node, std::vector<int64_t>& indices,
                                     int64_t size) {
  for (int64_t& index : indices) {
    if (index < -size || index >= size) {
      return node.Fail("index " + std::to_string(index) + " is out of range for size " +
                       std::to_string(size));
    }
    if (index < 0) index += size;
  }
  return mlir::success();
}

// Data gathered along `axis` at `indices` (a tensor of ONNX type
// `indices_type`): out[i.., j.., k..] = data[i.., indices[j..], k..].
mlir::Value BuildGather(NodeImporter& node, mlir::Value data, mlir::Value indices,
                        OnnxElementType indices_type, int64_t axis, int64_t output_index) {
  mlir::OpBuilder& b = node.builder();
  auto type = llvm::cast<mlir::RankedTensorType>(data.getType());
  const int64_t rank = type.getRank();
  const int64_t q = llvm::cast<mlir::RankedTensorType>(indices.getType()).getRank();
  llvm::SmallVector<OpFoldResult> dims = TensorSizes(b, node.loc(), data);
  llvm::SmallVector<OpFoldResult> index_sizes = TensorSizes(b, node.loc(), indices);
  llvm::SmallVector<OpFoldResult> sizes(dims.begin(), dims.begin() + axis);
  sizes.append(index_sizes.begin(), index_sizes.end());
  sizes.append(dims.begin() + axis + 1, dims.end());
  sizes = RefineSizes(node, output_index, sizes);
  const int64_t output_rank = sizes.size();
  IndexMath math(b, node.loc());
  mlir::Value axis_size = math.Value(dims[axis]);
  llvm::SmallVector<mlir::AffineExpr> exprs;
  for (int64_t j = 0; j < q; ++j) exprs.push_back(b.getAffineDimExpr(axis + j));
  mlir::AffineMap map = mlir::AffineMap::get(output_rank, 0, exprs, b.getContext());
  return BuildIndexedGeneric(
      node, sizes, type.getElementType(), {indices}, {map},
      [&](mlir::OpBuilder& nested, mlir::Location loc, mlir::ValueRange loop,
          mlir::ValueRange scalars) -> mlir::Value {
        llvm::SmallVector<mlir::Value> at(loop.begin(), loop.begin() + axis);
        at.push_back(WrapIndex(nested, loc, scalars[0], indices_type, axis_size));
        at.append(loop.begin() + axis + q, loop.end());
        (void)rank;
        return nested.create<mlir::tensor::ExtractOp>(loc, data, at);
      });
}

mlir::LogicalResult ConvertGather(NodeImporter& node) {
  mlir::Value data = node.Input(0), indices = node.Input(1);
  mlir::FailureOr<int64_t> rank = RankOf(node, data);
  if (mlir::failed(rank) || mlir::failed(RankOf(node, indices))) return mlir::failure();
  mlir::FailureOr<int64_t> axis = NormalizeAxis(node, node.IntAttribute("axis", 0), *rank);
  if (mlir::failed(axis)) return mlir::failure();
  auto type = llvm::cast<mlir::RankedTensorType>(data.getType());
  auto indices_type = llvm::cast<mlir::RankedTensorType>(indices.getType());
  const int64_t q = indices_type.getRank();
  std::optional<std::vector<int64_t>> known_indices = node.InputInts(1);
  if (known_indices && !type.isDynamicDim(*axis)) {
    if (mlir::failed(NormalizeIndices(node, *known_indices, type.getDimSize(*axis)))) {
      return mlir::failure();
    }
    // Shape tensors: pick their elements.
    if (*rank == 1 && q <= 1) {
      if (auto elements = KnownElements(node, 0)) {
        llvm::SmallVector<OpFoldResult> picked;
        for (int64_t index : *known_indices) picked.push_back((*elements)[index]);
        SetShapeOutput(node, 0, picked, /*scalar=*/q == 0, node.InputElementType(0));
        return mlir::success();
      }
    }
    if (mlir::DenseElementsAttr contents = node.InputConstant(0)) {
      if (type.hasStaticShape()) {
        llvm::SmallVector<int64_t> shape(type.getShape().take_front(*axis));
        shape.append(indices_type.getShape().begin(), indices_type.getShape().end());
        shape.append(type.getShape().begin() + *axis + 1, type.getShape().end());
        llvm::SmallVector<int64_t> strides = Strides(type.getShape());
        llvm::SmallVector<int64_t> index_strides = Strides(indices_type.getShape());
        mlir::DenseElementsAttr folded =
            FoldMovement(contents, mlir::RankedTensorType::get(shape, type.getElementType()),
                         [&](llvm::ArrayRef<int64_t> position) {
                           int64_t flat = 0, which = 0;
                           for (int64_t d = 0; d < *axis; ++d) flat += position[d] * strides[d];
                           for (int64_t j = 0; j < q; ++j)
                             which += position[*axis + j] * index_strides[j];
                           flat += (*known_indices)[which] * strides[*axis];
                           for (int64_t d = *axis + 1; d < *rank; ++d) {
                             flat += position[d - 1 + q] * strides[d];
                           }
                           return flat;
                         });
        if (folded) {
          node.SetConstantOutput(0, folded, node.InputElementType(0));
          return mlir::success();
        }
      }
    }
  }
  node.SetOutput(0, BuildGather(node, data, indices, node.InputElementType(1), *axis, 0),
                 node.InputElementType(0));
  return mlir::success();
}

mlir::LogicalResult ConvertGatherElements(NodeImporter& node) {
  mlir::Value data = node.Input(0), indices = node.Input(1);
  mlir::FailureOr<int64_t> rank = RankOf(node, data);
  if (mlir::failed(rank)) return mlir::failure();
  mlir::FailureOr<int64_t> index_rank = RankOf(node, indices);
  if (mlir::failed(index_rank)) return mlir::failure();
  if (*index_rank != *rank) return node.Fail("data and indices must have the same rank");
  mlir::FailureOr<int64_t> axis = NormalizeAxis(node, node.IntAttribute("axis", 0), *rank);
  if (mlir::failed(axis)) return mlir::failure();
  mlir::OpBuilder& b = node.builder();
  auto type = llvm::cast<mlir::RankedTensorType>(data.getType());
  auto indices_type = llvm::cast<mlir::RankedTensorType>(indices.getType());
  std::optional<std::vector<int64_t>> known_indices = node.InputInts(1);
  mlir::DenseElementsAttr contents = node.InputConstant(0);
  if (known_indices && contents && type.hasStaticShape() && indices_type.hasStaticShape()) {
    if (mlir::failed(NormalizeIndices(node, *known_indices, type.getDimSize(*axis)))) {
      return mlir::failure();
    }
    llvm::SmallVector<int64_t> strides = Strides(type.getShape());
    llvm::SmallVector<int64_t> index_strides = Strides(indices_type.getShape());
    mlir::DenseElementsAttr folded = FoldMovement(
        contents, mlir::RankedTensorType::get(indices_type.getShape(), type.getElementType()),
        [&](llvm::ArrayRef<int64_t> position) {
          int64_t flat = 0, which = 0;
          for (int64_t d = 0; d < *rank; ++d) which += position[d] * index_strides[d];
          for (int64_t d = 0; d < *rank; ++d) {
            flat += (d == *axis ? (*known_indices)[which] : position[d]) * strides[d];
          }
          return flat;
        });
    if (folded) {
      node.SetConstantOutput(0, folded, node.InputElementType(0));
      return mlir::success();
    }
  }
  IndexMath math(b, node.loc());
  mlir::Value axis_size = math.Value(TensorSizes(b, node.loc(), data)[*axis]);
  const OnnxElementType index_type = node.InputElementType(1);
  llvm::SmallVector<OpFoldResult> sizes = RefineSizes(node, 0, TensorSizes(b, node.loc(), indices));
  mlir::Value result =
      BuildIndexedGeneric(node, sizes, type.getElementType(), {indices}, {},
                          [&](mlir::OpBuilder& nested, mlir::Location loc, mlir::ValueRange loop,
                              mlir::ValueRange scalars) -> mlir::Value {
                            llvm::SmallVector<mlir::Value> at(loop);
                            at[*axis] = WrapIndex(nested, loc, scalars[0], index_type, axis_size);
                            return nested.create<mlir::tensor::ExtractOp>(loc, data, at);
                          });
  node.SetOutput(0, result, node.InputElementType(0));
  return mlir::success();
}

mlir::LogicalResult ConvertGatherND(NodeImporter& node) {
  mlir::Value data = node.Input(0), indices = node.Input(1);
  mlir::FailureOr<int64_t> rank = RankOf(node, data);
  if (mlir::failed(rank)) return mlir::failure();
  mlir::FailureOr<int64_t> q = RankOf(node, indices);
  if (mlir::failed(q)) return mlir::failure();
  auto type = llvm::cast<mlir::RankedTensorType>(data.getType());
  auto indices_type = llvm::cast<mlir::RankedTensorType>(indices.getType());
  const int64_t batch = node.IntAttribute("batch_dims", 0);
  if (*q < 1 || indices_type.isDynamicDim(*q - 1)) {
    return node.Fail("the indices' last dimension must be static");
  }
  const int64_t k = indices_type.getDimSize(*q - 1);
  if (batch < 0 || batch >= std::min(*q, *rank) || batch + k > *rank) {
    return node.Fail("batch_dims " + std::to_string(batch) + " and index length " +
                     std::to_string(k) + " do not fit data of rank " + std::to_string(*rank) +
                     " and indices of rank " + std::to_string(*q));
  }
  mlir::OpBuilder& b = node.builder();
  llvm::SmallVector<OpFoldResult> dims = TensorSizes(b, node.loc(), data);
  llvm::SmallVector<OpFoldResult> index_sizes = TensorSizes(b, node.loc(), indices);
  llvm::SmallVector<OpFoldResult> sizes(index_sizes.begin(), index_sizes.end() - 1);
  sizes.append(dims.begin() + batch + k, dims.end());
  sizes = RefineSizes(node, 0, sizes);
  std::optional<std::vector<int64_t>> known_indices = node.InputInts(1);
  mlir::DenseElementsAttr contents = node.InputConstant(0);
  if (known_indices && contents && type.hasStaticShape() && indices_type.hasStaticShape()) {
    llvm::SmallVector<int64_t> strides = Strides(type.getShape());
    llvm::SmallVector<int64_t> index_strides = Strides(indices_type.getShape());
    bool in_range = true;
    mlir::DenseElementsAttr folded = FoldMovement(
        contents, mlir::RankedTensorType::get(StaticShape(sizes), type.getElementType()),
        [&](llvm::ArrayRef<int64_t> position) {
          int64_t flat = 0, base = 0;
          for (int64_t d = 0; d < *q - 1; ++d) base += position[d] * index_strides[d];
          for (int64_t d = 0; d < batch; ++d) flat += position[d] * strides[d];
          for (int64_t m = 0; m < k; ++m) {
            int64_t index = (*known_indices)[base + m];
            const int64_t size = type.getDimSize(batch + m);
            if (index < 0) index += size;
            if (index < 0 || index >= size) in_range = false;
            flat += std::clamp<int64_t>(index, 0, size - 1) * strides[batch + m];
          }
          for (int64_t d = batch + k; d < *rank; ++d) {
            flat += position[*q - 1 + d - batch - k] * strides[d];
          }
          return flat;
        });
    if (!in_range) return node.Fail("an index is out of range");
    if (folded) {
      node.SetConstantOutput(0, folded, node.InputElementType(0));
      return mlir::success();
    }
  }
  IndexMath math(b, node.loc());
  llvm::SmallVector<mlir::Value> dim_values;
  for (OpFoldResult dim : dims) dim_values.push_back(math.Value(dim));
  const OnnxElementType index_type = node.InputElementType(1);
  mlir::Value result = BuildIndexedGeneric(
      node, sizes, type.getElementType(), {}, {},
      [&](mlir::OpBuilder& nested, mlir::Location loc, mlir::ValueRange loop,
          mlir::ValueRange) -> mlir::Value {
        llvm::SmallVector<mlir::Value> at(loop.begin(), loop.begin() + batch);
        llvm::SmallVector<mlir::Value> index_at(loop.begin(), loop.begin() + (*q - 1));
        for (int64_t m = 0; m < k; ++m) {
          index_at.push_back(nested.create<mlir::arith::ConstantIndexOp>(loc, m));
          mlir::Value index = nested.create<mlir::tensor::ExtractOp>(loc, indices, index_at);
          index_at.pop_back();
          at.push_back(WrapIndex(nested, loc, index, index_type, dim_values[batch + m]));
        }
        at.append(loop.begin() + (*q - 1), loop.end());
        return nested.create<mlir::tensor::ExtractOp>(loc, data, at);
      });
  node.SetOutput(0, result, node.InputElementType(0));
  return mlir::success();
}

// How a scatter combines an update with the element it lands on.
mlir::FailureOr<std::function<mlir::Value(mlir::OpBuilder&, mlir::Location, mlir::Value old,
                                          mlir::Value update)>>
ScatterCombiner(NodeImporter& node, OnnxElementType type) {
  const std::string reduction = node.StringAttribute("reduction", "none");
  const bool is_float = IsFloat(type), is_unsigned = IsUnsigned(type);
  using Combine =
      std::function<mlir::Value(mlir::OpBuilder&, mlir::Location, mlir::Value, mlir::Value)>;
  if (reduction == "none") {
    return Combine(
        [](mlir::OpBuilder&, mlir::Location, mlir::Value, mlir::Value update) { return update; });
  }
  if (type == onnx::TensorProto::BOOL) {
    return node.Fail("reduction '" + reduction + "' of bool tensors is not supported");
  }
  if (reduction == "add") {
    return Combine([=](mlir::OpBuilder& b, mlir::Location loc, mlir::Value old,
                       mlir::Value update) -> mlir::Value {
      if (is_float) return b.create<mlir::arith::AddFOp>(loc, old, update);
      return b.create<mlir::arith::AddIOp>(loc, old, update);
    });
  }
  if (reduction == "mul") {
    return Combine([=](mlir::OpBuilder& b, mlir::Location loc, mlir::Value old,
                       mlir::Value update) -> mlir::Value {
      if (is_float) return b.create<mlir::arith::MulFOp>(loc, old, update);
      return b.create<mlir::arith::MulIOp>(loc, old, update);
    });
  }
  if (reduction == "max") {
    return Combine([=](mlir::OpBuilder& b, mlir::Location loc, mlir::Value old,
                       mlir::Value update) -> mlir::Value {
      if (is_float) return b.create<mlir::arith::MaximumFOp>(loc, old, update);
      if (is_unsigned) return b.create<mlir::arith::MaxUIOp>(loc, old, update);
      return b.create<mlir::arith::MaxSIOp>(loc, old, update);
    });
  }
  if (reduction == "min") {
    return Combine([=](mlir::OpBuilder& b, mlir::Location loc, mlir::Value old,
                       mlir::Value update) -> mlir::Value {
      if (is_float) return b.create<mlir::arith::MinimumFOp>(loc, old, update);
      if (is_unsigned) return b.create<mlir::arith::MinUIOp>(loc, old, update);
      return b.create<mlir::arith::MinSIOp>(loc, old, update);
    });
  }
  return node.Fail("reduction '" + reduction + "' is not supported");
}

// A generic over the data's dims (parallel) and `reduction_sizes`
// (reduction loops over the updates) whose init is the data: `body(loop,
// old element, scalars of `inputs`)` is the element after one update.
mlir::Value BuildScatterGeneric(
    NodeImporter& node, mlir::Value data, llvm::ArrayRef<OpFoldResult> reduction_sizes,
    mlir::ValueRange inputs, llvm::ArrayRef<mlir::AffineMap> input_maps,
    const std::function<mlir::Value(mlir::OpBuilder&, mlir::Location, mlir::ValueRange loop,
                                    mlir::Value old, mlir::ValueRange scalars)>& body) {
  mlir::OpBuilder& b = node.builder();
  auto type = llvm::cast<mlir::RankedTensorType>(data.getType());
  const int64_t rank = type.getRank();
  const int64_t loops = rank + reduction_sizes.size();
  llvm::SmallVector<mlir::AffineMap> maps(input_maps);
  llvm::SmallVector<mlir::AffineExpr> data_exprs;
  for (int64_t d = 0; d < rank; ++d) data_exprs.push_back(b.getAffineDimExpr(d));
  maps.push_back(mlir::AffineMap::get(loops, 0, data_exprs, b.getContext()));
  llvm::SmallVector<mlir::utils::IteratorType> iterators(rank, mlir::utils::IteratorType::parallel);
  iterators.append(reduction_sizes.size(), mlir::utils::IteratorType::reduction);
  auto generic = b.create<mlir::linalg::GenericOp>(
      node.loc(), type, inputs, mlir::ValueRange{data}, maps, iterators,
      [&](mlir::OpBuilder& nested, mlir::Location loc, mlir::ValueRange args) {
        llvm::SmallVector<mlir::Value> loop = LoopIndices(nested, loc, loops);
        mlir::Value result = body(nested, loc, loop, args.back(), args.drop_back());
        nested.create<mlir::linalg::YieldOp>(loc, result);
      });
  return generic.getResult(0);
}

mlir::LogicalResult ConvertScatterElements(NodeImporter& node) {
  mlir::Value data = node.Input(0), indices = node.Input(1), updates = node.Input(2);
  mlir::FailureOr<int64_t> rank = RankOf(node, data);
  if (mlir::failed(rank) || mlir::failed(RankOf(node, indices)) ||
      mlir::failed(RankOf(node, updates))) {
    return mlir::failure();
  }
  auto indices_type = llvm::cast<mlir::RankedTensorType>(indices.getType());
  auto updates_type = llvm::cast<mlir::RankedTensorType>(updates.getType());
  if (indices_type.getRank() != *rank || updates_type.getRank() != *rank) {
    return node.Fail("data, indices and updates must have the same rank");
  }
  mlir::FailureOr<int64_t> axis = NormalizeAxis(node, node.IntAttribute("axis", 0), *rank);
  if (mlir::failed(axis)) return mlir::failure();
  const OnnxElementType element_type = node.InputElementType(0);
  auto combine = ScatterCombiner(node, element_type);
  if (mlir::failed(combine)) return mlir::failure();
  mlir::OpBuilder& b = node.builder();
  if (llvm::is_contained(indices_type.getShape(), 0)) {
    node.SetOutput(0, data, element_type);
    return mlir::success();
  }
  IndexMath math(b, node.loc());
  llvm::SmallVector<OpFoldResult> dims = TensorSizes(b, node.loc(), data);
  llvm::SmallVector<OpFoldResult> index_sizes = TensorSizes(b, node.loc(), indices);
  mlir::Value axis_size = math.Value(dims[*axis]);
  llvm::SmallVector<mlir::Value> index_size_values;
  for (OpFoldResult size : index_sizes) index_size_values.push_back(math.Value(size));
  const OnnxElementType index_type = node.InputElementType(1);
  const int64_t rank_value = *rank, axis_value = *axis;
  // The reduction loop's extent (linalg reads loop ranges off operands): an
  // unread tensor of the updates' size along the axis.
  mlir::Value extent = EmptyTensor(b, node.loc(), {index_sizes[*axis]}, b.getI8Type());
  mlir::AffineMap extent_map =
      mlir::AffineMap::get(*rank + 1, 0, {b.getAffineDimExpr(*rank)}, b.getContext());
  mlir::Value result = BuildScatterGeneric(
      node, data, {index_sizes[*axis]}, {extent}, {extent_map},
      [&](mlir::OpBuilder& nested, mlir::Location loc, mlir::ValueRange loop, mlir::Value old,
          mlir::ValueRange) -> mlir::Value {
        // Update position: the element's own position, the axis's taken
        // from the reduction loop; outside the updates' extent nothing
        // lands (read clamped, not used).
        mlir::Value one = nested.create<mlir::arith::ConstantIndexOp>(loc, 1);
        mlir::Value lands = nested.create<mlir::arith::ConstantIntOp>(loc, 1, 1);
        llvm::SmallVector<mlir::Value> at;
        for (int64_t d = 0; d < rank_value; ++d) {
          if (d == axis_value) {
            at.push_back(loop[rank_value]);
            continue;
          }
          if (SameSize(index_sizes[d], dims[d])) {
            at.push_back(loop[d]);
            continue;
          }
          mlir::Value within =
              nested.create<mlir::arith::CmpIOp>(loc, Pred::slt, loop[d], index_size_values[d]);
          lands = nested.create<mlir::arith::AndIOp>(loc, lands, within);
          mlir::Value last = nested.create<mlir::arith::SubIOp>(loc, index_size_values[d], one);
          at.push_back(nested.create<mlir::arith::MinSIOp>(loc, loop[d], last));
        }
        mlir::Value raw = nested.create<mlir::tensor::ExtractOp>(loc, indices, at);
        mlir::Value index = WrapIndex(nested, loc, raw, index_type, axis_size);
        mlir::Value hits =
            nested.create<mlir::arith::CmpIOp>(loc, Pred::eq, index, loop[axis_value]);
        lands = nested.create<mlir::arith::AndIOp>(loc, lands, hits);
        mlir::Value update = nested.create<mlir::tensor::ExtractOp>(loc, updates, at);
        mlir::Value combined = (*combine)(nested, loc, old, update);
        return nested.create<mlir::arith::SelectOp>(loc, lands, combined, old);
      });
  node.SetOutput(0, result, element_type);
  return mlir::success();
}

mlir::LogicalResult ConvertScatterND(NodeImporter& node) {
  mlir::Value data = node.Input(0), indices = node.Input(1), updates = node.Input(2);
  mlir::FailureOr<int64_t> rank = RankOf(node, data);
  if (mlir::failed(rank)) return mlir::failure();
  mlir::FailureOr<int64_t> q = RankOf(node, indices);
  if (mlir::failed(q) || mlir::failed(RankOf(node, updates))) return mlir::failure();
  auto indices_type = llvm::cast<mlir::RankedTensorType>(indices.getType());
  if (*q < 1 || indices_type.isDynamicDim(*q - 1)) {
    return node.Fail("the indices' last dimension must be static");
  }
  const int64_t k = indices_type.getDimSize(*q - 1);
  if (k > *rank) return node.Fail("the index length exceeds the data's rank");
  const int64_t updates_rank = llvm::cast<mlir::RankedTensorType>(updates.getType()).getRank();
  if (updates_rank != *q - 1 + *rank - k) {
    return node.Fail("updates must have rank " + std::to_string(*q - 1 + *rank - k));
  }
  const OnnxElementType element_type = node.InputElementType(0);
  auto combine = ScatterCombiner(node, element_type);
  if (mlir::failed(combine)) return mlir::failure();
  mlir::OpBuilder& b = node.builder();
  if (llvm::is_contained(indices_type.getShape().drop_back(), 0)) {
    node.SetOutput(0, data, element_type);
    return mlir::success();
  }
  IndexMath math(b, node.loc());
  llvm::SmallVector<OpFoldResult> dims = TensorSizes(b, node.loc(), data);
  llvm::SmallVector<OpFoldResult> index_sizes = TensorSizes(b, node.loc(), indices);
  llvm::SmallVector<mlir::Value> dim_values;
  for (OpFoldResult dim : dims) dim_values.push_back(math.Value(dim));
  // Loops: the data's dims, then the update positions (indices[..., :]).
  const int64_t loops = *rank + *q - 1;
  llvm::SmallVector<mlir::AffineExpr> update_exprs;
  for (int64_t u = 0; u < *q - 1; ++u) update_exprs.push_back(b.getAffineDimExpr(*rank + u));
  for (int64_t d = k; d < *rank; ++d) update_exprs.push_back(b.getAffineDimExpr(d));
  mlir::AffineMap update_map = mlir::AffineMap::get(loops, 0, update_exprs, b.getContext());
  const OnnxElementType index_type = node.InputElementType(1);
  const int64_t rank_value = *rank, q_value = *q;
  mlir::Value result = BuildScatterGeneric(
      node, data, llvm::ArrayRef<OpFoldResult>(index_sizes).drop_back(), {updates}, {update_map},
      [&](mlir::OpBuilder& nested, mlir::Location loc, mlir::ValueRange loop, mlir::Value old,
          mlir::ValueRange scalars) -> mlir::Value {
        mlir::Value lands = nested.create<mlir::arith::ConstantIntOp>(loc, 1, 1);
        llvm::SmallVector<mlir::Value> at(loop.begin() + rank_value, loop.end());
        for (int64_t m = 0; m < k; ++m) {
          at.push_back(nested.create<mlir::arith::ConstantIndexOp>(loc, m));
          mlir::Value raw = nested.create<mlir::tensor::ExtractOp>(loc, indices, at);
          at.pop_back();
          mlir::Value index = WrapIndex(nested, loc, raw, index_type, dim_values[m]);
          mlir::Value hits = nested.create<mlir::arith::CmpIOp>(loc, Pred::eq, index, loop[m]);
          lands = nested.create<mlir::arith::AndIOp>(loc, lands, hits);
        }
        (void)q_value;
        mlir::Value combined = (*combine)(nested, loc, old, scalars[0]);
        return nested.create<mlir::arith::SelectOp>(loc, lands, combined, old);
      });
  node.SetOutput(0, result, element_type);
  return mlir::success();
}

mlir::LogicalResult ConvertCompress(NodeImporter& node) {
  mlir::Value input = node.Input(0);
  mlir::FailureOr<int64_t> rank = RankOf(node, input);
  if (mlir::failed(rank)) return mlir::failure();
  mlir::DenseElementsAttr condition = node.InputConstant(1);
  if (!condition) {
    return node.Fail(
        "the output's size depends on the condition's values, which must be known "
        "at import time (a constant or an initializer)");
  }
  mlir::OpBuilder& b = node.builder();
  const ImportedValue* info = node.InputInfo(0);
  mlir::Value data = input;
  int64_t axis = 0;
  if (node.HasAttribute("axis")) {
    mlir::FailureOr<int64_t> normalized = NormalizeAxis(node, node.IntAttribute("axis", 0), *rank);
    if (mlir::failed(normalized)) return mlir::failure();
    axis = *normalized;
  } else {
    // Without an axis the input is flattened first.
    IndexMath math(b, node.loc());
    data = ReshapeTo(node, input, {math.Product(TensorSizes(b, node.loc(), input))});
  }
  auto type = llvm::cast<mlir::RankedTensorType>(data.getType());
  std::vector<int64_t> selected;
  int64_t position = 0;
  for (const llvm::APInt& value : condition.getValues<llvm::APInt>()) {
    if (!value.isZero()) selected.push_back(position);
    ++position;
  }
  if (!selected.empty() && !type.isDynamicDim(axis) && selected.back() >= type.getDimSize(axis)) {
    return node.Fail("the condition selects past the end of the input");
  }
  auto indices_type =
      mlir::RankedTensorType::get({static_cast<int64_t>(selected.size())}, b.getI64Type());
  auto indices_attr = mlir::DenseElementsAttr::get(indices_type, llvm::ArrayRef<int64_t>(selected));
  if (info->constant && type.hasStaticShape()) {
    llvm::SmallVector<int64_t> shape(type.getShape());
    shape[axis] = selected.size();
    llvm::SmallVector<int64_t> strides = Strides(type.getShape());
    mlir::DenseElementsAttr folded = FoldMovement(
        mlir::DenseElementsAttr(info->constant).reshape(type),
        mlir::RankedTensorType::get(shape, type.getElementType()), [&](llvm::ArrayRef<int64_t> at) {
          int64_t flat = 0;
          for (int64_t d = 0; d < type.getRank(); ++d) {
            flat += (d == axis ? selected[at[d]] : at[d]) * strides[d];
          }
          return flat;
        });
    if (folded) {
      node.SetConstantOutput(0, folded, info->element_type);
      return mlir::success();
    }
  }
  mlir::Value indices = b.create<mlir::arith::ConstantOp>(node.loc(), indices_attr);
  node.SetOutput(0, BuildGather(node, data, indices, onnx::TensorProto::INT64, axis, 0),
                 info->element_type);
  return mlir::success();
}

mlir::LogicalResult ConvertNonZero(NodeImporter& node) {
  mlir::DenseElementsAttr contents = node.InputConstant(0);
  if (!contents) {
    return node.Fail(
        "the output's size depends on the input's values, which must be known at "
        "import time (a constant or an initializer)");
  }
  auto type = llvm::cast<mlir::RankedTensorType>(contents.getType());
  const int64_t rank = type.getRank();
  std::vector<int64_t> positions;
  int64_t flat = 0;
  for (mlir::Attribute element : contents.getValues<mlir::Attribute>()) {
    bool nonzero = false;
    if (auto f = llvm::dyn_cast<mlir::FloatAttr>(element)) {
      nonzero = !f.getValue().isZero();
    } else {
      nonzero = !llvm::cast<mlir::IntegerAttr>(element).getValue().isZero();
    }
    if (nonzero) positions.push_back(flat);
    ++flat;
  }
  const int64_t count = positions.size();
  // [rank, count]: row d holds coordinate d of each nonzero (row-major order).
  std::vector<int64_t> result(rank * count);
  llvm::SmallVector<int64_t> strides = Strides(type.getShape());
  for (int64_t j = 0; j < count; ++j) {
    int64_t rest = positions[j];
    for (int64_t d = 0; d < rank; ++d) {
      result[d * count + j] = rest / strides[d];
      rest %= strides[d];
    }
  }
  mlir::OpBuilder& b = node.builder();
  auto result_type = mlir::RankedTensorType::get({rank, count}, b.getI64Type());
  node.SetConstantOutput(0,
                         mlir::DenseElementsAttr::get(result_type, llvm::ArrayRef<int64_t>(result)),
                         onnx::TensorProto::INT64);
  return mlir::success();
}

}  // namespace

void RegisterIndexingOps(OpRegistry& registry) {
  registry.Register("Gather", ConvertGather);
  registry.Register("GatherElements", ConvertGatherElements, 11);
  registry.Register("GatherND", ConvertGatherND, 11);
  registry.Register("ScatterElements", ConvertScatterElements, 11);
  registry.Register("Scatter", ConvertScatterElements, 9);
  registry.Register("ScatterND", ConvertScatterND, 11);
  registry.Register("Compress", ConvertCompress, 9);
  registry.Register("NonZero", ConvertNonZero, 9);
}

}  // namespace kiln::onnx_import
