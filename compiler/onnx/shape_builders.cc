#include "compiler/onnx/shape_builders.h"

#include "compiler/onnx/node_importer.h"
#include "compiler/onnx/tensor_builders.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace kiln::onnx_import {

using mlir::OpFoldResult;

mlir::Value IndexMath::Value(OpFoldResult value) {
  if (auto attr = llvm::dyn_cast_if_present<mlir::Attribute>(value)) {
    auto integer = llvm::cast<mlir::IntegerAttr>(attr);
    if (integer.getType().isInteger(1)) {
      return b_.create<mlir::arith::ConstantOp>(loc_, integer);
    }
    return b_.create<mlir::arith::ConstantIndexOp>(loc_, integer.getInt());
  }
  return llvm::cast<mlir::Value>(value);
}

OpFoldResult IndexMath::Fold(mlir::Value value) { return mlir::getAsOpFoldResult(value); }

OpFoldResult IndexMath::Add(OpFoldResult x, OpFoldResult y) {
  auto cx = mlir::getConstantIntValue(x), cy = mlir::getConstantIntValue(y);
  if (cx && cy) return Constant(*cx + *cy);
  if (cx == 0) return y;
  if (cy == 0) return x;
  return Fold(b_.createOrFold<mlir::arith::AddIOp>(loc_, Value(x), Value(y)));
}

OpFoldResult IndexMath::Sub(OpFoldResult x, OpFoldResult y) {
  auto cx = mlir::getConstantIntValue(x), cy = mlir::getConstantIntValue(y);
  if (cx && cy) return Constant(*cx - *cy);
  if (cy == 0) return x;
  return Fold(b_.createOrFold<mlir::arith::SubIOp>(loc_, Value(x), Value(y)));
}

OpFoldResult IndexMath::Mul(OpFoldResult x, OpFoldResult y) {
  auto cx = mlir::getConstantIntValue(x), cy = mlir::getConstantIntValue(y);
  if (cx && cy) return Constant(*cx * *cy);
  if (cx == 1) return y;
  if (cy == 1) return x;
  if (cx == 0 || cy == 0) return Constant(0);
  return Fold(b_.createOrFold<mlir::arith::MulIOp>(loc_, Value(x), Value(y)));
}

OpFoldResult IndexMath::Div(OpFoldResult x, OpFoldResult y) {
  auto cx = mlir::getConstantIntValue(x), cy = mlir::getConstantIntValue(y);
  if (cx && cy && *cy != 0) return Constant(*cx / *cy);
  if (cy == 1) return x;
  return Fold(b_.createOrFold<mlir::arith::DivSIOp>(loc_, Value(x), Value(y)));
}

OpFoldResult IndexMath::CeilDiv(OpFoldResult x, OpFoldResult y) {
  auto cx = mlir::getConstantIntValue(x), cy = mlir::getConstantIntValue(y);
  if (cx && cy && *cy != 0) {
    const int64_t q = *cx / *cy;
    return Constant((q * *cy != *cx && ((*cx < 0) == (*cy < 0))) ? q + 1 : q);
  }
  if (cy == 1) return x;
  return Fold(b_.createOrFold<mlir::arith::CeilDivSIOp>(loc_, Value(x), Value(y)));
}

OpFoldResult IndexMath::Min(OpFoldResult x, OpFoldResult y) {
  auto cx = mlir::getConstantIntValue(x), cy = mlir::getConstantIntValue(y);
  if (cx && cy) return Constant(std::min(*cx, *cy));
  if (x == y) return x;
  return Fold(b_.createOrFold<mlir::arith::MinSIOp>(loc_, Value(x), Value(y)));
}

OpFoldResult IndexMath::Max(OpFoldResult x, OpFoldResult y) {
  auto cx = mlir::getConstantIntValue(x), cy = mlir::getConstantIntValue(y);
  if (cx && cy) return Constant(std::max(*cx, *cy));
  if (x == y) return x;
  return Fold(b_.createOrFold<mlir::arith::MaxSIOp>(loc_, Value(x), Value(y)));
}

