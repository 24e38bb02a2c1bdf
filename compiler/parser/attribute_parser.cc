// Types and attributes: MLIR's builtin spellings, aliases, and dialect
// types/attributes kept as raw body text.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

#include "compiler/parser/parser_impl.h"

namespace kiln::compiler::parser_internal {
namespace {

std::string Quote(std::string_view text) { return "'" + std::string(text) + "'"; }

bool AllDigits(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// Builtin attributes whose body kiln keeps as text; those marked typed may be
// followed by `: type` (dense<[1, 2]> : tensor<2xi32>).
struct RawBuiltinAttribute {
  std::string_view name;
  bool typed;
};
constexpr RawBuiltinAttribute kRawBuiltinAttributes[] = {
    {"dense", true},       {"dense_resource", true}, {"sparse", true},  {"affine_map", false},
    {"affine_set", false}, {"strided", false},       {"opaque", false}, {"distinct", false},
};

// MLIR type keywords kiln does not model; named in the error.
constexpr std::string_view kUnsupportedTypes[] = {
    "vector",   "memref",   "complex",  "tuple",      "tf32",       "f80",           "f128",
    "f8E5M2",   "f8E4M3",   "f8E4M3FN", "f8E5M2FNUZ", "f8E4M3FNUZ", "f8E4M3B11FNUZ", "f6E2M3FN",
    "f6E3M2FN", "f4E2M1FN", "f8E3M4",   "f8E8M0FNU",  "unranked",
};

// Parses an unsigned integer literal (decimal or 0x hex) into 64 bits.
bool ParseMagnitude(std::string_view text, uint64_t* value) {
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && text[1] == 'x') {
    base = 16;
    text.remove_prefix(2);
  }
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *value, base);
  return ec == std::errc() && ptr == text.data() + text.size();
}

// `text` (with a sign) as a value of an integer type `width` bits wide: MLIR
// accepts the signed and the unsigned range (255 : i8 is -1).
bool IntegerInRange(std::string_view text, bool negative, uint32_t width, int64_t* value) {
  uint64_t magnitude = 0;
  if (!ParseMagnitude(text, &magnitude)) return false;
  if (width < 64) {
    bool fits = negative
                    ? magnitude <= (uint64_t{1} << (width - 1)) || (width == 1 && magnitude <= 1)
                    : magnitude < (uint64_t{1} << width);
    if (!fits) return false;
  } else if (negative && magnitude > (uint64_t{1} << 63)) {
    return false;
  }
  *value = static_cast<int64_t>(negative ? uint64_t{0} - magnitude : magnitude);
  return true;
}

double HalfToDouble(uint16_t bits) {
  int sign = bits >> 15;
  int exponent = (bits >> 10) & 0x1f;
  int mantissa = bits & 0x3ff;
  double value;
  if (exponent == 0) {
    value = std::ldexp(mantissa, -24);
  } else if (exponent == 31) {
    value = mantissa ? std::nan("") : INFINITY;
  } else {
    value = std::ldexp(mantissa | 0x400, exponent - 25);
  }
  return sign ? -value : value;
}

// A float attribute's value from its bit pattern (0x7FC00000 : f32).
bool FloatFromBits(uint64_t bits, const Type& type, double* value) {
  switch (type.width()) {
    case 16:
      if (bits > 0xffff) return false;
      if (type.kind() == TypeKind::kBFloat16) {
        uint32_t wide = static_cast<uint32_t>(bits) << 16;
        float f;
        std::memcpy(&f, &wide, sizeof(f));
        *value = f;
      } else {
        *value = HalfToDouble(static_cast<uint16_t>(bits));
      }
      return true;
    case 32: {
      if (bits > 0xffffffffu) return false;
      uint32_t narrow = static_cast<uint32_t>(bits);
      float f;
      std::memcpy(&f, &narrow, sizeof(f));
      *value = f;
      return true;
    }
    case 64:
      std::memcpy(value, &bits, sizeof(*value));
      return true;
  }
  return false;
}

}  // namespace

// ---- Measuring (alias bounds) ----

