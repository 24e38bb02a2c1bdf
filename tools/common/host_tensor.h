// HostTensor: a dense tensor held in host memory, as the tools see it at their
// boundary (--input literals, .npy files, printed and compared results).
//
// The elements are row-major (C order) and little-endian, each taking
// hal::ElementByteSize(type) bytes; i1 takes one byte per element holding 0 or
// 1. f16 and bf16 elements are their raw 16-bit patterns (base/float16.h
// converts them). A 0-d tensor (empty shape) holds one element; a
// shape with a zero dimension holds none.
//
// Comparison (--expected_output): integer elements must be equal; float
// elements match when |actual - expected| <= atol + rtol * |expected|, NaN
// matches NaN and an infinity only itself. The default tolerances follow the
// scalar ones of kiln-run-module (tools/README.md): 1e-5 for f32, 1e-12 for
// f64, and the precision of the narrower types for f16 (1e-3) and bf16 (1e-2).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/float16.h"
#include "base/result.h"
#include "hal/element_type.h"

namespace kiln::tools {

// The largest tensor the tools build on the host from text or a file; larger
// requests are errors instead of allocation failures.
inline constexpr uint64_t kMaxHostTensorBytes = uint64_t{1} << 34;  // 16 GiB.

struct HostTensor {
  std::vector<int64_t> shape;
  hal::ElementType element_type = hal::ElementType::kNone;
  std::vector<uint8_t> bytes;  // element_count() * ElementByteSize(element_type).

  // An all-zero tensor of this shape and type. Errors on an unsupported type,
  // a negative dimension, or a size over kMaxHostTensorBytes.
  static Result<HostTensor> Zeros(std::vector<int64_t> shape, hal::ElementType type);
  // A tensor holding a copy of `bytes`, whose size must match the shape.
  static Result<HostTensor> FromBytes(std::vector<int64_t> shape, hal::ElementType type,
                                      std::span<const uint8_t> bytes);

  int64_t element_count() const;
  size_t element_size() const { return hal::ElementByteSize(element_type); }

  // Element `index` (row-major) converted to double (for floats and for
  // integers up to 2^53) or to int64/uint64 (for integers: the value as its
  // signedness reads it; signless integers read as signed; floats truncate,
  // NaN and out-of-range floats read as 0). `index` must be in range.
  double ElementAsDouble(int64_t index) const;
  int64_t ElementAsInt64(int64_t index) const;
  uint64_t ElementAsUint64(int64_t index) const;

  // Exact equality: same shape, type and bytes.
  friend bool operator==(const HostTensor& a, const HostTensor& b) = default;
};

// Whether kiln can hold elements of `type` in a HostTensor (every named
// hal::ElementType; not kNone).
bool IsSupportedElementType(hal::ElementType type);

// The number of elements of `shape`, or an error naming the shape when a
// dimension is negative or the count of `element_size`-byte elements would
// exceed kMaxHostTensorBytes.
Result<int64_t> CheckedElementCount(std::span<const int64_t> shape, size_t element_size);

// "2x3xf32", "f32" for a 0-d tensor, "0x4xi8": iree's shape-and-type prefix.
std::string FormatShapeAndType(std::span<const int64_t> shape, hal::ElementType type);

// "[1, 2]": row-major element `index` of `shape` as coordinates ("[]" for a
// 0-d tensor).
std::string FormatCoordinates(std::span<const int64_t> shape, int64_t index);

// Tolerances for float elements: |actual - expected| <= atol + rtol * |expected|.
struct Tolerance {
  double atol = 0;
  double rtol = 0;
};
// The default tolerance of a float type (see above); zero for integers.
Tolerance DefaultTolerance(hal::ElementType type);

// Why `actual` does not match `expected`, or nullopt when it does: a shape or
// type difference ("shape 2x3xf32 differs from expected 3x2xf32"), or the
// first differing element ("element [1, 2]: expected 3 but got 4"). With no
// `tolerance` the type's default is used.
std::optional<std::string> DescribeMismatch(const HostTensor& expected, const HostTensor& actual,
                                            std::optional<Tolerance> tolerance = std::nullopt);
inline bool TensorsMatch(const HostTensor& expected, const HostTensor& actual,
                         std::optional<Tolerance> tolerance = std::nullopt) {
  return !DescribeMismatch(expected, actual, tolerance).has_value();
}

}  // namespace kiln::tools
