#include "compiler/onnx/layer_builders.h"

#include <limits>

#include "compiler/onnx/node_importer.h"
#include "compiler/onnx/tensor_builders.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace kiln::onnx_import {

mlir::Value IndexValue(mlir::OpBuilder& b, mlir::Location loc, mlir::OpFoldResult size) {
  if (auto value = llvm::dyn_cast<mlir::Value>(size)) return value;
  return b.create<mlir::arith::ConstantIndexOp>(loc, *mlir::getConstantIntValue(size));
}

namespace {

// Folds `fold` when both sizes are static, else emits `Op`.
template <typename Op>
mlir::OpFoldResult SizeOp(mlir::OpBuilder& b, mlir::Location loc, mlir::OpFoldResult lhs,
                          mlir::OpFoldResult rhs, int64_t (*fold)(int64_t, int64_t)) {
  std::optional<int64_t> l = mlir::getConstantIntValue(lhs);
  std::optional<int64_t> r = mlir::getConstantIntValue(rhs);
  if (l && r) return b.getIndexAttr(fold(*l, *r));
  return b.create<Op>(loc, IndexValue(b, loc, lhs), IndexValue(b, loc, rhs)).getResult();
}

}  // namespace

mlir::OpFoldResult AddSizes(mlir::OpBuilder& b, mlir::Location loc, mlir::OpFoldResult lhs,
                            mlir::OpFoldResult rhs) {
  if (mlir::isConstantIntValue(rhs, 0)) return lhs;
  if (mlir::isConstantIntValue(lhs, 0)) return rhs;
  return SizeOp<mlir::arith::AddIOp>(b, loc, lhs, rhs, [](int64_t x, int64_t y) { return x + y; });
}

mlir::OpFoldResult SubSizes(mlir::OpBuilder& b, mlir::Location loc, mlir::OpFoldResult lhs,
                            mlir::OpFoldResult rhs) {
  if (mlir::isConstantIntValue(rhs, 0)) return lhs;
  return SizeOp<mlir::arith::SubIOp>(b, loc, lhs, rhs, [](int64_t x, int64_t y) { return x - y; });
}

mlir::OpFoldResult MulSizes(mlir::OpBuilder& b, mlir::Location loc, mlir::OpFoldResult lhs,
                            mlir::OpFoldResult rhs) {
  if (mlir::isConstantIntValue(rhs, 1)) return lhs;
  if (mlir::isConstantIntValue(lhs, 1)) return rhs;
  return SizeOp<mlir::arith::MulIOp>(b, loc, lhs, rhs, [](int64_t x, int64_t y) { return x * y; });
}

mlir::OpFoldResult FloorDivSizes(mlir::OpBuilder& b, mlir::Location loc, mlir::OpFoldResult lhs,
                                 mlir::OpFoldResult rhs) {
  if (mlir::isConstantIntValue(rhs, 1)) return lhs;
  return SizeOp<mlir::arith::FloorDivSIOp>(b, loc, lhs, rhs, [](int64_t x, int64_t y) {
    return x >= 0 ? x / y : -((-x + y - 1) / y);
  });
}

mlir::OpFoldResult CeilDivSizes(mlir::OpBuilder& b, mlir::Location loc, mlir::OpFoldResult lhs,
                                mlir::OpFoldResult rhs) {
  if (mlir::isConstantIntValue(rhs, 1)) return lhs;
  return SizeOp<mlir::arith::CeilDivSIOp>(b, loc, lhs, rhs, [](int64_t x, int64_t y) {
    return x >= 0 ? (x + y - 1) / y : -((-x) / y);
  });
}

mlir::OpFoldResult MaxSizes(mlir::OpBuilder& b, mlir::Location loc, mlir::OpFoldResult lhs,
                            mlir::OpFoldResult rhs) {
  return SizeOp<mlir::arith::MaxSIOp>(b, loc, lhs, rhs,
                                      [](int64_t x, int64_t y) { return std::max(x, y); });
}

mlir::OpFoldResult ProductOfSizes(mlir::OpBuilder& b, mlir::Location loc,
                                  llvm::ArrayRef<mlir::OpFoldResult> sizes) {
  mlir::OpFoldResult product = b.getIndexAttr(1);
  for (mlir::OpFoldResult size : sizes) product = MulSizes(b, loc, product, size);
  return product;
}