namespace {

void Spend(size_t amount, size_t* budget) { *budget -= std::min(*budget, amount); }

// Walks `type` spending `budget` on its nodes and text; stops when spent, so
// a value shared many times costs at most the budget to measure.
void Measure(const Type& type, int depth, size_t* budget, int* max_depth) {
  if (*budget == 0) return;
  Spend(1, budget);
  *max_depth = std::max(*max_depth, depth);
  for (const Type& input : type.inputs()) Measure(input, depth + 1, budget, max_depth);
  for (const Type& result : type.results()) Measure(result, depth + 1, budget, max_depth);
  if (type.is_tensor()) {
    Spend(type.shape().size(), budget);
    Measure(type.element_type(), depth + 1, budget, max_depth);
  }
  Spend((type.dialect_name().size() + type.dialect_body().size()) / kTextBytesPerElement, budget);
}

void Measure(const Attribute& attribute, int depth, size_t* budget, int* max_depth) {
  if (*budget == 0) return;
  Spend(1 + (attribute.text.size() + attribute.body.size()) / kTextBytesPerElement, budget);
  *max_depth = std::max(*max_depth, depth);
  if (!attribute.type.is_null()) Measure(attribute.type, depth + 1, budget, max_depth);
  for (const std::string& symbol : attribute.symbols) {
    Spend(symbol.size() / kTextBytesPerElement, budget);
  }
  for (const Attribute& element : attribute.elements) {
    Measure(element, depth + 1, budget, max_depth);
  }
  for (const NamedAttribute& entry : attribute.entries) {
    Spend(entry.name.size() / kTextBytesPerElement, budget);
    Measure(entry.value, depth + 1, budget, max_depth);
  }
}

template <typename T>
Extent MeasureValue(const T& value, size_t limit) {
  size_t budget = limit + 1;
  Extent extent;
  Measure(value, 1, &budget, &extent.depth);
  extent.size = limit + 1 - budget;
  return extent;
}

}  // namespace

Extent MeasureType(const Type& type, size_t limit) { return MeasureValue(type, limit); }
Extent MeasureAttribute(const Attribute& attribute, size_t limit) {
  return MeasureValue(attribute, limit);
}

// ---- Types ----

bool Parser::IsTypeStart() const {
  switch (tok_.kind) {
    case TokenKind::kLParen:
    case TokenKind::kBangId:
      return true;
    case TokenKind::kBareId: {
      std::string_view t = tok_.text;
      if (t == "index" || t == "none" || t == "bf16" || t == "f16" || t == "f32" || t == "f64" ||
          t == "tensor") {
        return true;
      }
      if (t.size() > 1 && t[0] == 'i' && AllDigits(t.substr(1))) return true;
      if (t.size() > 2 && (t[0] == 's' || t[0] == 'u') && t[1] == 'i' && AllDigits(t.substr(2))) {
        return true;
      }
      for (std::string_view unsupported : kUnsupportedTypes) {
        if (t == unsupported) return true;
      }
      return false;
    }
    default:
      return false;
  }
}

bool Parser::ParseType(Type* type) {
  DepthGuard guard(this);
  if (!guard.ok()) return false;
  if (tok_.is(TokenKind::kLParen)) {
    Consume();
    std::vector<Type> inputs, results;
    if (!tok_.is(TokenKind::kRParen) && !ParseTypeList(&inputs)) return false;
    if (!Expect(TokenKind::kRParen, "')' to end the function type's inputs")) return false;
    if (!Expect(TokenKind::kArrow, "'->' in function type")) return false;
    if (!ParseFunctionResultTypes(&results)) return false;
    *type = Type::Function(std::move(inputs), std::move(results));
    return true;
  }
  if (tok_.is(TokenKind::kBangId)) return ParseDialectType(type);
  if (!tok_.is(TokenKind::kBareId)) return ErrorHere("expected type");
  std::string_view t = tok_.text;
  if (t == "index") {
    *type = Type::Index();
  } else if (t == "none") {
    *type = Type::None();
  } else if (t == "bf16") {
    *type = Type::BF16();
  } else if (t == "f16" || t == "f32" || t == "f64") {
    *type = Type::Float(t == "f16" ? 16 : t == "f32" ? 32 : 64);
  } else if (t == "tensor") {
    Consume();
    return ParseTensorType(type);
  } else if (t.size() > 1 && t[0] == 'i' && AllDigits(t.substr(1))) {
    uint32_t width = 0;
    auto [ptr, ec] = std::from_chars(t.data() + 1, t.data() + t.size(), width);
    if (ec != std::errc() || width == 0 || width > 64) {
      return ErrorHere("integer type " + Quote(t) + " is not supported (widths 1 to 64)");
    }
    *type = Type::Integer(width);
  } else if (t.size() > 2 && (t[0] == 's' || t[0] == 'u') && t[1] == 'i' &&
             AllDigits(t.substr(2))) {
    return ErrorHere("signed and unsigned integer types are not supported: " + Quote(t) +
                     " (use the signless 'i" + std::string(t.substr(2)) + "')");
  } else {
    for (std::string_view unsupported : kUnsupportedTypes) {
      if (t == unsupported) return ErrorHere("unsupported type " + Quote(t));
    }
    return ErrorHere("expected type");
  }
  Consume();
  return true;
}

