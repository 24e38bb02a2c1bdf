#include "hal/cpu/collective_reduction.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "base/float16.h"

namespace kiln::hal::cpu {

namespace {

template <typename T>
T LoadAs(const uint8_t* base, size_t index) {
  T value;
  std::memcpy(&value, base + index * sizeof(T), sizeof(T));
  return value;
}

template <typename T>
void StoreAs(uint8_t* base, size_t index, T value) {
  std::memcpy(base + index * sizeof(T), &value, sizeof(T));
}

// Integers: sum and product computed on unsigned values wide enough that
// C++ promotion cannot overflow a signed int, then wrapped to the type.
template <typename T>
struct IntegerTraits {
  using Acc = T;
  using Unsigned = std::make_unsigned_t<T>;
  using Wide = std::conditional_t<(sizeof(T) < sizeof(uint32_t)), uint32_t, Unsigned>;
  using Quotient = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;

  static Acc Load(const uint8_t* base, size_t i) { return LoadAs<T>(base, i); }
  static void Store(uint8_t* base, size_t i, Acc value) { StoreAs<T>(base, i, value); }
  static Acc Add(Acc a, Acc b) {
    return static_cast<T>(static_cast<Unsigned>(static_cast<Wide>(static_cast<Unsigned>(a)) +
                                                static_cast<Wide>(static_cast<Unsigned>(b))));
  }
  static Acc Multiply(Acc a, Acc b) {
    return static_cast<T>(static_cast<Unsigned>(static_cast<Wide>(static_cast<Unsigned>(a)) *
                                                static_cast<Wide>(static_cast<Unsigned>(b))));
  }
  static Acc Minimum(Acc a, Acc b) { return b < a ? b : a; }
  static Acc Maximum(Acc a, Acc b) { return a < b ? b : a; }
  // Truncates toward zero (C++ division), in 64 bits so the count fits.
  static Acc Divide(Acc a, size_t count) {
    return static_cast<T>(static_cast<Quotient>(a) / static_cast<Quotient>(count));
  }
};

// Floats combined in `Acc` (the type itself, or f32 for f16 and bf16).
template <typename Acc>
struct FloatArithmetic {
  static Acc Add(Acc a, Acc b) { return a + b; }
  static Acc Multiply(Acc a, Acc b) { return a * b; }
  static Acc Minimum(Acc a, Acc b) {
    if (std::isnan(a)) return a;
    if (std::isnan(b)) return b;
    return b < a ? b : a;
  }
  static Acc Maximum(Acc a, Acc b) {
    if (std::isnan(a)) return a;
    if (std::isnan(b)) return b;
    return a < b ? b : a;
  }
  static Acc Divide(Acc a, size_t count) { return a / static_cast<Acc>(count); }
};

template <typename T>
struct FloatTraits : FloatArithmetic<T> {
  using Acc = T;
  static Acc Load(const uint8_t* base, size_t i) { return LoadAs<T>(base, i); }
  static void Store(uint8_t* base, size_t i, Acc value) { StoreAs<T>(base, i, value); }
};

struct HalfTraits : FloatArithmetic<float> {
  using Acc = float;
  static Acc Load(const uint8_t* base, size_t i) { return HalfToFloat(LoadAs<uint16_t>(base, i)); }
  static void Store(uint8_t* base, size_t i, Acc value) {
    StoreAs<uint16_t>(base, i, FloatToHalf(value));
  }
};

struct BFloat16Traits : FloatArithmetic<float> {
  using Acc = float;
  static Acc Load(const uint8_t* base, size_t i) {
    return BFloat16ToFloat(LoadAs<uint16_t>(base, i));
  }
  static void Store(uint8_t* base, size_t i, Acc value) {
    StoreAs<uint16_t>(base, i, FloatToBFloat16(value));
  }
};

// A chunk of elements at a time: every contribution's elements of the
// chunk are read before the chunk of `out` is written, which is what
// makes `out` aliasing one contribution safe.
template <typename Traits, typename Combine>
void ReduceWith(std::span<const uint8_t* const> contributions, uint8_t* out, size_t n,
                Combine combine, bool average) {
  using Acc = typename Traits::Acc;
  constexpr size_t kChunk = 1024;
  Acc acc[kChunk];
  for (size_t begin = 0; begin < n; begin += kChunk) {
    const size_t count = std::min(kChunk, n - begin);
    for (size_t i = 0; i < count; ++i) acc[i] = Traits::Load(contributions[0], begin + i);
    for (size_t r = 1; r < contributions.size(); ++r) {
      const uint8_t* contribution = contributions[r];
      for (size_t i = 0; i < count; ++i) {
        acc[i] = combine(acc[i], Traits::Load(contribution, begin + i));
      }
    }
    if (average) {
      for (size_t i = 0; i < count; ++i) acc[i] = Traits::Divide(acc[i], contributions.size());
    }
    for (size_t i = 0; i < count; ++i) Traits::Store(out, begin + i, acc[i]);
  }
}

template <typename Traits>
void ReduceAs(CollectiveReduction reduction, std::span<const uint8_t* const> contributions,
              uint8_t* out, size_t n) {
  switch (reduction) {
    case CollectiveReduction::kSum:
      return ReduceWith<Traits>(contributions, out, n, Traits::Add, false);
    case CollectiveReduction::kAverage:
      return ReduceWith<Traits>(contributions, out, n, Traits::Add, true);
    case CollectiveReduction::kProduct:
      return ReduceWith<Traits>(contributions, out, n, Traits::Multiply, false);
    case CollectiveReduction::kMinimum:
      return ReduceWith<Traits>(contributions, out, n, Traits::Minimum, false);
    case CollectiveReduction::kMaximum:
      return ReduceWith<Traits>(contributions, out, n, Traits::Maximum, false);
    case CollectiveReduction::kNone:
      return;
  }
}

}  // namespace

void ReduceInRankOrder(CollectiveReduction reduction, ElementType type,
                       std::span<const uint8_t* const> contributions, uint8_t* out, size_t n) {
  if (contributions.empty()) return;
  const bool is_unsigned = ElementKind(type) == NumericalKind::kIntegerUnsigned;
  switch (ElementKind(type)) {
    case NumericalKind::kInteger:
    case NumericalKind::kIntegerSigned:
    case NumericalKind::kIntegerUnsigned:
      switch (ElementBitWidth(type)) {
        case 8:
          return is_unsigned ? ReduceAs<IntegerTraits<uint8_t>>(reduction, contributions, out, n)
                             : ReduceAs<IntegerTraits<int8_t>>(reduction, contributions, out, n);
        case 16:
          return is_unsigned ? ReduceAs<IntegerTraits<uint16_t>>(reduction, contributions, out, n)
                             : ReduceAs<IntegerTraits<int16_t>>(reduction, contributions, out, n);
        case 32:
          return is_unsigned ? ReduceAs<IntegerTraits<uint32_t>>(reduction, contributions, out, n)
                             : ReduceAs<IntegerTraits<int32_t>>(reduction, contributions, out, n);
        case 64:
          return is_unsigned ? ReduceAs<IntegerTraits<uint64_t>>(reduction, contributions, out, n)
                             : ReduceAs<IntegerTraits<int64_t>>(reduction, contributions, out, n);
      }
      return;
    case NumericalKind::kFloatIeee:
      switch (ElementBitWidth(type)) {
        case 16:
          return ReduceAs<HalfTraits>(reduction, contributions, out, n);
        case 32:
          return ReduceAs<FloatTraits<float>>(reduction, contributions, out, n);
        case 64:
          return ReduceAs<FloatTraits<double>>(reduction, contributions, out, n);
      }
      return;
    case NumericalKind::kFloatBrain:
      return ReduceAs<BFloat16Traits>(reduction, contributions, out, n);
    default:
      return;
  }
}

}  // namespace kiln::hal::cpu