llvm::SmallVector<int64_t> StaticShapeOf(llvm::ArrayRef<mlir::OpFoldResult> sizes) {
  llvm::SmallVector<int64_t> shape;
  for (mlir::OpFoldResult size : sizes) {
    shape.push_back(mlir::getConstantIntValue(size).value_or(mlir::ShapedType::kDynamic));
  }
  return shape;
}

mlir::Value PadTensor(mlir::OpBuilder& b, mlir::Location loc, mlir::Value value,
                      llvm::ArrayRef<mlir::OpFoldResult> low,
                      llvm::ArrayRef<mlir::OpFoldResult> high, mlir::Value padding) {
  bool none = true;
  for (mlir::OpFoldResult pad : low) none &= mlir::isConstantIntValue(pad, 0);
  for (mlir::OpFoldResult pad : high) none &= mlir::isConstantIntValue(pad, 0);
  if (none) return value;
  auto type = llvm::cast<mlir::RankedTensorType>(value.getType());
  llvm::SmallVector<mlir::OpFoldResult> sizes = TensorSizes(b, loc, value);
  llvm::SmallVector<mlir::OpFoldResult> padded;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    padded.push_back(AddSizes(b, loc, AddSizes(b, loc, sizes[i], low[i]), high[i]));
  }
  // tensor.pad, which kiln-compile's --kiln-lower-tensor-pads turns into a
  // generic of its own where a window reads it; a filled tensor with the
  // value inserted would join the reader's dispatch whole.
  auto padded_type = mlir::RankedTensorType::get(StaticShapeOf(padded), type.getElementType());
  return mlir::tensor::PadOp::create(b, loc, padded_type, value, low, high, padding);
}

mlir::Value CollapseDims(mlir::OpBuilder& b, mlir::Location loc, mlir::Value value,
                         llvm::ArrayRef<mlir::ReassociationIndices> reassociation) {
  return b.create<mlir::tensor::CollapseShapeOp>(loc, value, reassociation);
}

mlir::Value ExpandDims(mlir::OpBuilder& b, mlir::Location loc, mlir::Value value,
                       llvm::ArrayRef<mlir::ReassociationIndices> reassociation,
                       llvm::ArrayRef<mlir::OpFoldResult> sizes) {
  auto type = llvm::cast<mlir::RankedTensorType>(value.getType());
  auto result_type = mlir::RankedTensorType::get(StaticShapeOf(sizes), type.getElementType());
  return b.create<mlir::tensor::ExpandShapeOp>(loc, result_type, value, reassociation, sizes);
}

mlir::Value BuildGeneric(mlir::OpBuilder& b, mlir::Location loc, mlir::ValueRange inputs,
                         llvm::ArrayRef<mlir::AffineMap> input_maps, mlir::Value init,
                         mlir::AffineMap init_map,
                         llvm::ArrayRef<mlir::utils::IteratorType> iterators,
                         const GenericBody& body) {
  llvm::SmallVector<mlir::AffineMap> maps(input_maps);
  maps.push_back(init_map);
  auto generic = b.create<mlir::linalg::GenericOp>(
      loc, init.getType(), inputs, mlir::ValueRange{init}, maps, iterators,
      [&](mlir::OpBuilder& nested, mlir::Location nested_loc, mlir::ValueRange args) {
        nested.create<mlir::linalg::YieldOp>(nested_loc, body(nested, nested_loc, args));
      });
  return generic.getResult(0);
}

mlir::AffineMap TrailingBroadcastMap(mlir::MLIRContext* context, mlir::RankedTensorType type,
                                     int64_t loop_count, int64_t first_loop,
                                     llvm::ArrayRef<mlir::OpFoldResult> loop_sizes) {
  const int64_t rank = type.getRank();
  const int64_t aligned = static_cast<int64_t>(loop_sizes.size());
  llvm::SmallVector<mlir::AffineExpr> exprs;
  for (int64_t dim = 0; dim < rank; ++dim) {
    const int64_t loop = aligned - rank + dim;
    const bool broadcast =
        type.getDimSize(dim) == 1 && !mlir::isConstantIntValue(loop_sizes[loop], 1);
    exprs.push_back(broadcast ? mlir::getAffineConstantExpr(0, context)
                              : mlir::getAffineDimExpr(first_loop + loop, context));
  }
  return mlir::AffineMap::get(loop_count, 0, exprs, context);
}

