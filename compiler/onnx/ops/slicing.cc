// Slicing and assembling ops: Slice, Split, Concat, Pad, Tile, Transpose.
// Contiguous pieces are tensor.extract_slice / tensor.insert_slice; what
// reads elements out of order (negative steps, padding modes) is a
// linalg.generic reading its input with tensor.extract. Known contents
// (shape computations, small constants) fold.
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

// A strided window of each dimension: element i of dimension d is the
// input's element offsets[d] + i * steps[d].
struct Window {
  llvm::SmallVector<OpFoldResult> offsets, sizes, steps;
};

// Sets output `index` to `window` of input `input`: folded where the input's
// contents (or shape tensor elements) are known, tensor.extract_slice for
// known positive steps, else a generic reading each element.
void SetWindowOutput(NodeImporter& node, int64_t index, int64_t input, Window window) {
  mlir::OpBuilder& b = node.builder();
  const ImportedValue* info = node.InputInfo(input);
  auto type = llvm::cast<mlir::RankedTensorType>(info->value.getType());
  const int64_t rank = type.getRank();
  window.sizes = RefineSizes(node, index, window.sizes);
  auto constants = [](llvm::ArrayRef<OpFoldResult> values) {
    llvm::SmallVector<int64_t> result;
    for (OpFoldResult value : values) {
      std::optional<int64_t> known = mlir::getConstantIntValue(value);
      if (!known) return std::optional<llvm::SmallVector<int64_t>>();
      result.push_back(*known);
    }
    return std::optional<llvm::SmallVector<int64_t>>(result);
  };
  auto offsets = constants(window.offsets), sizes = constants(window.sizes),
       steps = constants(window.steps);
  if (offsets && sizes && steps) {
    if (info->constant && type.hasStaticShape()) {
      llvm::SmallVector<int64_t> strides = Strides(type.getShape());
      mlir::DenseElementsAttr folded =
          FoldMovement(info->constant, mlir::RankedTensorType::get(*sizes, type.getElementType()),
                       [&](llvm::ArrayRef<int64_t> position) {
                         int64_t flat = 0;
                         for (int64_t d = 0; d < rank; ++d) {
                           flat += ((*offsets)[d] + position[d] * (*steps)[d]) * strides[d];
                         }
                         return flat;
                       });
      if (folded) {
        node.SetConstantOutput(index, folded, info->element_type);
        return;
      }
    }
    if (rank == 1) {
      if (auto known = KnownElements(node, input)) {
        llvm::SmallVector<OpFoldResult> picked;
        for (int64_t i = 0; i < (*sizes)[0]; ++i)
          picked.push_back((*known)[(*offsets)[0] + i * (*steps)[0]]);
        SetShapeOutput(node, index, picked, /*scalar=*/false, info->element_type);
        return;
      }
    }
  }
  const bool positive_steps = steps && llvm::all_of(*steps, [](int64_t step) { return step > 0; });
  if (positive_steps) {
    auto result_type =
        mlir::RankedTensorType::get(StaticShape(window.sizes), type.getElementType());
    mlir::Value slice = b.create<mlir::tensor::ExtractSliceOp>(
        node.loc(), result_type, info->value, window.offsets, window.sizes, window.steps);
    node.SetOutput(index, slice, info->element_type);
    return;
  }
  // Values a kernel takes from the host arrive there as unsigned 32-bit
  // numbers (onnx-gaps/negative-index-capture.mlir): a step travels as its
  // magnitude and a direction.
  IndexMath math(b, node.loc());
  llvm::SmallVector<mlir::Value> offset_values, magnitudes, backwards;
  for (int64_t d = 0; d < rank; ++d) {
    OpFoldResult negative = math.Cmp(Pred::slt, window.steps[d], math.Constant(0));
    offset_values.push_back(math.Value(window.offsets[d]));
    magnitudes.push_back(math.Value(
        math.Select(negative, math.Sub(math.Constant(0), window.steps[d]), window.steps[d])));
    backwards.push_back(math.Value(math.Select(negative, math.Constant(1), math.Constant(0))));
  }
  mlir::Value result = BuildIndexedGeneric(
      node, window.sizes, type.getElementType(), {}, {},
      [&](mlir::OpBuilder& nested, mlir::Location loc, mlir::ValueRange indices,
          mlir::ValueRange) -> mlir::Value {
        mlir::Value zero = nested.create<mlir::arith::ConstantIndexOp>(loc, 0);
        llvm::SmallVector<mlir::Value> at;
        for (int64_t d = 0; d < rank; ++d) {
          mlir::Value scaled = nested.create<mlir::arith::MulIOp>(loc, indices[d], magnitudes[d]);
          mlir::Value forward = nested.create<mlir::arith::AddIOp>(loc, offset_values[d], scaled);
          mlir::Value backward = nested.create<mlir::arith::SubIOp>(loc, offset_values[d], scaled);
          mlir::Value is_backward =
              nested.create<mlir::arith::CmpIOp>(loc, Pred::ne, backwards[d], zero);
          at.push_back(nested.create<mlir::arith::SelectOp>(loc, is_backward, backward, forward));
        }
        return nested.create<mlir::tensor::ExtractOp>(loc, info->value, at);
      });
  node.SetOutput(index, result, info->element_type);
}

