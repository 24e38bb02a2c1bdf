// Variant: one VM value of any type (i32, i64, f32, f64 or a ref), tagged.
//
// Variants are what crosses the VM boundary: invocation arguments and results
// (in a List), list elements, and values passed to native module functions.
#pragma once

#include <cstdint>
#include <string>

#include "base/ref.h"
#include "vm/object.h"

namespace kiln::vm {

enum class ValueType : uint8_t { kNone, kI32, kI64, kF32, kF64, kRef };

std::string_view ValueTypeName(ValueType type);  // "none", "i32", ..., "ref"

class Variant {
 public:
  Variant() : i64_(0) {}
  static Variant I32(int32_t v) {
    Variant x;
    x.type_ = ValueType::kI32;
    x.i32_ = v;
    return x;
  }
  static Variant I64(int64_t v) {
    Variant x;
    x.type_ = ValueType::kI64;
    x.i64_ = v;
    return x;
  }
  static Variant F32(float v) {
    Variant x;
    x.type_ = ValueType::kF32;
    x.f32_ = v;
    return x;
  }
  static Variant F64(double v) {
    Variant x;
    x.type_ = ValueType::kF64;
    x.f64_ = v;
    return x;
  }
  // A ref variant; `ref` may be null (a typed null is still a ref).
  static Variant FromRef(Ref<Object> ref) {
    Variant x;
    x.type_ = ValueType::kRef;
    x.ref_ = std::move(ref);
    return x;
  }

  ValueType type() const { return type_; }
  bool is_none() const { return type_ == ValueType::kNone; }
  bool is_ref() const { return type_ == ValueType::kRef; }
  int32_t i32() const { return i32_; }
  int64_t i64() const { return i64_; }
  float f32() const { return f32_; }
  double f64() const { return f64_; }
  const Ref<Object>& ref() const { return ref_; }
  // Moves the ref out, leaving a null one (the type stays): for a caller
  // that consumes the value, such as the interpreter storing an import's
  // result in a register without a retain and release.
  Ref<Object> TakeRef() { return std::move(ref_); }

  // "i32=5", "f32=1.5", "ref<vm.list>", "ref<null>", "none".
  std::string ToString() const;

 private:
  ValueType type_ = ValueType::kNone;
  union {
    int32_t i32_;
    int64_t i64_;
    float f32_;
    double f64_;
  };
  Ref<Object> ref_;
};

}  // namespace kiln::vm