mlir::FailureOr<mlir::Value> BroadcastToSizes(NodeImporter& node, mlir::Value value,
                                              llvm::ArrayRef<mlir::OpFoldResult> sizes,
                                              mlir::Type element_type, const GenericBody& body) {
  mlir::OpBuilder& b = node.builder();
  auto type = llvm::dyn_cast<mlir::RankedTensorType>(value.getType());
  if (!type) return node.Fail("an operand of unknown rank is not supported");
  const int64_t rank = static_cast<int64_t>(sizes.size());
  if (type.getRank() > rank) {
    return node.Fail("an operand of rank " + std::to_string(type.getRank()) +
                     " does not broadcast to rank " + std::to_string(rank));
  }
  for (int64_t dim = 0; dim < type.getRank(); ++dim) {
    std::optional<int64_t> target = mlir::getConstantIntValue(sizes[rank - type.getRank() + dim]);
    const int64_t size = type.getDimSize(dim);
    if (target && !mlir::ShapedType::isDynamic(size) && size != 1 && size != *target) {
      return node.Fail("an operand of size " + std::to_string(size) + " does not broadcast to " +
                       std::to_string(*target));
    }
  }
  mlir::AffineMap map = TrailingBroadcastMap(b.getContext(), type, rank, 0, sizes);
  mlir::Value init = EmptyTensor(b, node.loc(), sizes, element_type);
  llvm::SmallVector<mlir::utils::IteratorType> iterators(rank, mlir::utils::IteratorType::parallel);
  return BuildGeneric(b, node.loc(), value, map, init, b.getMultiDimIdentityMap(rank), iterators,
                      [&](mlir::OpBuilder& nested, mlir::Location loc, mlir::ValueRange args) {
                        return body ? body(nested, loc, args.take_front(1)) : args[0];
                      });
}

mlir::Value LowestValue(mlir::OpBuilder& b, mlir::Location loc, mlir::Type type,
                        OnnxElementType onnx_type) {
  if (auto float_type = llvm::dyn_cast<mlir::FloatType>(type)) {
    return b.create<mlir::arith::ConstantOp>(
        loc, b.getFloatAttr(float_type, llvm::APFloat::getInf(float_type.getFloatSemantics(),
                                                              /*Negative=*/true)));
  }
  const unsigned width = type.getIntOrFloatBitWidth();
  const llvm::APInt lowest =
      IsUnsigned(onnx_type) || width == 1 ? llvm::APInt::getZero(width)
                                          : llvm::APInt::getSignedMinValue(width);
  return b.create<mlir::arith::ConstantOp>(loc, b.getIntegerAttr(type, lowest));
}