mlir::LogicalResult ConvertSlice(NodeImporter& node) {
  mlir::Value data = node.Input(0);
  mlir::FailureOr<int64_t> rank = RankOf(node, data);
  if (mlir::failed(rank)) return mlir::failure();
  mlir::OpBuilder& b = node.builder();
  IndexMath math(b, node.loc());
  llvm::SmallVector<OpFoldResult> starts, ends, axes, steps;
  auto to_folds = [&](const std::vector<int64_t>& values) {
    llvm::SmallVector<OpFoldResult> result;
    for (int64_t value : values) result.push_back(b.getIndexAttr(value));
    return result;
  };
  if (node.opset() < 10) {
    starts = to_folds(node.IntsAttribute("starts"));
    ends = to_folds(node.IntsAttribute("ends"));
    if (node.HasAttribute("axes")) axes = to_folds(node.IntsAttribute("axes"));
  } else {
    auto read = [&](int64_t input, llvm::SmallVector<OpFoldResult>& into) {
      if (!node.HasInput(input)) return mlir::success();
      mlir::FailureOr<llvm::SmallVector<OpFoldResult>> elements = ElementsOf(node, input);
      if (mlir::failed(elements)) return mlir::failure();
      into = *elements;
      return mlir::success();
    };
    if (mlir::failed(read(1, starts)) || mlir::failed(read(2, ends)) ||
        mlir::failed(read(3, axes)) || mlir::failed(read(4, steps))) {
      return mlir::failure();
    }
  }
  const size_t count = starts.size();
  if (axes.empty()) {
    for (size_t j = 0; j < count; ++j) axes.push_back(b.getIndexAttr(j));
  }
  if (steps.empty()) steps.assign(count, b.getIndexAttr(1));
  if (ends.size() != count || axes.size() != count || steps.size() != count) {
    return node.Fail("starts, ends, axes and steps must have the same length");
  }
  llvm::SmallVector<OpFoldResult> dims = TensorSizes(b, node.loc(), data);
  Window window;
  window.offsets.assign(*rank, b.getIndexAttr(0));
  window.sizes = dims;
  window.steps.assign(*rank, b.getIndexAttr(1));
  for (size_t j = 0; j < count; ++j) {
    if (mlir::getConstantIntValue(steps[j]) == 0) return node.Fail("a step is 0");
    std::optional<int64_t> axis = mlir::getConstantIntValue(axes[j]);
    if (axis && (*axis < -*rank || *axis >= *rank)) {
      return node.Fail("axis " + std::to_string(*axis) + " is out of range for rank " +
                       std::to_string(*rank));
    }
    for (int64_t d = 0; d < *rank; ++d) {
      // Whether entry j slices dimension d (known unless the axes are read
      // at run time).
      OpFoldResult hit = math.Or(math.Cmp(Pred::eq, axes[j], math.Constant(d)),
                                 math.Cmp(Pred::eq, axes[j], math.Constant(d - *rank)));
      if (mlir::getConstantIntValue(hit) == 0) continue;
      // ONNX's clamping: negative starts and ends count from the back;
      // starts then lie in [0, dim] ([0, dim-1] for negative steps), ends
      // in [0, dim] ([-1, dim-1]). Bounding them into [-dim-1, dim] first
      // keeps INT64_MIN/MAX ("to the end") from overflowing.
      OpFoldResult dim = dims[d];
      OpFoldResult low = math.Sub(math.Constant(-1), dim);
      OpFoldResult start = math.Clamp(starts[j], low, dim);
      OpFoldResult end = math.Clamp(ends[j], low, dim);
      start =
          math.Select(math.Cmp(Pred::slt, start, math.Constant(0)), math.Add(start, dim), start);
      end = math.Select(math.Cmp(Pred::slt, end, math.Constant(0)), math.Add(end, dim), end);
      OpFoldResult step = steps[j];
      OpFoldResult positive = math.Cmp(Pred::sgt, step, math.Constant(0));
      OpFoldResult last = math.Sub(dim, math.Constant(1));
      start = math.Select(positive, math.Clamp(start, math.Constant(0), dim),
                          math.Clamp(start, math.Constant(0), last));
      end = math.Select(positive, math.Clamp(end, math.Constant(0), dim),
                        math.Clamp(end, math.Constant(-1), last));
      OpFoldResult forward = math.CeilDiv(math.Max(math.Sub(end, start), math.Constant(0)), step);
      OpFoldResult backward = math.CeilDiv(math.Max(math.Sub(start, end), math.Constant(0)),
                                           math.Sub(math.Constant(0), step));
      OpFoldResult size = math.Select(positive, forward, backward);
      window.offsets[d] = math.Select(hit, start, window.offsets[d]);
      window.sizes[d] = math.Select(hit, size, window.sizes[d]);
      window.steps[d] = math.Select(hit, step, window.steps[d]);
    }
  }
  SetWindowOutput(node, 0, 0, window);
  return mlir::success();
}

