#include "base/float16.h"

#include <bit>
#include <cmath>

namespace kiln {

namespace {

// Rounds a double to a binary float with `exp_bits` exponent and `mant_bits`
// stored mantissa bits (f16: 5/10, bf16: 8/7), to nearest even. Working from
// the double's bits keeps the rounding single (no detour through float).
uint16_t DoubleToSmallFloat(double value, int exp_bits, int mant_bits) {
  const uint64_t bits = std::bit_cast<uint64_t>(value);
  const uint16_t sign = static_cast<uint16_t>((bits >> 63) << (exp_bits + mant_bits));
  const int exp_field = static_cast<int>((bits >> 52) & 0x7FF);
  const uint64_t fraction = bits & ((uint64_t{1} << 52) - 1);
  const uint16_t inf = static_cast<uint16_t>(((1u << exp_bits) - 1) << mant_bits);
  if (exp_field == 0x7FF) {
    if (fraction == 0) return sign | inf;
    return sign | inf | static_cast<uint16_t>(1u << (mant_bits - 1));  // Quiet NaN.
  }
  if (exp_field == 0) return sign;  // Zero or a double subnormal: far below either type.
  const int bias = (1 << (exp_bits - 1)) - 1;
  const int exponent = exp_field - 1023;
  if (exponent > bias) return sign | inf;
  const uint64_t significand = fraction | (uint64_t{1} << 52);
  int shift = 52 - mant_bits;
  uint64_t result;
  if (exponent >= 1 - bias) {
    result = (static_cast<uint64_t>(exponent + bias) << mant_bits) |
             ((significand >> shift) & ((uint64_t{1} << mant_bits) - 1));
  } else {
    shift += (1 - bias) - exponent;  // Subnormal: the implicit bit moves into the mantissa.
    if (shift > 60) return sign;
    result = significand >> shift;
  }
  const uint64_t remainder = significand & ((uint64_t{1} << shift) - 1);
  const uint64_t halfway = uint64_t{1} << (shift - 1);
  if (remainder > halfway || (remainder == halfway && (result & 1))) ++result;  // May carry to inf.
  return sign | static_cast<uint16_t>(result);
}

}  // namespace

float HalfToFloat(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1Fu;
  const uint32_t mantissa = bits & 0x3FFu;
  if (exponent == 0x1F) return std::bit_cast<float>(sign | 0x7F800000u | (mantissa << 13));
  if (exponent == 0) {
    // Zero or subnormal: mantissa * 2^-24, exact in f32.
    const float magnitude = std::ldexp(static_cast<float>(mantissa), -24);
    return sign != 0 ? -magnitude : magnitude;
  }
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

uint16_t FloatToHalf(float value) {
  uint32_t bits = std::bit_cast<uint32_t>(value);
  const auto sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  bits &= 0x7FFFFFFFu;
  if (bits > 0x7F800000u) {
    // NaN: quiet, keeping the leading payload bits.
    return static_cast<uint16_t>(sign | 0x7E00u | ((bits >> 13) & 0x3FFu));
  }
  if (bits >= 0x47800000u) return static_cast<uint16_t>(sign | 0x7C00u);  // >= 2^16: infinity.
  if (bits < 0x38800000u) {
    // Below f16's smallest normal (2^-14): a subnormal or zero. Adding 0.5
    // puts the value's 2^-24 units in the low mantissa bits of the f32 sum,
    // and that addition rounds to nearest even (the default rounding mode).
    const float shifted = std::bit_cast<float>(bits) + 0.5f;
    return static_cast<uint16_t>(sign | (std::bit_cast<uint32_t>(shifted) - 0x3F000000u));
  }
  // Normal: rebias the exponent (127 -> 15) and round the 13 dropped
  // mantissa bits to nearest even; a carry may round up into the exponent,
  // and up to infinity.
  const uint32_t odd = (bits >> 13) & 1u;
  bits = bits - (112u << 23) + 0xFFFu + odd;
  return static_cast<uint16_t>(sign | (bits >> 13));
}

float BFloat16ToFloat(uint16_t bits) {
  return std::bit_cast<float>(static_cast<uint32_t>(bits) << 16);
}

uint16_t FloatToBFloat16(float value) {
  const uint32_t bits = std::bit_cast<uint32_t>(value);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((bits >> 16) | 0x40u);
  // Round the 16 dropped bits to nearest even (a carry may reach infinity).
  const uint32_t odd = (bits >> 16) & 1u;
  return static_cast<uint16_t>((bits + 0x7FFFu + odd) >> 16);
}

uint16_t DoubleToHalf(double value) { return DoubleToSmallFloat(value, 5, 10); }
uint16_t DoubleToBFloat16(double value) { return DoubleToSmallFloat(value, 8, 7); }

}  // namespace kiln