bool Parser::ParseTensorType(Type* type) {
  // `tensor` was consumed. Dimensions (`4x?x`) run into the element type
  // without separators, so they are read character by character.
  if (!tok_.is(TokenKind::kLess)) return ErrorHere("expected '<' after 'tensor'");
  std::string_view text = lexer_.source();
  size_t p = tok_.end();
  std::vector<int64_t> shape;
  while (true) {
    while (p < text.size() &&
           (text[p] == ' ' || text[p] == '\t' || text[p] == '\n' || text[p] == '\r')) {
      ++p;
    }
    if (p >= text.size()) break;
    size_t dim_start = p;
    int64_t dim;
    if (text[p] == '?') {
      dim = Type::kDynamic;
      ++p;
    } else if (text[p] == '*') {
      return ErrorAt(LocOf(p), "unranked tensors are not supported");
    } else if (text[p] >= '0' && text[p] <= '9') {
      while (p < text.size() && text[p] >= '0' && text[p] <= '9') ++p;
      uint64_t value = 0;
      if (!ParseMagnitude(text.substr(dim_start, p - dim_start), &value) ||
          value > (uint64_t{1} << 48)) {
        return ErrorAt(LocOf(dim_start), "tensor dimension too large");
      }
      dim = static_cast<int64_t>(value);
    } else {
      break;
    }
    if (p >= text.size() || text[p] != 'x') {
      return ErrorAt(LocOf(p), "expected 'x' in tensor dimension list");
    }
    ++p;
    shape.push_back(dim);
  }
  lexer_.ResetTo(p);
  Consume();
  Type element;
  if (!ParseType(&element)) return false;
  if (tok_.is(TokenKind::kComma)) return ErrorHere("tensor encodings are not supported");
  if (!Expect(TokenKind::kGreater, "'>' to end the tensor type")) return false;
  *type = Type::Tensor(std::move(shape), std::move(element));
  return true;
}

bool Parser::ParseDialectType(Type* type) {
  std::string name(tok_.text.substr(1));
  auto alias = type_aliases_.find(name);
  if (alias != type_aliases_.end()) {
    if (!ChargeAliasUse(alias->second.size)) return false;
    *type = alias->second.value;
    Consume();
    return true;
  }
  size_t end = tok_.end();
  if (end < lexer_.source().size() && lexer_.source()[end] == '<') {
    std::string body;
    if (!ParseRawBody(end, &body)) return false;
    *type = Type::Dialect(std::move(name), std::move(body));
    return true;
  }
  if (name.find('.') == std::string::npos) {
    return ErrorHere("undefined type alias '!" + name + "'");
  }
  Consume();
  *type = Type::Dialect(std::move(name));
  return true;
}

bool Parser::ParseTypeList(std::vector<Type>* types) {
  do {
    Type type;
    if (!ParseType(&type)) return false;
    types->push_back(std::move(type));
  } while (ConsumeIf(TokenKind::kComma));
  return true;
}

bool Parser::ParseFunctionResultTypes(std::vector<Type>* types) {
  if (!tok_.is(TokenKind::kLParen)) {
    Type type;
    if (!ParseType(&type)) return false;
    types->push_back(std::move(type));
    return true;
  }
  Consume();
  if (!tok_.is(TokenKind::kRParen) && !ParseTypeList(types)) return false;
  return Expect(TokenKind::kRParen, "')' to end the result types");
}

bool Parser::ParseOptionalArrowTypeList(std::vector<Type>* types) {
  if (!ConsumeIf(TokenKind::kArrow)) return true;
  return ParseFunctionResultTypes(types);
}

// ---- Attributes ----