OpFoldResult IndexMath::Cmp(mlir::arith::CmpIPredicate predicate, OpFoldResult x, OpFoldResult y) {
  auto cx = mlir::getConstantIntValue(x), cy = mlir::getConstantIntValue(y);
  if (cx && cy) {
    bool result = false;
    switch (predicate) {
      case mlir::arith::CmpIPredicate::eq:
        result = *cx == *cy;
        break;
      case mlir::arith::CmpIPredicate::ne:
        result = *cx != *cy;
        break;
      case mlir::arith::CmpIPredicate::slt:
        result = *cx < *cy;
        break;
      case mlir::arith::CmpIPredicate::sle:
        result = *cx <= *cy;
        break;
      case mlir::arith::CmpIPredicate::sgt:
        result = *cx > *cy;
        break;
      case mlir::arith::CmpIPredicate::sge:
        result = *cx >= *cy;
        break;
      default:
        return Fold(b_.createOrFold<mlir::arith::CmpIOp>(loc_, predicate, Value(x), Value(y)));
    }
    return b_.getBoolAttr(result);
  }
  return Fold(b_.createOrFold<mlir::arith::CmpIOp>(loc_, predicate, Value(x), Value(y)));
}

OpFoldResult IndexMath::And(OpFoldResult x, OpFoldResult y) {
  auto cx = mlir::getConstantIntValue(x), cy = mlir::getConstantIntValue(y);
  if (cx) return *cx ? y : x;
  if (cy) return *cy ? x : y;
  return Fold(b_.createOrFold<mlir::arith::AndIOp>(loc_, Value(x), Value(y)));
}

OpFoldResult IndexMath::Or(OpFoldResult x, OpFoldResult y) {
  auto cx = mlir::getConstantIntValue(x), cy = mlir::getConstantIntValue(y);
  if (cx) return *cx ? x : y;
  if (cy) return *cy ? y : x;
  return Fold(b_.createOrFold<mlir::arith::OrIOp>(loc_, Value(x), Value(y)));
}

OpFoldResult IndexMath::Select(OpFoldResult condition, OpFoldResult x, OpFoldResult y) {
  if (auto known = mlir::getConstantIntValue(condition)) return *known ? x : y;
  if (x == y) return x;
  return Fold(b_.createOrFold<mlir::arith::SelectOp>(loc_, Value(condition), Value(x), Value(y)));
}

OpFoldResult IndexMath::Product(llvm::ArrayRef<OpFoldResult> values) {
  OpFoldResult product = Constant(1);
  for (OpFoldResult value : values) product = Mul(product, value);
  return product;
}

std::optional<llvm::SmallVector<OpFoldResult>> KnownElements(NodeImporter& node, int64_t index) {
  const ImportedValue* info = node.InputInfo(index);
  if (!info) return std::nullopt;
  auto type = llvm::dyn_cast<mlir::RankedTensorType>(info->value.getType());
  if (!type || type.getRank() > 1 || !type.getElementType().isInteger() ||
      type.getElementType().isInteger(1)) {
    return std::nullopt;
  }
  mlir::Builder b(&node.context());
  llvm::SmallVector<OpFoldResult> elements;
  if (std::optional<std::vector<int64_t>> ints = node.InputInts(index)) {
    for (int64_t value : *ints) elements.push_back(b.getIndexAttr(value));
    return elements;
  }
  auto cast = info->value.getDefiningOp<mlir::arith::IndexCastOp>();
  if (!cast) return std::nullopt;
  auto from = cast.getIn().getDefiningOp<mlir::tensor::FromElementsOp>();
  if (!from) return std::nullopt;
  for (mlir::Value element : from.getElements()) {
    elements.push_back(mlir::getAsOpFoldResult(element));
  }
  return elements;
}