mlir::FailureOr<SpatialWindow> ReadSpatialWindow(NodeImporter& node,
                                                 llvm::ArrayRef<mlir::OpFoldResult> input_sizes,
                                                 llvm::ArrayRef<int64_t> kernel, bool ceil_mode,
                                                 bool has_dilations) {
  mlir::OpBuilder& b = node.builder();
  mlir::Location loc = node.loc();
  const int64_t rank = static_cast<int64_t>(kernel.size());
  SpatialWindow window;
  window.kernel.assign(kernel.begin(), kernel.end());
  for (int64_t k : kernel) {
    if (k < 1) return node.Fail("kernel sizes must be positive");
  }
  auto read = [&](llvm::StringRef name, int64_t size, int64_t default_value,
                  llvm::SmallVector<int64_t>& out) -> mlir::LogicalResult {
    std::vector<int64_t> values = node.IntsAttribute(name);
    if (values.empty()) values.assign(size, default_value);
    if (static_cast<int64_t>(values.size()) != size) {
      return node.Fail("'" + name + "' has " + std::to_string(values.size()) +
                       " values where the input has " + std::to_string(rank) +
                       " spatial dimensions");
    }
    out.assign(values.begin(), values.end());
    return mlir::success();
  };
  if (mlir::failed(read("strides", rank, 1, window.strides))) return mlir::failure();
  if (has_dilations) {
    if (mlir::failed(read("dilations", rank, 1, window.dilations))) return mlir::failure();
  } else {
    window.dilations.assign(rank, 1);
  }
  llvm::SmallVector<int64_t> pads;
  if (mlir::failed(read("pads", 2 * rank, 0, pads))) return mlir::failure();
  for (int64_t i = 0; i < rank; ++i) {
    if (window.strides[i] < 1 || window.dilations[i] < 1) {
      return node.Fail("strides and dilations must be positive");
    }
    if (pads[i] < 0 || pads[rank + i] < 0) return node.Fail("negative pads are not supported");
  }
  const std::string auto_pad = node.StringAttribute("auto_pad", "NOTSET");
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t stride = window.strides[i];
    const int64_t dilated = window.DilatedKernel(i);
    mlir::OpFoldResult in = input_sizes[i];
    mlir::OpFoldResult zero = b.getIndexAttr(0);
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      // The output covers ceil(in / stride) windows; the padding they need
      // beyond the input is split, the odd one at the end (UPPER) or the
      // beginning (LOWER).
      mlir::OpFoldResult out = CeilDivSizes(b, loc, in, b.getIndexAttr(stride));
      mlir::OpFoldResult needed = AddSizes(
          b, loc, MulSizes(b, loc, SubSizes(b, loc, out, b.getIndexAttr(1)), b.getIndexAttr(stride)),
          b.getIndexAttr(dilated));
      mlir::OpFoldResult total = MaxSizes(b, loc, SubSizes(b, loc, needed, in), zero);
      mlir::OpFoldResult half = FloorDivSizes(b, loc, total, b.getIndexAttr(2));
      mlir::OpFoldResult rest = SubSizes(b, loc, total, half);
      window.pads_begin.push_back(auto_pad == "SAME_UPPER" ? half : rest);
      window.pads_end.push_back(auto_pad == "SAME_UPPER" ? rest : half);
      window.output_sizes.push_back(out);
      window.extra_end.push_back(zero);
      continue;
    }
    if (auto_pad == "VALID") {
      window.pads_begin.push_back(zero);
      window.pads_end.push_back(zero);
    } else if (auto_pad == "NOTSET") {
      window.pads_begin.push_back(b.getIndexAttr(pads[i]));
      window.pads_end.push_back(b.getIndexAttr(pads[rank + i]));
    } else {
      return node.Fail("unknown auto_pad '" + auto_pad + "'");
    }
    mlir::OpFoldResult padded =
        AddSizes(b, loc, AddSizes(b, loc, in, window.pads_begin[i]), window.pads_end[i]);
    std::optional<int64_t> static_padded = mlir::getConstantIntValue(padded);
    if (static_padded && *static_padded < dilated) {
      return node.Fail("the kernel (" + std::to_string(dilated) +
                       " with dilations) is larger than the padded input (" +
                       std::to_string(*static_padded) + ")");
    }
    mlir::OpFoldResult span = SubSizes(b, loc, padded, b.getIndexAttr(dilated));
    mlir::OpFoldResult positions = ceil_mode ? CeilDivSizes(b, loc, span, b.getIndexAttr(stride))
                                             : FloorDivSizes(b, loc, span, b.getIndexAttr(stride));
    mlir::OpFoldResult out = AddSizes(b, loc, positions, b.getIndexAttr(1));
    if (ceil_mode) {
      // A last window that would start in the end padding is dropped
      // (ONNX Runtime, PyTorch): out - 1 windows when
      // (out - 1) * stride >= in + pad_begin.
      mlir::OpFoldResult last_start = MulSizes(b, loc, positions, b.getIndexAttr(stride));
      mlir::OpFoldResult limit = AddSizes(b, loc, in, window.pads_begin[i]);
      std::optional<int64_t> s = mlir::getConstantIntValue(last_start);
      std::optional<int64_t> l = mlir::getConstantIntValue(limit);
      if (s && l) {
        if (*s >= *l) out = b.getIndexAttr(*mlir::getConstantIntValue(out) - 1);
      } else {
        mlir::Value drop = b.create<mlir::arith::CmpIOp>(loc, mlir::arith::CmpIPredicate::sge,
                                                         IndexValue(b, loc, last_start),
                                                         IndexValue(b, loc, limit));
        mlir::Value out_value = IndexValue(b, loc, out);
        mlir::Value one = b.create<mlir::arith::ConstantIndexOp>(loc, 1);
        mlir::Value fewer = b.create<mlir::arith::SubIOp>(loc, out_value, one);
        out = b.create<mlir::arith::SelectOp>(loc, drop, fewer, out_value).getResult();
      }
    }
    window.output_sizes.push_back(out);
    // The last window ends at (out - 1) * stride + dilated; the padded input
    // may end before it with ceil_mode.
    mlir::OpFoldResult end = AddSizes(
        b, loc, MulSizes(b, loc, SubSizes(b, loc, out, b.getIndexAttr(1)), b.getIndexAttr(stride)),
        b.getIndexAttr(dilated));
    window.extra_end.push_back(
        ceil_mode ? MaxSizes(b, loc, SubSizes(b, loc, end, padded), zero) : zero);
  }
  return window;
}

