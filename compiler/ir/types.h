// Types of IR values: the MLIR builtin types kiln understands plus opaque
// dialect types (`!hal.buffer_view`).
//
// A Type is a small value compared structurally. Scalars (i1..i64, index,
// f16/bf16/f32/f64, none) need no storage; tensor, function and dialect types
// share an immutable detail record. Every type parses and prints, even those
// that lowering does not support yet (tensors until the HAL issue, f16 and
// bf16 which the VM has no registers for): lowering rejects them with an
// error at the value's location, never the parser.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::compiler {

enum class TypeKind : uint8_t {
  kNull,      // No type (default-constructed).
  kInteger,   // iN (signless), width 1..64.
  kIndex,     // index (lowered as 64-bit).
  kFloat,     // f16, f32, f64 (width) ...
  kBFloat16,  // ... and bf16.
  kNone,      // MLIR's `none`.
  kTensor,    // tensor<4x?xf32>
  kFunction,  // (i32, f32) -> i32
  kDialect,   // !dialect.name or !dialect.name<...>, kept as text.
};

class Type {
 public:
  static constexpr int64_t kDynamic = -1;  // A `?` tensor dimension.

  Type() = default;
  static Type Integer(uint32_t width);
  static Type I1() { return Integer(1); }
  static Type I32() { return Integer(32); }
  static Type I64() { return Integer(64); }
  static Type Index();
  static Type Float(uint32_t width);  // 16, 32 or 64.
  static Type F32() { return Float(32); }
  static Type F64() { return Float(64); }
  static Type BF16();
  static Type None();
  static Type Tensor(std::vector<int64_t> shape, Type element);
  static Type Function(std::vector<Type> inputs, std::vector<Type> results);
  // `name` is the part after '!' ("hal.buffer_view"), `body` the text between
  // the outer angle brackets, without them ("" when there are none).
  static Type Dialect(std::string name, std::string body = {});

  TypeKind kind() const { return kind_; }
  bool is_null() const { return kind_ == TypeKind::kNull; }
  uint32_t width() const { return width_; }  // Integer and float bit width.
  bool is_integer() const { return kind_ == TypeKind::kInteger; }
  bool is_integer(uint32_t width) const { return is_integer() && width_ == width; }
  bool is_index() const { return kind_ == TypeKind::kIndex; }
  bool is_integer_or_index() const { return is_integer() || is_index(); }
  bool is_float() const { return kind_ == TypeKind::kFloat || kind_ == TypeKind::kBFloat16; }
  bool is_scalar() const { return is_integer_or_index() || is_float(); }
  bool is_tensor() const { return kind_ == TypeKind::kTensor; }
  bool is_function() const { return kind_ == TypeKind::kFunction; }
  bool is_dialect() const { return kind_ == TypeKind::kDialect; }
  // Integer width with index counted as 64.
  uint32_t integer_width() const { return is_index() ? 64 : width_; }

  // Tensor accessors.
  const std::vector<int64_t>& shape() const;
  Type element_type() const;
  // Function accessors.
  const std::vector<Type>& inputs() const;
  const std::vector<Type>& results() const;
  // Dialect accessors.
  const std::string& dialect_name() const;
  const std::string& dialect_body() const;

  // MLIR's spelling: "i32", "index", "tensor<?x4xf32>", "(i32) -> f32",
  // "!hal.buffer_view".
  std::string ToString() const;

  friend bool operator==(const Type& a, const Type& b);
  friend bool operator!=(const Type& a, const Type& b) { return !(a == b); }

 private:
  struct Detail;
  Type(TypeKind kind, uint32_t width, std::shared_ptr<const Detail> detail = nullptr)
      : kind_(kind), width_(width), detail_(std::move(detail)) {}

  TypeKind kind_ = TypeKind::kNull;
  uint32_t width_ = 0;
  std::shared_ptr<const Detail> detail_;
};

// "i32, f32" for a list of types.
std::string FormatTypes(const std::vector<Type>& types);

}  // namespace kiln::compiler
