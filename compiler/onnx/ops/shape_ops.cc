// Shape ops: Shape, Size, Reshape, Flatten, Squeeze, Unsqueeze, Expand,
// ConstantOfShape. Shape computations fold where the sizes they read are
// static, and stay shape tensors of tensor.dim values (shape_builders.h)
// where they are dynamic; the reshapes are tensor.collapse_shape and
// tensor.expand_shape.
#include "compiler/onnx/node_importer.h"
#include "compiler/onnx/op_registry.h"
#include "compiler/onnx/shape_builders.h"
#include "compiler/onnx/tensor_builders.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace kiln::onnx_import {
namespace {

using mlir::OpFoldResult;

mlir::LogicalResult ConvertShape(NodeImporter& node) {
  mlir::Value x = node.Input(0);
  mlir::FailureOr<int64_t> rank = RankOf(node, x);
  if (mlir::failed(rank)) return mlir::failure();
  // start/end (opset 15) are clamped into [0, rank] after negative ones
  // count from the back.
  auto normalize = [&](int64_t value) {
    if (value < 0) value += *rank;
    return std::clamp<int64_t>(value, 0, *rank);
  };
  const int64_t start = normalize(node.IntAttribute("start", 0));
  const int64_t end = normalize(node.IntAttribute("end", *rank));
  llvm::SmallVector<OpFoldResult> sizes = TensorSizes(node.builder(), node.loc(), x);
  llvm::SmallVector<OpFoldResult> elements;
  for (int64_t i = start; i < end; ++i) elements.push_back(sizes[i]);
  SetShapeOutput(node, 0, elements, /*scalar=*/false);
  return mlir::success();
}

mlir::LogicalResult ConvertSize(NodeImporter& node) {
  mlir::Value x = node.Input(0);
  if (mlir::failed(RankOf(node, x))) return mlir::failure();
  IndexMath math(node.builder(), node.loc());
  OpFoldResult size = math.Product(TensorSizes(node.builder(), node.loc(), x));
  SetShapeOutput(node, 0, {size}, /*scalar=*/true);
  return mlir::success();
}

mlir::LogicalResult ConvertReshape(NodeImporter& node) {
  mlir::Value data = node.Input(0);
  mlir::FailureOr<int64_t> rank = RankOf(node, data);
  if (mlir::failed(rank)) return mlir::failure();
  mlir::OpBuilder& b = node.builder();
  llvm::SmallVector<OpFoldResult> requested;
  if (node.opset() < 5) {
    // Reshape-1: the shape is an attribute.
    for (int64_t size : node.IntsAttribute("shape")) requested.push_back(b.getIndexAttr(size));
  } else {
    mlir::FailureOr<llvm::SmallVector<OpFoldResult>> elements = ElementsOf(node, 1);
    if (mlir::failed(elements)) return mlir::failure();
    requested = *elements;
  }
  const bool allow_zero = node.IntAttribute("allowzero", 0) != 0;
  IndexMath math(b, node.loc());
  llvm::SmallVector<OpFoldResult> input_sizes = TensorSizes(b, node.loc(), data);
  // 0 copies the input's size (unless allowzero); one -1 is inferred from
  // the element count. Sizes read at run time are resolved at run time,
  // except what a size read with tensor.dim cannot be (-1; 0 where it is
  // the input's own size at that position).
  llvm::SmallVector<OpFoldResult> sizes;
  llvm::SmallVector<bool> may_be_inferred;
  int64_t inferred_count = 0;
  for (size_t k = 0; k < requested.size(); ++k) {
    OpFoldResult size = requested[k];
    const bool in_input = static_cast<int64_t>(k) < *rank;
    std::optional<int64_t> known = mlir::getConstantIntValue(size);
    bool is_dim = false;
    if (known) {
      if (*known == 0 && !allow_zero) {
        if (!in_input) {
          return node.Fail("shape entry " + std::to_string(k) +
                           " is 0 (copy the input's size) but the input has rank " +
                           std::to_string(*rank));
        }
        size = input_sizes[k];
      } else if (*known == -1) {
        ++inferred_count;
      } else if (*known < -1) {
        return node.Fail("shape entry " + std::to_string(k) + " is " + std::to_string(*known));
      }
    } else {
      is_dim = llvm::cast<mlir::Value>(size).getDefiningOp<mlir::tensor::DimOp>() != nullptr;
      if (!allow_zero && in_input && !IsDimOf(size, data, k)) {
        size = math.Select(math.Cmp(mlir::arith::CmpIPredicate::eq, size, math.Constant(0)),
                           input_sizes[k], size);
      }
    }
    sizes.push_back(size);
    may_be_inferred.push_back(known ? *known == -1 : !is_dim);
  }
  if (inferred_count > 1) return node.Fail("the shape has more than one -1");
  const int64_t runtime_count = llvm::count(may_be_inferred, true) - inferred_count;
  if (inferred_count == 1 && runtime_count == 0) {
    llvm::SmallVector<OpFoldResult> others;
    for (size_t k = 0; k < sizes.size(); ++k) {
      if (!may_be_inferred[k]) others.push_back(sizes[k]);
    }
    if (llvm::any_of(others, [](OpFoldResult f) { return mlir::getConstantIntValue(f) == 0; })) {
      return node.Fail("cannot infer the -1 size of a shape with a 0 size");
    }
    OpFoldResult inferred = DivideProducts(math, input_sizes, others);
    for (size_t k = 0; k < sizes.size(); ++k) {
      if (may_be_inferred[k]) sizes[k] = inferred;
    }
  } else if (inferred_count + runtime_count > 0) {
    // The product of the other sizes, a -1 counting as 1.
    OpFoldResult others = math.Constant(1);
    llvm::SmallVector<OpFoldResult> is_inferred(sizes.size());
    for (size_t k = 0; k < sizes.size(); ++k) {
      if (may_be_inferred[k]) {
        is_inferred[k] = math.Cmp(mlir::arith::CmpIPredicate::eq, sizes[k], math.Constant(-1));
        others = math.Mul(others, math.Select(is_inferred[k], math.Constant(1), sizes[k]));
      } else {
        others = math.Mul(others, sizes[k]);
      }
    }
    if (mlir::getConstantIntValue(others) == 0) {
      return node.Fail("cannot infer the -1 size of a shape with a 0 size");
    }
    OpFoldResult inferred = math.Div(math.Product(input_sizes), others);
    for (size_t k = 0; k < sizes.size(); ++k) {
      if (may_be_inferred[k]) sizes[k] = math.Select(is_inferred[k], inferred, sizes[k]);
    }
  }
  SetReshapedOutput(node, 0, 0, sizes);
  return mlir::success();
}

mlir::LogicalResult ConvertFlatten(NodeImporter& node) {
  mlir::Value x = node.Input(0);
  mlir::FailureOr<int64_t> rank = RankOf(node, x);
  if (mlir::failed(rank)) return mlir::failure();
  int64_t axis = node.IntAttribute("axis", 1);
  if (axis < -*rank || axis > *rank) {
    return node.Fail("axis " + std::to_string(axis) + " is out of range for rank " +
                     std::to_string(*rank));
  }
  if (axis < 0) axis += *rank;
  mlir::OpBuilder& b = node.builder();
  IndexMath math(b, node.loc());
  llvm::SmallVector<OpFoldResult> input_sizes = TensorSizes(b, node.loc(), x);
  llvm::ArrayRef<OpFoldResult> all(input_sizes);
  llvm::SmallVector<OpFoldResult> sizes = {math.Product(all.take_front(axis)),
                                           math.Product(all.drop_front(axis))};
  if (node.InputConstant(0) || axis == 0 || axis == *rank) {
    SetReshapedOutput(node, 0, 0, sizes);
    return mlir::success();
  }
  // Two groups of consecutive dimensions, whatever their sizes.
  mlir::ReassociationIndices outer, inner;
  for (int64_t i = 0; i < *rank; ++i) (i < axis ? outer : inner).push_back(i);
  mlir::Value collapsed = b.create<mlir::tensor::CollapseShapeOp>(
      node.loc(), x, llvm::ArrayRef<mlir::ReassociationIndices>{outer, inner});
  node.SetOutput(0, collapsed, node.InputElementType(0));
  return mlir::success();
}

// The axes of Squeeze/Unsqueeze: the attribute before opset 13, the input
// from 13. None when absent; failure (reported) when not known at import time.
mlir::FailureOr<std::optional<std::vector<int64_t>>> ReadAxes(NodeImporter& node) {
  if (node.opset() < 13) {
    if (!node.HasAttribute("axes")) return std::optional<std::vector<int64_t>>();
    return std::optional<std::vector<int64_t>>(node.IntsAttribute("axes"));
  }
  if (!node.HasInput(1)) return std::optional<std::vector<int64_t>>();
  if (std::optional<std::vector<int64_t>> axes = node.InputInts(1)) {
    return std::optional<std::vector<int64_t>>(*axes);
  }
  return mlir::failure();
}

// Sets the output of a reshape whose axes are not known at import time to
// the static output type ONNX's shape inference gave it (a reshape keeps the
// elements' row-major order, so the sizes alone say what it does).
mlir::LogicalResult SetReshapedToInferred(NodeImporter& node) {
  mlir::RankedTensorType type = node.StaticOutputType(0);
  if (!type) {
    return node.Fail(
        "the axes must be known at import time (a constant or an initializer) "
        "unless the output's shape is static");
  }
  llvm::SmallVector<OpFoldResult> sizes;
  for (int64_t size : type.getShape()) sizes.push_back(node.builder().getIndexAttr(size));
  SetReshapedOutput(node, 0, 0, sizes);
  return mlir::success();
}

mlir::LogicalResult ConvertSqueeze(NodeImporter& node) {
  mlir::Value x = node.Input(0);
  mlir::FailureOr<int64_t> rank = RankOf(node, x);
  if (mlir::failed(rank)) return mlir::failure();
  auto type = llvm::cast<mlir::RankedTensorType>(x.getType());
  mlir::FailureOr<std::optional<std::vector<int64_t>>> axes = ReadAxes(node);
  if (mlir::failed(axes)) return SetReshapedToInferred(node);
  llvm::SmallVector<bool> removed(*rank, false);
  if (!axes->has_value()) {
    // All static 1s; a dynamic size is taken to be other than 1 (as
    // torch-mlir does).
    for (int64_t i = 0; i < *rank; ++i) removed[i] = type.getDimSize(i) == 1;
  } else {
    for (int64_t axis : **axes) {
      mlir::FailureOr<int64_t> normalized = NormalizeAxis(node, axis, *rank);
      if (mlir::failed(normalized)) return mlir::failure();
      if (!type.isDynamicDim(*normalized) && type.getDimSize(*normalized) != 1) {
        return node.Fail("cannot squeeze axis " + std::to_string(axis) + " of size " +
                         std::to_string(type.getDimSize(*normalized)));
      }
      removed[*normalized] = true;
    }
  }
  llvm::SmallVector<OpFoldResult> input_sizes = TensorSizes(node.builder(), node.loc(), x);
  llvm::SmallVector<OpFoldResult> sizes;
  for (int64_t i = 0; i < *rank; ++i) {
    if (!removed[i]) sizes.push_back(input_sizes[i]);
  }
  if (!node.InputConstant(0) && llvm::any_of(removed, [](bool r) { return r; })) {
    // The squeezed dynamic sizes are 1: a cast says so, and the rest is a
    // collapse.
    llvm::SmallVector<int64_t> shape(type.getShape());
    for (int64_t i = 0; i < *rank; ++i) {
      if (removed[i]) shape[i] = 1;
    }
    auto cast_type = mlir::RankedTensorType::get(shape, type.getElementType());
    if (cast_type != type) {
      mlir::Value cast = node.builder().create<mlir::tensor::CastOp>(node.loc(), cast_type, x);
      llvm::SmallVector<mlir::ReassociationIndices> groups;
      mlir::ReassociationIndices pending;
      for (int64_t i = 0; i < *rank; ++i) {
        pending.push_back(i);
        if (!removed[i]) {
          groups.push_back(pending);
          pending.clear();
        }
      }
      if (!groups.empty()) {
        groups.back().append(pending.begin(), pending.end());
      }
      mlir::Value collapsed =
          node.builder().create<mlir::tensor::CollapseShapeOp>(node.loc(), cast, groups);
      node.SetOutput(0, collapsed, node.InputElementType(0));
      return mlir::success();
    }
  }
  SetReshapedOutput(node, 0, 0, sizes);
  return mlir::success();
}

mlir::LogicalResult ConvertUnsqueeze(NodeImporter& node) {
  mlir::Value x = node.Input(0);
  mlir::FailureOr<int64_t> rank = RankOf(node, x);
  if (mlir::failed(rank)) return mlir::failure();
  mlir::FailureOr<std::optional<std::vector<int64_t>>> axes = ReadAxes(node);
  if (mlir::failed(axes)) return SetReshapedToInferred(node);
  if (!axes->has_value()) return node.Fail("needs axes");
  const int64_t output_rank = *rank + static_cast<int64_t>((*axes)->size());
  llvm::SmallVector<bool> inserted(output_rank, false);
  for (int64_t axis : **axes) {
    mlir::FailureOr<int64_t> normalized = NormalizeAxis(node, axis, output_rank);
    if (mlir::failed(normalized)) return mlir::failure();
    if (inserted[*normalized]) return node.Fail("axis " + std::to_string(axis) + " is repeated");
    inserted[*normalized] = true;
  }
  llvm::SmallVector<OpFoldResult> input_sizes = TensorSizes(node.builder(), node.loc(), x);
  llvm::SmallVector<OpFoldResult> sizes;
  int64_t next = 0;
  for (int64_t i = 0; i < output_rank; ++i) {
    sizes.push_back(inserted[i] ? node.builder().getIndexAttr(1) : input_sizes[next++]);
  }
  SetReshapedOutput(node, 0, 0, sizes);
  return mlir::success();
}

mlir::LogicalResult ConvertExpand(NodeImporter& node) {
  mlir::Value data = node.Input(0);
  mlir::FailureOr<int64_t> rank = RankOf(node, data);
  if (mlir::failed(rank)) return mlir::failure();
  mlir::FailureOr<llvm::SmallVector<OpFoldResult>> shape = ElementsOf(node, 1);
  if (mlir::failed(shape)) return mlir::failure();
  mlir::OpBuilder& b = node.builder();
  auto type = llvm::cast<mlir::RankedTensorType>(data.getType());
  const int64_t shape_rank = shape->size();
  const int64_t output_rank = std::max(*rank, shape_rank);
  llvm::SmallVector<OpFoldResult> input_sizes = TensorSizes(b, node.loc(), data);
  // Numpy broadcasting of the input's sizes against the shape's; a dynamic
  // input size is taken not to be a broadcast 1 (as elsewhere in the importer).
  llvm::SmallVector<OpFoldResult> sizes(output_rank);
  for (int64_t o = 0; o < output_rank; ++o) {
    const int64_t d = o - (output_rank - *rank), s = o - (output_rank - shape_rank);
    OpFoldResult requested = s >= 0 ? (*shape)[s] : b.getIndexAttr(1);
    std::optional<int64_t> known = mlir::getConstantIntValue(requested);
    if (d < 0) {
      sizes[o] = requested;
    } else if (type.isDynamicDim(d)) {
      sizes[o] = known && *known != 1 ? requested : input_sizes[d];
    } else if (type.getDimSize(d) == 1) {
      sizes[o] = requested;
    } else {
      if (known && *known != 1 && *known != type.getDimSize(d)) {
        return node.Fail("cannot expand size " + std::to_string(type.getDimSize(d)) + " to " +
                         std::to_string(*known));
      }
      sizes[o] = input_sizes[d];
    }
  }
  sizes = RefineSizes(node, 0, sizes);
  llvm::SmallVector<int64_t> output_shape = StaticShape(sizes);
  auto output_type = mlir::RankedTensorType::get(output_shape, type.getElementType());
  // Which input dims are broadcast.
  llvm::SmallVector<bool> broadcast(*rank);
  for (int64_t d = 0; d < *rank; ++d) {
    const int64_t o = d + (output_rank - *rank);
    broadcast[d] = type.getDimSize(d) == 1 && output_shape[o] != 1;
  }
  if (mlir::DenseElementsAttr constant = node.InputConstant(0)) {
    llvm::SmallVector<int64_t> strides = Strides(type.getShape());
    mlir::DenseElementsAttr folded =
        FoldMovement(constant, output_type, [&](llvm::ArrayRef<int64_t> position) {
          int64_t index = 0;
          for (int64_t d = 0; d < *rank; ++d) {
            if (!broadcast[d]) index += position[d + (output_rank - *rank)] * strides[d];
          }
          return index;
        });
    if (folded) {
      node.SetConstantOutput(0, folded, node.InputElementType(0));
      return mlir::success();
    }
  }
  llvm::SmallVector<mlir::AffineExpr> exprs;
  for (int64_t d = 0; d < *rank; ++d) {
    exprs.push_back(broadcast[d] ? b.getAffineConstantExpr(0)
                                 : b.getAffineDimExpr(d + (output_rank - *rank)));
  }
  mlir::AffineMap map = mlir::AffineMap::get(output_rank, 0, exprs, b.getContext());
  mlir::Value result = BuildIndexedGeneric(node, sizes, type.getElementType(), {data}, {map},
                                           [](mlir::OpBuilder&, mlir::Location, mlir::ValueRange,
                                              mlir::ValueRange scalars) { return scalars[0]; });
  node.SetOutput(0, result, node.InputElementType(0));
  return mlir::success();
}

mlir::LogicalResult ConvertConstantOfShape(NodeImporter& node) {
  mlir::MLIRContext& context = node.context();
  mlir::Attribute value = mlir::FloatAttr::get(mlir::Float32Type::get(&context), 0.0);
  OnnxElementType element_type = onnx::TensorProto::FLOAT;
  if (node.HasAttribute("value")) {
    mlir::DenseElementsAttr contents = node.TensorAttribute("value");
    if (!contents) return mlir::failure();
    if (contents.getNumElements() != 1) return node.Fail("value must hold one element");
    value = *contents.getValues<mlir::Attribute>().begin();
    element_type = node.Attribute("value")->t().data_type();
  }
  mlir::FailureOr<llvm::SmallVector<OpFoldResult>> shape = ElementsOf(node, 0);
  if (mlir::failed(shape)) return mlir::failure();
  llvm::SmallVector<OpFoldResult> sizes = RefineSizes(node, 0, *shape);
  for (OpFoldResult size : sizes) {
    if (std::optional<int64_t> known = mlir::getConstantIntValue(size); known && *known < 0) {
      return node.Fail("negative size " + std::to_string(*known));
    }
  }
  mlir::Type scalar_type = llvm::cast<mlir::TypedAttr>(value).getType();
  llvm::SmallVector<int64_t> static_shape = StaticShape(sizes);
  if (!mlir::ShapedType::isDynamicShape(static_shape)) {
    // A splat constant: one value however large.
    node.SetConstantOutput(
        0,
        mlir::DenseElementsAttr::get(mlir::RankedTensorType::get(static_shape, scalar_type), value),
        element_type);
    return mlir::success();
  }
  mlir::Value scalar = node.builder().create<mlir::arith::ConstantOp>(
      node.loc(), llvm::cast<mlir::TypedAttr>(value));
  node.SetOutput(0, FilledTensor(node.builder(), node.loc(), sizes, scalar), element_type);
  return mlir::success();
}

}  // namespace

void RegisterShapeOps(OpRegistry& registry) {
  registry.Register("Shape", ConvertShape);
  registry.Register("Size", ConvertSize);
  registry.Register("Reshape", ConvertReshape);
  registry.Register("Flatten", ConvertFlatten);
  registry.Register("Squeeze", ConvertSqueeze);
  registry.Register("Unsqueeze", ConvertUnsqueeze);
  registry.Register("Expand", ConvertExpand, 8);
  registry.Register("ConstantOfShape", ConvertConstantOfShape, 9);
  RegisterSlicingOps(registry);
  RegisterIndexingOps(registry);
  RegisterGeneratorOps(registry);
}

}  // namespace kiln::onnx_import
