#include "compiler/ir/attributes.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace kiln::compiler {

int64_t SignExtend(int64_t value, uint32_t width) {
  if (width == 0 || width >= 64) return value;
  uint64_t bits = static_cast<uint64_t>(value) << (64 - width);
  return static_cast<int64_t>(bits) >> (64 - width);
}

uint64_t ZeroExtend(int64_t value, uint32_t width) {
  if (width == 0 || width >= 64) return static_cast<uint64_t>(value);
  return static_cast<uint64_t>(value) & ((uint64_t{1} << width) - 1);
}

Attribute Attribute::Unit() {
  Attribute a;
  a.kind = Kind::kUnit;
  return a;
}

Attribute Attribute::Bool(bool value) {
  Attribute a;
  a.kind = Kind::kBool;
  a.integer_value = value ? 1 : 0;
  a.type = Type::I1();
  return a;
}

Attribute Attribute::Integer(int64_t value, Type type) {
  Attribute a;
  a.kind = Kind::kInteger;
  a.type = std::move(type);
  // i1 keeps 0/1 (MLIR prints `true`/`false`); wider types sign-extend.
  a.integer_value = a.type.is_integer(1) ? (value & 1) : SignExtend(value, a.type.integer_width());
  return a;
}

Attribute Attribute::Float(double value, Type type) {
  Attribute a;
  a.kind = Kind::kFloat;
  a.float_value = value;
  a.type = std::move(type);
  return a;
}

Attribute Attribute::String(std::string value) {
  Attribute a;
  a.kind = Kind::kString;
  a.text = std::move(value);
  return a;
}

Attribute Attribute::TypeAttr(Type type) {
  Attribute a;
  a.kind = Kind::kType;
  a.type = std::move(type);
  return a;
}

Attribute Attribute::SymbolRef(std::vector<std::string> parts) {
  Attribute a;
  a.kind = Kind::kSymbolRef;
  a.symbols = std::move(parts);
  return a;
}

Attribute Attribute::Array(std::vector<Attribute> elements) {
  Attribute a;
  a.kind = Kind::kArray;
  a.elements = std::move(elements);
  return a;
}

Attribute Attribute::Dictionary(std::vector<NamedAttribute> entries) {
  Attribute a;
  a.kind = Kind::kDictionary;
  a.entries = std::move(entries);
  return a;
}

Attribute Attribute::Dialect(std::string name, std::string body) {
  Attribute a;
  a.kind = Kind::kDialect;
  a.text = std::move(name);
  a.body = std::move(body);
  return a;
}

const Attribute* Attribute::Find(std::string_view name) const {
  for (const NamedAttribute& entry : entries) {
    if (entry.name == name) return &entry.value;
  }
  return nullptr;
}

bool operator==(const Attribute& a, const Attribute& b) {
  return a.kind == b.kind && a.integer_value == b.integer_value &&
         (a.float_value == b.float_value ||
          (std::isnan(a.float_value) && std::isnan(b.float_value))) &&
         a.type == b.type && a.text == b.text && a.body == b.body && a.symbols == b.symbols &&
         a.elements == b.elements && a.entries == b.entries;
}