mlir::LogicalResult ConvertSplit(NodeImporter& node) {
  mlir::Value data = node.Input(0);
  mlir::FailureOr<int64_t> rank = RankOf(node, data);
  if (mlir::failed(rank)) return mlir::failure();
  mlir::FailureOr<int64_t> axis = NormalizeAxis(node, node.IntAttribute("axis", 0), *rank);
  if (mlir::failed(axis)) return mlir::failure();
  mlir::OpBuilder& b = node.builder();
  IndexMath math(b, node.loc());
  llvm::SmallVector<OpFoldResult> dims = TensorSizes(b, node.loc(), data);
  const int64_t outputs = node.output_count();
  llvm::SmallVector<OpFoldResult> parts;
  if (node.opset() < 13 && node.HasAttribute("split")) {
    for (int64_t size : node.IntsAttribute("split")) parts.push_back(b.getIndexAttr(size));
  } else if (node.opset() >= 13 && node.HasInput(1)) {
    mlir::FailureOr<llvm::SmallVector<OpFoldResult>> elements = ElementsOf(node, 1);
    if (mlir::failed(elements)) return mlir::failure();
    parts = *elements;
  } else if (node.opset() >= 18 || node.HasAttribute("num_outputs")) {
    return node.Fail("num_outputs (opset 18) is not supported");
  } else {
    // Equal parts.
    std::optional<int64_t> size = mlir::getConstantIntValue(dims[*axis]);
    if (size && *size % outputs != 0) {
      return node.Fail("size " + std::to_string(*size) + " does not split into " +
                       std::to_string(outputs) + " equal parts");
    }
    parts.assign(outputs, math.Div(dims[*axis], math.Constant(outputs)));
  }
  if (static_cast<int64_t>(parts.size()) != outputs) {
    return node.Fail("split has " + std::to_string(parts.size()) + " sizes for " +
                     std::to_string(outputs) + " outputs");
  }
  OpFoldResult offset = math.Constant(0);
  for (int64_t i = 0; i < outputs; ++i) {
    Window window;
    window.offsets.assign(*rank, b.getIndexAttr(0));
    window.offsets[*axis] = offset;
    window.sizes = dims;
    window.sizes[*axis] = parts[i];
    window.steps.assign(*rank, b.getIndexAttr(1));
    if (node.HasOutput(i)) SetWindowOutput(node, i, 0, window);
    offset = math.Add(offset, parts[i]);
  }
  return mlir::success();
}

