#include "compiler/onnx/ops/elementwise_folding.h"

#include <vector>

#include "compiler/onnx/node_importer.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APInt.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

namespace kiln::onnx_import {
namespace {

// Whether folding reads and writes elements of `type`.
bool Foldable(OnnxElementType type) {
  return IsFloat(type) || IsSignedInteger(type) || IsUnsigned(type);
}

int64_t BitWidth(OnnxElementType type) {
  return type == onnx::TensorProto::BOOL ? 1 : ElementByteSize(type) * 8;
}

// The elements of `contents` (of ONNX type `type`) as FoldScalars.
std::vector<FoldScalar> ReadElements(mlir::DenseElementsAttr contents, OnnxElementType type) {
  std::vector<FoldScalar> elements;
  elements.reserve(contents.getNumElements());
  if (IsFloat(type)) {
    for (llvm::APFloat value : contents.getValues<llvm::APFloat>()) {
      bool loses_info = false;
      value.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven, &loses_info);
      elements.push_back(FloatScalar(value.convertToDouble()));
    }
    return elements;
  }
  const bool is_unsigned = IsUnsigned(type);
  for (const llvm::APInt& value : contents.getValues<llvm::APInt>()) {
    elements.push_back(
        IntScalar(is_unsigned ? static_cast<int64_t>(value.getZExtValue()) : value.getSExtValue()));
  }
  return elements;
}

}  // namespace

int64_t WrapToType(int64_t value, OnnxElementType type) {
  const int64_t width = BitWidth(type);
  if (width >= 64) return value;
  llvm::APInt wrapped = llvm::APInt(64, static_cast<uint64_t>(value)).trunc(width);
  return IsUnsigned(type) ? static_cast<int64_t>(wrapped.getZExtValue()) : wrapped.getSExtValue();
}

double RoundToType(double value, OnnxElementType type) {
  if (type == onnx::TensorProto::DOUBLE) return value;
  if (type == onnx::TensorProto::FLOAT) return static_cast<float>(value);
  llvm::APFloat rounded(value);
  bool loses_info = false;
  rounded.convert(
      type == onnx::TensorProto::FLOAT16 ? llvm::APFloat::IEEEhalf() : llvm::APFloat::BFloat(),
      llvm::APFloat::rmNearestTiesToEven, &loses_info);
  rounded.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven, &loses_info);
  return rounded.convertToDouble();
}

llvm::SmallVector<int64_t> PresentInputs(const NodeImporter& node) {
  llvm::SmallVector<int64_t> inputs;
  for (int64_t i = 0; i < node.input_count(); ++i) {
    if (node.HasInput(i)) inputs.push_back(i);
  }
  return inputs;
}

bool FoldElementwise(NodeImporter& node, llvm::ArrayRef<int64_t> inputs,
                     OnnxElementType result_type, const ScalarFold& fold) {
  if (!Foldable(result_type)) return false;
  llvm::SmallVector<mlir::DenseElementsAttr> constants;
  for (int64_t input : inputs) {
    mlir::DenseElementsAttr constant = node.InputConstant(input);
    if (!constant || !Foldable(node.InputElementType(input)) ||
        constant.getNumElements() > kMaxFoldElements) {
      return false;
    }
    constants.push_back(constant);
  }
  // numpy's broadcast of the static shapes.
  int64_t rank = 0;
  for (mlir::DenseElementsAttr constant : constants) {
    rank = std::max<int64_t>(rank, constant.getType().getRank());
  }
  llvm::SmallVector<int64_t> shape(rank, 1);
  for (mlir::DenseElementsAttr constant : constants) {
    llvm::ArrayRef<int64_t> sizes = constant.getType().getShape();
    for (size_t d = 0; d < sizes.size(); ++d) {
      int64_t& size = shape[rank - sizes.size() + d];
      if (sizes[d] == size || sizes[d] == 1) continue;
      if (size != 1) return false;  // Does not broadcast: the IR builder reports it.
      size = sizes[d];
    }
  }
  int64_t count = 1;
  for (int64_t size : shape) count *= size;
  if (count > kMaxFoldElements) return false;

  std::vector<std::vector<FoldScalar>> elements;
  // Per input, the stride of each result dimension in its elements (0 where
  // it is broadcast).
  std::vector<llvm::SmallVector<int64_t>> strides;
  for (size_t k = 0; k < constants.size(); ++k) {
    elements.push_back(ReadElements(constants[k], node.InputElementType(inputs[k])));
    llvm::ArrayRef<int64_t> sizes = constants[k].getType().getShape();
    llvm::SmallVector<int64_t> input_strides(rank, 0);
    int64_t stride = 1;
    for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
      if (sizes[d] != 1) input_strides[rank - sizes.size() + d] = stride;
      stride *= sizes[d];
    }
    strides.push_back(input_strides);
  }

  mlir::Type element_type = ConvertElementType(node.context(), result_type);
  auto result_tensor_type = mlir::RankedTensorType::get(shape, element_type);
  llvm::SmallVector<llvm::APInt> ints;
  llvm::SmallVector<llvm::APFloat> floats;
  llvm::SmallVector<int64_t> index(rank, 0);
  llvm::SmallVector<FoldScalar> operands(constants.size());
  for (int64_t n = 0; n < count; ++n) {
    for (size_t k = 0; k < constants.size(); ++k) {
      int64_t offset = 0;
      for (int64_t d = 0; d < rank; ++d) offset += index[d] * strides[k][d];
      operands[k] = elements[k][offset];
    }
    std::optional<FoldScalar> result = fold(operands);
    if (!result) return false;
    if (IsFloat(result_type)) {
      llvm::APFloat value(result->f);
      bool loses_info = false;
      value.convert(llvm::cast<mlir::FloatType>(element_type).getFloatSemantics(),
                    llvm::APFloat::rmNearestTiesToEven, &loses_info);
      floats.push_back(value);
    } else if (result_type == onnx::TensorProto::BOOL) {
      ints.push_back(llvm::APInt(1, result->i != 0 ? 1 : 0));
    } else {
      ints.push_back(
          llvm::APInt(64, static_cast<uint64_t>(result->i)).zextOrTrunc(BitWidth(result_type)));
    }
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
  mlir::DenseElementsAttr folded = IsFloat(result_type)
                                       ? mlir::DenseElementsAttr::get(result_tensor_type, floats)
                                       : mlir::DenseElementsAttr::get(result_tensor_type, ints);
  node.SetConstantOutput(0, folded, result_type);
  return true;
}

}  // namespace kiln::onnx_import