namespace {

std::string QuoteString(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c >= 0x7f) {
      char hex[4];
      std::snprintf(hex, sizeof(hex), "\\%02X", c);
      out += hex;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

// Shortest text that reads back as the same double, always with a '.' or an
// exponent so it lexes as a float. NaN and infinities have no decimal
// spelling: MLIR writes them as the bit pattern of the value's type.
std::string FormatFloat(double value, const Type& type) {
  if (std::isnan(value) || std::isinf(value)) {
    bool negative = std::signbit(value);
    const char* pattern;
    if (type.kind() == TypeKind::kBFloat16) {
      pattern = std::isnan(value) ? "0x7FC0" : negative ? "0xFF80" : "0x7F80";
    } else if (type.width() == 16) {
      pattern = std::isnan(value) ? "0x7E00" : negative ? "0xFC00" : "0x7C00";
    } else if (type.width() == 32) {
      pattern = std::isnan(value) ? "0x7FC00000" : negative ? "0xFF800000" : "0x7F800000";
    } else {
      pattern = std::isnan(value) ? "0x7FF8000000000000"
                : negative        ? "0xFFF0000000000000"
                                  : "0x7FF0000000000000";
    }
    return pattern;
  }
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  std::string out(buffer, result.ptr);
  if (out.find_first_of(".eEn") == std::string::npos) out += ".0";
  // MLIR wants a digit before the exponent's sign and a '.' in the mantissa.
  size_t e = out.find('e');
  if (e != std::string::npos && out.find('.') == std::string::npos) out.insert(e, ".0");
  return out;
}

bool IsBareName(std::string_view text, bool allow_dash) {
  if (text.empty()) return false;
  for (char c : text) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '$' || c == '.' || (allow_dash && c == '-');
    if (!ok) return false;
  }
  return true;
}

// `@name`, quoted when the name has characters a bare symbol cannot.
std::string FormatSymbol(const std::string& name) {
  return "@" + (IsBareName(name, /*allow_dash=*/true) ? name : QuoteString(name));
}

// A dictionary key: a bare identifier (letter or '_' first) or a string.
std::string FormatKey(const std::string& name) {
  bool bare = IsBareName(name, /*allow_dash=*/false) && !(name[0] >= '0' && name[0] <= '9') &&
              name[0] != '$' && name[0] != '.';
  return bare ? name : QuoteString(name);
}

// Builtin attributes kept as text print without '#'; dialect ones with it.
bool IsBuiltinRawAttribute(const std::string& name) {
  for (const char* builtin : {"dense", "dense_resource", "sparse", "affine_map", "affine_set",
                              "strided", "opaque", "distinct"}) {
    if (name == builtin) return true;
  }
  return false;
}

}  // namespace

std::string Attribute::ToString() const {
  switch (kind) {
    case Kind::kNull:
      return "<<null attribute>>";
    case Kind::kUnit:
      return "unit";
    case Kind::kBool:
      return integer_value ? "true" : "false";
    case Kind::kInteger:
      if (type.is_integer(1)) return integer_value ? "true" : "false";
      return std::to_string(integer_value) + " : " + type.ToString();
    case Kind::kFloat:
      return FormatFloat(float_value, type) + " : " + type.ToString();
    case Kind::kString:
      return QuoteString(text);
    case Kind::kType:
      return type.ToString();
    case Kind::kSymbolRef: {
      std::string out;
      for (size_t i = 0; i < symbols.size(); ++i) {
        if (i) out += "::";
        out += FormatSymbol(symbols[i]);
      }
      return out;
    }
    case Kind::kArray: {
      std::string out = "[";
      for (size_t i = 0; i < elements.size(); ++i) {
        if (i) out += ", ";
        out += elements[i].ToString();
      }
      return out + "]";
    }
    case Kind::kDenseArray: {
      std::string out = "array<" + type.ToString();
      for (size_t i = 0; i < elements.size(); ++i) {
        out += i ? ", " : ": ";
        const Attribute& e = elements[i];
        out += e.kind == Kind::kFloat ? FormatFloat(e.float_value, type)
                                      : std::to_string(e.integer_value);
      }
      return out + ">";
    }
    case Kind::kDictionary: {
      std::string out = "{";
      for (size_t i = 0; i < entries.size(); ++i) {
        if (i) out += ", ";
        out += FormatKey(entries[i].name);
        if (entries[i].value.kind != Kind::kUnit) out += " = " + entries[i].value.ToString();
      }
      return out + "}";
    }
    case Kind::kDialect: {
      // Builtin attribute forms are printed bare (affine_map<...>, dense<...>);
      // dialect ones with their '#'. A typed one (dense<...> : tensor<2xi32>)
      // keeps its type.
      std::string out = IsBuiltinRawAttribute(text)
                            ? text + "<" + body + ">"
                            : "#" + text + (body.empty() ? "" : "<" + body + ">");
      if (!type.is_null()) out += " : " + type.ToString();
      return out;
    }
  }
  return "<<bad attribute>>";
}

}  // namespace kiln::compiler