mlir::LogicalResult ConvertConcat(NodeImporter& node) {
  const int64_t count = node.input_count();
  if (count == 0) return node.Fail("needs an input");
  mlir::FailureOr<int64_t> rank = RankOf(node, node.Input(0));
  if (mlir::failed(rank)) return mlir::failure();
  if (*rank == 0) return node.Fail("cannot concatenate scalars");
  mlir::FailureOr<int64_t> axis = NormalizeAxis(node, node.IntAttribute("axis", 0), *rank);
  if (mlir::failed(axis)) return mlir::failure();
  mlir::OpBuilder& b = node.builder();
  const OnnxElementType element_type = node.InputElementType(0);
  llvm::SmallVector<mlir::Value> inputs;
  for (int64_t i = 0; i < count; ++i) {
    mlir::Value input = node.Input(i);
    if (!input) return node.Fail("input " + std::to_string(i) + " is missing");
    auto type = llvm::dyn_cast<mlir::RankedTensorType>(input.getType());
    if (!type || type.getRank() != *rank) return node.Fail("the inputs' ranks differ");
    inputs.push_back(input);
  }
  // Shape tensors: the elements side by side.
  if (*rank == 1) {
    llvm::SmallVector<OpFoldResult> elements;
    bool known = true;
    for (int64_t i = 0; i < count && known; ++i) {
      std::optional<llvm::SmallVector<OpFoldResult>> part = KnownElements(node, i);
      if (part) {
        elements.append(part->begin(), part->end());
      } else {
        known = false;
      }
    }
    if (known) {
      SetShapeOutput(node, 0, elements, /*scalar=*/false, element_type);
      return mlir::success();
    }
  }
  IndexMath math(b, node.loc());
  // The sizes: along the axis their sum, elsewhere any input's static size.
  llvm::SmallVector<OpFoldResult> sizes = TensorSizes(b, node.loc(), inputs[0]);
  llvm::SmallVector<llvm::SmallVector<OpFoldResult>> input_sizes;
  OpFoldResult total = math.Constant(0);
  for (mlir::Value input : inputs) {
    input_sizes.push_back(TensorSizes(b, node.loc(), input));
    total = math.Add(total, input_sizes.back()[*axis]);
    for (int64_t d = 0; d < *rank; ++d) {
      std::optional<int64_t> size = mlir::getConstantIntValue(input_sizes.back()[d]);
      std::optional<int64_t> current = mlir::getConstantIntValue(sizes[d]);
      if (d == *axis || !size) continue;
      if (current && *current != *size) {
        return node.Fail("the inputs' sizes differ in dimension " + std::to_string(d));
      }
      sizes[d] = input_sizes.back()[d];
    }
  }
  sizes[*axis] = total;
  sizes = RefineSizes(node, 0, sizes);
  auto type = llvm::cast<mlir::RankedTensorType>(inputs[0].getType());
  auto result_type = mlir::RankedTensorType::get(StaticShape(sizes), type.getElementType());
  // Known contents: each output element from the input holding it.
  bool all_constant = result_type.hasStaticShape();
  for (int64_t i = 0; i < count; ++i) all_constant &= static_cast<bool>(node.InputConstant(i));
  if (all_constant && result_type.getNumElements() <= kMaxFoldedElements) {
    llvm::SmallVector<mlir::Attribute> elements;
    llvm::SmallVector<llvm::SmallVector<mlir::Attribute>> values;
    llvm::SmallVector<llvm::SmallVector<int64_t>> shapes;
    for (int64_t i = 0; i < count; ++i) {
      mlir::DenseElementsAttr constant = node.InputConstant(i);
      values.emplace_back(constant.getValues<mlir::Attribute>().begin(),
                          constant.getValues<mlir::Attribute>().end());
      shapes.emplace_back(constant.getType().getShape());
    }
    llvm::SmallVector<int64_t> position(*rank, 0);
    for (int64_t k = 0; k < result_type.getNumElements(); ++k) {
      int64_t along = position[*axis], i = 0;
      while (along >= shapes[i][*axis]) along -= shapes[i++][*axis];
      llvm::SmallVector<int64_t> at(position);
      at[*axis] = along;
      int64_t flat = 0;
      llvm::SmallVector<int64_t> strides = Strides(shapes[i]);
      for (int64_t d = 0; d < *rank; ++d) flat += at[d] * strides[d];
      elements.push_back(values[i][flat]);
      for (int64_t d = *rank - 1; d >= 0; --d) {
        if (++position[d] < result_type.getDimSize(d)) break;
        position[d] = 0;
      }
    }
    node.SetConstantOutput(0, mlir::DenseElementsAttr::get(result_type, elements), element_type);
    return mlir::success();
  }
  mlir::Value result = EmptyTensor(b, node.loc(), sizes, type.getElementType());
  OpFoldResult offset = math.Constant(0);
  for (int64_t i = 0; i < count; ++i) {
    OpFoldResult along = input_sizes[i][*axis];
    if (mlir::getConstantIntValue(along) == 0) continue;
    llvm::SmallVector<OpFoldResult> offsets(*rank, b.getIndexAttr(0));
    offsets[*axis] = offset;
    llvm::SmallVector<OpFoldResult> strides(*rank, b.getIndexAttr(1));
    result = b.create<mlir::tensor::InsertSliceOp>(node.loc(), inputs[i], result, offsets,
                                                   input_sizes[i], strides);
    offset = math.Add(offset, along);
  }
  node.SetOutput(0, result, element_type);
  return mlir::success();
}

