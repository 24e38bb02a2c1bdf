#include "tools/common/host_tensor.h"

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <new>

#include "tools/common/tensor_literal.h"

namespace kiln::tools {
namespace {

using hal::ElementType;

template <typename T>
T Load(const uint8_t* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

bool FloatsMatch(double expected, double actual, const Tolerance& tolerance) {
  if (std::isnan(expected) || std::isnan(actual)) return std::isnan(expected) && std::isnan(actual);
  if (expected == actual) return true;  // Also the only way infinities match.
  if (std::isinf(expected) || std::isinf(actual)) return false;
  return std::fabs(actual - expected) <= tolerance.atol + tolerance.rtol * std::fabs(expected);
}

}  // namespace

std::string FormatCoordinates(std::span<const int64_t> shape, int64_t index) {
  std::vector<int64_t> coordinates(shape.size());
  for (size_t i = shape.size(); i-- > 0;) {
    coordinates[i] = index % shape[i];
    index /= shape[i];
  }
  std::string text = "[";
  for (size_t i = 0; i < coordinates.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(coordinates[i]);
  }
  return text + "]";
}

namespace {

std::string UnsupportedTypeMessage(ElementType type) {
  char code[16];
  std::snprintf(code, sizeof(code), "0x%08X", static_cast<unsigned>(type));
  return std::string("unsupported element type ") + code;
}

}  // namespace

bool IsSupportedElementType(ElementType type) {
  return type != ElementType::kNone && hal::FormatElementType(type) != "none";
}

Result<int64_t> CheckedElementCount(std::span<const int64_t> shape, size_t element_size) {
  bool has_zero = false;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0) {
      return InvalidArgumentError("dimension " + std::to_string(i) + " of the shape is negative (" +
                                  std::to_string(shape[i]) + ")");
    }
    has_zero = has_zero || shape[i] == 0;
  }
  if (has_zero) return int64_t{0};
  const uint64_t max_count = kMaxHostTensorBytes / (element_size == 0 ? 1 : element_size);
  uint64_t count = 1;
  for (int64_t dim : shape) {
    if (static_cast<uint64_t>(dim) > max_count / count) {
      std::string text;
      for (size_t i = 0; i < shape.size(); ++i) text += (i ? "x" : "") + std::to_string(shape[i]);
      return ResourceExhaustedError("a tensor of shape " + text + " would exceed the " +
                                    std::to_string(kMaxHostTensorBytes >> 30) +
                                    " GiB limit of host tensors");
    }
    count *= static_cast<uint64_t>(dim);
  }
  return static_cast<int64_t>(count);
}

Result<HostTensor> HostTensor::Zeros(std::vector<int64_t> shape, ElementType type) {
  if (!IsSupportedElementType(type)) {
    return InvalidArgumentError(UnsupportedTypeMessage(type));
  }
  KILN_ASSIGN_OR_RETURN(int64_t count, CheckedElementCount(shape, hal::ElementByteSize(type)));
  HostTensor tensor;
  tensor.shape = std::move(shape);
  tensor.element_type = type;
  try {
    tensor.bytes.assign(static_cast<size_t>(count) * hal::ElementByteSize(type), 0);
  } catch (const std::bad_alloc&) {
    return ResourceExhaustedError("out of memory allocating a " +
                                  FormatShapeAndType(tensor.shape, type) + " tensor");
  }
  return tensor;
}

Result<HostTensor> HostTensor::FromBytes(std::vector<int64_t> shape, ElementType type,
                                         std::span<const uint8_t> bytes) {
  if (!IsSupportedElementType(type)) {
    return InvalidArgumentError(UnsupportedTypeMessage(type));
  }
  KILN_ASSIGN_OR_RETURN(int64_t count, CheckedElementCount(shape, hal::ElementByteSize(type)));
  const uint64_t expected = static_cast<uint64_t>(count) * hal::ElementByteSize(type);
  if (bytes.size() != expected) {
    return InvalidArgumentError(FormatShapeAndType(shape, type) + " needs " +
                                std::to_string(expected) + " bytes, got " +
                                std::to_string(bytes.size()));
  }
  HostTensor tensor;
  tensor.shape = std::move(shape);
  tensor.element_type = type;
  try {
    tensor.bytes.assign(bytes.begin(), bytes.end());
  } catch (const std::bad_alloc&) {
    return ResourceExhaustedError("out of memory allocating a " +
                                  FormatShapeAndType(tensor.shape, type) + " tensor");
  }
  return tensor;
}

