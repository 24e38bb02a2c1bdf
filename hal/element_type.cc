#include "hal/element_type.h"

#include <array>
#include <utility>

namespace kiln::hal {
namespace {

constexpr std::array<std::pair<ElementType, std::string_view>, 17> kNames = {{
    {ElementType::kBool, "i1"},
    {ElementType::kInt8, "i8"},
    {ElementType::kInt16, "i16"},
    {ElementType::kInt32, "i32"},
    {ElementType::kInt64, "i64"},
    {ElementType::kSint8, "si8"},
    {ElementType::kSint16, "si16"},
    {ElementType::kSint32, "si32"},
    {ElementType::kSint64, "si64"},
    {ElementType::kUint8, "ui8"},
    {ElementType::kUint16, "ui16"},
    {ElementType::kUint32, "ui32"},
    {ElementType::kUint64, "ui64"},
    {ElementType::kFloat16, "f16"},
    {ElementType::kFloat32, "f32"},
    {ElementType::kFloat64, "f64"},
    {ElementType::kBFloat16, "bf16"},
}};

}  // namespace

std::string_view FormatElementType(ElementType type) {
  for (const auto& [t, name] : kNames) {
    if (t == type) return name;
  }
  return "none";
}

Result<ElementType> ParseElementType(std::string_view name) {
  for (const auto& [t, n] : kNames) {
    if (n == name) return t;
  }
  std::string accepted;
  for (const auto& [t, n] : kNames) {
    if (!accepted.empty()) accepted += ", ";
    accepted += n;
  }
  return InvalidArgumentError("unknown element type '" + std::string(name) +
                              "' (accepted: " + accepted + ")");
}

}  // namespace kiln::hal
