// Convolutions: Conv, ConvInteger and ConvTranspose over 1 or more spatial
// dimensions, NCHW layout.
//
// The input is padded (layer_builders.h's PadTensor); the bias is added
// to the convolution's result. Ungrouped 1-D, 2-D and 3-D convolutions are
// linalg's named conv_{1d_ncw_fcw,2d_nchw_fchw,3d_ncdhw_fcdhw}, 2-D
// depthwise ones depthwise_conv_2d_nchw_chw and other grouped 2-D ones
// conv_2d_ngchw_gfchw; the rest (grouped 1-D and 3-D, 4-D and up,
// ConvTranspose) one linalg.generic over the grouped layout
// out[n, g, m, o...] += x[n, g, c, o * stride + k * dilation...] * w[g, m, c, k...].
//
// ConvTranspose is the convolution of the input spread by the strides
// (stride - 1 zeros between elements) and padded by (kernel - 1) *
// dilation - pad, with the kernel flipped along every spatial dimension
// and its channels swapped. It needs static spatial sizes.
#include "compiler/onnx/layer_builders.h"
#include "compiler/onnx/node_importer.h"
#include "compiler/onnx/ops/layer_ops.h"
#include "compiler/onnx/tensor_builders.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace kiln::onnx_import {
namespace {

using mlir::utils::IteratorType;

// The kernel's spatial sizes: the kernel_shape attribute, else the
// weights' static sizes.
mlir::FailureOr<llvm::SmallVector<int64_t>> KernelShape(NodeImporter& node,
                                                        mlir::RankedTensorType weights,
                                                        int64_t spatial_rank) {
  llvm::SmallVector<int64_t> kernel;
  for (int64_t i = 0; i < spatial_rank; ++i) {
    const int64_t size = weights.getDimSize(2 + i);
    if (mlir::ShapedType::isDynamic(size)) {
      return node.Fail("the weights' spatial sizes must be static");
    }
    kernel.push_back(size);
  }
  std::vector<int64_t> attribute = node.IntsAttribute("kernel_shape");
  if (!attribute.empty() && llvm::ArrayRef<int64_t>(attribute) != llvm::ArrayRef(kernel)) {
    return node.Fail("kernel_shape differs from the weights' spatial sizes");
  }
  return kernel;
}

// Adds bias `bias` ([M]) along dimension 1 of `value` [N, M, spatial...];
// `value` itself without a bias. The bias is added after the convolution
// rather than being its accumulator's initial value: kiln-compile loses the
// accumulation of a contraction whose init another dispatch computes
// (onnx-gaps/contraction-init-from-dispatch.mlir).
mlir::Value AddBias(mlir::OpBuilder& b, mlir::Location loc, mlir::Value value, mlir::Value bias) {
  if (!bias) return value;
  auto type = llvm::cast<mlir::RankedTensorType>(value.getType());
  const int64_t rank = type.getRank();
  mlir::MLIRContext* context = b.getContext();
  mlir::AffineMap bias_map = mlir::AffineMap::get(rank, 0, mlir::getAffineDimExpr(1, context));
  mlir::AffineMap identity = b.getMultiDimIdentityMap(rank);
  llvm::SmallVector<IteratorType> iterators(rank, IteratorType::parallel);
  const bool is_float = llvm::isa<mlir::FloatType>(type.getElementType());
  return BuildGeneric(
      b, loc, {value, bias}, {identity, bias_map},
      EmptyTensor(b, loc, TensorSizes(b, loc, value), type.getElementType()), identity, iterators,
      [&](mlir::OpBuilder& nested, mlir::Location nested_loc, mlir::ValueRange args) -> mlir::Value {
        if (is_float) return nested.create<mlir::arith::AddFOp>(nested_loc, args[0], args[1]);
        return nested.create<mlir::arith::AddIOp>(nested_loc, args[0], args[1]);
      });
}

// Splits dimension `dim` of `value` into [groups, size / groups].
mlir::Value SplitGroups(mlir::OpBuilder& b, mlir::Location loc, mlir::Value value, int64_t dim,
                        int64_t groups) {
  llvm::SmallVector<mlir::OpFoldResult> sizes = TensorSizes(b, loc, value);
  const int64_t rank = static_cast<int64_t>(sizes.size());
  llvm::SmallVector<mlir::ReassociationIndices> reassociation;
  llvm::SmallVector<mlir::OpFoldResult> expanded;
  for (int64_t i = 0, out = 0; i < rank; ++i) {
    if (i == dim) {
      reassociation.push_back({out, out + 1});
      expanded.push_back(b.getIndexAttr(groups));
      expanded.push_back(FloorDivSizes(b, loc, sizes[i], b.getIndexAttr(groups)));
      out += 2;
    } else {
      reassociation.push_back({out});
      expanded.push_back(sizes[i]);
      out += 1;
    }
  }
  return ExpandDims(b, loc, value, reassociation, expanded);
}

// Merges dimensions `dim` and `dim` + 1 of `value`.
mlir::Value MergeGroups(mlir::OpBuilder& b, mlir::Location loc, mlir::Value value, int64_t dim) {
  const int64_t rank = llvm::cast<mlir::RankedTensorType>(value.getType()).getRank();
  llvm::SmallVector<mlir::ReassociationIndices> reassociation;
  for (int64_t i = 0; i < rank; ++i) {
    if (i == dim) {
      reassociation.push_back({i, i + 1});
      ++i;
    } else {
      reassociation.push_back({i});
    }
  }
  return CollapseDims(b, loc, value, reassociation);
}

// The grouped convolution as one linalg.generic: x [N, G, C, in...], w
// [G, M, C, k...] (or [G, C, M, k...] with `weights_cm`), init [N, G, M,
// out...].
mlir::Value GroupedConvolution(mlir::OpBuilder& b, mlir::Location loc, mlir::Value x,
                               mlir::Value w, bool weights_cm, mlir::Value init,
                               llvm::ArrayRef<int64_t> strides, llvm::ArrayRef<int64_t> dilations) {
  mlir::MLIRContext* context = b.getContext();
  const int64_t spatial = static_cast<int64_t>(strides.size());
  // Loops: n, g, m, o..., c, k...
  const int64_t loops = 4 + 2 * spatial;
  auto dim = [&](int64_t i) { return mlir::getAffineDimExpr(i, context); };
  const int64_t c_loop = 3 + spatial;
  llvm::SmallVector<mlir::AffineExpr> x_exprs = {dim(0), dim(1), dim(c_loop)};
  llvm::SmallVector<mlir::AffineExpr> w_exprs = {dim(1)};
  if (weights_cm) {
    w_exprs.append({dim(c_loop), dim(2)});
  } else {
    w_exprs.append({dim(2), dim(c_loop)});
  }
  llvm::SmallVector<mlir::AffineExpr> out_exprs = {dim(0), dim(1), dim(2)};
  for (int64_t i = 0; i < spatial; ++i) {
    x_exprs.push_back(dim(3 + i) * strides[i] + dim(c_loop + 1 + i) * dilations[i]);
    w_exprs.push_back(dim(c_loop + 1 + i));
    out_exprs.push_back(dim(3 + i));
  }
  llvm::SmallVector<IteratorType> iterators(loops, IteratorType::parallel);
  for (int64_t i = c_loop; i < loops; ++i) iterators[i] = IteratorType::reduction;
  const bool is_float = llvm::isa<mlir::FloatType>(
      llvm::cast<mlir::RankedTensorType>(init.getType()).getElementType());
  return BuildGeneric(
      b, loc, {x, w},
      {mlir::AffineMap::get(loops, 0, x_exprs, context),
       mlir::AffineMap::get(loops, 0, w_exprs, context)},
      init, mlir::AffineMap::get(loops, 0, out_exprs, context), iterators,
      [&](mlir::OpBuilder& nested, mlir::Location nested_loc, mlir::ValueRange args) -> mlir::Value {
        if (is_float) {
          mlir::Value product = nested.create<mlir::arith::MulFOp>(nested_loc, args[0], args[1]);
          return nested.create<mlir::arith::AddFOp>(nested_loc, args[2], product);
        }
        mlir::Value product = nested.create<mlir::arith::MulIOp>(nested_loc, args[0], args[1]);
        return nested.create<mlir::arith::AddIOp>(nested_loc, args[2], product);
      });
}

// Conv of x [N, C, spatial...] (padded already) and w [M, C / group,
// k...] accumulated onto init [N, M, out...].
mlir::Value Convolve(mlir::OpBuilder& b, mlir::Location loc, mlir::Value x, mlir::Value w,
                     mlir::Value init, int64_t group, llvm::ArrayRef<int64_t> strides,
                     llvm::ArrayRef<int64_t> dilations) {
  const int64_t spatial = static_cast<int64_t>(strides.size());
  auto i64_attr = [&](llvm::ArrayRef<int64_t> values) {
    return mlir::DenseIntElementsAttr::get(
        mlir::RankedTensorType::get({static_cast<int64_t>(values.size())}, b.getI64Type()), values);
  };
  mlir::Attribute stride_attr = i64_attr(strides);
  mlir::Attribute dilation_attr = i64_attr(dilations);
  mlir::Type type = init.getType();
  auto x_type = llvm::cast<mlir::RankedTensorType>(x.getType());
  auto w_type = llvm::cast<mlir::RankedTensorType>(w.getType());
  if (group == 1) {
    // A named array: a ValueRange of a braced list would outlive the list.
    const mlir::Value input_values[] = {x, w};
    mlir::ValueRange inputs(input_values);
    if (spatial == 1) {
      return b.create<mlir::linalg::Conv1DNcwFcwOp>(loc, type, inputs, init, stride_attr,
                                                    dilation_attr)
          .getResult(0);
    }
    if (spatial == 2) {
      return b.create<mlir::linalg::Conv2DNchwFchwOp>(loc, type, inputs, init, stride_attr,
                                                      dilation_attr)
          .getResult(0);
    }
    if (spatial == 3) {
      return b.create<mlir::linalg::Conv3DNcdhwFcdhwOp>(loc, type, inputs, init, stride_attr,
                                                        dilation_attr)
          .getResult(0);
    }
  }
  if (spatial == 2 && w_type.getDimSize(1) == 1 && x_type.getDimSize(1) == group &&
      w_type.getDimSize(0) == group) {
    // Depthwise: one filter per channel, [C, 1, kh, kw] -> [C, kh, kw].
    mlir::Value filters = CollapseDims(b, loc, w, {{0, 1}, {2}, {3}});
    return b.create<mlir::linalg::DepthwiseConv2DNchwChwOp>(
                loc, type, mlir::ValueRange{x, filters}, init, stride_attr, dilation_attr)
        .getResult(0);
  }
  mlir::Value grouped_x = SplitGroups(b, loc, x, 1, group);
  mlir::Value grouped_w = SplitGroups(b, loc, w, 0, group);
  mlir::Value grouped_init = SplitGroups(b, loc, init, 1, group);
  mlir::Value result;
  if (spatial == 2) {
    result = b.create<mlir::linalg::Conv2DNgchwGfchwOp>(
                  loc, grouped_init.getType(), mlir::ValueRange{grouped_x, grouped_w},
                  grouped_init, stride_attr, dilation_attr)
                 .getResult(0);
  } else {
    result = GroupedConvolution(b, loc, grouped_x, grouped_w, /*weights_cm=*/false, grouped_init,
                                strides, dilations);
  }
  return MergeGroups(b, loc, result, 1);
}

struct ConvOperands {
  mlir::Value x;
  mlir::Value w;
  mlir::Value bias;
  OnnxElementType result_type;
};

mlir::LogicalResult ConvertConvolution(NodeImporter& node, const ConvOperands& operands) {
  mlir::OpBuilder& b = node.builder();
  mlir::Location loc = node.loc();
  auto x_type = llvm::dyn_cast<mlir::RankedTensorType>(operands.x.getType());
  auto w_type = llvm::dyn_cast<mlir::RankedTensorType>(operands.w.getType());
  if (!x_type || !w_type) return node.Fail("operands of unknown rank are not supported");
  const int64_t rank = x_type.getRank();
  if (rank < 3) return node.Fail("the input needs at least one spatial dimension");
  if (w_type.getRank() != rank) return node.Fail("the weights' rank differs from the input's");
  const int64_t spatial = rank - 2;
  const int64_t group = node.IntAttribute("group", 1);
  if (group < 1) return node.Fail("group must be positive");
  const int64_t channels = x_type.getDimSize(1);
  const int64_t filters = w_type.getDimSize(0);
  const int64_t group_channels = w_type.getDimSize(1);
  if (group > 1 && (mlir::ShapedType::isDynamic(channels) ||
                    mlir::ShapedType::isDynamic(filters))) {
    return node.Fail("grouped convolutions need static channel counts");
  }
  if (!mlir::ShapedType::isDynamic(channels) && !mlir::ShapedType::isDynamic(group_channels) &&
      channels != group_channels * group) {
    return node.Fail("the input's " + std::to_string(channels) + " channels are not " +
                     std::to_string(group) + " groups of the weights' " +
                     std::to_string(group_channels));
  }
  if (!mlir::ShapedType::isDynamic(filters) && filters % group != 0) {
    return node.Fail("the " + std::to_string(filters) + " filters do not split into " +
                     std::to_string(group) + " groups");
  }
  mlir::FailureOr<llvm::SmallVector<int64_t>> kernel = KernelShape(node, w_type, spatial);
  if (mlir::failed(kernel)) return mlir::failure();
  llvm::SmallVector<mlir::OpFoldResult> x_sizes = TensorSizes(b, loc, operands.x);
  mlir::FailureOr<SpatialWindow> window =
      ReadSpatialWindow(node, llvm::ArrayRef(x_sizes).drop_front(2), *kernel,
                        /*ceil_mode=*/false, /*has_dilations=*/true);
  if (mlir::failed(window)) return mlir::failure();
  mlir::Type element_type = x_type.getElementType();
  mlir::Value padded =
      PadSpatial(b, loc, operands.x, *window, ScalarConstant(b, loc, element_type, 0));
  llvm::SmallVector<mlir::OpFoldResult> out_sizes = {x_sizes[0],
                                                     TensorSizes(b, loc, operands.w)[0]};
  out_sizes.append(window->output_sizes);
  mlir::Value init = FilledTensor(b, loc, out_sizes, ScalarConstant(b, loc, element_type, 0));
  mlir::Value result = Convolve(b, loc, padded, operands.w, init, group, window->strides,
                                window->dilations);
  node.SetOutput(0, AddBias(b, loc, result, operands.bias), operands.result_type);
  return mlir::success();
}

mlir::LogicalResult ConvertConv(NodeImporter& node) {
  const OnnxElementType type = node.InputElementType(0);
  if (!IsFloat(type)) return node.Fail("operands of type " + OnnxElementTypeName(type) +
                                       " are not supported");
  if (node.InputElementType(1) != type) return node.Fail("the weights' type differs");
  ConvOperands operands{node.Input(0), node.Input(1), node.Input(2), type};
  if (operands.bias) {
    auto bias_type = llvm::dyn_cast<mlir::RankedTensorType>(operands.bias.getType());
    if (!bias_type || bias_type.getRank() != 1) return node.Fail("the bias must be a vector");
  }
  return ConvertConvolution(node, operands);
}

mlir::LogicalResult ConvertConvInteger(NodeImporter& node) {
  // Subtracting the zero points first makes the padding 0 too (ONNX pads
  // ConvInteger's input with its zero point).
  mlir::FailureOr<mlir::Value> x = SubtractZeroPoint(node, 0, 2, -1);
  if (mlir::failed(x)) return mlir::failure();
  if (node.HasInput(2)) {
    auto zp_type = llvm::dyn_cast<mlir::RankedTensorType>(node.Input(2).getType());
    if (!zp_type || zp_type.getNumElements() != 1) {
      return node.Fail("x_zero_point must be a scalar (per-tensor quantization)");
    }
  }
  mlir::FailureOr<mlir::Value> w = SubtractZeroPoint(node, 1, 3, 0);
  if (mlir::failed(w)) return mlir::failure();
  return ConvertConvolution(node, {*x, *w, nullptr, onnx::TensorProto::INT32});
}

mlir::LogicalResult ConvertConvTranspose(NodeImporter& node) {
  mlir::OpBuilder& b = node.builder();
  mlir::Location loc = node.loc();
  mlir::MLIRContext* context = b.getContext();
  const OnnxElementType type = node.InputElementType(0);
  if (!IsFloat(type)) return node.Fail("operands of type " + OnnxElementTypeName(type) +
                                       " are not supported");
  if (node.InputElementType(1) != type) return node.Fail("the weights' type differs");
  mlir::Value x = node.Input(0);
  mlir::Value w = node.Input(1);
  mlir::Value bias = node.Input(2);
  auto x_type = llvm::dyn_cast<mlir::RankedTensorType>(x.getType());
  auto w_type = llvm::dyn_cast<mlir::RankedTensorType>(w.getType());
  if (!x_type || !w_type) return node.Fail("operands of unknown rank are not supported");
  const int64_t rank = x_type.getRank();
  if (rank < 3) return node.Fail("the input needs at least one spatial dimension");
  if (w_type.getRank() != rank) return node.Fail("the weights' rank differs from the input's");
  const int64_t spatial = rank - 2;
  for (int64_t i = 1; i < rank; ++i) {
    if (x_type.isDynamicDim(i) || w_type.isDynamicDim(i - 1) || w_type.isDynamicDim(i)) {
      return node.Fail("ConvTranspose needs static channel and spatial sizes");
    }
  }
  const int64_t group = node.IntAttribute("group", 1);
  const int64_t channels = x_type.getDimSize(1);
  if (group < 1 || channels % group != 0 || w_type.getDimSize(0) != channels) {
    return node.Fail("the weights' " + std::to_string(w_type.getDimSize(0)) +
                     " input channels do not match the input's " + std::to_string(channels) +
                     " in " + std::to_string(group) + " groups");
  }
  const int64_t group_filters = w_type.getDimSize(1);
  const int64_t filters = group_filters * group;
  mlir::FailureOr<llvm::SmallVector<int64_t>> kernel = KernelShape(node, w_type, spatial);
  if (mlir::failed(kernel)) return mlir::failure();
  auto read = [&](llvm::StringRef name, int64_t size,
                  int64_t default_value) -> mlir::FailureOr<llvm::SmallVector<int64_t>> {
    std::vector<int64_t> values = node.IntsAttribute(name);
    if (values.empty()) values.assign(size, default_value);
    if (static_cast<int64_t>(values.size()) != size) {
      return node.Fail("'" + name + "' has " + std::to_string(values.size()) +
                       " values for " + std::to_string(spatial) + " spatial dimensions");
    }
    return llvm::SmallVector<int64_t>(values.begin(), values.end());
  };
  auto strides = read("strides", spatial, 1);
  auto dilations = read("dilations", spatial, 1);
  auto pads = read("pads", 2 * spatial, 0);
  auto output_padding = read("output_padding", spatial, 0);
  if (mlir::failed(strides) || mlir::failed(dilations) || mlir::failed(pads) ||
      mlir::failed(output_padding)) {
    return mlir::failure();
  }
  std::vector<int64_t> output_shape = node.IntsAttribute("output_shape");
  if (!output_shape.empty()) {
    // Spatial sizes, or (as ONNX Runtime accepts) the whole output shape.
    if (static_cast<int64_t>(output_shape.size()) == rank) {
      output_shape.erase(output_shape.begin(), output_shape.begin() + 2);
    }
    if (static_cast<int64_t>(output_shape.size()) != spatial) {
      return node.Fail("output_shape has " + std::to_string(output_shape.size()) +
                       " values for " + std::to_string(spatial) + " spatial dimensions");
    }
  }
  const std::string auto_pad = node.StringAttribute("auto_pad", "NOTSET");
  if (auto_pad != "NOTSET" && auto_pad != "VALID" && auto_pad != "SAME_UPPER" &&
      auto_pad != "SAME_LOWER") {
    return node.Fail("unknown auto_pad '" + auto_pad + "'");
  }
  llvm::SmallVector<int64_t> pad_begin(spatial), out(spatial);
  for (int64_t i = 0; i < spatial; ++i) {
    const int64_t stride = (*strides)[i];
    const int64_t dilated = ((*kernel)[i] - 1) * (*dilations)[i] + 1;
    if (stride < 1 || (*dilations)[i] < 1) return node.Fail("strides and dilations must be positive");
    const int64_t in = x_type.getDimSize(2 + i);
    // The output of the transposed convolution without any padding.
    const int64_t full = stride * (in - 1) + (*output_padding)[i] + dilated;
    if (!output_shape.empty() || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      // The padding follows from the requested output size (ONNX Runtime:
      // never negative; a larger output has zeros past the full one);
      // the odd element goes to the end with SAME_UPPER, to the beginning
      // otherwise.
      out[i] = !output_shape.empty() ? output_shape[i] : in * stride;
      const int64_t total = std::max<int64_t>(0, full - out[i]);
      pad_begin[i] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
    } else if (auto_pad == "VALID") {
      pad_begin[i] = 0;
      out[i] = full;
    } else {
      pad_begin[i] = (*pads)[i];
      out[i] = full - (*pads)[i] - (*pads)[spatial + i];
    }
    if (out[i] < 1) return node.Fail("the output would be empty");
  }

  // The input spread by the strides into zeros: x[i] lands at
  // offset + i * stride where offset = (k - 1) * dilation - pad_begin;
  // elements that land outside [0, out + (k - 1) * dilation) are never read.
  mlir::Type element_type = x_type.getElementType();
  mlir::Value zero = ScalarConstant(b, loc, element_type, 0);
  llvm::SmallVector<mlir::OpFoldResult> x_sizes = TensorSizes(b, loc, x);
  llvm::SmallVector<mlir::OpFoldResult> spread_sizes = {x_sizes[0], x_sizes[1]};
  llvm::SmallVector<mlir::OpFoldResult> slice_offsets(2, b.getIndexAttr(0)), slice_sizes = {
                                                                                 x_sizes[0],
                                                                                 x_sizes[1]};
  llvm::SmallVector<mlir::OpFoldResult> insert_offsets(2, b.getIndexAttr(0)),
      insert_strides(2, b.getIndexAttr(1));
  bool empty = false;
  for (int64_t i = 0; i < spatial; ++i) {
    const int64_t stride = (*strides)[i];
    const int64_t reach = ((*kernel)[i] - 1) * (*dilations)[i];
    const int64_t size = out[i] + reach;
    const int64_t offset = reach - pad_begin[i];
    const int64_t in = x_type.getDimSize(2 + i);
    const int64_t first = offset >= 0 ? 0 : (-offset + stride - 1) / stride;
    const int64_t last = std::min<int64_t>(in - 1, (size - 1 - offset) >= 0
                                                       ? (size - 1 - offset) / stride
                                                       : -1);
    if (first > last) empty = true;
    spread_sizes.push_back(b.getIndexAttr(size));
    slice_offsets.push_back(b.getIndexAttr(first));
    slice_sizes.push_back(b.getIndexAttr(std::max<int64_t>(0, last - first + 1)));
    insert_offsets.push_back(b.getIndexAttr(offset + first * stride));
    insert_strides.push_back(b.getIndexAttr(stride));
  }
  mlir::Value spread = FilledTensor(b, loc, spread_sizes, zero);
  if (!empty) {
    mlir::Value slice = x;
    if (slice_sizes != x_sizes) {
      llvm::SmallVector<mlir::OpFoldResult> unit(rank, b.getIndexAttr(1));
      slice = b.create<mlir::tensor::ExtractSliceOp>(loc, x, slice_offsets, slice_sizes, unit);
    }
    spread = b.create<mlir::tensor::InsertSliceOp>(loc, slice, spread, insert_offsets,
                                                   slice_sizes, insert_strides);
  }

  // The kernel flipped, grouped: w [C, M / G, k...] -> [G, C / G, M / G, k...]
  // reversed along k.
  mlir::Value grouped_w = SplitGroups(b, loc, w, 0, group);
  auto grouped_w_type = llvm::cast<mlir::RankedTensorType>(grouped_w.getType());
  const int64_t w_rank = grouped_w_type.getRank();
  llvm::SmallVector<mlir::AffineExpr> flip_exprs;
  for (int64_t i = 0; i < w_rank; ++i) {
    mlir::AffineExpr d = mlir::getAffineDimExpr(i, context);
    flip_exprs.push_back(i < 3 ? d : grouped_w_type.getDimSize(i) - 1 - d);
  }
  llvm::SmallVector<IteratorType> parallel(w_rank, IteratorType::parallel);
  mlir::Value flipped = BuildGeneric(
      b, loc, grouped_w, mlir::AffineMap::get(w_rank, 0, flip_exprs, context),
      EmptyTensor(b, loc, TensorSizes(b, loc, grouped_w), element_type),
      b.getMultiDimIdentityMap(w_rank), parallel,
      [](mlir::OpBuilder&, mlir::Location, mlir::ValueRange args) { return args[0]; });

  llvm::SmallVector<mlir::OpFoldResult> out_sizes = {x_sizes[0], b.getIndexAttr(filters)};
  for (int64_t size : out) out_sizes.push_back(b.getIndexAttr(size));
  if (bias) {
    auto bias_type = llvm::dyn_cast<mlir::RankedTensorType>(bias.getType());
    if (!bias_type || bias_type.getRank() != 1) return node.Fail("the bias must be a vector");
  }
  mlir::Value init = FilledTensor(b, loc, out_sizes, zero);
  llvm::SmallVector<int64_t> unit_strides(spatial, 1);
  mlir::Value result = GroupedConvolution(
      b, loc, SplitGroups(b, loc, spread, 1, group), flipped, /*weights_cm=*/true,
      SplitGroups(b, loc, init, 1, group), unit_strides, *dilations);
  node.SetOutput(0, AddBias(b, loc, MergeGroups(b, loc, result, 1), bias), type);
  return mlir::success();
}

}  // namespace

void RegisterConvolutionOps(OpRegistry& registry) {
  registry.Register("Conv", ConvertConv, 1);
  registry.Register("ConvInteger", ConvertConvInteger, 10);
  registry.Register("ConvTranspose", ConvertConvTranspose, 1);
}

}  // namespace kiln::onnx_import