bool Parser::ExpandAliases(std::string_view body, std::string* expanded) {
  // Aliases used inside a raw body (`#hal.executable.objects<{#target = ...}>`)
  // are replaced by their definitions, so the IR never refers to an alias.
  std::string& out = *expanded;
  out.clear();
  size_t i = 0;
  while (i < body.size()) {
    char c = body[i];
    if (c == '"') {
      size_t start = i++;
      while (i < body.size() && body[i] != '"') i += body[i] == '\\' ? 2 : 1;
      i = std::min(i + 1, body.size());
      out.append(body.substr(start, i - start));
      continue;
    }
    bool prefix = c == '#' || c == '!';
    bool boundary = i == 0 || !IsIdentifierChar(body[i - 1]);
    if (prefix && boundary) {
      size_t end = i + 1;
      while (end < body.size() && (IsIdentifierChar(body[end]) || body[end] == '-')) ++end;
      std::string name(body.substr(i + 1, end - i - 1));
      if (c == '#') {
        auto it = attribute_aliases_.find(name);
        if (it != attribute_aliases_.end()) {
          if (!ChargeAliasUse(it->second.size)) return false;
          out += it->second.value.ToString();
          i = end;
          continue;
        }
      } else {
        auto it = type_aliases_.find(name);
        if (it != type_aliases_.end()) {
          if (!ChargeAliasUse(it->second.size)) return false;
          out += it->second.value.ToString();
          i = end;
          continue;
        }
      }
    }
    out += c;
    ++i;
  }
  return true;
}

bool Parser::ParseAttribute(Attribute* attribute, const Type* expected) {
  DepthGuard guard(this);
  if (!guard.ok()) return false;
  switch (tok_.kind) {
    case TokenKind::kInteger:
    case TokenKind::kFloat:
    case TokenKind::kMinus:
      return ParseNumberAttribute(attribute, expected);
    case TokenKind::kString: {
      std::string text;
      if (!Lexer::DecodeString(tok_.text, &text)) return ErrorHere("invalid escape in string");
      Consume();
      *attribute = Attribute::String(std::move(text));
      return true;
    }
    case TokenKind::kSymbolId:
      return ParseSymbolRef(attribute);
    case TokenKind::kLSquare: {
      Consume();
      std::vector<Attribute> elements;
      if (!tok_.is(TokenKind::kRSquare)) {
        do {
          Attribute element;
          if (!ParseAttribute(&element)) return false;
          elements.push_back(std::move(element));
        } while (ConsumeIf(TokenKind::kComma));
      }
      if (!Expect(TokenKind::kRSquare, "']' to end the array")) return false;
      *attribute = Attribute::Array(std::move(elements));
      return true;
    }
    case TokenKind::kLBrace: {
      std::vector<NamedAttribute> entries;
      if (!ParseAttributeDict(&entries)) return false;
      *attribute = Attribute::Dictionary(std::move(entries));
      return true;
    }
    case TokenKind::kHashId:
      return ParseHashAttribute(attribute);
    case TokenKind::kBareId: {
      std::string_view t = tok_.text;
      if (t == "true" || t == "false") {
        *attribute = Attribute::Bool(t == "true");
        Consume();
        return true;
      }
      if (t == "unit") {
        *attribute = Attribute::Unit();
        Consume();
        return true;
      }
      if (t == "array") {
        Consume();
        return ParseDenseArray(attribute);
      }
      if (t == "loc") return ErrorHere("a location is not allowed here");
      for (const RawBuiltinAttribute& raw : kRawBuiltinAttributes) {
        if (t != raw.name) continue;
        std::string name(t);
        Consume();
        if (!tok_.is(TokenKind::kLess)) return ErrorHere("expected '<' after " + Quote(name));
        std::string body;
        if (!ParseRawBody(tok_.offset, &body)) return false;
        *attribute = Attribute::Dialect(std::move(name), std::move(body));
        if (raw.typed && ConsumeIf(TokenKind::kColon)) {
          if (!ParseType(&attribute->type)) return false;
        }
        return true;
      }
      break;
    }
    default:
      break;
  }
  if (IsTypeStart()) {
    Type type;
    if (!ParseType(&type)) return false;
    *attribute = Attribute::TypeAttr(std::move(type));
    return true;
  }
  return ErrorHere("expected attribute value");
}

