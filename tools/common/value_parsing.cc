#include "tools/common/value_parsing.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>

#include "tools/common/quoted_literal.h"
#include "vm/disassembler.h"
#include "vm/signature.h"

namespace kiln::tools {
namespace {

using vm::ValueType;
using vm::Variant;

struct ElementTypeEntry {
  ElementType type;
  std::string_view name;
};
constexpr ElementTypeEntry kElementTypes[] = {
    {ElementType::kI1, "i1"},   {ElementType::kI8, "i8"},   {ElementType::kI16, "i16"},
    {ElementType::kI32, "i32"}, {ElementType::kI64, "i64"}, {ElementType::kIndex, "index"},
    {ElementType::kF32, "f32"}, {ElementType::kF64, "f64"},
};

// The element type an untyped literal takes for a value of type `expected`.
ElementType DefaultElementType(ValueType expected) {
  switch (expected) {
    case ValueType::kI64:
      return ElementType::kI64;
    case ValueType::kF32:
      return ElementType::kF32;
    case ValueType::kF64:
      return ElementType::kF64;
    default:
      return ElementType::kI32;
  }
}

// Reads a whole decimal integer that fits the signed or the unsigned range of
// `bits` bits, as its two's complement bit pattern sign-extended to 64 bits.
Result<int64_t> ParseInteger(std::string_view literal, std::string_view text, int bits,
                             std::string_view type_name) {
  std::string_view digits = text;
  const bool plus = !digits.empty() && digits.front() == '+';
  if (plus) digits.remove_prefix(1);
  const bool negative = !digits.empty() && digits.front() == '-';
  auto invalid = [&]() {
    return InvalidArgumentError(QuoteLiteral(literal) + " is not a valid " +
                                std::string(type_name) + " value");
  };
  auto out_of_range = [&]() {
    return OutOfRangeError(QuoteLiteral(literal) + " is out of range for " +
                           std::string(type_name));
  };
  if (digits.empty() || (plus && negative) ||
      (!negative && !(digits.front() >= '0' && digits.front() <= '9'))) {
    return invalid();
  }
  const char* begin = digits.data();
  const char* end = digits.data() + digits.size();
  if (negative) {
    int64_t value = 0;
    auto [ptr, error] = std::from_chars(begin, end, value);
    if (error == std::errc::result_out_of_range) return out_of_range();
    if (error != std::errc() || ptr != end) return invalid();
    const int64_t min =
        bits == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (bits - 1));
    if (value < min) return out_of_range();
    return value;
  }
  uint64_t value = 0;
  auto [ptr, error] = std::from_chars(begin, end, value);
  if (error == std::errc::result_out_of_range) return out_of_range();
  if (error != std::errc() || ptr != end) return invalid();
  if (bits < 64) {
    if (value > (uint64_t{1} << bits) - 1) return out_of_range();
    // Sign-extend the N-bit pattern.
    const uint64_t sign = uint64_t{1} << (bits - 1);
    return static_cast<int64_t>((value ^ sign) - sign);
  }
  return static_cast<int64_t>(value);
}

// Reads a whole decimal float (or inf/nan) of type T.
template <typename T>
Result<T> ParseFloat(std::string_view literal, std::string_view text, std::string_view type_name) {
  std::string_view digits = text;
  const bool plus = !digits.empty() && digits.front() == '+';
  if (plus) digits.remove_prefix(1);
  if (plus && !digits.empty() && digits.front() == '-') digits = {};  // "+-1" is invalid.
  T value = 0;
  auto [ptr, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (error == std::errc::result_out_of_range) {
    return OutOfRangeError(QuoteLiteral(literal) + " is out of range for " +
                           std::string(type_name));
  }
  if (digits.empty() || error != std::errc() || ptr != digits.data() + digits.size()) {
    return InvalidArgumentError(QuoteLiteral(literal) + " is not a valid " +
                                std::string(type_name) + " value");
  }
  return value;
}

// Converts the text after the '=' (or the whole untyped literal) to `type`.
Result<Variant> ParseScalar(std::string_view literal, ElementType type, std::string_view text) {
  const std::string_view name = ElementTypeName(type);
  switch (type) {
    case ElementType::kI1: {
      KILN_ASSIGN_OR_RETURN(int64_t value, ParseInteger(literal, text, 64, name));
      if (value != 0 && value != 1) {
        return OutOfRangeError(QuoteLiteral(literal) + " is out of range for i1 (0 or 1)");
      }
      return Variant::I32(static_cast<int32_t>(value));
    }
    case ElementType::kI8:
    case ElementType::kI16:
    case ElementType::kI32: {
      const int bits = type == ElementType::kI8 ? 8 : type == ElementType::kI16 ? 16 : 32;
      KILN_ASSIGN_OR_RETURN(int64_t value, ParseInteger(literal, text, bits, name));
      return Variant::I32(static_cast<int32_t>(value));
    }
    case ElementType::kI64:
    case ElementType::kIndex: {
      KILN_ASSIGN_OR_RETURN(int64_t value, ParseInteger(literal, text, 64, name));
      return Variant::I64(value);
    }
    case ElementType::kF32: {
      KILN_ASSIGN_OR_RETURN(float value, ParseFloat<float>(literal, text, name));
      return Variant::F32(value);
    }
    case ElementType::kF64: {
      KILN_ASSIGN_OR_RETURN(double value, ParseFloat<double>(literal, text, name));
      return Variant::F64(value);
    }
  }
  return InternalError("unknown element type");
}

template <typename T>
bool FloatsMatch(T expected, T actual, T relative_tolerance) {
  if (std::isnan(expected) || std::isnan(actual)) return std::isnan(expected) && std::isnan(actual);
  if (expected == actual) return true;  // Also the only way infinities match.
  if (std::isinf(expected) || std::isinf(actual)) return false;
  return std::fabs(actual - expected) <= relative_tolerance * std::max(T{1}, std::fabs(expected));
}

}  // namespace

std::string_view ElementTypeName(ElementType type) {
  for (const ElementTypeEntry& entry : kElementTypes) {
    if (entry.type == type) return entry.name;
  }
  return "?";
}

Result<ElementType> ParseElementType(std::string_view name) {
  for (const ElementTypeEntry& entry : kElementTypes) {
    if (entry.name == name) return entry.type;
  }
  return NotFoundError("unknown value type '" + std::string(name) +
                       "' (expected i1, i8, i16, i32, i64, index, f32 or f64)");
}

vm::ValueType StorageType(ElementType type) {
  switch (type) {
    case ElementType::kI64:
    case ElementType::kIndex:
      return ValueType::kI64;
    case ElementType::kF32:
      return ValueType::kF32;
    case ElementType::kF64:
      return ValueType::kF64;
    default:
      return ValueType::kI32;
  }
}

Result<Variant> ParseValue(std::string_view text, ValueType expected) {
  if (expected == ValueType::kRef || expected == ValueType::kNone) {
    return UnimplementedError(QuoteLiteral(text) + ": values of type " +
                              std::string(vm::ValueTypeName(expected)) +
                              " cannot be given as text");
  }
  // The text before the first '=' decides how the rest is read.
  const size_t equals = text.find('=');
  ElementType type = DefaultElementType(expected);
  std::string_view value = text;
  if (equals != std::string_view::npos) {
    auto named = ParseElementType(text.substr(0, equals));
    if (!named.ok()) {
      return InvalidArgumentError(QuoteLiteral(text) + ": " + named.status().message());
    }
    type = *named;
    value = text.substr(equals + 1);
    if (StorageType(type) != expected) {
      return InvalidArgumentError(
          QuoteLiteral(text) + " has type " + std::string(ElementTypeName(type)) +
          " but the signature expects " + std::string(vm::ValueTypeName(expected)));
    }
  }
  if (value.empty()) return InvalidArgumentError(QuoteLiteral(text) + " has no value");
  return ParseScalar(text, type, value);
}

std::string FormatValue(const Variant& value) {
  switch (value.type()) {
    case ValueType::kI32:
      return "i32=" + std::to_string(value.i32());
    case ValueType::kI64:
      return "i64=" + std::to_string(value.i64());
    case ValueType::kF32:
      return "f32=" + vm::FormatFloat(value.f32());
    case ValueType::kF64:
      return "f64=" + vm::FormatDouble(value.f64());
    case ValueType::kRef:
      return value.ref() ? std::string(value.ref()->type().name) : std::string("null");
    case ValueType::kNone:
      break;
  }
  return "none";
}

bool ValuesMatch(const Variant& expected, const Variant& actual) {
  if (expected.type() != actual.type()) return false;
  switch (expected.type()) {
    case ValueType::kI32:
      return expected.i32() == actual.i32();
    case ValueType::kI64:
      return expected.i64() == actual.i64();
    case ValueType::kF32:
      return FloatsMatch(expected.f32(), actual.f32(), 1e-5f);
    case ValueType::kF64:
      return FloatsMatch(expected.f64(), actual.f64(), 1e-12);
    case ValueType::kRef:
      return expected.ref().get() == actual.ref().get();
    case ValueType::kNone:
      return true;
  }
  return false;
}

}  // namespace kiln::tools
