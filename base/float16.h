// 16-bit floats: IEEE half (f16) and bfloat16 (bf16) held as their raw bit
// patterns, converted to and from float and double.
//
// Widening is exact. Narrowing rounds once to nearest, ties to even,
// overflows to infinity, underflows through the subnormals to a signed zero,
// and keeps a NaN a quiet NaN (float's leading payload bits kept). The
// tools read and print tensors with these (tools/common); the CPU driver's
// collectives reduce f16 and bf16 through float with them.
#pragma once

#include <cstdint>

namespace kiln {

float HalfToFloat(uint16_t bits);
uint16_t FloatToHalf(float value);
// Rounds from the double directly (no detour through float: one rounding).
uint16_t DoubleToHalf(double value);

float BFloat16ToFloat(uint16_t bits);
uint16_t FloatToBFloat16(float value);
uint16_t DoubleToBFloat16(double value);

}  // namespace kiln