mlir::LogicalResult ConvertPad(NodeImporter& node) {
  mlir::Value data = node.Input(0);
  mlir::FailureOr<int64_t> rank = RankOf(node, data);
  if (mlir::failed(rank)) return mlir::failure();
  mlir::OpBuilder& b = node.builder();
  auto type = llvm::cast<mlir::RankedTensorType>(data.getType());
  mlir::Type element_type = type.getElementType();
  const std::string mode = node.StringAttribute("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge") {
    return node.Fail("mode '" + mode + "' is not supported (constant, reflect, edge are)");
  }
  llvm::SmallVector<OpFoldResult> pads;
  // The constant: a scalar of the element type, as an attribute where known.
  mlir::TypedAttr constant_value;
  if (node.opset() < 11) {
    for (int64_t pad : node.IntsAttribute("pads")) {
      pads.push_back(b.getIndexAttr(pad));
    }
    const float value = node.FloatAttribute("value", 0.0f);
    if (llvm::isa<mlir::FloatType>(element_type)) {
      constant_value = b.getFloatAttr(element_type, value);
    } else {
      constant_value = b.getIntegerAttr(element_type, static_cast<int64_t>(value));
    }
  } else {
    if (node.HasInput(3)) return node.Fail("the axes input (opset 18) is not supported");
    mlir::FailureOr<llvm::SmallVector<OpFoldResult>> elements = ElementsOf(node, 1);
    if (mlir::failed(elements)) return mlir::failure();
    pads = *elements;
    if (!node.HasInput(2)) {
      constant_value = llvm::isa<mlir::FloatType>(element_type)
                           ? mlir::TypedAttr(b.getFloatAttr(element_type, 0.0))
                           : mlir::TypedAttr(b.getIntegerAttr(element_type, 0));
    } else if (mlir::DenseElementsAttr value = node.InputConstant(2)) {
      constant_value = llvm::cast<mlir::TypedAttr>(*value.getValues<mlir::Attribute>().begin());
    }
  }
  if (static_cast<int64_t>(pads.size()) != 2 * *rank) {
    return node.Fail("pads has " + std::to_string(pads.size()) + " entries for rank " +
                     std::to_string(*rank));
  }
  IndexMath math(b, node.loc());
  llvm::SmallVector<OpFoldResult> dims = TensorSizes(b, node.loc(), data);
  llvm::SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < *rank; ++d) {
    sizes.push_back(math.Add(math.Add(dims[d], pads[d]), pads[d + *rank]));
  }
  sizes = RefineSizes(node, 0, sizes);
  if (mode != "constant") {
    for (int64_t d = 0; d < *rank; ++d) {
      if (mlir::getConstantIntValue(dims[d]) == 0 &&
          (mlir::getConstantIntValue(pads[d]) != 0 ||
           mlir::getConstantIntValue(pads[d + *rank]) != 0)) {
        return node.Fail("cannot pad an empty dimension in mode '" + mode + "'");
      }
    }
  }
  // The input position an output position reads in each mode (per dim).
  auto source_position = [&](int64_t position, int64_t pad, int64_t dim) -> int64_t {
    int64_t source = position - pad;
    if (mode == "constant") return source;
    if (mode == "edge") return std::clamp<int64_t>(source, 0, dim - 1);
    if (dim == 1) return 0;
    const int64_t period = 2 * (dim - 1);
    source = ((source % period) + period) % period;
    return source < dim ? source : period - source;
  };
  // Known contents fold.
  llvm::SmallVector<int64_t> output_shape = StaticShape(sizes);
  if (mlir::DenseElementsAttr contents = node.InputConstant(0)) {
    llvm::SmallVector<OpFoldResult> begin(pads.begin(), pads.begin() + *rank);
    bool known = type.hasStaticShape() && (constant_value || mode != "constant");
    llvm::SmallVector<int64_t> begins;
    for (OpFoldResult pad : begin) {
      std::optional<int64_t> value = mlir::getConstantIntValue(pad);
      known &= value.has_value();
      begins.push_back(value.value_or(0));
    }
    if (known) {
      llvm::SmallVector<int64_t> strides = Strides(type.getShape());
      mlir::DenseElementsAttr folded = FoldMovement(
          contents, mlir::RankedTensorType::get(output_shape, element_type),
          [&](llvm::ArrayRef<int64_t> position) -> int64_t {
            int64_t flat = 0;
            for (int64_t d = 0; d < *rank; ++d) {
              const int64_t source = source_position(position[d], begins[d], type.getDimSize(d));
              if (source < 0 || source >= type.getDimSize(d)) return -1;
              flat += source * strides[d];
            }
            return flat;
          },
          constant_value);
      if (folded) {
        node.SetConstantOutput(0, folded, node.InputElementType(0));
        return mlir::success();
      }
    }
  }
  // An empty input padded with the constant: just the constant.
  const bool empty_input = llvm::any_of(type.getShape(), [](int64_t s) { return s == 0; });
  // A pad travels into the kernel as two non-negative parts (kernels read
  // host values as unsigned 32-bit numbers: onnx-gaps/negative-index-capture).
  llvm::SmallVector<mlir::Value> begins, crops, dim_values;
  for (int64_t d = 0; d < *rank; ++d) {
    begins.push_back(math.Value(math.Max(pads[d], math.Constant(0))));
    crops.push_back(math.Value(math.Max(math.Sub(math.Constant(0), pads[d]), math.Constant(0))));
    dim_values.push_back(math.Value(dims[d]));
  }
  const int64_t rank_value = *rank;
  mlir::Value result = BuildIndexedGeneric(
      node, sizes, element_type, {}, {},
      [&](mlir::OpBuilder& nested, mlir::Location loc, mlir::ValueRange indices,
          mlir::ValueRange) -> mlir::Value {
        mlir::Value fill;
        if (mode == "constant") {
          if (constant_value) {
            fill = nested.create<mlir::arith::ConstantOp>(loc, constant_value);
          } else {
            // Read in the kernel: a scalar input may be of a type kernels
            // cannot take from the host.
            mlir::Value value = node.Input(2);
            auto value_type = llvm::cast<mlir::RankedTensorType>(value.getType());
            llvm::SmallVector<mlir::Value> zeros(
                value_type.getRank(), nested.create<mlir::arith::ConstantIndexOp>(loc, 0));
            fill = nested.create<mlir::tensor::ExtractOp>(loc, value, zeros);
          }
          if (empty_input) return fill;
        }
        mlir::Value zero = nested.create<mlir::arith::ConstantIndexOp>(loc, 0);
        mlir::Value one = nested.create<mlir::arith::ConstantIndexOp>(loc, 1);
        mlir::Value inside = nested.create<mlir::arith::ConstantIntOp>(loc, 1, 1);
        llvm::SmallVector<mlir::Value> at;
        for (int64_t d = 0; d < rank_value; ++d) {
          mlir::Value source = nested.create<mlir::arith::SubIOp>(loc, indices[d], begins[d]);
          source = nested.create<mlir::arith::AddIOp>(loc, source, crops[d]);
          mlir::Value last = nested.create<mlir::arith::SubIOp>(loc, dim_values[d], one);
          if (mode == "reflect") {
            // Mirror without repeating the edge: period 2 * (dim - 1).
            mlir::Value period = nested.create<mlir::arith::AddIOp>(loc, last, last);
            mlir::Value safe_period = nested.create<mlir::arith::MaxSIOp>(loc, period, one);
            mlir::Value rem = nested.create<mlir::arith::RemSIOp>(loc, source, safe_period);
            mlir::Value shifted = nested.create<mlir::arith::AddIOp>(loc, rem, safe_period);
            mlir::Value wrapped = nested.create<mlir::arith::RemSIOp>(loc, shifted, safe_period);
            mlir::Value mirrored = nested.create<mlir::arith::SubIOp>(loc, period, wrapped);
            mlir::Value below =
                nested.create<mlir::arith::CmpIOp>(loc, Pred::slt, wrapped, dim_values[d]);
            source = nested.create<mlir::arith::SelectOp>(loc, below, wrapped, mirrored);
          } else if (mode == "constant") {
            mlir::Value low = nested.create<mlir::arith::CmpIOp>(loc, Pred::sge, source, zero);
            mlir::Value high =
                nested.create<mlir::arith::CmpIOp>(loc, Pred::slt, source, dim_values[d]);
            inside = nested.create<mlir::arith::AndIOp>(loc, inside, low);
            inside = nested.create<mlir::arith::AndIOp>(loc, inside, high);
          }
          // Clamped: edge mode's position, and a safe read for the others.
          source = nested.create<mlir::arith::MaxSIOp>(loc, source, zero);
          source = nested.create<mlir::arith::MinSIOp>(loc, source, last);
          at.push_back(source);
        }
        mlir::Value element = nested.create<mlir::tensor::ExtractOp>(loc, data, at);
        if (mode != "constant") return element;
        return nested.create<mlir::arith::SelectOp>(loc, inside, element, fill);
      });
  node.SetOutput(0, result, node.InputElementType(0));
  return mlir::success();
}