mlir::FailureOr<llvm::SmallVector<OpFoldResult>> ElementsOf(NodeImporter& node, int64_t index) {
  if (std::optional<llvm::SmallVector<OpFoldResult>> known = KnownElements(node, index)) {
    return *known;
  }
  mlir::Value value = node.Input(index);
  if (!value) return node.Fail("input " + std::to_string(index) + " is missing");
  auto type = llvm::dyn_cast<mlir::RankedTensorType>(value.getType());
  if (!type || type.getRank() > 1 || !type.hasStaticShape() || !type.getElementType().isInteger() ||
      type.getElementType().isInteger(1)) {
    return node.Fail("input " + std::to_string(index) +
                     " must be a 0-D or 1-D integer tensor of static length");
  }
  mlir::OpBuilder& b = node.builder();
  const bool is_unsigned = IsUnsigned(node.InputElementType(index));
  llvm::SmallVector<OpFoldResult> elements;
  const int64_t count = type.getRank() == 0 ? 1 : type.getDimSize(0);
  for (int64_t i = 0; i < count; ++i) {
    llvm::SmallVector<mlir::Value> indices;
    if (type.getRank() == 1)
      indices.push_back(b.create<mlir::arith::ConstantIndexOp>(node.loc(), i));
    mlir::Value element = b.create<mlir::tensor::ExtractOp>(node.loc(), value, indices);
    mlir::Value as_index =
        is_unsigned
            ? b.create<mlir::arith::IndexCastUIOp>(node.loc(), b.getIndexType(), element)
                  .getResult()
            : b.create<mlir::arith::IndexCastOp>(node.loc(), b.getIndexType(), element).getResult();
    elements.push_back(as_index);
  }
  return elements;
}

mlir::Value ScalarOf(NodeImporter& node, int64_t index) {
  mlir::OpBuilder& b = node.builder();
  if (mlir::DenseElementsAttr constant = node.InputConstant(index)) {
    if (constant.getNumElements() >= 1) {
      return b.create<mlir::arith::ConstantOp>(
          node.loc(), llvm::cast<mlir::TypedAttr>(*constant.getValues<mlir::Attribute>().begin()));
    }
  }
  mlir::Value value = node.Input(index);
  auto type = llvm::cast<mlir::RankedTensorType>(value.getType());
  llvm::SmallVector<mlir::Value> zeros(type.getRank(),
                                       b.create<mlir::arith::ConstantIndexOp>(node.loc(), 0));
  return b.create<mlir::tensor::ExtractOp>(node.loc(), value, zeros);
}

void SetShapeOutput(NodeImporter& node, int64_t index, llvm::ArrayRef<OpFoldResult> elements,
                    bool scalar, OnnxElementType element_type) {
  mlir::OpBuilder& b = node.builder();
  mlir::Type type = ConvertElementType(node.context(), element_type);
  llvm::SmallVector<int64_t> shape;
  if (!scalar) shape.push_back(static_cast<int64_t>(elements.size()));
  llvm::SmallVector<mlir::APInt> constants;
  for (OpFoldResult element : elements) {
    std::optional<int64_t> known = mlir::getConstantIntValue(element);
    if (!known) break;
    constants.push_back(mlir::APInt(type.getIntOrFloatBitWidth(), *known, /*isSigned=*/true));
  }
  if (constants.size() == elements.size()) {
    node.SetConstantOutput(
        index, mlir::DenseElementsAttr::get(mlir::RankedTensorType::get(shape, type), constants),
        element_type);
    return;
  }
  IndexMath math(b, node.loc());
  llvm::SmallVector<mlir::Value> values;
  for (OpFoldResult element : elements) values.push_back(math.Value(element));
  mlir::Value indices = b.create<mlir::tensor::FromElementsOp>(
      node.loc(), mlir::RankedTensorType::get(shape, b.getIndexType()), values);
  mlir::Value cast = b.create<mlir::arith::IndexCastOp>(
      node.loc(), mlir::RankedTensorType::get(shape, type), indices);
  node.SetOutput(index, cast, element_type);
}

llvm::SmallVector<OpFoldResult> RefineSizes(NodeImporter& node, int64_t index,
                                            llvm::ArrayRef<OpFoldResult> computed) {
  llvm::SmallVector<OpFoldResult> sizes(computed);
  auto inferred = llvm::dyn_cast_or_null<mlir::RankedTensorType>(node.InferredOutputType(index));
  if (!inferred || inferred.getRank() != static_cast<int64_t>(sizes.size())) return sizes;
  for (int64_t i = 0; i < inferred.getRank(); ++i) {
    if (!inferred.isDynamicDim(i)) sizes[i] = node.builder().getIndexAttr(inferred.getDimSize(i));
  }
  return sizes;
}