bool Parser::ParseHashAttribute(Attribute* attribute) {
  std::string name(tok_.text.substr(1));
  auto alias = attribute_aliases_.find(name);
  if (alias != attribute_aliases_.end()) {
    if (!ChargeAliasUse(alias->second.size)) return false;
    *attribute = alias->second.value;
    Consume();
    return true;
  }
  if (location_aliases_.count(name)) {
    return ErrorHere("location alias " + Quote(tok_.text) + " used as an attribute");
  }
  size_t end = tok_.end();
  if (end < lexer_.source().size() && lexer_.source()[end] == '<') {
    std::string body;
    if (!ParseRawBody(end, &body)) return false;
    *attribute = Attribute::Dialect(std::move(name), std::move(body));
    // A typed dialect attribute (`#hal.device.target<...> : !hal.device`, as
    // the printer writes one inside an array); nothing else may follow a
    // dialect attribute with a ':'.
    if (ConsumeIf(TokenKind::kColon) && !ParseType(&attribute->type)) return false;
    return true;
  }
  if (name.find('.') == std::string::npos) {
    return ErrorHere("undefined attribute alias '#" + name + "'");
  }
  Consume();
  *attribute = Attribute::Dialect(std::move(name), "");
  return true;
}

bool Parser::ParseSymbolRef(Attribute* attribute) {
  std::vector<std::string> parts;
  while (true) {
    if (!tok_.is(TokenKind::kSymbolId)) return ErrorHere("expected symbol reference");
    std::string_view text = tok_.text.substr(1);
    std::string part;
    if (!text.empty() && text.front() == '"') {
      if (!Lexer::DecodeString(text, &part)) return ErrorHere("invalid escape in string");
    } else {
      part = std::string(text);
    }
    parts.push_back(std::move(part));
    Consume();
    if (!ConsumeIf(TokenKind::kColonColon)) break;
  }
  *attribute = Attribute::SymbolRef(std::move(parts));
  return true;
}

bool Parser::ParseIntegerValue(const Type& type, int64_t* value) {
  if (!type.is_integer_or_index())
    return ErrorHere("expected an integer type, got '" + type.ToString() + "'");
  bool negative = ConsumeIf(TokenKind::kMinus);
  if (!tok_.is(TokenKind::kInteger)) return ErrorHere("expected integer literal");
  if (!IntegerInRange(tok_.text, negative, type.integer_width(), value)) {
    return ErrorHere("integer literal out of range for " + type.ToString());
  }
  Consume();
  return true;
}

bool Parser::ParseNumberAttribute(Attribute* attribute, const Type* expected) {
  // Find the type first (`42 : i8`): the literal's range depends on it.
  bool negative = tok_.is(TokenKind::kMinus);
  Token sign = tok_;
  if (negative) Consume();
  if (!tok_.is(TokenKind::kInteger) && !tok_.is(TokenKind::kFloat)) {
    return ErrorHere("expected integer or floating point literal");
  }
  Token literal = tok_;
  Consume();
  Type type;
  if (ConsumeIf(TokenKind::kColon)) {
    if (!ParseType(&type)) return false;
  } else if (expected && !expected->is_null()) {
    type = *expected;
  } else {
    type = literal.is(TokenKind::kInteger) ? Type::I64() : Type::F64();
  }
  Location loc = LocOf(negative ? sign : literal);

  if (type.is_float()) {
    double value = 0;
    if (literal.is(TokenKind::kInteger)) {
      uint64_t bits = 0;
      if (literal.text.size() < 3 || literal.text[1] != 'x') {
        return ErrorAt(LocOf(literal),
                       "unexpected decimal integer literal for a floating point value");
      }
      if (!ParseMagnitude(literal.text, &bits) || !FloatFromBits(bits, type, &value)) {
        return ErrorAt(LocOf(literal),
                       "hexadecimal float literal out of range for " + type.ToString());
      }
    } else {
      auto [ptr, ec] =
          std::from_chars(literal.text.data(), literal.text.data() + literal.text.size(), value);
      if (ec != std::errc() || ptr != literal.text.data() + literal.text.size()) {
        return ErrorAt(LocOf(literal), "float literal out of range for " + type.ToString());
      }
      if (type.width() == 32 && type.kind() == TypeKind::kFloat) {
        // Stored at the type's precision, as MLIR's APFloat would.
        if (std::isinf(static_cast<float>(value))) {
          return ErrorAt(LocOf(literal), "float literal out of range for f32");
        }
        value = static_cast<float>(value);
      }
    }
    *attribute = Attribute::Float(negative ? -value : value, type);
    return true;
  }
  if (!type.is_integer_or_index()) {
    return ErrorAt(
        loc, "expected integer or float type for a number literal, got '" + type.ToString() + "'");
  }
  if (literal.is(TokenKind::kFloat)) {
    return ErrorAt(LocOf(literal),
                   "floating point literal is not valid for type '" + type.ToString() + "'");
  }
  int64_t value = 0;
  if (!IntegerInRange(literal.text, negative, type.integer_width(), &value)) {
    return ErrorAt(loc, "integer literal out of range for " + type.ToString());
  }
  // `1 : i1` and `true` are the same attribute.
  *attribute = type.is_integer(1) ? Attribute::Bool(value & 1) : Attribute::Integer(value, type);
  return true;
}

