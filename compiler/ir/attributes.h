// Attributes: the compile-time constants attached to operations (MLIR's
// `{value = 42 : i32, callee = @fib}`), a small tagged value.
//
// Builtin attribute kinds are structured (integers carry their type, arrays and
// dictionaries nest). Dialect attributes that kiln does not interpret yet
// (`#hal.pipeline.layout<...>`, `affine_map<...>`, `dense<...>`) keep their
// name and body text, so a later stage can parse the body when it needs to and
// the printer reproduces them. Attribute aliases (`#map = ...`) are resolved by
// the parser; the IR never holds an alias.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir/types.h"

namespace kiln::compiler {

struct NamedAttribute;

struct Attribute {
  enum class Kind : uint8_t {
    kNull,        // Absent.
    kUnit,        // `unit` (or a bare name in a dictionary: {is_mutable}).
    kBool,        // true / false (integer_value 0/1, type i1).
    kInteger,     // 42 : i32 (type defaults to i64 when omitted, as MLIR does).
    kFloat,       // 1.5 : f32 (type defaults to f64).
    kString,      // "text" (escapes resolved).
    kType,        // a type used as an attribute: function_type, util.global's type.
    kSymbolRef,   // @a or @a::@b (symbols holds each part without '@').
    kArray,       // [a, b, ...]
    kDenseArray,  // array<i32: 1, 2> (type = element type, elements integers/floats).
    kDictionary,  // {name = value, ...}
    kDialect,     // #dialect.name<body>, affine_map<body>, dense<body>, loc(...)...
  };

  Kind kind = Kind::kNull;
  // kInteger and kBool: the value, sign-extended from the type's width
  // (arith.constant 255 : i8 holds -1).
  int64_t integer_value = 0;
  double float_value = 0;        // kFloat.
  Type type;                     // kInteger/kFloat/kBool/kType, kDenseArray element.
  std::string text;              // kString; kDialect: the name (e.g. "hal.pipeline.layout").
  std::string body;              // kDialect: text between the outer '<' '>' (or parens).
  std::vector<std::string> symbols;        // kSymbolRef.
  std::vector<Attribute> elements;         // kArray, kDenseArray.
  std::vector<NamedAttribute> entries;     // kDictionary, in source order.

  static Attribute Unit();
  static Attribute Bool(bool value);
  // Truncates `value` to the type's width and sign-extends it back.
  static Attribute Integer(int64_t value, Type type);
  static Attribute Float(double value, Type type);
  static Attribute String(std::string value);
  static Attribute TypeAttr(Type type);
  static Attribute SymbolRef(std::vector<std::string> parts);
  static Attribute Array(std::vector<Attribute> elements);
  static Attribute Dictionary(std::vector<NamedAttribute> entries);
  static Attribute Dialect(std::string name, std::string body);

  bool is_null() const { return kind == Kind::kNull; }
  // Dictionary lookup; null when absent or not a dictionary.
  const Attribute* Find(std::string_view name) const;

  // MLIR's spelling, e.g. `42 : i32`, `"s"`, `@f`, `[1, 2]`, `{a = 1 : i64}`.
  std::string ToString() const;

  friend bool operator==(const Attribute& a, const Attribute& b);
};

struct NamedAttribute {
  std::string name;
  Attribute value;
  friend bool operator==(const NamedAttribute&, const NamedAttribute&) = default;
};

// Sign-extends the low `width` bits of `value` (width 1..64).
int64_t SignExtend(int64_t value, uint32_t width);
// Zero-extends the low `width` bits of `value`.
uint64_t ZeroExtend(int64_t value, uint32_t width);

}  // namespace kiln::compiler