llvm::SmallVector<int64_t> StaticShape(llvm::ArrayRef<OpFoldResult> sizes) {
  llvm::SmallVector<int64_t> shape;
  for (OpFoldResult size : sizes) {
    shape.push_back(mlir::getConstantIntValue(size).value_or(mlir::ShapedType::kDynamic));
  }
  return shape;
}

llvm::SmallVector<int64_t> Strides(llvm::ArrayRef<int64_t> shape) {
  llvm::SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i) {
    strides[i] = strides[i + 1] * shape[i + 1];
  }
  return strides;
}

bool IsDimOf(OpFoldResult size, mlir::Value source, int64_t dim) {
  auto value = llvm::dyn_cast_if_present<mlir::Value>(size);
  if (!value) return false;
  auto dim_op = value.getDefiningOp<mlir::tensor::DimOp>();
  if (!dim_op || dim_op.getSource() != source) return false;
  std::optional<int64_t> index = dim_op.getConstantIndex();
  return index && *index == dim;
}

bool SameSize(OpFoldResult a, OpFoldResult b) {
  if (a == b) return true;
  auto ca = mlir::getConstantIntValue(a), cb = mlir::getConstantIntValue(b);
  if (ca || cb) return ca == cb;
  auto dim_op = llvm::cast<mlir::Value>(a).getDefiningOp<mlir::tensor::DimOp>();
  if (!dim_op) return false;
  std::optional<int64_t> index = dim_op.getConstantIndex();
  return index && IsDimOf(b, dim_op.getSource(), *index);
}

OpFoldResult DivideProducts(IndexMath& math, llvm::ArrayRef<OpFoldResult> numerators,
                            llvm::ArrayRef<OpFoldResult> denominators) {
  int64_t static_numerator = 1, static_denominator = 1;
  llvm::SmallVector<OpFoldResult> dynamic_numerators;
  for (OpFoldResult factor : numerators) {
    if (std::optional<int64_t> known = mlir::getConstantIntValue(factor)) {
      static_numerator *= *known;
    } else {
      dynamic_numerators.push_back(factor);
    }
  }
  bool cancelled = true;
  for (OpFoldResult factor : denominators) {
    if (std::optional<int64_t> known = mlir::getConstantIntValue(factor)) {
      static_denominator *= *known;
      continue;
    }
    auto it = llvm::find_if(dynamic_numerators,
                            [&](OpFoldResult numerator) { return SameSize(numerator, factor); });
    if (it == dynamic_numerators.end()) {
      cancelled = false;
      break;
    }
    dynamic_numerators.erase(it);
  }
  if (cancelled && static_denominator != 0 && static_numerator % static_denominator == 0) {
    dynamic_numerators.push_back(math.Constant(static_numerator / static_denominator));
    return math.Product(dynamic_numerators);
  }
  return math.Div(math.Product(numerators), math.Product(denominators));
}