mlir::LogicalResult ConvertTile(NodeImporter& node) {
  mlir::Value data = node.Input(0);
  mlir::FailureOr<int64_t> rank = RankOf(node, data);
  if (mlir::failed(rank)) return mlir::failure();
  mlir::FailureOr<llvm::SmallVector<OpFoldResult>> repeats = ElementsOf(node, 1);
  if (mlir::failed(repeats)) return mlir::failure();
  if (static_cast<int64_t>(repeats->size()) != *rank) {
    return node.Fail("repeats has " + std::to_string(repeats->size()) + " entries for rank " +
                     std::to_string(*rank));
  }
  mlir::OpBuilder& b = node.builder();
  IndexMath math(b, node.loc());
  auto type = llvm::cast<mlir::RankedTensorType>(data.getType());
  llvm::SmallVector<OpFoldResult> dims = TensorSizes(b, node.loc(), data);
  llvm::SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < *rank; ++d) sizes.push_back(math.Mul(dims[d], (*repeats)[d]));
  sizes = RefineSizes(node, 0, sizes);
  if (mlir::DenseElementsAttr contents = node.InputConstant(0)) {
    if (type.hasStaticShape()) {
      llvm::SmallVector<int64_t> strides = Strides(type.getShape());
      mlir::DenseElementsAttr folded = FoldMovement(
          contents, mlir::RankedTensorType::get(StaticShape(sizes), type.getElementType()),
          [&](llvm::ArrayRef<int64_t> position) {
            int64_t flat = 0;
            for (int64_t d = 0; d < *rank; ++d) {
              flat += (position[d] % type.getDimSize(d)) * strides[d];
            }
            return flat;
          });
      if (folded) {
        node.SetConstantOutput(0, folded, node.InputElementType(0));
        return mlir::success();
      }
    }
  }
  if (*rank == 0) {
    node.SetOutput(0, data, node.InputElementType(0));
    return mlir::success();
  }
  // The input broadcast into [r0, d0, r1, d1, ...], then each pair
  // collapsed: copy k of the input along d is rows k*d .. k*d + d - 1.
  llvm::SmallVector<OpFoldResult> interleaved;
  llvm::SmallVector<mlir::AffineExpr> exprs;
  llvm::SmallVector<mlir::ReassociationIndices> groups;
  for (int64_t d = 0; d < *rank; ++d) {
    interleaved.push_back((*repeats)[d]);
    interleaved.push_back(dims[d]);
    exprs.push_back(b.getAffineDimExpr(2 * d + 1));
    groups.push_back({2 * d, 2 * d + 1});
  }
  mlir::AffineMap map = mlir::AffineMap::get(2 * *rank, 0, exprs, b.getContext());
  mlir::Value broadcast =
      BuildIndexedGeneric(node, interleaved, type.getElementType(), {data}, {map},
                          [](mlir::OpBuilder&, mlir::Location, mlir::ValueRange,
                             mlir::ValueRange scalars) { return scalars[0]; });
  mlir::Value result = b.create<mlir::tensor::CollapseShapeOp>(node.loc(), broadcast, groups);
  node.SetOutput(0, result, node.InputElementType(0));
  return mlir::success();
}

