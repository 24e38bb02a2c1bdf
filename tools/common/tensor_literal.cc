#include "tools/common/tensor_literal.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include "tools/common/quoted_literal.h"

namespace kiln::tools {
namespace {

using hal::ElementType;
using hal::NumericalKind;

bool IsSeparator(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ','; }

template <typename T>
void Store(T value, uint8_t* out) {
  std::memcpy(out, &value, sizeof(T));
}

// Reads a decimal integer for `type` and stores its low bits at `out`.
Status ParseIntegerElement(std::string_view token, ElementType type, uint8_t* out) {
  const std::string type_name(hal::FormatElementType(type));
  auto invalid = [&]() {
    return InvalidArgumentError("'" + std::string(token) + "' is not a valid " + type_name +
                                " value");
  };
  auto out_of_range = [&]() {
    return OutOfRangeError("'" + std::string(token) + "' is out of range for " + type_name);
  };
  std::string_view digits = token;
  const bool plus = !digits.empty() && digits.front() == '+';
  if (plus) digits.remove_prefix(1);
  const bool negative = !plus && !digits.empty() && digits.front() == '-';
  const std::string_view magnitude = negative ? digits.substr(1) : digits;
  if (magnitude.empty() || !std::all_of(magnitude.begin(), magnitude.end(),
                                        [](char c) { return c >= '0' && c <= '9'; })) {
    return invalid();
  }
  uint64_t value = 0;
  auto [ptr, error] = std::from_chars(magnitude.data(), magnitude.data() + magnitude.size(), value);
  if (error == std::errc::result_out_of_range) return out_of_range();
  if (error != std::errc() || ptr != magnitude.data() + magnitude.size()) return invalid();

  const uint32_t bits = hal::ElementBitWidth(type);
  const NumericalKind kind = hal::ElementKind(type);
  const uint64_t unsigned_max = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  const uint64_t negative_max = uint64_t{1} << (bits - 1);  // |most negative signed value|
  uint64_t pattern;
  if (kind == NumericalKind::kBoolean) {
    if (value > 1) {
      return OutOfRangeError("'" + std::string(token) + "' is out of range for i1 (0 or 1)");
    }
    pattern = value;
  } else if (negative) {
    if (value != 0 && kind == NumericalKind::kIntegerUnsigned) return out_of_range();
    if (value > negative_max) return out_of_range();
    pattern = ~value + 1;  // Two's complement.
  } else {
    const uint64_t max = kind == NumericalKind::kIntegerSigned ? negative_max - 1 : unsigned_max;
    if (value > max) return out_of_range();
    pattern = value;
  }
  for (uint32_t i = 0; i < hal::ElementByteSize(type); ++i) {
    out[i] = static_cast<uint8_t>(pattern >> (8 * i));
  }
  return OkStatus();
}

// Reads a decimal or hex float, nan or inf, as T. Values too small for T
// become zero or a subnormal; values too large are errors.
template <typename T>
Result<T> ParseFloatText(std::string_view token, std::string_view type_name) {
  auto invalid = [&]() {
    return InvalidArgumentError("'" + std::string(token) + "' is not a valid " +
                                std::string(type_name) + " value");
  };
  std::string_view body = token;
  if (!body.empty() && body.front() == '+') body.remove_prefix(1);
  const bool negative = !body.empty() && body.front() == '-';
  if (negative) body.remove_prefix(1);
  if (body.empty() || body.front() == '+' || body.front() == '-') return invalid();
  std::chars_format format = std::chars_format::general;
  if (body.size() > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X')) {
    body.remove_prefix(2);
    format = std::chars_format::hex;
    if (body.empty() || body.front() == '+' || body.front() == '-') return invalid();
  }
  T value = 0;
  auto [ptr, error] = std::from_chars(body.data(), body.data() + body.size(), value, format);
  if (ptr != body.data() + body.size() ||
      (error != std::errc() && error != std::errc::result_out_of_range)) {
    return invalid();
  }
  if (error == std::errc::result_out_of_range) {
    // from_chars reports underflow and overflow alike; a wider parse tells
    // them apart (strtold reads the same decimal and hex notations).
    const std::string copy(format == std::chars_format::hex ? "0x" + std::string(body)
                                                            : std::string(body));
    const long double wide = std::strtold(copy.c_str(), nullptr);
    if (!(std::fabs(wide) < 1)) {
      return OutOfRangeError("'" + std::string(token) + "' is out of range for " +
                             std::string(type_name));
    }
    value = static_cast<T>(wide);
  }
  return negative ? -value : value;
}

// Rounds the decimal `token`, already read as the nearest double `value`, to
// f16 (`half`) or bf16, to nearest even. When `value` lies exactly halfway
// between two neighbours, reading the decimal as a double may itself have
// rounded it onto that tie; a wider read (long double) tells on which side
// the decimal really lies, so the result is exact unless the decimal lies
// within long double precision (2^-64 on x86-64) of the halfway point.
uint16_t RoundToSmallFloat(std::string_view token, double value, bool half) {
  auto narrow = [half](double v) { return half ? DoubleToHalf(v) : DoubleToBFloat16(v); };
  auto widen = [half](uint16_t b) {
    return static_cast<double>(half ? HalfToFloat(b) : BFloat16ToFloat(b));
  };
  const uint16_t bits = narrow(value);
  const double rounded = widen(bits);
  if (!std::isfinite(value) || !std::isfinite(rounded) || rounded == value) return bits;
  // The neighbour on the other side of `value`, if `value` is a tie.
  const double other = value + (value - rounded);
  if (widen(narrow(other)) != other) return bits;  // Not a tie.
  const long double wide = std::strtold(std::string(token).c_str(), nullptr);
  const bool beyond = rounded < value ? wide > value : wide < value;
  return beyond ? narrow(other) : bits;
}

Status ParseElement(std::string_view token, ElementType type, uint8_t* out) {
  const std::string_view type_name = hal::FormatElementType(type);
  switch (type) {
    case ElementType::kFloat32: {
      KILN_ASSIGN_OR_RETURN(float value, ParseFloatText<float>(token, type_name));
      Store(value, out);
      return OkStatus();
    }
    case ElementType::kFloat64: {
      KILN_ASSIGN_OR_RETURN(double value, ParseFloatText<double>(token, type_name));
      Store(value, out);
      return OkStatus();
    }
    case ElementType::kFloat16:
    case ElementType::kBFloat16: {
      KILN_ASSIGN_OR_RETURN(double value, ParseFloatText<double>(token, type_name));
      const uint16_t bits = RoundToSmallFloat(token, value, type == ElementType::kFloat16);
      const uint16_t magnitude = bits & 0x7FFF;
      const uint16_t inf = type == ElementType::kFloat16 ? 0x7C00 : 0x7F80;
      if (magnitude == inf && std::isfinite(value)) {
        return OutOfRangeError("'" + std::string(token) + "' is out of range for " +
                               std::string(type_name));
      }
      Store(bits, out);
      return OkStatus();
    }
    default:
      return ParseIntegerElement(token, type, out);
  }
}

// One lexical piece of the value text: a value, '[' or ']'.
struct Token {
  enum Kind { kValue, kOpen, kClose } kind;
  std::string_view text;
};

std::vector<Token> Tokenize(std::string_view values) {
  std::vector<Token> tokens;
  size_t i = 0;
  while (i < values.size()) {
    const char c = values[i];
    if (IsSeparator(c)) {
      ++i;
    } else if (c == '[' || c == ']') {
      tokens.push_back({c == '[' ? Token::kOpen : Token::kClose, values.substr(i, 1)});
      ++i;
    } else {
      size_t end = i;
      while (end < values.size() && !IsSeparator(values[end]) && values[end] != '[' &&
             values[end] != ']') {
        ++end;
      }
      tokens.push_back({Token::kValue, values.substr(i, end - i)});
      i = end;
    }
  }
  return tokens;
}

// Checks that the brackets of `tokens` agree with `shape` (see the header)
// and collects the values in order. `depth` is how deep they nest.
Status CheckBrackets(const std::vector<Token>& tokens, std::span<const int64_t> shape,
                     const std::string& shape_text, size_t depth,
                     std::vector<std::string_view>* values) {
  const size_t rank = shape.size();
  if (depth != rank && depth + 1 != rank) {
    return InvalidArgumentError(
        "brackets nest " + std::to_string(depth) + " deep but " + shape_text + " has rank " +
        std::to_string(rank) + " (expected " + std::to_string(rank) +
        (rank > 1 ? " or " + std::to_string(rank - 1) : std::string()) + ")");
  }
  // The dimension a group opened at nesting `level` (1-based) spans.
  const size_t offset = depth == rank ? 1 : 0;
  std::vector<int64_t> counts(depth + 1, 0);  // Children seen per open level.
  size_t level = 0;
  for (const Token& token : tokens) {
    switch (token.kind) {
      case Token::kOpen:
        ++counts[level];
        ++level;
        counts[level] = 0;
        break;
      case Token::kClose: {
        const size_t dim = level - offset;
        if (counts[level] != shape[dim]) {
          return InvalidArgumentError("a bracketed group has " + std::to_string(counts[level]) +
                                      " element(s) but dimension " + std::to_string(dim) + " of " +
                                      shape_text + " is " + std::to_string(shape[dim]));
        }
        --level;
        break;
      }
      case Token::kValue:
        if (level != depth) {
          return InvalidArgumentError("value '" + std::string(token.text) +
                                      "' is outside the innermost brackets");
        }
        ++counts[level];
        values->push_back(token.text);
        break;
    }
  }
  const int64_t top = depth == rank ? 1 : shape[0];
  if (counts[0] != top) {
    return InvalidArgumentError(depth == rank
                                    ? "expected one bracketed group around all values"
                                    : shape_text + " needs " + std::to_string(top) +
                                          " bracketed rows, got " + std::to_string(counts[0]));
  }
  return OkStatus();
}

Result<HostTensor> ParseLiteral(std::string_view text) {
  const size_t equals = text.find('=');
  if (equals == std::string_view::npos) {
    return InvalidArgumentError("no '=' (expected SHAPExTYPE=VALUES, e.g. 2x3xf32=1 2 3 4 5 6)");
  }
  const std::string_view prefix = text.substr(0, equals);
  const std::string_view values_text = text.substr(equals + 1);
  const size_t last_x = prefix.rfind('x');
  const std::string_view type_text =
      last_x == std::string_view::npos ? prefix : prefix.substr(last_x + 1);
  KILN_ASSIGN_OR_RETURN(ElementType type, hal::ParseElementType(type_text));

  std::vector<int64_t> shape;
  if (last_x != std::string_view::npos) {
    std::string_view dims = prefix.substr(0, last_x);
    while (true) {
      const size_t x = dims.find('x');
      const std::string_view dim = dims.substr(0, x);
      int64_t value = 0;
      auto [ptr, error] = std::from_chars(dim.data(), dim.data() + dim.size(), value);
      if (dim.empty() || !(dim.front() >= '0' && dim.front() <= '9') || error != std::errc() ||
          ptr != dim.data() + dim.size()) {
        return InvalidArgumentError("bad dimension '" + std::string(dim) + "' in shape '" +
                                    std::string(prefix.substr(0, last_x)) +
                                    "' (dimensions are non-negative integers)");
      }
      shape.push_back(value);
      if (x == std::string_view::npos) break;
      dims.remove_prefix(x + 1);
    }
  }
  const std::string shape_text = FormatShapeAndType(shape, type);
  KILN_ASSIGN_OR_RETURN(HostTensor tensor, HostTensor::Zeros(shape, type));
  const int64_t count = tensor.element_count();
  const size_t size = tensor.element_size();

  const std::vector<Token> tokens = Tokenize(values_text);
  // Bracket balance and depth first, so that the errors say which is wrong.
  size_t depth = 0, max_depth = 0;
  for (const Token& token : tokens) {
    if (token.kind == Token::kOpen) {
      max_depth = std::max(max_depth, ++depth);
    } else if (token.kind == Token::kClose) {
      if (depth == 0) return InvalidArgumentError("unbalanced brackets: ']' without '['");
      --depth;
    }
  }
  if (depth != 0) {
    return InvalidArgumentError("unbalanced brackets: " + std::to_string(depth) +
                                " '[' not closed");
  }
  std::vector<std::string_view> values;
  if (max_depth == 0) {
    for (const Token& token : tokens) values.push_back(token.text);
  } else {
    KILN_RETURN_IF_ERROR(CheckBrackets(tokens, shape, shape_text, max_depth, &values));
  }

  if (values.empty()) return tensor;  // No values: zeros, as iree-run-module does.
  const bool splat = values.size() == 1 && count != 1 && max_depth == 0 && count > 0;
  if (!splat && static_cast<int64_t>(values.size()) != count) {
    return InvalidArgumentError(shape_text + " needs " + std::to_string(count) + " value" +
                                (count == 1 ? "" : "s") + ", got " + std::to_string(values.size()));
  }
  for (size_t i = 0; i < values.size(); ++i) {
    KILN_RETURN_IF_ERROR(ParseElement(values[i], type, tensor.bytes.data() + i * size));
  }
  if (splat) {
    for (int64_t i = 1; i < count; ++i) {
      std::memcpy(tensor.bytes.data() + i * size, tensor.bytes.data(), size);
    }
  }
  return tensor;
}

template <typename T>
std::string Shortest(T value) {
  char buffer[64];
  auto [end, error] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  if (error != std::errc()) return "?";
  return std::string(buffer, end);
}

// Appends dimension `dim` of `tensor` starting at element `first`, spending
// at most `*budget` elements (iree's --print_max_element_count).
void AppendLevel(const HostTensor& tensor, size_t dim, int64_t first, int64_t* budget,
                 FloatNotation notation, std::string* out) {
  const size_t rank = tensor.shape.size();
  if (rank == 0 || dim + 1 == rank) {
    const int64_t n = rank == 0 ? 1 : tensor.shape[dim];
    const int64_t shown = std::min(*budget, n);
    *budget -= shown;
    for (int64_t i = 0; i < shown; ++i) {
      if (i > 0) *out += ' ';
      *out += FormatElement(tensor, first + i, notation);
    }
    if (shown < n) *out += "...";
    return;
  }
  int64_t stride = 1;
  for (size_t i = dim + 1; i < rank; ++i) stride *= tensor.shape[i];
  for (int64_t i = 0; i < tensor.shape[dim]; ++i) {
    *out += '[';
    AppendLevel(tensor, dim + 1, first + i * stride, budget, notation, out);
    *out += ']';
  }
}

}  // namespace

bool IsTensorLiteral(std::string_view text) {
  const size_t equals = text.find('=');
  if (equals == std::string_view::npos) return false;
  // A shape starts with a dimension; a type name such as "index" may hold an
  // 'x' too.
  const std::string_view prefix = text.substr(0, equals);
  return !prefix.empty() && prefix.front() >= '0' && prefix.front() <= '9' &&
         prefix.find('x') != std::string_view::npos;
}

Result<HostTensor> ParseTensorLiteral(std::string_view text) {
  auto tensor = ParseLiteral(text);
  if (!tensor.ok()) return tensor.status().WithContext(QuoteLiteral(text));
  return tensor;
}

std::string FormatElement(const HostTensor& tensor, int64_t index, FloatNotation notation) {
  switch (tensor.element_type) {
    case ElementType::kFloat16:
    case ElementType::kBFloat16:
    case ElementType::kFloat32:
    case ElementType::kFloat64: {
      const double value = tensor.ElementAsDouble(index);
      if (notation == FloatNotation::kShortest) {
        return tensor.element_type == ElementType::kFloat64 ? Shortest(value)
                                                            : Shortest(static_cast<float>(value));
      }
      char buffer[64];
      std::snprintf(buffer, sizeof(buffer), "%G", value);
      return buffer;
    }
    case ElementType::kUint8:
    case ElementType::kUint16:
    case ElementType::kUint32:
    case ElementType::kUint64:
      return std::to_string(tensor.ElementAsUint64(index));
    default:
      return std::to_string(tensor.ElementAsInt64(index));
  }
}

std::string FormatTensor(const HostTensor& tensor, const TensorFormatOptions& options) {
  std::string out = FormatShapeAndType(tensor.shape, tensor.element_type) + "=";
  if (!IsSupportedElementType(tensor.element_type)) return out + "<unsupported element type>";
  if (tensor.bytes.size() != static_cast<size_t>(tensor.element_count()) * tensor.element_size()) {
    return out + "<data does not match the shape>";
  }
  int64_t budget = std::max<int64_t>(0, options.max_element_count);
  AppendLevel(tensor, 0, 0, &budget, options.float_notation, &out);
  return out;
}

}  // namespace kiln::tools
