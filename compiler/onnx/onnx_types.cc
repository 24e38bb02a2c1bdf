#include "compiler/onnx/onnx_types.h"

#include <cstring>
#include <vector>

#include "llvm/ADT/SmallVector.h"
#include "mlir/IR/Builders.h"

namespace kiln::onnx_import {

using onnx::TensorProto_DataType;

std::string OnnxElementTypeName(OnnxElementType type) {
  if (!onnx::TensorProto_DataType_IsValid(type)) return "type " + std::to_string(type);
  std::string name = onnx::TensorProto_DataType_Name(static_cast<TensorProto_DataType>(type));
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

bool IsUnsigned(OnnxElementType type) {
  switch (type) {
    case onnx::TensorProto::UINT8:
    case onnx::TensorProto::UINT16:
    case onnx::TensorProto::UINT32:
    case onnx::TensorProto::UINT64:
    case onnx::TensorProto::BOOL:
      return true;
    default:
      return false;
  }
}

bool IsFloat(OnnxElementType type) {
  switch (type) {
    case onnx::TensorProto::FLOAT:
    case onnx::TensorProto::DOUBLE:
    case onnx::TensorProto::FLOAT16:
    case onnx::TensorProto::BFLOAT16:
      return true;
    default:
      return false;
  }
}

bool IsSignedInteger(OnnxElementType type) {
  switch (type) {
    case onnx::TensorProto::INT8:
    case onnx::TensorProto::INT16:
    case onnx::TensorProto::INT32:
    case onnx::TensorProto::INT64:
      return true;
    default:
      return false;
  }
}

mlir::Type ConvertElementType(mlir::MLIRContext& context, OnnxElementType type) {
  mlir::Builder b(&context);
  switch (type) {
    case onnx::TensorProto::FLOAT:
      return b.getF32Type();
    case onnx::TensorProto::DOUBLE:
      return b.getF64Type();
    case onnx::TensorProto::FLOAT16:
      return b.getF16Type();
    case onnx::TensorProto::BFLOAT16:
      return b.getBF16Type();
    case onnx::TensorProto::BOOL:
      return b.getI1Type();
    case onnx::TensorProto::INT8:
    case onnx::TensorProto::UINT8:
      return b.getI8Type();
    case onnx::TensorProto::INT16:
    case onnx::TensorProto::UINT16:
      return b.getI16Type();
    case onnx::TensorProto::INT32:
    case onnx::TensorProto::UINT32:
      return b.getI32Type();
    case onnx::TensorProto::INT64:
    case onnx::TensorProto::UINT64:
      return b.getI64Type();
    default:
      return {};
  }
}

OnnxElementType ElementTypeOf(mlir::Type type) {
  if (type.isF32()) return onnx::TensorProto::FLOAT;
  if (type.isF64()) return onnx::TensorProto::DOUBLE;
  if (type.isF16()) return onnx::TensorProto::FLOAT16;
  if (type.isBF16()) return onnx::TensorProto::BFLOAT16;
  if (type.isInteger(1)) return onnx::TensorProto::BOOL;
  if (type.isInteger(8)) return onnx::TensorProto::INT8;
  if (type.isInteger(16)) return onnx::TensorProto::INT16;
  if (type.isInteger(32)) return onnx::TensorProto::INT32;
  if (type.isInteger(64)) return onnx::TensorProto::INT64;
  return onnx::TensorProto::UNDEFINED;
}

mlir::TensorType ConvertTensorType(mlir::MLIRContext& context, const onnx::TypeProto& type) {
  if (!type.has_tensor_type()) return {};
  const onnx::TypeProto::Tensor& tensor = type.tensor_type();
  mlir::Type element = ConvertElementType(context, tensor.elem_type());
  if (!element) return {};
  if (!tensor.has_shape()) return mlir::UnrankedTensorType::get(element);
  std::vector<int64_t> shape;
  for (const onnx::TensorShapeProto::Dimension& dim : tensor.shape().dim()) {
    shape.push_back(dim.has_dim_value() && dim.dim_value() >= 0 ? dim.dim_value()
                                                                 : mlir::ShapedType::kDynamic);
  }
  return mlir::RankedTensorType::get(shape, element);
}

int64_t ElementByteSize(OnnxElementType type) {
  switch (type) {
    case onnx::TensorProto::BOOL:
    case onnx::TensorProto::INT8:
    case onnx::TensorProto::UINT8:
      return 1;
    case onnx::TensorProto::INT16:
    case onnx::TensorProto::UINT16:
    case onnx::TensorProto::FLOAT16:
    case onnx::TensorProto::BFLOAT16:
      return 2;
    case onnx::TensorProto::INT32:
    case onnx::TensorProto::UINT32:
    case onnx::TensorProto::FLOAT:
      return 4;
    case onnx::TensorProto::INT64:
    case onnx::TensorProto::UINT64:
    case onnx::TensorProto::DOUBLE:
      return 8;
    default:
      return 0;
  }
}

namespace {

// Appends the element `value` of `byte_size` bytes (little endian, as the
// host) to `bytes`.
template <typename T>
void AppendBytes(std::vector<char>& bytes, T value, int64_t byte_size) {
  char buffer[sizeof(T)];
  std::memcpy(buffer, &value, sizeof(T));
  bytes.insert(bytes.end(), buffer, buffer + byte_size);
}

// The typed repeated field of `tensor` as little-endian raw bytes.
std::vector<char> TypedDataBytes(const onnx::TensorProto& tensor, int64_t byte_size) {
  std::vector<char> bytes;
  switch (tensor.data_type()) {
    case onnx::TensorProto::FLOAT:
      for (float v : tensor.float_data()) AppendBytes(bytes, v, 4);
      break;
    case onnx::TensorProto::DOUBLE:
      for (double v : tensor.double_data()) AppendBytes(bytes, v, 8);
      break;
    case onnx::TensorProto::INT64:
      for (int64_t v : tensor.int64_data()) AppendBytes(bytes, v, 8);
      break;
    case onnx::TensorProto::UINT32:
    case onnx::TensorProto::UINT64:
      for (uint64_t v : tensor.uint64_data()) AppendBytes(bytes, v, byte_size);
      break;
    default:
      // INT32, INT16, INT8, UINT16, UINT8, BOOL, FLOAT16 and BFLOAT16 (their
      // bits) travel in int32_data.
      for (int32_t v : tensor.int32_data()) AppendBytes(bytes, v, byte_size);
      break;
  }
  return bytes;
}

}  // namespace

mlir::FailureOr<mlir::DenseElementsAttr> ConvertTensorProto(mlir::MLIRContext& context,
                                                          const onnx::TensorProto& tensor,
                                                          std::string* error) {
  const std::string name = tensor.name().empty() ? "<unnamed>" : tensor.name();
  mlir::Type element = ConvertElementType(context, tensor.data_type());
  if (!element) {
    *error = "tensor '" + name + "' has unsupported element type " +
             OnnxElementTypeName(tensor.data_type());
    return mlir::failure();
  }
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL) {
    *error = "tensor '" + name + "' has external data that was not loaded";
    return mlir::failure();
  }
  std::vector<int64_t> shape(tensor.dims().begin(), tensor.dims().end());
  int64_t count = 1;
  for (int64_t d : shape) {
    if (d < 0) {
      *error = "tensor '" + name + "' has a negative dimension";
      return mlir::failure();
    }
    count *= d;
  }
  auto type = mlir::RankedTensorType::get(shape, element);
  const int64_t byte_size = ElementByteSize(tensor.data_type());
  std::vector<char> typed;
  const char* data = nullptr;
  size_t size = 0;
  if (tensor.has_raw_data()) {
    data = tensor.raw_data().data();
    size = tensor.raw_data().size();
  } else {
    typed = TypedDataBytes(tensor, byte_size);
    data = typed.data();
    size = typed.size();
  }
  if (static_cast<int64_t>(size) != count * byte_size) {
    *error = "tensor '" + name + "' holds " + std::to_string(size) + " bytes where its shape needs " +
             std::to_string(count * byte_size);
    return mlir::failure();
  }
  if (element.isInteger(1)) {
    // MLIR packs i1 elements as bits: build them from bools.
    llvm::SmallVector<bool> bits(count);
    for (int64_t i = 0; i < count; ++i) bits[i] = data[i] != 0;
    return mlir::DenseElementsAttr::get(type, llvm::ArrayRef<bool>(bits));
  }
  return mlir::DenseElementsAttr::getFromRawBuffer(type, llvm::ArrayRef<char>(data, size));
}

}  // namespace kiln::onnx_import
