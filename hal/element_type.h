// ElementType: the type of one element of a tensor held in a buffer view.
//
// Encoded as one 32-bit value, (numerical kind << 24) | bit width, so that a
// type's byte size and family are read off its bits without a table (the same
// idea as IREE's element types; the values are kiln's own). The kinds are:
// signless integers ("i32": the bits, sign unknown, as MLIR writes them),
// signed ("si32") and unsigned ("ui32") integers, booleans ("i1", stored one
// per byte), IEEE floats ("f16", "f32", "f64") and bfloat16 ("bf16").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"

namespace kiln::hal {

enum class NumericalKind : uint8_t {
  kUnknown = 0x00,
  kInteger = 0x10,  // Signless.
  kIntegerSigned = 0x11,
  kIntegerUnsigned = 0x12,
  kBoolean = 0x13,
  kFloatIeee = 0x20,
  kFloatBrain = 0x21,
};

enum class ElementType : uint32_t {
  kNone = 0,
  kBool = (0x13u << 24) | 1,  // "i1"
  kInt8 = (0x10u << 24) | 8,
  kInt16 = (0x10u << 24) | 16,
  kInt32 = (0x10u << 24) | 32,
  kInt64 = (0x10u << 24) | 64,
  kSint8 = (0x11u << 24) | 8,
  kSint16 = (0x11u << 24) | 16,
  kSint32 = (0x11u << 24) | 32,
  kSint64 = (0x11u << 24) | 64,
  kUint8 = (0x12u << 24) | 8,
  kUint16 = (0x12u << 24) | 16,
  kUint32 = (0x12u << 24) | 32,
  kUint64 = (0x12u << 24) | 64,
  kFloat16 = (0x20u << 24) | 16,
  kFloat32 = (0x20u << 24) | 32,
  kFloat64 = (0x20u << 24) | 64,
  kBFloat16 = (0x21u << 24) | 16,
};

constexpr NumericalKind ElementKind(ElementType type) {
  return static_cast<NumericalKind>(static_cast<uint32_t>(type) >> 24);
}
constexpr uint32_t ElementBitWidth(ElementType type) {
  return static_cast<uint32_t>(type) & 0xFFFFFFu;
}
// Bytes one element occupies in memory (i1 takes a whole byte).
constexpr size_t ElementByteSize(ElementType type) { return (ElementBitWidth(type) + 7) / 8; }
constexpr bool IsIntegerType(ElementType type) {
  NumericalKind kind = ElementKind(type);
  return kind == NumericalKind::kInteger || kind == NumericalKind::kIntegerSigned ||
         kind == NumericalKind::kIntegerUnsigned || kind == NumericalKind::kBoolean;
}
constexpr bool IsFloatType(ElementType type) {
  NumericalKind kind = ElementKind(type);
  return kind == NumericalKind::kFloatIeee || kind == NumericalKind::kFloatBrain;
}
// Whether a value of element type `actual` may be passed where `expected` is
// declared: the same type, or a signed or unsigned integer where a signless
// integer of its width is expected (as IREE's signless integers accept
// both: a compiled program's i8 reads an ONNX model's uint8 data).
constexpr bool IsCompatibleElementType(ElementType expected, ElementType actual) {
  if (expected == actual) return true;
  const NumericalKind kind = ElementKind(actual);
  return ElementKind(expected) == NumericalKind::kInteger &&
         (kind == NumericalKind::kIntegerSigned || kind == NumericalKind::kIntegerUnsigned) &&
         ElementBitWidth(expected) == ElementBitWidth(actual);
}

// "f32", "i32", "si8", "ui8", "i1", "bf16", ...; "none" for kNone.
std::string_view FormatElementType(ElementType type);
// Parses the names FormatElementType prints; an unknown name is an
// INVALID_ARGUMENT error that quotes it and lists the accepted names.
Result<ElementType> ParseElementType(std::string_view name);

}  // namespace kiln::hal