mlir::LogicalResult ConvertTranspose(NodeImporter& node) {
  mlir::Value data = node.Input(0);
  mlir::FailureOr<int64_t> rank = RankOf(node, data);
  if (mlir::failed(rank)) return mlir::failure();
  std::vector<int64_t> reversed;
  for (int64_t d = *rank - 1; d >= 0; --d) reversed.push_back(d);
  std::vector<int64_t> perm = node.IntsAttribute("perm", reversed);
  if (static_cast<int64_t>(perm.size()) != *rank) {
    return node.Fail("perm has " + std::to_string(perm.size()) + " entries for rank " +
                     std::to_string(*rank));
  }
  llvm::SmallVector<bool> seen(*rank, false);
  for (int64_t& p : perm) {
    if (p < 0) p += *rank;
    if (p < 0 || p >= *rank || seen[p]) return node.Fail("perm is not a permutation");
    seen[p] = true;
  }
  const ImportedValue* info = node.InputInfo(0);
  const bool identity =
      llvm::all_of(llvm::seq<int64_t>(0, *rank), [&](int64_t d) { return perm[d] == d; });
  if (identity) {
    if (info->constant) {
      node.SetConstantOutput(0, info->constant, info->element_type);
    } else {
      node.SetOutput(0, info->value, info->element_type);
    }
    return mlir::success();
  }
  mlir::OpBuilder& b = node.builder();
  auto type = llvm::cast<mlir::RankedTensorType>(data.getType());
  llvm::SmallVector<OpFoldResult> dims = TensorSizes(b, node.loc(), data);
  llvm::SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < *rank; ++d) sizes.push_back(dims[perm[d]]);
  if (info->constant && type.hasStaticShape()) {
    llvm::SmallVector<int64_t> strides = Strides(type.getShape());
    mlir::DenseElementsAttr folded = FoldMovement(
        info->constant, mlir::RankedTensorType::get(StaticShape(sizes), type.getElementType()),
        [&](llvm::ArrayRef<int64_t> position) {
          int64_t flat = 0;
          for (int64_t d = 0; d < *rank; ++d) flat += position[d] * strides[perm[d]];
          return flat;
        });
    if (folded) {
      node.SetConstantOutput(0, folded, info->element_type);
      return mlir::success();
    }
  }
  mlir::Value init = EmptyTensor(b, node.loc(), sizes, type.getElementType());
  auto transpose = b.create<mlir::linalg::TransposeOp>(node.loc(), data, init, perm);
  node.SetOutput(0, transpose.getResult()[0], info->element_type);
  return mlir::success();
}

}  // namespace

void RegisterSlicingOps(OpRegistry& registry) {
  registry.Register("Slice", ConvertSlice);
  registry.Register("Split", ConvertSplit, 2);
  registry.Register("Concat", ConvertConcat, 4);
  registry.Register("Pad", ConvertPad, 2);
  registry.Register("Tile", ConvertTile, 6);
  registry.Register("Transpose", ConvertTranspose);
}

}  // namespace kiln::onnx_import
