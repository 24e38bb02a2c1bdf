// Pooling: MaxPool (with its Indices output), AveragePool, LpPool and the
// global forms, NCHW layout over any number of spatial dimensions.
//
// A window pooling is one linalg.generic over (n, c, out..., k...) reading
// the padded input at out * stride + k * dilation; an unread tensor.empty of
// the kernel's shape gives the k loops their sizes (as linalg's named
// pooling ops do). The padding never wins: -inf (or the smallest integer)
// for max, 0 for sums. AveragePool divides by the number of elements the
// window covers, computed per output position from its index: within the
// input (count_include_pad = 0) or within the explicit padding (1); never
// the extra end padding of ceil_mode (ONNX Runtime).
#include "compiler/onnx/layer_builders.h"
#include "compiler/onnx/node_importer.h"
#include "compiler/onnx/ops/layer_ops.h"
#include "compiler/onnx/tensor_builders.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace kiln::onnx_import {
namespace {

using mlir::utils::IteratorType;

// The pooled input: rank, kernel, window; fails (reported) where the
// input is not [N, C, spatial...] or the kernel does not match.
struct PoolInput {
  mlir::Value x;
  mlir::RankedTensorType type;
  llvm::SmallVector<mlir::OpFoldResult> sizes;
  SpatialWindow window;
};

mlir::FailureOr<PoolInput> ReadPoolInput(NodeImporter& node, bool ceil_mode, bool has_dilations) {
  PoolInput input;
  input.x = node.Input(0);
  input.type = llvm::dyn_cast<mlir::RankedTensorType>(input.x.getType());
  if (!input.type) return node.Fail("an input of unknown rank is not supported");
  const int64_t spatial = input.type.getRank() - 2;
  if (spatial < 1) return node.Fail("the input needs at least one spatial dimension");
  std::vector<int64_t> kernel = node.IntsAttribute("kernel_shape");
  if (static_cast<int64_t>(kernel.size()) != spatial) {
    return node.Fail("kernel_shape has " + std::to_string(kernel.size()) + " values for " +
                     std::to_string(spatial) + " spatial dimensions");
  }
  input.sizes = TensorSizes(node.builder(), node.loc(), input.x);
  mlir::FailureOr<SpatialWindow> window = ReadSpatialWindow(
      node, llvm::ArrayRef(input.sizes).drop_front(2), kernel, ceil_mode, has_dilations);
  if (mlir::failed(window)) return mlir::failure();
  input.window = *window;
  return input;
}

// The loops of a window pooling over `window`: (n, c, out..., k...).
struct PoolLoops {
  int64_t count;
  llvm::SmallVector<mlir::AffineMap> input_maps;  // padded input, kernel shape
  mlir::AffineMap output_map;
  llvm::SmallVector<IteratorType> iterators;
};

PoolLoops WindowLoops(mlir::MLIRContext* context, const SpatialWindow& window) {
  const int64_t spatial = window.rank();
  PoolLoops loops;
  loops.count = 2 + 2 * spatial;
  auto dim = [&](int64_t i) { return mlir::getAffineDimExpr(i, context); };
  llvm::SmallVector<mlir::AffineExpr> x_exprs = {dim(0), dim(1)};
  llvm::SmallVector<mlir::AffineExpr> k_exprs, out_exprs = {dim(0), dim(1)};
  for (int64_t i = 0; i < spatial; ++i) {
    x_exprs.push_back(dim(2 + i) * window.strides[i] + dim(2 + spatial + i) * window.dilations[i]);
    k_exprs.push_back(dim(2 + spatial + i));
    out_exprs.push_back(dim(2 + i));
  }
  loops.input_maps = {mlir::AffineMap::get(loops.count, 0, x_exprs, context),
                      mlir::AffineMap::get(loops.count, 0, k_exprs, context)};
  loops.output_map = mlir::AffineMap::get(loops.count, 0, out_exprs, context);
  loops.iterators.assign(loops.count, IteratorType::parallel);
  for (int64_t i = 2 + spatial; i < loops.count; ++i) loops.iterators[i] = IteratorType::reduction;
  return loops;
}

// The unread operand that sizes the kernel loops.
mlir::Value KernelShapeOperand(mlir::OpBuilder& b, mlir::Location loc, const SpatialWindow& window,
                               mlir::Type element_type) {
  llvm::SmallVector<mlir::OpFoldResult> sizes;
  for (int64_t k : window.kernel) sizes.push_back(b.getIndexAttr(k));
  return EmptyTensor(b, loc, sizes, element_type);
}

llvm::SmallVector<mlir::OpFoldResult> PooledSizes(const PoolInput& input) {
  llvm::SmallVector<mlir::OpFoldResult> sizes = {input.sizes[0], input.sizes[1]};
  sizes.append(input.window.output_sizes);
  return sizes;
}

// Reduces every window of the padded input into `init` with `combine`
// (element, accumulator) -> accumulator.
mlir::Value PoolWindows(mlir::OpBuilder& b, mlir::Location loc, const PoolInput& input,
                        mlir::Value padding, mlir::Value init,
                        const std::function<mlir::Value(mlir::OpBuilder&, mlir::Location,
                                                        mlir::Value, mlir::Value)>& combine) {
  mlir::Value padded = PadSpatial(b, loc, input.x, input.window, padding);
  PoolLoops loops = WindowLoops(b.getContext(), input.window);
  mlir::Value kernel = KernelShapeOperand(b, loc, input.window, input.type.getElementType());
  return BuildGeneric(b, loc, {padded, kernel}, loops.input_maps, init, loops.output_map,
                      loops.iterators,
                      [&](mlir::OpBuilder& nested, mlir::Location nested_loc, mlir::ValueRange args) {
                        return combine(nested, nested_loc, args[0], args[2]);
                      });
}

mlir::Value MaxOf(mlir::OpBuilder& b, mlir::Location loc, mlir::Value x, mlir::Value y,
                  OnnxElementType type) {
  if (IsFloat(type)) return b.create<mlir::arith::MaximumFOp>(loc, x, y);
  if (IsUnsigned(type)) return b.create<mlir::arith::MaxUIOp>(loc, x, y);
  return b.create<mlir::arith::MaxSIOp>(loc, x, y);
}

// MaxPool's Indices: the position of each window's (first) maximum in the
// input flattened row-major, or with the spatial dimensions column-major
// (storage_order 1), as ONNX Runtime numbers them.
mlir::LogicalResult MaxPoolWithIndices(NodeImporter& node, const PoolInput& input,
                                       OnnxElementType type) {
  mlir::OpBuilder& b = node.builder();
  mlir::Location loc = node.loc();
  const SpatialWindow& window = input.window;
  const int64_t spatial = window.rank();
  const int64_t storage_order = node.IntAttribute("storage_order", 0);
  if (storage_order != 0 && storage_order != 1) return node.Fail("storage_order must be 0 or 1");
  for (int64_t i = 1; i < input.type.getRank(); ++i) {
    if (input.type.isDynamicDim(i)) {
      return node.Fail("the Indices output needs static channel and spatial sizes");
    }
  }
  llvm::SmallVector<int64_t> pads_begin;
  for (mlir::OpFoldResult pad : window.pads_begin) {
    std::optional<int64_t> value = mlir::getConstantIntValue(pad);
    if (!value) return node.Fail("the Indices output needs static pads");
    pads_begin.push_back(*value);
  }
  mlir::Type element_type = input.type.getElementType();
  mlir::Value padded = PadSpatial(b, loc, input.x, window, LowestValue(b, loc, element_type, type));
  PoolLoops loops = WindowLoops(b.getContext(), window);
  mlir::Value kernel = KernelShapeOperand(b, loc, window, element_type);
  llvm::SmallVector<mlir::OpFoldResult> sizes = PooledSizes(input);
  mlir::Value values = FilledTensor(b, loc, sizes, LowestValue(b, loc, element_type, type));
  mlir::Value indices = FilledTensor(b, loc, sizes, ScalarConstant(b, loc, b.getI64Type(), -1));
  llvm::SmallVector<mlir::AffineMap> maps(loops.input_maps);
  maps.push_back(loops.output_map);
  maps.push_back(loops.output_map);
  // Strides of the flattened input: channel planes, then the spatial
  // dimensions in storage order.
  llvm::SmallVector<int64_t> spatial_sizes(input.type.getShape().drop_front(2));
  int64_t plane = 1;
  for (int64_t size : spatial_sizes) plane *= size;
  llvm::SmallVector<int64_t> spatial_strides(spatial, 1);
  if (storage_order == 0) {
    for (int64_t i = spatial - 2; i >= 0; --i) {
      spatial_strides[i] = spatial_strides[i + 1] * spatial_sizes[i + 1];
    }
  } else {
    for (int64_t i = 1; i < spatial; ++i) {
      spatial_strides[i] = spatial_strides[i - 1] * spatial_sizes[i - 1];
    }
  }
  const int64_t channels = input.type.getDimSize(1);
  auto generic = b.create<mlir::linalg::GenericOp>(
      loc, mlir::TypeRange{values.getType(), indices.getType()}, mlir::ValueRange{padded, kernel},
      mlir::ValueRange{values, indices}, maps, loops.iterators,
      [&](mlir::OpBuilder& nested, mlir::Location nested_loc, mlir::ValueRange args) {
        auto index = [&](int64_t dim) {
          return nested.create<mlir::linalg::IndexOp>(nested_loc, dim).getResult();
        };
        auto constant = [&](int64_t value) {
          return nested.create<mlir::arith::ConstantIndexOp>(nested_loc, value).getResult();
        };
        auto mul = [&](mlir::Value x, int64_t y) {
          return nested.create<mlir::arith::MulIOp>(nested_loc, x, constant(y)).getResult();
        };
        auto add = [&](mlir::Value x, mlir::Value y) {
          return nested.create<mlir::arith::AddIOp>(nested_loc, x, y).getResult();
        };
        // (n * C + c) * plane + sum of (out * stride + k * dilation - pad) * its stride.
        mlir::Value position = mul(add(mul(index(0), channels), index(1)), plane);
        for (int64_t i = 0; i < spatial; ++i) {
          mlir::Value coordinate =
              add(mul(index(2 + i), window.strides[i]), mul(index(2 + spatial + i), window.dilations[i]));
          coordinate = nested.create<mlir::arith::SubIOp>(nested_loc, coordinate,
                                                          constant(pads_begin[i]));
          position = add(position, mul(coordinate, spatial_strides[i]));
        }
        mlir::Value position_i64 =
            nested.create<mlir::arith::IndexCastOp>(nested_loc, nested.getI64Type(), position);
        // Strictly greater: the first maximum wins.
        mlir::Value greater;
        if (IsFloat(type)) {
          greater = nested.create<mlir::arith::CmpFOp>(nested_loc, mlir::arith::CmpFPredicate::OGT,
                                                       args[0], args[2]);
        } else {
          greater = nested.create<mlir::arith::CmpIOp>(
              nested_loc,
              IsUnsigned(type) ? mlir::arith::CmpIPredicate::ugt : mlir::arith::CmpIPredicate::sgt,
              args[0], args[2]);
        }
        mlir::Value value = nested.create<mlir::arith::SelectOp>(nested_loc, greater, args[0], args[2]);
        mlir::Value chosen =
            nested.create<mlir::arith::SelectOp>(nested_loc, greater, position_i64, args[3]);
        nested.create<mlir::linalg::YieldOp>(nested_loc, mlir::ValueRange{value, chosen});
      });
  node.SetOutput(0, generic.getResult(0), type);
  node.SetOutput(1, generic.getResult(1), onnx::TensorProto::INT64);
  return mlir::success();
}

mlir::LogicalResult ConvertMaxPool(NodeImporter& node) {
  const OnnxElementType type = node.InputElementType(0);
  if (!IsFloat(type) && type != onnx::TensorProto::INT8 && type != onnx::TensorProto::UINT8) {
    return node.Fail("inputs of type " + OnnxElementTypeName(type) + " are not supported");
  }
  mlir::FailureOr<PoolInput> input =
      ReadPoolInput(node, node.IntAttribute("ceil_mode", 0) != 0, /*has_dilations=*/true);
  if (mlir::failed(input)) return mlir::failure();
  if (node.HasOutput(1)) return MaxPoolWithIndices(node, *input, type);
  mlir::OpBuilder& b = node.builder();
  mlir::Location loc = node.loc();
  mlir::Value lowest = LowestValue(b, loc, input->type.getElementType(), type);
  mlir::Value init = FilledTensor(b, loc, PooledSizes(*input), lowest);
  mlir::Value result =
      PoolWindows(b, loc, *input, lowest, init,
                  [&](mlir::OpBuilder& nested, mlir::Location nested_loc, mlir::Value x,
                      mlir::Value acc) { return MaxOf(nested, nested_loc, x, acc, type); });
  node.SetOutput(0, result, type);
  return mlir::success();
}

mlir::Value SumOf(mlir::OpBuilder& b, mlir::Location loc, mlir::Value x, mlir::Value acc) {
  return b.create<mlir::arith::AddFOp>(loc, x, acc);
}

mlir::LogicalResult ConvertAveragePool(NodeImporter& node) {
  mlir::OpBuilder& b = node.builder();
  mlir::Location loc = node.loc();
  const OnnxElementType type = node.InputElementType(0);
  if (!IsFloat(type)) return node.Fail("inputs of type " + OnnxElementTypeName(type) +
                                       " are not supported");
  // AveragePool has dilations from opset 19 only.
  mlir::FailureOr<PoolInput> input =
      ReadPoolInput(node, node.IntAttribute("ceil_mode", 0) != 0, /*has_dilations=*/false);
  if (mlir::failed(input)) return mlir::failure();
  const bool count_include_pad = node.IntAttribute("count_include_pad", 0) != 0;
  mlir::Type element_type = input->type.getElementType();
  mlir::Value zero = ScalarConstant(b, loc, element_type, 0);
  llvm::SmallVector<mlir::OpFoldResult> sizes = PooledSizes(*input);
  mlir::Value sums = PoolWindows(b, loc, *input, zero, FilledTensor(b, loc, sizes, zero),
                                 [](mlir::OpBuilder& nested, mlir::Location nested_loc,
                                    mlir::Value x, mlir::Value acc) {
                                   return SumOf(nested, nested_loc, x, acc);
                                 });
  // The divisor per output position: the product over spatial dimensions
  // of min(start + k, limit) - max(start, floor), start = out * stride -
  // pad_begin; the limits are the input (or the explicit padding).
  const SpatialWindow& window = input->window;
  const int64_t spatial = window.rank();
  llvm::SmallVector<mlir::OpFoldResult> floors, limits;
  for (int64_t i = 0; i < spatial; ++i) {
    mlir::OpFoldResult in = input->sizes[2 + i];
    mlir::OpFoldResult input_end = AddSizes(b, loc, in, window.pads_begin[i]);
    if (count_include_pad) {
      floors.push_back(b.getIndexAttr(0));
      limits.push_back(AddSizes(b, loc, input_end, window.pads_end[i]));
    } else {
      floors.push_back(window.pads_begin[i]);
      limits.push_back(input_end);
    }
  }
  const int64_t rank = static_cast<int64_t>(sizes.size());
  llvm::SmallVector<IteratorType> iterators(rank, IteratorType::parallel);
  mlir::Value result = BuildGeneric(
      b, loc, sums, b.getMultiDimIdentityMap(rank), EmptyTensor(b, loc, sizes, element_type),
      b.getMultiDimIdentityMap(rank), iterators,
      [&](mlir::OpBuilder& nested, mlir::Location nested_loc, mlir::ValueRange args) {
        mlir::Value count = nested.create<mlir::arith::ConstantIndexOp>(nested_loc, 1);
        for (int64_t i = 0; i < spatial; ++i) {
          // In padded coordinates: the window is [out * stride, + k).
          mlir::Value out = nested.create<mlir::linalg::IndexOp>(nested_loc, 2 + i);
          mlir::Value start = nested.create<mlir::arith::MulIOp>(
              nested_loc, out,
              nested.create<mlir::arith::ConstantIndexOp>(nested_loc, window.strides[i]));
          mlir::Value end = nested.create<mlir::arith::AddIOp>(
              nested_loc, start,
              nested.create<mlir::arith::ConstantIndexOp>(nested_loc, window.kernel[i]));
          end = nested.create<mlir::arith::MinSIOp>(nested_loc, end,
                                                   IndexValue(nested, nested_loc, limits[i]));
          start = nested.create<mlir::arith::MaxSIOp>(nested_loc, start,
                                                     IndexValue(nested, nested_loc, floors[i]));
          count = nested.create<mlir::arith::MulIOp>(
              nested_loc, count, nested.create<mlir::arith::SubIOp>(nested_loc, end, start));
        }
        mlir::Value count_i64 =
            nested.create<mlir::arith::IndexCastOp>(nested_loc, nested.getI64Type(), count);
        mlir::Value divisor =
            nested.create<mlir::arith::SIToFPOp>(nested_loc, element_type, count_i64);
        return nested.create<mlir::arith::DivFOp>(nested_loc, args[0], divisor);
      });
  node.SetOutput(0, result, type);
  return mlir::success();
}

mlir::Value PowerOf(mlir::OpBuilder& b, mlir::Location loc, mlir::Value x, double p) {
  if (p == 1.0) return x;
  if (p == 2.0) return b.create<mlir::arith::MulFOp>(loc, x, x);
  return b.create<mlir::math::PowFOp>(loc, x, ScalarConstant(b, loc, x.getType(), p));
}

mlir::Value RootOf(mlir::OpBuilder& b, mlir::Location loc, mlir::Value x, double p) {
  if (p == 1.0) return x;
  if (p == 2.0) return b.create<mlir::math::SqrtOp>(loc, x);
  return b.create<mlir::math::PowFOp>(loc, x, ScalarConstant(b, loc, x.getType(), 1.0 / p));
}

// LpPool's p: a float attribute in opset 1, an int from opset 2.
double LpPoolP(NodeImporter& node) {
  const onnx::AttributeProto* attribute = node.Attribute("p");
  if (!attribute) return 2.0;
  return attribute->type() == onnx::AttributeProto::FLOAT ? attribute->f()
                                                          : static_cast<double>(attribute->i());
}

mlir::LogicalResult ConvertLpPool(NodeImporter& node) {
  mlir::OpBuilder& b = node.builder();
  mlir::Location loc = node.loc();
  const OnnxElementType type = node.InputElementType(0);
  if (!IsFloat(type)) return node.Fail("inputs of type " + OnnxElementTypeName(type) +
                                       " are not supported");
  const double p = LpPoolP(node);
  if (p <= 0) return node.Fail("p must be positive");
  mlir::FailureOr<PoolInput> input =
      ReadPoolInput(node, node.IntAttribute("ceil_mode", 0) != 0, /*has_dilations=*/true);
  if (mlir::failed(input)) return mlir::failure();
  mlir::Type element_type = input->type.getElementType();
  mlir::Value zero = ScalarConstant(b, loc, element_type, 0);
  llvm::SmallVector<mlir::OpFoldResult> sizes = PooledSizes(*input);
  mlir::Value sums = PoolWindows(
      b, loc, *input, zero, FilledTensor(b, loc, sizes, zero),
      [&](mlir::OpBuilder& nested, mlir::Location nested_loc, mlir::Value x, mlir::Value acc) {
        mlir::Value magnitude = nested.create<mlir::math::AbsFOp>(nested_loc, x);
        return SumOf(nested, nested_loc, PowerOf(nested, nested_loc, magnitude, p), acc);
      });
  const int64_t rank = static_cast<int64_t>(sizes.size());
  llvm::SmallVector<IteratorType> iterators(rank, IteratorType::parallel);
  mlir::Value result = BuildGeneric(
      b, loc, sums, b.getMultiDimIdentityMap(rank), EmptyTensor(b, loc, sizes, element_type),
      b.getMultiDimIdentityMap(rank), iterators,
      [&](mlir::OpBuilder& nested, mlir::Location nested_loc, mlir::ValueRange args) {
        return RootOf(nested, nested_loc, args[0], p);
      });
  node.SetOutput(0, result, type);
  return mlir::success();
}

enum class GlobalKind { kAverage, kMax, kLp };

// The global poolings: a reduction over every spatial dimension into
// [N, C], reshaped to [N, C, 1...].
mlir::LogicalResult ConvertGlobalPool(NodeImporter& node, GlobalKind kind) {
  mlir::OpBuilder& b = node.builder();
  mlir::Location loc = node.loc();
  mlir::MLIRContext* context = b.getContext();
  const OnnxElementType type = node.InputElementType(0);
  if (!IsFloat(type) && !(kind == GlobalKind::kMax && (type == onnx::TensorProto::INT8 ||
                                                       type == onnx::TensorProto::UINT8))) {
    return node.Fail("inputs of type " + OnnxElementTypeName(type) + " are not supported");
  }
  mlir::Value x = node.Input(0);
  auto x_type = llvm::dyn_cast<mlir::RankedTensorType>(x.getType());
  if (!x_type || x_type.getRank() < 2) return node.Fail("the input must be [N, C, ...]");
  const int64_t rank = x_type.getRank();
  mlir::Type element_type = x_type.getElementType();
  const double p = kind == GlobalKind::kLp ? LpPoolP(node) : 2.0;
  llvm::SmallVector<mlir::OpFoldResult> sizes = TensorSizes(b, loc, x);
  mlir::Value initial = kind == GlobalKind::kMax ? LowestValue(b, loc, element_type, type)
                                                 : ScalarConstant(b, loc, element_type, 0);
  mlir::Value init = FilledTensor(b, loc, {sizes[0], sizes[1]}, initial);
  llvm::SmallVector<IteratorType> iterators(rank, IteratorType::reduction);
  iterators[0] = iterators[1] = IteratorType::parallel;
  mlir::AffineMap out_map = mlir::AffineMap::get(
      rank, 0, {mlir::getAffineDimExpr(0, context), mlir::getAffineDimExpr(1, context)}, context);
  mlir::Value reduced = BuildGeneric(
      b, loc, x, b.getMultiDimIdentityMap(rank), init, out_map, iterators,
      [&](mlir::OpBuilder& nested, mlir::Location nested_loc, mlir::ValueRange args) -> mlir::Value {
        switch (kind) {
          case GlobalKind::kMax:
            return MaxOf(nested, nested_loc, args[0], args[1], type);
          case GlobalKind::kAverage:
            return SumOf(nested, nested_loc, args[0], args[1]);
          case GlobalKind::kLp:
            return SumOf(nested, nested_loc,
                         PowerOf(nested, nested_loc,
                                 nested.create<mlir::math::AbsFOp>(nested_loc, args[0]), p),
                         args[1]);
        }
        return args[1];
      });
  if (kind != GlobalKind::kMax) {
    mlir::Value divisor;
    if (kind == GlobalKind::kAverage) {
      mlir::Value count =
          IndexValue(b, loc, ProductOfSizes(b, loc, llvm::ArrayRef(sizes).drop_front(2)));
      divisor = b.create<mlir::arith::SIToFPOp>(
          loc, element_type, b.create<mlir::arith::IndexCastOp>(loc, b.getI64Type(), count));
    }
    llvm::SmallVector<IteratorType> parallel(2, IteratorType::parallel);
    reduced = BuildGeneric(
        b, loc, reduced, b.getMultiDimIdentityMap(2),
        EmptyTensor(b, loc, {sizes[0], sizes[1]}, element_type), b.getMultiDimIdentityMap(2),
        parallel,
        [&](mlir::OpBuilder& nested, mlir::Location nested_loc, mlir::ValueRange args) -> mlir::Value {
          if (kind == GlobalKind::kAverage) {
            return nested.create<mlir::arith::DivFOp>(nested_loc, args[0], divisor);
          }
          return RootOf(nested, nested_loc, args[0], p);
        });
  }
  llvm::SmallVector<mlir::OpFoldResult> out_sizes = {sizes[0], sizes[1]};
  mlir::ReassociationIndices last = {1};
  for (int64_t i = 2; i < rank; ++i) {
    out_sizes.push_back(b.getIndexAttr(1));
    last.push_back(i);
  }
  mlir::Value result = rank == 2 ? reduced : ExpandDims(b, loc, reduced, {{0}, last}, out_sizes);
  node.SetOutput(0, result, type);
  return mlir::success();
}

}  // namespace

void RegisterPoolingOps(OpRegistry& registry) {
  registry.Register("MaxPool", ConvertMaxPool, 1);
  registry.Register("AveragePool", ConvertAveragePool, 1);
  registry.Register("LpPool", ConvertLpPool, 1);
  registry.Register("GlobalAveragePool",
                    [](NodeImporter& node) { return ConvertGlobalPool(node, GlobalKind::kAverage); });
  registry.Register("GlobalMaxPool",
                    [](NodeImporter& node) { return ConvertGlobalPool(node, GlobalKind::kMax); });
  registry.Register("GlobalLpPool",
                    [](NodeImporter& node) { return ConvertGlobalPool(node, GlobalKind::kLp); });
}

}  // namespace kiln::onnx_import