namespace {

struct Regrouping {
  llvm::SmallVector<mlir::ReassociationIndices> source, target;
};

// Groups of consecutive dimensions of `source` and of `sizes` whose products
// are equal (static products equal, at most one dynamic size on each side,
// provably the same): a reshape that is a collapse then an expand. None where
// the importer cannot find one. One group may pair two dynamic sizes it
// cannot prove equal when all its other groups match: the element counts of
// a reshape's input and output are equal, so they are (a Reshape of
// [B, S, 768] into sizes read from another tensor's Shape).
std::optional<Regrouping> Regroup(mlir::Value source, llvm::ArrayRef<OpFoldResult> sizes) {
  auto type = llvm::cast<mlir::RankedTensorType>(source.getType());
  const int64_t m = type.getRank(), n = sizes.size();
  if (m == 0 || n == 0) return std::nullopt;
  Regrouping groups;
  bool unproven_used = false;
  int64_t i = 0, j = 0;
  while (i < m && j < n) {
    mlir::ReassociationIndices s, t;
    int64_t source_product = 1, target_product = 1;
    // The dynamic dim of each side: -1 none, -2 more than one.
    int64_t source_dynamic = -1, target_dynamic = -1;
    auto add_source = [&] {
      s.push_back(i);
      if (type.isDynamicDim(i)) {
        source_dynamic = source_dynamic == -1 ? i : -2;
      } else {
        source_product *= type.getDimSize(i);
      }
      ++i;
    };
    auto add_target = [&] {
      t.push_back(j);
      if (std::optional<int64_t> size = mlir::getConstantIntValue(sizes[j])) {
        target_product *= *size;
      } else {
        target_dynamic = target_dynamic == -1 ? j : -2;
      }
      ++j;
    };
    add_source();
    add_target();
    while (true) {
      if (source_dynamic == -2 || target_dynamic == -2) return std::nullopt;
      const bool source_has = source_dynamic >= 0, target_has = target_dynamic >= 0;
      if (source_product == target_product && source_has == target_has) {
        if (!source_has || IsDimOf(sizes[target_dynamic], source, source_dynamic)) break;
        if (unproven_used || source_product == 0) return std::nullopt;
        unproven_used = true;
        break;
      }
      const bool extend_source =
          source_product != target_product ? source_product < target_product : !source_has;
      if (extend_source) {
        if (i >= m) return std::nullopt;
        add_source();
      } else {
        if (j >= n) return std::nullopt;
        add_target();
      }
    }
    groups.source.push_back(s);
    groups.target.push_back(t);
  }
  // What is left must be static 1s: they join the last group.
  for (; i < m; ++i) {
    if (type.getDimSize(i) != 1) return std::nullopt;
    groups.source.back().push_back(i);
  }
  for (; j < n; ++j) {
    if (mlir::getConstantIntValue(sizes[j]) != 1) return std::nullopt;
    groups.target.back().push_back(j);
  }
  return groups;
}

bool AllSingletons(llvm::ArrayRef<mlir::ReassociationIndices> groups) {
  return llvm::all_of(groups, [](const mlir::ReassociationIndices& g) { return g.size() == 1; });
}

mlir::Value CastTo(mlir::OpBuilder& b, mlir::Location loc, mlir::Value value,
                   llvm::ArrayRef<int64_t> shape) {
  auto type = llvm::cast<mlir::RankedTensorType>(value.getType());
  auto target = mlir::RankedTensorType::get(shape, type.getElementType());
  if (type == target) return value;
  return b.create<mlir::tensor::CastOp>(loc, target, value);
}

// `value` as a 1-D tensor (row-major).
mlir::Value Flatten1D(mlir::OpBuilder& b, mlir::Location loc, mlir::Value value) {
  auto type = llvm::cast<mlir::RankedTensorType>(value.getType());
  if (type.getRank() == 1) return value;
  if (type.getRank() == 0) {
    return b.create<mlir::tensor::ExpandShapeOp>(
        loc, mlir::RankedTensorType::get({1}, type.getElementType()), value,
        llvm::ArrayRef<mlir::ReassociationIndices>{},
        llvm::ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
  }
  mlir::ReassociationIndices all;
  for (int64_t i = 0; i < type.getRank(); ++i) all.push_back(i);
  return b.create<mlir::tensor::CollapseShapeOp>(loc, value,
                                                 llvm::ArrayRef<mlir::ReassociationIndices>{all});
}

}  // namespace

mlir::Value ReshapeTo(NodeImporter& node, mlir::Value value, llvm::ArrayRef<OpFoldResult> sizes) {
  mlir::OpBuilder& b = node.builder();
  mlir::Location loc = node.loc();
  auto type = llvm::cast<mlir::RankedTensorType>(value.getType());
  mlir::Type element_type = type.getElementType();
  llvm::SmallVector<int64_t> shape = StaticShape(sizes);
  auto target_type = mlir::RankedTensorType::get(shape, element_type);
  const int64_t m = type.getRank(), n = shape.size();

  if (m == n) {
    bool same = true;
    for (int64_t i = 0; i < m; ++i) {
      same &= type.isDynamicDim(i) ? IsDimOf(sizes[i], value, i) || !target_type.isDynamicDim(i)
                                   : type.getDimSize(i) == shape[i];
    }
    // Only static sizes refined: a cast says so.
    if (same) return CastTo(b, loc, value, shape);
  }
  if (n == 0) {
    // A tensor of one element into a scalar.
    mlir::Value ones = CastTo(b, loc, value, llvm::SmallVector<int64_t>(m, 1));
    return b.create<mlir::tensor::CollapseShapeOp>(loc, ones,
                                                   llvm::ArrayRef<mlir::ReassociationIndices>{});
  }
  if (m == 0 && target_type.hasStaticShape()) {
    return b.create<mlir::tensor::ExpandShapeOp>(
        loc, target_type, value, llvm::ArrayRef<mlir::ReassociationIndices>{}, sizes);
  }
  if (std::optional<Regrouping> groups = Regroup(value, sizes)) {
    mlir::Value collapsed = value;
    if (!AllSingletons(groups->source)) {
      collapsed = b.create<mlir::tensor::CollapseShapeOp>(loc, value, groups->source);
    }
    if (AllSingletons(groups->target)) return CastTo(b, loc, collapsed, shape);
    return b.create<mlir::tensor::ExpandShapeOp>(loc, target_type, collapsed, groups->target,
                                                 sizes);
  }
  mlir::Value flat = Flatten1D(b, loc, value);
  if (target_type.hasStaticShape()) {
    flat = CastTo(b, loc, flat, {target_type.getNumElements()});
    if (n == 1) return flat;
    mlir::ReassociationIndices all;
    for (int64_t i = 0; i < n; ++i) all.push_back(i);
    return b.create<mlir::tensor::ExpandShapeOp>(
        loc, target_type, flat, llvm::ArrayRef<mlir::ReassociationIndices>{all}, sizes);
  }
  // Dynamic sizes that regroup nothing: each element copied from its
  // row-major position. (An expand_shape of one dynamic size into several is
  // what kiln-compile cannot lower yet: onnx-gaps/expand-shape-dynamic-group.)
  IndexMath math(b, loc);
  llvm::SmallVector<mlir::Value> strides(n);
  OpFoldResult stride = math.Constant(1);
  for (int64_t i = n - 1; i >= 0; --i) {
    strides[i] = math.Value(stride);
    stride = math.Mul(stride, sizes[i]);
  }
  return BuildIndexedGeneric(
      node, sizes, element_type, {}, {},
      [&](mlir::OpBuilder& nested, mlir::Location nested_loc, mlir::ValueRange indices,
          mlir::ValueRange) -> mlir::Value {
        mlir::Value linear = nested.create<mlir::arith::ConstantIndexOp>(nested_loc, 0);
        for (int64_t i = 0; i < n; ++i) {
          mlir::Value term = nested.create<mlir::arith::MulIOp>(nested_loc, indices[i], strides[i]);
          linear = nested.create<mlir::arith::AddIOp>(nested_loc, linear, term);
        }
        return nested.create<mlir::tensor::ExtractOp>(nested_loc, flat, mlir::ValueRange{linear});
      });
}

void SetReshapedOutput(NodeImporter& node, int64_t index, int64_t input,
                       llvm::ArrayRef<OpFoldResult> sizes) {
  const ImportedValue* info = node.InputInfo(input);
  llvm::SmallVector<int64_t> shape = StaticShape(sizes);
  auto input_type = llvm::cast<mlir::RankedTensorType>(info->value.getType());
  if (mlir::DenseElementsAttr contents = info->constant;
      contents && !mlir::ShapedType::isDynamicShape(shape)) {
    node.SetConstantOutput(
        index, contents.reshape(mlir::RankedTensorType::get(shape, input_type.getElementType())),
        info->element_type);
    return;
  }
  if (sizes.size() <= 1) {
    if (std::optional<llvm::SmallVector<OpFoldResult>> known = KnownElements(node, input)) {
      SetShapeOutput(node, index, *known, sizes.empty(), info->element_type);
      return;
    }
  }
  node.SetOutput(index, ReshapeTo(node, info->value, RefineSizes(node, index, sizes)),
                 info->element_type);
}

mlir::DenseElementsAttr FoldMovement(
    mlir::DenseElementsAttr source, mlir::RankedTensorType type,
    const std::function<int64_t(llvm::ArrayRef<int64_t>)>& source_index, mlir::Attribute fill) {
  if (!source || !type.hasStaticShape() || type.getNumElements() > kMaxFoldedElements) return {};
  if (source.isSplat() && (!fill || fill == source.getSplatValue<mlir::Attribute>())) {
    return mlir::DenseElementsAttr::get(type, source.getSplatValue<mlir::Attribute>());
  }
  if (source.getNumElements() > kMaxFoldedElements) return {};
  auto values = source.getValues<mlir::Attribute>();
  const int64_t count = type.getNumElements(), rank = type.getRank();
  llvm::SmallVector<mlir::Attribute> result;
  result.reserve(count);
  llvm::SmallVector<int64_t> position(rank, 0);
  for (int64_t k = 0; k < count; ++k) {
    const int64_t from = source_index(position);
    if (from < 0) {
      if (!fill) return {};
      result.push_back(fill);
    } else {
      result.push_back(values[from]);
    }
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++position[d] < type.getDimSize(d)) break;
      position[d] = 0;
    }
  }
  return mlir::DenseElementsAttr::get(type, result);
}