bool Parser::ParseDenseArray(Attribute* attribute) {
  // `array` was consumed: array<i32: 1, 2> or array<f32> (empty).
  if (!Expect(TokenKind::kLess, "'<' after 'array'")) return false;
  Type element_type;
  Location type_loc = LocOf(tok_);
  if (!ParseType(&element_type)) return false;
  if (!element_type.is_integer_or_index() && !element_type.is_float()) {
    return ErrorAt(type_loc, "dense array element type must be an integer or float type");
  }
  Attribute result;
  result.kind = Attribute::Kind::kDenseArray;
  result.type = element_type;
  if (ConsumeIf(TokenKind::kColon)) {
    do {
      if (element_type.is_integer(1) && (tok_.IsKeyword("true") || tok_.IsKeyword("false"))) {
        result.elements.push_back(Attribute::Integer(tok_.IsKeyword("true"), element_type));
        Consume();
        continue;
      }
      if (element_type.is_float()) {
        Attribute element;
        if (!ParseNumberAttribute(&element, &element_type)) return false;
        if (element.type != element_type) {
          return ErrorHere("dense array element type mismatch");
        }
        result.elements.push_back(std::move(element));
        continue;
      }
      int64_t value;
      if (!ParseIntegerValue(element_type, &value)) return false;
      result.elements.push_back(Attribute::Integer(value, element_type));
    } while (ConsumeIf(TokenKind::kComma));
  }
  if (!Expect(TokenKind::kGreater, "'>' to end the dense array")) return false;
  *attribute = std::move(result);
  return true;
}

bool Parser::ParseAttributeDict(std::vector<NamedAttribute>* attributes) {
  if (!Expect(TokenKind::kLBrace, "'{' to begin an attribute dictionary")) return false;
  if (ConsumeIf(TokenKind::kRBrace)) return true;
  size_t first = attributes->size();
  do {
    std::string name;
    Location name_loc = LocOf(tok_);
    if (tok_.is(TokenKind::kBareId)) {
      name = std::string(tok_.text);
    } else if (tok_.is(TokenKind::kString)) {
      if (!Lexer::DecodeString(tok_.text, &name)) return ErrorHere("invalid escape in string");
    } else {
      return ErrorHere("expected attribute name");
    }
    Consume();
    for (size_t i = first; i < attributes->size(); ++i) {
      if ((*attributes)[i].name == name) {
        return ErrorAt(name_loc, "duplicate key " + Quote(name) + " in dictionary attribute");
      }
    }
    Attribute value = Attribute::Unit();
    if (ConsumeIf(TokenKind::kEqual)) {
      if (!ParseAttribute(&value)) return false;
    }
    attributes->push_back({std::move(name), std::move(value)});
  } while (ConsumeIf(TokenKind::kComma));
  return Expect(TokenKind::kRBrace, "'}' to end the attribute dictionary");
}

bool Parser::ParseOptionalAttributeDict(std::vector<NamedAttribute>* attributes) {
  if (!tok_.is(TokenKind::kLBrace)) return true;
  std::vector<NamedAttribute> parsed;
  if (!ParseAttributeDict(&parsed)) return false;
  // Merge: an attribute given twice (syntax and dictionary) is an error.
  for (NamedAttribute& entry : parsed) {
    for (const NamedAttribute& existing : *attributes) {
      if (existing.name == entry.name) {
        return ErrorHere("attribute " + Quote(entry.name) + " is given twice");
      }
    }
    attributes->push_back(std::move(entry));
  }
  return true;
}

bool Parser::ParseOptionalAttributeDictWithKeyword(std::vector<NamedAttribute>* attributes) {
  if (!ConsumeKeywordIf("attributes")) return true;
  if (!tok_.is(TokenKind::kLBrace)) return ErrorHere("expected '{' after 'attributes'");
  return ParseOptionalAttributeDict(attributes);
}

}  // namespace kiln::compiler::parser_internal
