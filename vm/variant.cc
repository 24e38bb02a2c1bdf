#include "vm/variant.h"

#include <cstdio>

namespace kiln::vm {

std::string_view ValueTypeName(ValueType type) {
  switch (type) {
    case ValueType::kNone: return "none";
    case ValueType::kI32: return "i32";
    case ValueType::kI64: return "i64";
    case ValueType::kF32: return "f32";
    case ValueType::kF64: return "f64";
    case ValueType::kRef: return "ref";
  }
  return "?";
}

std::string Variant::ToString() const {
  char text[64];
  switch (type_) {
    case ValueType::kNone: return "none";
    case ValueType::kI32: std::snprintf(text, sizeof(text), "i32=%d", i32_); return text;
    case ValueType::kI64:
      std::snprintf(text, sizeof(text), "i64=%lld", static_cast<long long>(i64_));
      return text;
    case ValueType::kF32: std::snprintf(text, sizeof(text), "f32=%g", f32_); return text;
    case ValueType::kF64: std::snprintf(text, sizeof(text), "f64=%g", f64_); return text;
    case ValueType::kRef:
      if (!ref_) return "ref<null>";
      return "ref<" + std::string(ref_->type().name) + ">";
  }
  return "?";
}

}  // namespace kiln::vm