mlir::Value WrapIndex(mlir::OpBuilder& b, mlir::Location loc, mlir::Value index,
                      OnnxElementType type, mlir::Value size) {
  if (IsUnsigned(type)) {
    return b.create<mlir::arith::IndexCastUIOp>(loc, b.getIndexType(), index);
  }
  mlir::Value as_index = b.create<mlir::arith::IndexCastOp>(loc, b.getIndexType(), index);
  mlir::Value zero = b.create<mlir::arith::ConstantIndexOp>(loc, 0);
  mlir::Value negative =
      b.create<mlir::arith::CmpIOp>(loc, mlir::arith::CmpIPredicate::slt, as_index, zero);
  mlir::Value wrapped = b.create<mlir::arith::AddIOp>(loc, as_index, size);
  return b.create<mlir::arith::SelectOp>(loc, negative, wrapped, as_index);
}

llvm::SmallVector<mlir::Value> LoopIndices(mlir::OpBuilder& b, mlir::Location loc, int64_t rank) {
  llvm::SmallVector<mlir::Value> indices;
  for (int64_t i = 0; i < rank; ++i) indices.push_back(b.create<mlir::linalg::IndexOp>(loc, i));
  return indices;
}

mlir::Value BuildIndexedGeneric(
    NodeImporter& node, llvm::ArrayRef<OpFoldResult> sizes, mlir::Type element_type,
    mlir::ValueRange inputs, llvm::ArrayRef<mlir::AffineMap> input_maps,
    const std::function<mlir::Value(mlir::OpBuilder&, mlir::Location, mlir::ValueRange,
                                    mlir::ValueRange)>& body) {
  mlir::OpBuilder& b = node.builder();
  const int64_t rank = sizes.size();
  llvm::SmallVector<mlir::AffineMap> maps(input_maps);
  for (mlir::Value input : inputs.drop_front(maps.size())) {
    maps.push_back(
        b.getMultiDimIdentityMap(llvm::cast<mlir::RankedTensorType>(input.getType()).getRank()));
  }
  maps.push_back(b.getMultiDimIdentityMap(rank));
  mlir::Value init = EmptyTensor(b, node.loc(), sizes, element_type);
  llvm::SmallVector<mlir::utils::IteratorType> iterators(rank, mlir::utils::IteratorType::parallel);
  auto generic = b.create<mlir::linalg::GenericOp>(
      node.loc(), init.getType(), inputs, mlir::ValueRange{init}, maps, iterators,
      [&](mlir::OpBuilder& nested, mlir::Location loc, mlir::ValueRange args) {
        llvm::SmallVector<mlir::Value> indices = LoopIndices(nested, loc, rank);
        mlir::Value result = body(nested, loc, indices, args.drop_back());
        nested.create<mlir::linalg::YieldOp>(loc, result);
      });
  return generic.getResult(0);
}

}  // namespace kiln::onnx_import
