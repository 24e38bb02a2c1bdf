// The arithmetic of the CPU channel's reductions (hal/collective.h):
// combining every participant's elements, in rank order, on the host.
//
// One participant computes each element from the contributions of all
// ranks: rank 0's value, then op rank 1's, then op rank 2's, ...; the
// others receive its bytes. So every participant gets bit-identical
// results, and they do not depend on message timing.
//
// Per element type:
//   - integers (signless read as signed): sum and product wrap around (two's
//     complement, as the hardware does); minimum and maximum compare as
//     signed or unsigned; average is the wrapped sum divided by the count,
//     truncated toward zero.
//   - f32 and f64: IEEE arithmetic in the type itself.
//   - f16 and bf16: each value converted to f32 exactly, combined in f32,
//     and the result rounded once to the type, to nearest even.
//   - minimum and maximum of floats propagate NaN (any NaN contribution
//     gives NaN, like IEEE 754-2019 minimum/maximum) and otherwise return
//     one of the contributions; -0 and +0 compare equal (the first in rank
//     order wins).
//   - average of floats divides the sum by the count.
// A NaN that f16 or bf16 rounds to is the type's quiet NaN with the sign and
// leading payload bits of the f32 NaN.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "hal/collective.h"
#include "hal/element_type.h"

namespace kiln::hal::cpu {

// out[i] = contributions[0][i] op contributions[1][i] op ... for i < n, as
// above (average: divided by contributions.size()). `type` is one that
// CollectiveBufferCounts accepts and `reduction` is not kNone. `out` may be
// one of the contributions (exactly the same range, never a partial
// overlap).
void ReduceInRankOrder(CollectiveReduction reduction, ElementType type,
                       std::span<const uint8_t* const> contributions, uint8_t* out, size_t n);

}  // namespace kiln::hal::cpu
