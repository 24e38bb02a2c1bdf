#include "tools/python/runtime/element_types.h"

namespace kiln::python {
namespace {

using hal::ElementType;

// DLPack 0.8's kDLBool, newer than the 0.6 header Debian ships: what
// PyTorch and NumPy 2 export bool tensors as.
constexpr uint8_t kDLBoolCode = 6;

}  // namespace

Result<ElementType> ElementTypeOfBufferFormat(std::string_view format, size_t item_size) {
  const std::string quoted = "'" + std::string(format) + "'";
  // Byte order and alignment prefixes: kiln runs on little-endian hosts only.
  std::string_view code = format;
  if (!code.empty() && (code.front() == '@' || code.front() == '=' || code.front() == '<')) {
    code.remove_prefix(1);
  }
  if (code.size() != 1) {
    return InvalidArgumentError("arrays of buffer format " + quoted +
                                " are not supported (big-endian, structured or vector elements)");
  }
  ElementType type = ElementType::kNone;
  switch (code.front()) {
    case '?':
      type = ElementType::kBool;
      break;
    case 'b':
    case 'h':
    case 'i':
    case 'l':
    case 'q':
      // The size decides (C's long is 8 bytes here, 'i' 4).
      switch (item_size) {
        case 1:
          type = ElementType::kInt8;
          break;
        case 2:
          type = ElementType::kInt16;
          break;
        case 4:
          type = ElementType::kInt32;
          break;
        case 8:
          type = ElementType::kInt64;
          break;
      }
      break;
    case 'B':
    case 'H':
    case 'I':
    case 'L':
    case 'Q':
      switch (item_size) {
        case 1:
          type = ElementType::kUint8;
          break;
        case 2:
          type = ElementType::kUint16;
          break;
        case 4:
          type = ElementType::kUint32;
          break;
        case 8:
          type = ElementType::kUint64;
          break;
      }
      break;
    case 'e':
      type = ElementType::kFloat16;
      break;
    case 'f':
      type = ElementType::kFloat32;
      break;
    case 'd':
      type = ElementType::kFloat64;
      break;
    default:
      break;
  }
  if (type == ElementType::kNone || hal::ElementByteSize(type) != item_size) {
    return InvalidArgumentError("arrays of buffer format " + quoted + " (" +
                                std::to_string(item_size) +
                                "-byte items) are not supported: kiln takes bool, (u)int8-64, "
                                "float16, float32 and float64");
  }
  return type;
}

Result<std::string> NumpyDtypeName(ElementType type) {
  const uint32_t bits = hal::ElementBitWidth(type);
  switch (hal::ElementKind(type)) {
    case hal::NumericalKind::kBoolean:
      return std::string("bool");
    case hal::NumericalKind::kInteger:
    case hal::NumericalKind::kIntegerSigned:
      return "int" + std::to_string(bits);
    case hal::NumericalKind::kIntegerUnsigned:
      return "uint" + std::to_string(bits);
    case hal::NumericalKind::kFloatIeee:
      return "float" + std::to_string(bits);
    default:
      return InvalidArgumentError(
          std::string(hal::FormatElementType(type)) +
          " has no NumPy dtype: keep the result on the device (keep_on_device=True) and read it "
          "through DLPack (torch.from_dlpack)");
  }
}

Result<DLDataType> DLDataTypeOf(ElementType type) {
  DLDataType dtype;
  dtype.bits = static_cast<uint8_t>(hal::ElementBitWidth(type));
  dtype.lanes = 1;
  switch (hal::ElementKind(type)) {
    case hal::NumericalKind::kBoolean:
      dtype.code = kDLBoolCode;
      dtype.bits = 8;
      break;
    case hal::NumericalKind::kInteger:
    case hal::NumericalKind::kIntegerSigned:
      dtype.code = kDLInt;
      break;
    case hal::NumericalKind::kIntegerUnsigned:
      dtype.code = kDLUInt;
      break;
    case hal::NumericalKind::kFloatIeee:
      dtype.code = kDLFloat;
      break;
    case hal::NumericalKind::kFloatBrain:
      dtype.code = kDLBfloat;
      break;
    default:
      return InvalidArgumentError("element type " + std::string(hal::FormatElementType(type)) +
                                  " has no DLPack dtype");
  }
  return dtype;
}

Result<ElementType> ElementTypeOfDLDataType(DLDataType dtype) {
  const std::string described = "DLPack dtype (code " + std::to_string(dtype.code) + ", " +
                                std::to_string(dtype.bits) + " bits, " +
                                std::to_string(dtype.lanes) + " lanes)";
  if (dtype.lanes != 1) {
    return InvalidArgumentError(described + " is a vector type; kiln takes scalar elements");
  }
  const auto by_bits = [&](ElementType b8, ElementType b16, ElementType b32,
                           ElementType b64) -> ElementType {
    switch (dtype.bits) {
      case 8:
        return b8;
      case 16:
        return b16;
      case 32:
        return b32;
      case 64:
        return b64;
      default:
        return ElementType::kNone;
    }
  };
  ElementType type = ElementType::kNone;
  switch (dtype.code) {
    case kDLInt:
      type = by_bits(ElementType::kInt8, ElementType::kInt16, ElementType::kInt32,
                     ElementType::kInt64);
      break;
    case kDLUInt:
      type = by_bits(ElementType::kUint8, ElementType::kUint16, ElementType::kUint32,
                     ElementType::kUint64);
      break;
    case kDLFloat:
      type = by_bits(ElementType::kNone, ElementType::kFloat16, ElementType::kFloat32,
                     ElementType::kFloat64);
      break;
    case kDLBfloat:
      if (dtype.bits == 16) type = ElementType::kBFloat16;
      break;
    case kDLBoolCode:
      if (dtype.bits == 8) type = ElementType::kBool;
      break;
    default:
      break;
  }
  if (type == ElementType::kNone) return InvalidArgumentError(described + " is not supported");
  return type;
}

}  // namespace kiln::python