mlir::Value PadSpatial(mlir::OpBuilder& b, mlir::Location loc, mlir::Value input,
                       const SpatialWindow& window, mlir::Value padding) {
  llvm::SmallVector<mlir::OpFoldResult> low(2, b.getIndexAttr(0));
  llvm::SmallVector<mlir::OpFoldResult> high(2, b.getIndexAttr(0));
  for (int64_t i = 0; i < window.rank(); ++i) {
    low.push_back(window.pads_begin[i]);
    high.push_back(AddSizes(b, loc, window.pads_end[i], window.extra_end[i]));
  }
  return PadTensor(b, loc, input, low, high, padding);
}

mlir::FailureOr<mlir::Value> SubtractZeroPoint(NodeImporter& node, int64_t input_index,
                                               int64_t zero_point_index, int64_t per_row_dim) {
  mlir::OpBuilder& b = node.builder();
  mlir::Location loc = node.loc();
  mlir::Value value = node.Input(input_index);
  const OnnxElementType type = node.InputElementType(input_index);
  if (type != onnx::TensorProto::INT8 && type != onnx::TensorProto::UINT8) {
    return node.Fail("operands of type " + OnnxElementTypeName(type) +
                     " are not supported (int8 or uint8)");
  }
  mlir::Type i32 = b.getI32Type();
  const OnnxElementType i32_type = onnx::TensorProto::INT32;
  if (!node.HasInput(zero_point_index)) {
    return ConvertTensor(node, value, type, i32_type);
  }
  mlir::Value zero_point = node.Input(zero_point_index);
  const OnnxElementType zero_point_type = node.InputElementType(zero_point_index);
  if (zero_point_type != type) {
    return node.Fail("zero point " + std::to_string(zero_point_index) +
                     " has another type than its operand");
  }
  auto zp_type = llvm::dyn_cast<mlir::RankedTensorType>(zero_point.getType());
  auto value_type = llvm::dyn_cast<mlir::RankedTensorType>(value.getType());
  if (!zp_type || !value_type) return node.Fail("operands of unknown rank are not supported");
  if (zp_type.getRank() == 1 && zp_type.getDimSize(0) != 1 && per_row_dim >= 0 &&
      per_row_dim < value_type.getRank()) {
    // A vector of per-row zero points: [M] -> [M, 1, ...] aligned with the
    // row dimension.
    const int64_t trailing = value_type.getRank() - 1 - per_row_dim;
    if (trailing > 0) {
      llvm::SmallVector<mlir::OpFoldResult> sizes = TensorSizes(b, loc, zero_point);
      mlir::ReassociationIndices group;
      for (int64_t i = 0; i <= trailing; ++i) {
        group.push_back(i);
        if (i > 0) sizes.push_back(b.getIndexAttr(1));
      }
      zero_point = ExpandDims(b, loc, zero_point, {group}, sizes);
    }
  }
  mlir::FailureOr<mlir::Value> result = BuildElementwise(
      node, {value, zero_point}, i32,
      [&](mlir::OpBuilder& nested, mlir::Location nested_loc, mlir::ValueRange x) -> mlir::Value {
        mlir::Value lhs = ConvertScalar(nested, nested_loc, x[0], type, i32_type);
        mlir::Value rhs = ConvertScalar(nested, nested_loc, x[1], type, i32_type);
        return nested.create<mlir::arith::SubIOp>(nested_loc, lhs, rhs);
      });
  if (mlir::failed(result)) return mlir::failure();
  auto result_type = llvm::cast<mlir::RankedTensorType>(result->getType());
  if (result_type.getRank() != value_type.getRank()) {
    return node.Fail("zero point " + std::to_string(zero_point_index) +
                     " does not broadcast to its operand");
  }
  return result;
}

}  // namespace kiln::onnx_import