int64_t HostTensor::element_count() const {
  int64_t count = 1;
  for (int64_t dim : shape) count *= dim;
  return count;
}

double HostTensor::ElementAsDouble(int64_t index) const {
  const uint8_t* p = bytes.data() + index * element_size();
  switch (element_type) {
    case ElementType::kFloat16:
      return HalfToFloat(Load<uint16_t>(p));
    case ElementType::kBFloat16:
      return BFloat16ToFloat(Load<uint16_t>(p));
    case ElementType::kFloat32:
      return Load<float>(p);
    case ElementType::kFloat64:
      return Load<double>(p);
    case ElementType::kUint8:
    case ElementType::kUint16:
    case ElementType::kUint32:
    case ElementType::kUint64:
      return static_cast<double>(ElementAsUint64(index));
    default:
      return static_cast<double>(ElementAsInt64(index));
  }
}

int64_t HostTensor::ElementAsInt64(int64_t index) const {
  const uint8_t* p = bytes.data() + index * element_size();
  switch (element_type) {
    case ElementType::kBool:
      return p[0];
    case ElementType::kUint8:
      return Load<uint8_t>(p);
    case ElementType::kUint16:
      return Load<uint16_t>(p);
    case ElementType::kUint32:
      return Load<uint32_t>(p);
    case ElementType::kInt8:
    case ElementType::kSint8:
      return Load<int8_t>(p);
    case ElementType::kInt16:
    case ElementType::kSint16:
      return Load<int16_t>(p);
    case ElementType::kInt32:
    case ElementType::kSint32:
      return Load<int32_t>(p);
    case ElementType::kInt64:
    case ElementType::kSint64:
    case ElementType::kUint64:
      return Load<int64_t>(p);
    case ElementType::kFloat16:
    case ElementType::kBFloat16:
    case ElementType::kFloat32:
    case ElementType::kFloat64: {
      // Truncated toward zero; NaN and values beyond int64 read as 0.
      const double value = ElementAsDouble(index);
      return std::fabs(value) < 9.2e18 ? static_cast<int64_t>(value) : 0;
    }
    default:
      return 0;
  }
}

uint64_t HostTensor::ElementAsUint64(int64_t index) const {
  if (element_type == ElementType::kUint64) {
    return Load<uint64_t>(bytes.data() + index * element_size());
  }
  return static_cast<uint64_t>(ElementAsInt64(index));
}

std::string FormatShapeAndType(std::span<const int64_t> shape, ElementType type) {
  std::string text;
  for (int64_t dim : shape) text += std::to_string(dim) + "x";
  return text + std::string(hal::FormatElementType(type));
}

Tolerance DefaultTolerance(ElementType type) {
  switch (type) {
    case ElementType::kFloat16:
      return {1e-3, 1e-3};
    case ElementType::kBFloat16:
      return {1e-2, 1e-2};
    case ElementType::kFloat32:
      return {1e-5, 1e-5};
    case ElementType::kFloat64:
      return {1e-12, 1e-12};
    default:
      return {};
  }
}

std::optional<std::string> DescribeMismatch(const HostTensor& expected, const HostTensor& actual,
                                            std::optional<Tolerance> tolerance) {
  if (expected.element_type != actual.element_type || expected.shape != actual.shape) {
    return "expected " + FormatShapeAndType(expected.shape, expected.element_type) + " but got " +
           FormatShapeAndType(actual.shape, actual.element_type);
  }
  const ElementType type = expected.element_type;
  const int64_t count = expected.element_count();
  if (expected.bytes.size() != actual.bytes.size() ||
      expected.bytes.size() != static_cast<size_t>(count) * expected.element_size()) {
    return "tensor data sizes differ from the shape";
  }
  const bool is_float = hal::IsFloatType(type);
  const Tolerance tol = tolerance.value_or(DefaultTolerance(type));
  const size_t size = expected.element_size();
  for (int64_t i = 0; i < count; ++i) {
    bool match;
    if (is_float) {
      match = FloatsMatch(expected.ElementAsDouble(i), actual.ElementAsDouble(i), tol);
    } else {
      match =
          std::memcmp(expected.bytes.data() + i * size, actual.bytes.data() + i * size, size) == 0;
    }
    if (!match) {
      return "element " + FormatCoordinates(expected.shape, i) + ": expected " +
             FormatElement(expected, i, FloatNotation::kShortest) + " but got " +
             FormatElement(actual, i, FloatNotation::kShortest);
    }
  }
  return std::nullopt;
}

}  // namespace kiln::tools
