// Semantics of the interpreter's value instructions: constants and moves,
// integer and float arithmetic, compares, select and conversions.
//
// Each case runs one instruction in a function built for it and checks the
// exact result, including the edge cases vm/opcodes.h defines (wrapping
// arithmetic, INT_MIN / -1, shift amounts modulo the width, saturating float to
// int casts) and the IEEE corner cases that differ between implementations
// (NaN in every compare predicate, -0/+0, round half away from zero, fused
// multiply-add). The last test checks that every opcode has a test, so a new
// opcode cannot land untested.
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "tests/vm/test_util.h"

namespace kiln::vm {
namespace {

using enum Opcode;
using testing::Call;
using testing::MakeContext;

constexpr int32_t kI32Min = std::numeric_limits<int32_t>::min();
constexpr int32_t kI32Max = std::numeric_limits<int32_t>::max();
constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
constexpr float kNaNF = std::numeric_limits<float>::quiet_NaN();
constexpr float kInfF = std::numeric_limits<float>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

Variant I32(int32_t v) { return Variant::I32(v); }
Variant I64(int64_t v) { return Variant::I64(v); }
Variant F32(float v) { return Variant::F32(v); }
Variant F64(double v) { return Variant::F64(v); }
Variant Of(int32_t v) { return I32(v); }
Variant Of(int64_t v) { return I64(v); }
Variant Of(float v) { return F32(v); }
Variant Of(double v) { return F64(v); }

uint32_t BitsOf(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  return bits;
}
uint64_t BitsOf(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, 8);
  return bits;
}
float F32FromBits(uint32_t bits) {
  float v;
  std::memcpy(&v, &bits, 4);
  return v;
}

// "i32=5", plus the bit pattern for floats (%g hides the low bits).
std::string Describe(const Variant& v) {
  char bits[32] = "";
  if (v.type() == ValueType::kF32) std::snprintf(bits, sizeof(bits), " (0x%08x)", BitsOf(v.f32()));
  if (v.type() == ValueType::kF64) {
    std::snprintf(bits, sizeof(bits), " (0x%016llx)",
                  static_cast<unsigned long long>(BitsOf(v.f64())));
  }
  return v.ToString() + bits;
}

std::string DescribeCall(Opcode opcode, const std::vector<Variant>& args) {
  std::string text(GetOpcodeInfo(opcode).mnemonic);
  for (size_t i = 0; i < args.size(); ++i) text += (i ? ", " : " ") + Describe(args[i]);
  return text;
}

// Same type and value; floats compare bit for bit (so -0 differs from +0),
// except that any NaN matches any NaN (payloads are unspecified).
::testing::AssertionResult SameValue(const Variant& actual, const Variant& expected) {
  bool same = actual.type() == expected.type();
  if (same) {
    switch (expected.type()) {
      case ValueType::kI32:
        same = actual.i32() == expected.i32();
        break;
      case ValueType::kI64:
        same = actual.i64() == expected.i64();
        break;
      case ValueType::kF32:
        same = std::isnan(expected.f32()) ? std::isnan(actual.f32())
                                          : BitsOf(actual.f32()) == BitsOf(expected.f32());
        break;
      case ValueType::kF64:
        same = std::isnan(expected.f64()) ? std::isnan(actual.f64())
                                          : BitsOf(actual.f64()) == BitsOf(expected.f64());
        break;
      default:
        same = false;
        break;
    }
  }
  if (same) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "got " << Describe(actual) << ", expected " << Describe(expected);
}

// Runs `opcode` once. The function's arguments are the opcode's source
// operands in order (each the next register of its bank, as the calling
// convention assigns them); its result is the destination operand, written to
// a register no argument uses.
Result<Variant> Eval(Opcode opcode, std::vector<Variant> args) {
  const OpcodeInfo& info = GetOpcodeInfo(opcode);
  std::string arguments;
  std::array<uint16_t, kBankCount> next{};
  std::vector<Operand> sources;
  for (int i = 0; i < info.operand_count; ++i) {
    if (!IsRegisterKind(info.operands[i])) {
      return InvalidArgumentError(std::string(info.mnemonic) + " has a non-register operand");
    }
    if (i == 0) continue;
    Bank bank = BankOfRegisterKind(info.operands[i]);
    arguments += TypeCharOfBank(bank);
    sources.push_back(Reg(next[static_cast<int>(bank)]++));
  }
  const Bank result_bank = BankOfRegisterKind(info.operands[0]);
  const uint16_t dst = next[static_cast<int>(result_bank)];
  ModuleBuilder builder("ops");
  FunctionBuilder& fn = builder.AddFunction("fn", arguments + "_" + TypeCharOfBank(result_bank));
  switch (sources.size()) {
    case 1:
      fn.Emit(opcode, {Reg(dst), sources[0]});
      break;
    case 2:
      fn.Emit(opcode, {Reg(dst), sources[0], sources[1]});
      break;
    case 3:
      fn.Emit(opcode, {Reg(dst), sources[0], sources[1], sources[2]});
      break;
    default:
      return InvalidArgumentError("unexpected operand count");
  }
  fn.EmitReturn({dst});
  builder.AddExport("fn", fn.ordinal());
  KILN_ASSIGN_OR_RETURN(Ref<Context> context, MakeContext(builder));
  KILN_ASSIGN_OR_RETURN(std::vector<Variant> results, Call(*context, "fn", std::move(args)));
  if (results.size() != 1) return InternalError("expected one result");
  return results[0];
}

void ExpectOp(Opcode opcode, std::vector<Variant> args, const Variant& expected) {
  const std::string call = DescribeCall(opcode, args);
  Result<Variant> result = Eval(opcode, std::move(args));
  ASSERT_TRUE(result.ok()) << call << ": " << result.status().ToString();
  EXPECT_TRUE(SameValue(*result, expected)) << call;
}

// One binary or unary op (unary ops ignore `b`).
template <typename T>
struct Case {
  Opcode op;
  T a, b, expected;
};

template <typename T, size_t N>
void RunCases(const Case<T> (&cases)[N]) {
  for (const Case<T>& c : cases) {
    std::vector<Variant> args = {Of(c.a)};
    if (GetOpcodeInfo(c.op).operand_count == 3) args.push_back(Of(c.b));
    ExpectOp(c.op, std::move(args), Of(c.expected));
  }
}

// --- Integer arithmetic, bitwise ops and shifts. ---

constexpr Case<int32_t> kI32Cases[] = {
    {kAddI32, 1, 2, 3},
    {kAddI32, -1, -1, -2},
    {kAddI32, kI32Max, 1, kI32Min},  // Wraps.
    {kSubI32, 3, 5, -2},
    {kSubI32, kI32Min, 1, kI32Max},
    {kMulI32, -3, 7, -21},
    {kMulI32, 0x10000, 0x10000, 0},
    {kMulI32, kI32Max, 2, -2},
    {kMulI32, kI32Min, -1, kI32Min},
    {kDivSI32, 7, 2, 3},
    {kDivSI32, -7, 2, -3},  // Truncates toward zero.
    {kDivSI32, 7, -2, -3},
    {kDivSI32, kI32Min, -1, kI32Min},  // Defined by opcodes.h.
    {kDivSI32, kI32Min, 1, kI32Min},
    {kDivUI32, -1, 2, kI32Max},  // 0xffffffff / 2
    {kDivUI32, 7, 2, 3},
    {kDivUI32, -8, -1, 0},  // 0xfffffff8 / 0xffffffff
    {kDivUI32, -1, -1, 1},
    {kDivUI32, kI32Min, -1, 0},
    {kRemSI32, 7, 3, 1},
    {kRemSI32, -7, 3, -1},  // Sign of the dividend.
    {kRemSI32, 7, -3, 1},
    {kRemSI32, kI32Min, -1, 0},  // Defined by opcodes.h.
    {kRemSI32, 5, -1, 0},
    {kRemUI32, -1, 10, 5},  // 4294967295 % 10
    {kRemUI32, 7, -1, 7},
    {kRemUI32, -7, 3, 0},  // 4294967289 % 3
    {kMinSI32, -1, 1, -1},
    {kMinSI32, kI32Min, kI32Max, kI32Min},
    {kMaxSI32, -1, 1, 1},
    {kMaxSI32, kI32Min, kI32Max, kI32Max},
    {kMinUI32, -1, 1, 1},  // 0xffffffff is the largest unsigned value.
    {kMinUI32, kI32Min, kI32Max, kI32Max},
    {kMaxUI32, -1, 1, -1},
    {kMaxUI32, kI32Min, kI32Max, kI32Min},
    {kAbsI32, -5, 0, 5},
    {kAbsI32, 5, 0, 5},
    {kAbsI32, 0, 0, 0},
    {kAbsI32, kI32Min, 0, kI32Min},  // Wraps.
    {kNegI32, 5, 0, -5},
    {kNegI32, 0, 0, 0},
    {kNegI32, kI32Min, 0, kI32Min},
    {kAndI32, 0x0ff0, 0x00ff, 0x00f0},
    {kAndI32, -1, 0x1234, 0x1234},
    {kOrI32, 0x0f00, 0x00f0, 0x0ff0},
    {kOrI32, kI32Min, 1, kI32Min + 1},
    {kXorI32, 0x0ff0, 0x00ff, 0x0f0f},
    {kXorI32, -1, 0x0f0f0f0f, static_cast<int32_t>(0xf0f0f0f0)},
    {kNotI32, 0, 0, -1},
    {kNotI32, 0x0f0f0f0f, 0, static_cast<int32_t>(0xf0f0f0f0)},
    {kShlI32, 1, 4, 16},
    {kShlI32, 1, 31, kI32Min},
    {kShlI32, 1, 32, 1},  // Amounts are taken modulo 32.
    {kShlI32, 3, 33, 6},
    {kShlI32, 1, -1, kI32Min},  // -1 & 31 == 31.
    {kShlI32, 0x40000001, 2, 4},
    {kShrSI32, 64, 2, 16},
    {kShrSI32, -8, 1, -4},  // Arithmetic: copies the sign bit.
    {kShrSI32, kI32Min, 31, -1},
    {kShrSI32, -8, 33, -4},
    {kShrSI32, kI32Max, 32, kI32Max},
    {kShrUI32, -8, 1, 0x7ffffffc},  // Logical: shifts in zeros.
    {kShrUI32, -1, 31, 1},
    {kShrUI32, -1, 32, -1},
    {kShrUI32, kI32Min, 63, 1},
};

constexpr Case<int64_t> kI64Cases[] = {
    {kAddI64, 1, 2, 3},
    {kAddI64, 0xffffffff, 1, 0x100000000},  // No 32-bit truncation.
    {kAddI64, kI64Max, 1, kI64Min},
    {kSubI64, 3, 5, -2},
    {kSubI64, kI64Min, 1, kI64Max},
    {kMulI64, -3, 7, -21},
    {kMulI64, 0x100000000, 0x100000000, 0},
    {kMulI64, 0x100000, 0x100000, 0x10000000000},
    {kMulI64, kI64Max, 2, -2},
    {kMulI64, kI64Min, -1, kI64Min},
    {kDivSI64, 7, 2, 3},
    {kDivSI64, -7, 2, -3},
    {kDivSI64, 0x10000000000, -0x100, -0x100000000},
    {kDivSI64, kI64Min, -1, kI64Min},
    {kDivUI64, -1, 2, kI64Max},
    {kDivUI64, -8, -1, 0},
    {kDivUI64, kI64Min, 0x100000000, 0x80000000},
    {kRemSI64, 7, 3, 1},
    {kRemSI64, -7, 3, -1},
    {kRemSI64, 7, -3, 1},
    {kRemSI64, kI64Min, -1, 0},
    {kRemSI64, -0x100000001, 0x100000000, -1},
    {kRemUI64, -1, 10, 5},  // 18446744073709551615 % 10
    {kRemUI64, 7, -1, 7},
    {kMinSI64, -1, 1, -1},
    {kMinSI64, kI64Min, kI64Max, kI64Min},
    {kMaxSI64, -1, 1, 1},
    {kMaxSI64, kI64Min, kI64Max, kI64Max},
    {kMinUI64, -1, 1, 1},
    {kMinUI64, kI64Min, kI64Max, kI64Max},
    {kMaxUI64, -1, 1, -1},
    {kMaxUI64, kI64Min, kI64Max, kI64Min},
    {kAbsI64, -5, 0, 5},
    {kAbsI64, -0x100000000, 0, 0x100000000},
    {kAbsI64, kI64Min, 0, kI64Min},
    {kNegI64, 5, 0, -5},
    {kNegI64, 0, 0, 0},
    {kNegI64, kI64Min, 0, kI64Min},
    {kAndI64, 0x0ff0000000000ff0, 0x00ff0000000000ff, 0x00f00000000000f0},
    {kOrI64, 0x0f00000000000000, 0x00000000000000f0, 0x0f000000000000f0},
    {kXorI64, -1, 0x0f0f0f0f0f0f0f0f, static_cast<int64_t>(0xf0f0f0f0f0f0f0f0)},
    {kNotI64, 0, 0, -1},
    {kNotI64, 0x00000000ffffffff, 0, static_cast<int64_t>(0xffffffff00000000)},
    {kShlI64, 1, 32, 0x100000000},  // Not taken modulo 32.
    {kShlI64, 1, 63, kI64Min},
    {kShlI64, 1, 64, 1},  // Amounts are taken modulo 64.
    {kShlI64, 3, 65, 6},
    {kShlI64, 1, -1, kI64Min},
    {kShrSI64, -8, 1, -4},
    {kShrSI64, kI64Min, 63, -1},
    {kShrSI64, -8, 65, -4},
    {kShrSI64, 0x100000000, 32, 1},
    {kShrUI64, -8, 1, 0x7ffffffffffffffc},
    {kShrUI64, -1, 63, 1},
    {kShrUI64, -1, 64, -1},
    {kShrUI64, kI64Min, 32, 0x80000000},
};

TEST(InterpreterOpsTest, I32Arithmetic) { RunCases(kI32Cases); }
TEST(InterpreterOpsTest, I64Arithmetic) { RunCases(kI64Cases); }

// --- Float arithmetic. ---

constexpr Case<float> kF32Cases[] = {
    {kAddF32, 1.5f, 2.25f, 3.75f},
    {kAddF32, 0x1p24f, 1.0f, 0x1p24f},  // Rounds to nearest even.
    {kAddF32, kInfF, -kInfF, kNaNF},
    {kAddF32, -0.0f, -0.0f, -0.0f},
    {kSubF32, 1.0f, 3.5f, -2.5f},
    {kSubF32, 0.0f, 0.0f, 0.0f},
    {kMulF32, -1.5f, 4.0f, -6.0f},
    {kMulF32, 0.0f, -1.0f, -0.0f},
    {kMulF32, 0.0f, kInfF, kNaNF},
    {kMulF32, 0x1p100f, 0x1p100f, kInfF},
    {kDivF32, 1.0f, 4.0f, 0.25f},
    {kDivF32, 1.0f, 0.0f, kInfF},  // Float division by zero does not trap.
    {kDivF32, -1.0f, 0.0f, -kInfF},
    {kDivF32, 1.0f, -0.0f, -kInfF},
    {kDivF32, 0.0f, 0.0f, kNaNF},
    {kRemF32, 5.5f, 2.0f, 1.5f},
    {kRemF32, -5.5f, 2.0f, -1.5f},  // fmod: the sign of the dividend.
    {kRemF32, 5.5f, -2.0f, 1.5f},
    {kRemF32, 1.0f, 0.0f, kNaNF},
    {kRemF32, kInfF, 1.0f, kNaNF},
    {kRemF32, 3.0f, kInfF, 3.0f},
    {kMinF32, 1.0f, 2.0f, 1.0f},
    {kMinF32, 2.0f, -kInfF, -kInfF},
    {kMinF32, kNaNF, 1.0f, kNaNF},  // NaN propagates from either side.
    {kMinF32, 1.0f, kNaNF, kNaNF},
    {kMinF32, -0.0f, 0.0f, -0.0f},  // -0 is less than +0, in either order.
    {kMinF32, 0.0f, -0.0f, -0.0f},
    {kMaxF32, 1.0f, 2.0f, 2.0f},
    {kMaxF32, -2.0f, -kInfF, -2.0f},
    {kMaxF32, kNaNF, 1.0f, kNaNF},
    {kMaxF32, 1.0f, kNaNF, kNaNF},
    {kMaxF32, -0.0f, 0.0f, 0.0f},
    {kMaxF32, 0.0f, -0.0f, 0.0f},
    {kPowF32, 2.0f, 10.0f, 1024.0f},
    {kPowF32, 2.0f, -2.0f, 0.25f},
    {kPowF32, 9.0f, 0.5f, 3.0f},
    {kPowF32, -2.0f, 3.0f, -8.0f},
    {kPowF32, -2.0f, 0.5f, kNaNF},
    {kPowF32, kNaNF, 0.0f, 1.0f},
    {kPowF32, 0.0f, -1.0f, kInfF},
    {kNegF32, 1.5f, 0, -1.5f},
    {kNegF32, 0.0f, 0, -0.0f},
    {kNegF32, -kInfF, 0, kInfF},
    {kAbsF32, -1.5f, 0, 1.5f},
    {kAbsF32, -0.0f, 0, 0.0f},
    {kAbsF32, -kInfF, 0, kInfF},
    {kSqrtF32, 16.0f, 0, 4.0f},
    {kSqrtF32, 2.0f, 0, 1.41421353816986083984375f},  // Correctly rounded.
    {kSqrtF32, -0.0f, 0, -0.0f},
    {kSqrtF32, -1.0f, 0, kNaNF},
    {kSqrtF32, kInfF, 0, kInfF},
    {kExpF32, 0.0f, 0, 1.0f},
    {kExpF32, -kInfF, 0, 0.0f},
    {kExpF32, kInfF, 0, kInfF},
    {kExpF32, 1000.0f, 0, kInfF},
    {kLogF32, 1.0f, 0, 0.0f},
    {kLogF32, 0.0f, 0, -kInfF},
    {kLogF32, -1.0f, 0, kNaNF},
    {kLogF32, kInfF, 0, kInfF},
    {kSinF32, 0.0f, 0, 0.0f},
    {kSinF32, -0.0f, 0, -0.0f},
    {kSinF32, kInfF, 0, kNaNF},
    {kCosF32, 0.0f, 0, 1.0f},
    {kCosF32, kInfF, 0, kNaNF},
    {kTanhF32, 0.0f, 0, 0.0f},
    {kTanhF32, -0.0f, 0, -0.0f},
    {kTanhF32, kInfF, 0, 1.0f},
    {kTanhF32, -kInfF, 0, -1.0f},
    {kTanhF32, 20.0f, 0, 1.0f},
    {kFloorF32, 2.7f, 0, 2.0f},
    {kFloorF32, -0.5f, 0, -1.0f},
    {kFloorF32, -0.0f, 0, -0.0f},
    {kFloorF32, kInfF, 0, kInfF},
    {kCeilF32, 2.1f, 0, 3.0f},
    {kCeilF32, -0.5f, 0, -0.0f},  // Keeps the sign.
    {kCeilF32, -2.5f, 0, -2.0f},
    {kRoundF32, 2.5f, 0, 3.0f},  // Half away from zero, not to even.
    {kRoundF32, -2.5f, 0, -3.0f},
    {kRoundF32, 0.5f, 0, 1.0f},
    {kRoundF32, -0.5f, 0, -1.0f},
    {kRoundF32, -0.4f, 0, -0.0f},  // Keeps the sign.
    {kRoundF32, 3.5f, 0, 4.0f},
    {kRoundF32, 0x1.fffffep-2f, 0, 0.0f},  // 0.49999997 is below one half.
    {kRoundF32, -1.4f, 0, -1.0f},
    {kRoundF32, kNaNF, 0, kNaNF},
};

constexpr Case<double> kF64Cases[] = {
    {kAddF64, 0.1, 0.2, 0x1.3333333333334p-2},  // 0.30000000000000004
    {kAddF64, 0x1p53, 1.0, 0x1p53},
    {kAddF64, kInf, -kInf, kNaN},
    {kSubF64, 1.0, 3.5, -2.5},
    {kSubF64, 1.0, 0x1p-60, 1.0},
    {kMulF64, -1.5, 4.0, -6.0},
    {kMulF64, -0.0, 5.0, -0.0},
    {kMulF64, 0x1p1000, 0x1p1000, kInf},
    {kDivF64, 1.0, 3.0, 0x1.5555555555555p-2},
    {kDivF64, -1.0, 0.0, -kInf},
    {kDivF64, 0.0, 0.0, kNaN},
    {kRemF64, 5.5, 2.0, 1.5},
    {kRemF64, -5.5, 2.0, -1.5},
    {kRemF64, 1.0, 0.0, kNaN},
    {kMinF64, 1.0, 2.0, 1.0},
    {kMinF64, kNaN, 1.0, kNaN},
    {kMinF64, 1.0, kNaN, kNaN},
    {kMinF64, -0.0, 0.0, -0.0},
    {kMinF64, 0.0, -0.0, -0.0},
    {kMaxF64, 1.0, 2.0, 2.0},
    {kMaxF64, kNaN, 1.0, kNaN},
    {kMaxF64, 1.0, kNaN, kNaN},
    {kMaxF64, -0.0, 0.0, 0.0},
    {kMaxF64, 0.0, -0.0, 0.0},
    {kPowF64, 2.0, 10.0, 1024.0},
    {kPowF64, 2.0, -1074.0, 0x1p-1074},
    {kPowF64, -2.0, 0.5, kNaN},
    {kPowF64, kNaN, 0.0, 1.0},
    {kNegF64, 1.5, 0, -1.5},
    {kNegF64, 0.0, 0, -0.0},
    {kAbsF64, -1.5, 0, 1.5},
    {kAbsF64, -0.0, 0, 0.0},
    {kSqrtF64, 16.0, 0, 4.0},
    {kSqrtF64, 2.0, 0, 0x1.6a09e667f3bcdp+0},  // Correctly rounded.
    {kSqrtF64, -1.0, 0, kNaN},
    {kExpF64, 0.0, 0, 1.0},
    {kExpF64, -kInf, 0, 0.0},
    {kExpF64, 1000.0, 0, kInf},
    {kLogF64, 1.0, 0, 0.0},
    {kLogF64, 0.0, 0, -kInf},
    {kLogF64, -1.0, 0, kNaN},
    {kSinF64, 0.0, 0, 0.0},
    {kSinF64, -0.0, 0, -0.0},
    {kSinF64, -kInf, 0, kNaN},
    {kCosF64, 0.0, 0, 1.0},
    {kTanhF64, 0.0, 0, 0.0},
    {kTanhF64, kInf, 0, 1.0},
    {kTanhF64, -40.0, 0, -1.0},
    {kFloorF64, -0.5, 0, -1.0},
    {kFloorF64, 0x1p51 + 0.5, 0, 0x1p51},
    {kCeilF64, -0.5, 0, -0.0},
    {kCeilF64, 2.000001, 0, 3.0},
    {kRoundF64, 2.5, 0, 3.0},
    {kRoundF64, -2.5, 0, -3.0},
    {kRoundF64, -0.5, 0, -1.0},
    {kRoundF64, -0.25, 0, -0.0},
    {kRoundF64, 0.49999999999999994, 0, 0.0},                // Not 1: no add-0.5-and-floor.
    {kRoundF64, 4503599627370497.0, 0, 4503599627370497.0},  // 2^52 + 1 is exact.
};

TEST(InterpreterOpsTest, F32Arithmetic) { RunCases(kF32Cases); }
TEST(InterpreterOpsTest, F64Arithmetic) { RunCases(kF64Cases); }

// Transcendental functions at points where the result is not exact: within a
// few ulps of the true value (libm may differ in the last bit).
struct ApproxCase {
  Opcode op;
  double a, b, expected;
};
constexpr ApproxCase kApproxCases[] = {
    {kExpF32, 1.0, 0, 2.718281828459045},         {kExpF64, 1.0, 0, 2.718281828459045},
    {kLogF32, 10.0, 0, 2.302585092994046},        {kLogF64, 10.0, 0, 2.302585092994046},
    {kSinF32, 0.5, 0, 0.479425538604203},         {kSinF64, 0.5, 0, 0.479425538604203},
    {kCosF32, 0.5, 0, 0.8775825618903728},        {kCosF64, 0.5, 0, 0.8775825618903728},
    {kTanhF32, 0.5, 0, 0.46211715726000974},      {kTanhF64, 0.5, 0, 0.46211715726000974},
    {kPowF32, 2.0, 0.5, 1.4142135623730951},      {kPowF64, 2.0, 0.5, 1.4142135623730951},
    {kPowF64, 10.0, -2.5, 0.0031622776601683794},
};

TEST(InterpreterOpsTest, TranscendentalFunctions) {
  for (const ApproxCase& c : kApproxCases) {
    const bool is_f32 = BankOfRegisterKind(GetOpcodeInfo(c.op).operands[0]) == Bank::kF32;
    std::vector<Variant> args;
    args.push_back(is_f32 ? F32(static_cast<float>(c.a)) : F64(c.a));
    if (GetOpcodeInfo(c.op).operand_count == 3) {
      args.push_back(is_f32 ? F32(static_cast<float>(c.b)) : F64(c.b));
    }
    const std::string call = DescribeCall(c.op, args);
    Result<Variant> result = Eval(c.op, std::move(args));
    ASSERT_TRUE(result.ok()) << call << ": " << result.status().ToString();
    if (is_f32) {
      ASSERT_EQ(result->type(), ValueType::kF32) << call;
      EXPECT_NEAR(result->f32(), c.expected, 4 * std::abs(c.expected) * 0x1p-23) << call;
    } else {
      ASSERT_EQ(result->type(), ValueType::kF64) << call;
      EXPECT_NEAR(result->f64(), c.expected, 4 * std::abs(c.expected) * 0x1p-52) << call;
    }
  }
}

TEST(InterpreterOpsTest, FusedMultiplyAddRoundsOnce) {
  // (1 + 2^-13)(1 - 2^-13) = 1 - 2^-26 rounds to 1 in f32, so a separate
  // multiply and add would give 0; the fused op gives the exact -2^-26.
  ExpectOp(kFmaF32, {F32(1.0f + 0x1p-13f), F32(1.0f - 0x1p-13f), F32(-1.0f)}, F32(-0x1p-26f));
  ExpectOp(kFmaF32, {F32(2.0f), F32(3.0f), F32(4.0f)}, F32(10.0f));
  ExpectOp(kFmaF32, {F32(kInfF), F32(0.0f), F32(1.0f)}, F32(kNaNF));
  ExpectOp(kFmaF64, {F64(1.0 + 0x1p-30), F64(1.0 - 0x1p-30), F64(-1.0)}, F64(-0x1p-60));
  ExpectOp(kFmaF64, {F64(-2.0), F64(3.0), F64(0.5)}, F64(-5.5));
  ExpectOp(kFmaF64, {F64(1.0), F64(kNaN), F64(1.0)}, F64(kNaN));
}

// --- Compares. ---

// Expected results of one integer predicate for each relation of (a, b).
struct IntPredicate {
  Opcode i32, i64;
  bool is_unsigned;
  int32_t less, equal, greater;
};
constexpr IntPredicate kIntPredicates[] = {
    {kCmpEqI32, kCmpEqI64, false, 0, 1, 0},   {kCmpNeI32, kCmpNeI64, false, 1, 0, 1},
    {kCmpLtSI32, kCmpLtSI64, false, 1, 0, 0}, {kCmpLeSI32, kCmpLeSI64, false, 1, 1, 0},
    {kCmpGtSI32, kCmpGtSI64, false, 0, 0, 1}, {kCmpGeSI32, kCmpGeSI64, false, 0, 1, 1},
    {kCmpLtUI32, kCmpLtUI64, true, 1, 0, 0},  {kCmpLeUI32, kCmpLeUI64, true, 1, 1, 0},
    {kCmpGtUI32, kCmpGtUI64, true, 0, 0, 1},  {kCmpGeUI32, kCmpGeUI64, true, 0, 1, 1},
};

enum class Relation { kLess, kEqual, kGreater };
using enum Relation;

// Operand pairs with their signed and unsigned relation; negative bit
// patterns order differently in the two.
template <typename T>
struct IntPair {
  T a, b;
  Relation as_signed, as_unsigned;
};
constexpr IntPair<int32_t> kI32Pairs[] = {
    {1, 2, kLess, kLess},          {2, 1, kGreater, kGreater},
    {3, 3, kEqual, kEqual},        {-1, -1, kEqual, kEqual},
    {-1, 1, kLess, kGreater},      {1, -1, kGreater, kLess},
    {-2, -1, kLess, kLess},        {kI32Min, kI32Max, kLess, kGreater},
    {0, kI32Min, kGreater, kLess},
};
constexpr IntPair<int64_t> kI64Pairs[] = {
    {1, 2, kLess, kLess},
    {3, 3, kEqual, kEqual},
    {-1, 1, kLess, kGreater},
    {1, -1, kGreater, kLess},
    {kI64Min, kI64Max, kLess, kGreater},
    {0x100000000, 1, kGreater, kGreater},  // Differs from its low 32 bits.
    {0x100000001, 0x200000001, kLess, kLess},
    {-0x100000000, 0xffffffff, kLess, kGreater},
};

int32_t ExpectedFor(const IntPredicate& p, Relation relation) {
  switch (relation) {
    case kLess:
      return p.less;
    case kEqual:
      return p.equal;
    case kGreater:
      return p.greater;
  }
  return -1;
}

TEST(InterpreterOpsTest, IntegerCompares) {
  for (const IntPredicate& p : kIntPredicates) {
    for (const IntPair<int32_t>& pair : kI32Pairs) {
      Relation r = p.is_unsigned ? pair.as_unsigned : pair.as_signed;
      ExpectOp(p.i32, {I32(pair.a), I32(pair.b)}, I32(ExpectedFor(p, r)));
    }
    for (const IntPair<int64_t>& pair : kI64Pairs) {
      Relation r = p.is_unsigned ? pair.as_unsigned : pair.as_signed;
      ExpectOp(p.i64, {I64(pair.a), I64(pair.b)}, I32(ExpectedFor(p, r)));
    }
  }
}

// Expected results of one float predicate: ordered predicates are false when
// either operand is NaN, unordered ones true.
struct FloatPredicate {
  Opcode f32, f64;
  int32_t less, equal, greater, unordered;
};
constexpr FloatPredicate kFloatPredicates[] = {
    {kCmpOeqF32, kCmpOeqF64, 0, 1, 0, 0}, {kCmpOneF32, kCmpOneF64, 1, 0, 1, 0},
    {kCmpOltF32, kCmpOltF64, 1, 0, 0, 0}, {kCmpOleF32, kCmpOleF64, 1, 1, 0, 0},
    {kCmpOgtF32, kCmpOgtF64, 0, 0, 1, 0}, {kCmpOgeF32, kCmpOgeF64, 0, 1, 1, 0},
    {kCmpUeqF32, kCmpUeqF64, 0, 1, 0, 1}, {kCmpUneF32, kCmpUneF64, 1, 0, 1, 1},
    {kCmpUltF32, kCmpUltF64, 1, 0, 0, 1}, {kCmpUleF32, kCmpUleF64, 1, 1, 0, 1},
    {kCmpUgtF32, kCmpUgtF64, 0, 0, 1, 1}, {kCmpUgeF32, kCmpUgeF64, 0, 1, 1, 1},
    {kCmpOrdF32, kCmpOrdF64, 1, 1, 1, 0}, {kCmpUnoF32, kCmpUnoF64, 0, 0, 0, 1},
};

TEST(InterpreterOpsTest, FloatCompares) {
  struct Pair {
    double a, b;
    int kind;  // 0 less, 1 equal, 2 greater, 3 unordered.
  };
  const Pair pairs[] = {
      {1.0, 2.0, 0},   {-kInf, kInf, 0}, {-1.0, -0.0, 0},  {1.0, 1.0, 1},  {-0.0, 0.0, 1},
      {kInf, kInf, 1}, {2.0, 1.0, 2},    {kInf, 1e30, 2},  {kNaN, 1.0, 3}, {1.0, kNaN, 3},
      {kNaN, kNaN, 3}, {kNaN, kInf, 3},  {-kInf, kNaN, 3},
  };
  for (const FloatPredicate& p : kFloatPredicates) {
    const int32_t expected[] = {p.less, p.equal, p.greater, p.unordered};
    for (const Pair& pair : pairs) {
      ExpectOp(p.f32, {F32(static_cast<float>(pair.a)), F32(static_cast<float>(pair.b))},
               I32(expected[pair.kind]));
      ExpectOp(p.f64, {F64(pair.a), F64(pair.b)}, I32(expected[pair.kind]));
    }
  }
}

// --- Select (select.ref is covered with the other ref tests). ---

struct VariantCase {
  Opcode op;
  std::vector<Variant> args;
  Variant expected;
};

void RunVariantCases(std::span<const VariantCase> cases) {
  for (const VariantCase& c : cases) ExpectOp(c.op, c.args, c.expected);
}

const VariantCase kSelectCases[] = {
    {kSelectI32, {I32(1), I32(10), I32(20)}, I32(10)},
    {kSelectI32, {I32(0), I32(10), I32(20)}, I32(20)},
    {kSelectI32, {I32(-7), I32(10), I32(20)}, I32(10)},  // Any non-zero is true.
    {kSelectI64, {I32(1), I64(0x100000000), I64(-1)}, I64(0x100000000)},
    {kSelectI64, {I32(0), I64(0x100000000), I64(-1)}, I64(-1)},
    {kSelectF32, {I32(kI32Min), F32(1.5f), F32(-0.0f)}, F32(1.5f)},
    {kSelectF32, {I32(0), F32(1.5f), F32(-0.0f)}, F32(-0.0f)},
    {kSelectF64, {I32(256), F64(0.25), F64(kInf)}, F64(0.25)},
    {kSelectF64, {I32(0), F64(0.25), F64(kInf)}, F64(kInf)},
};

TEST(InterpreterOpsTest, Select) { RunVariantCases(kSelectCases); }

// --- Conversions. ---

const VariantCase kConversionCases[] = {
    // Integer truncation and extension; i8/i16 values live zero-extended in
    // i32 registers after a trunc.
    {kTruncI64I32, {I64(0x123456789)}, I32(0x23456789)},
    {kTruncI64I32, {I64(0x80000000)}, I32(kI32Min)},
    {kTruncI64I32, {I64(-1)}, I32(-1)},
    {kTruncI32I8, {I32(0x12345680)}, I32(0x80)},
    {kTruncI32I8, {I32(-1)}, I32(0xff)},
    {kTruncI32I16, {I32(0x12348000)}, I32(0x8000)},
    {kTruncI32I16, {I32(-1)}, I32(0xffff)},
    {kExtI8I32S, {I32(0x80)}, I32(-128)},
    {kExtI8I32S, {I32(0x7f)}, I32(127)},
    {kExtI8I32S, {I32(0x123456ff)}, I32(-1)},  // Only the low byte counts.
    {kExtI16I32S, {I32(0x8000)}, I32(-32768)},
    {kExtI16I32S, {I32(0x12347fff)}, I32(32767)},
    {kExtI32I64S, {I32(-1)}, I64(-1)},
    {kExtI32I64S, {I32(kI32Min)}, I64(kI32Min)},
    {kExtI32I64U, {I32(-1)}, I64(0xffffffff)},
    {kExtI32I64U, {I32(kI32Min)}, I64(0x80000000)},
    // Integer to float, both signednesses; inexact values round to nearest even.
    {kCastSI32F32, {I32(-3)}, F32(-3.0f)},
    {kCastSI32F32, {I32(16777217)}, F32(16777216.0f)},
    {kCastUI32F32, {I32(-1)}, F32(0x1p32f)},
    {kCastUI32F32, {I32(kI32Min)}, F32(0x1p31f)},
    {kCastSI32F64, {I32(kI32Min)}, F64(-0x1p31)},
    {kCastSI32F64, {I32(-1)}, F64(-1.0)},
    {kCastUI32F64, {I32(-1)}, F64(4294967295.0)},
    {kCastSI64F32, {I64(-1)}, F32(-1.0f)},
    {kCastSI64F32, {I64(kI64Min)}, F32(-0x1p63f)},
    {kCastUI64F32, {I64(-1)}, F32(0x1p64f)},
    {kCastUI64F32, {I64(0x1000001)}, F32(16777216.0f)},
    {kCastSI64F64, {I64(kI64Min)}, F64(-0x1p63)},
    {kCastSI64F64, {I64((int64_t{1} << 53) + 1)}, F64(0x1p53)},
    {kCastUI64F64, {I64(-1)}, F64(0x1p64)},
    {kCastUI64F64, {I64(kI64Min)}, F64(0x1p63)},
    // Float to integer: truncate toward zero, saturate, NaN -> 0.
    {kCastF32SI32, {F32(3.9f)}, I32(3)},
    {kCastF32SI32, {F32(-3.9f)}, I32(-3)},
    {kCastF32SI32, {F32(kNaNF)}, I32(0)},
    {kCastF32SI32, {F32(kInfF)}, I32(kI32Max)},
    {kCastF32SI32, {F32(-kInfF)}, I32(kI32Min)},
    {kCastF32SI32, {F32(3e9f)}, I32(kI32Max)},
    {kCastF32SI32, {F32(-3e9f)}, I32(kI32Min)},
    {kCastF32SI32, {F32(0x1p31f)}, I32(kI32Max)},
    {kCastF32SI32, {F32(-0x1p31f)}, I32(kI32Min)},
    {kCastF32UI32, {F32(3e9f)}, I32(static_cast<int32_t>(3000000000u))},
    {kCastF32UI32, {F32(-1.0f)}, I32(0)},  // Negative -> 0.
    {kCastF32UI32, {F32(-0.75f)}, I32(0)},
    {kCastF32UI32, {F32(-kInfF)}, I32(0)},
    {kCastF32UI32, {F32(kNaNF)}, I32(0)},
    {kCastF32UI32, {F32(kInfF)}, I32(-1)},  // UINT32_MAX.
    {kCastF32UI32, {F32(5e9f)}, I32(-1)},
    {kCastF64SI32, {F64(-2.5)}, I32(-2)},
    {kCastF64SI32, {F64(2147483647.9)}, I32(kI32Max)},
    {kCastF64SI32, {F64(-2147483648.9)}, I32(kI32Min)},
    {kCastF64SI32, {F64(1e10)}, I32(kI32Max)},
    {kCastF64SI32, {F64(-1e10)}, I32(kI32Min)},
    {kCastF64SI32, {F64(kNaN)}, I32(0)},
    {kCastF64UI32, {F64(3000000000.5)}, I32(static_cast<int32_t>(3000000000u))},
    {kCastF64UI32, {F64(4294967295.0)}, I32(-1)},
    {kCastF64UI32, {F64(4294967296.0)}, I32(-1)},
    {kCastF64UI32, {F64(-1.0)}, I32(0)},
    {kCastF64UI32, {F64(kNaN)}, I32(0)},
    {kCastF32SI64, {F32(-2.5f)}, I64(-2)},
    {kCastF32SI64, {F32(0x1p62f)}, I64(int64_t{1} << 62)},
    {kCastF32SI64, {F32(1e19f)}, I64(kI64Max)},
    {kCastF32SI64, {F32(-1e19f)}, I64(kI64Min)},
    {kCastF32SI64, {F32(kNaNF)}, I64(0)},
    {kCastF32UI64, {F32(0x1p63f)}, I64(kI64Min)},  // 2^63 as a bit pattern.
    {kCastF32UI64, {F32(1e20f)}, I64(-1)},
    {kCastF32UI64, {F32(kInfF)}, I64(-1)},
    {kCastF32UI64, {F32(-1.0f)}, I64(0)},
    {kCastF32UI64, {F32(kNaNF)}, I64(0)},
    {kCastF64SI64, {F64(123456789012.75)}, I64(123456789012)},
    {kCastF64SI64, {F64(-123456789012.75)}, I64(-123456789012)},
    {kCastF64SI64, {F64(0x1p63)}, I64(kI64Max)},
    {kCastF64SI64, {F64(-0x1p63)}, I64(kI64Min)},
    {kCastF64SI64, {F64(-1e300)}, I64(kI64Min)},
    {kCastF64SI64, {F64(kNaN)}, I64(0)},
    {kCastF64UI64, {F64(1.5e19)}, I64(static_cast<int64_t>(15000000000000000000u))},
    {kCastF64UI64, {F64(0x1p64)}, I64(-1)},
    {kCastF64UI64, {F64(kInf)}, I64(-1)},
    {kCastF64UI64, {F64(-kInf)}, I64(0)},
    {kCastF64UI64, {F64(kNaN)}, I64(0)},
    // f32 <-> f64.
    {kExtF32F64, {F32(0.1f)}, F64(0.100000001490116119384765625)},
    {kExtF32F64, {F32(-0.0f)}, F64(-0.0)},
    {kExtF32F64, {F32(-kInfF)}, F64(-kInf)},
    {kExtF32F64, {F32(kNaNF)}, F64(kNaN)},
    {kTruncF64F32, {F64(0.1)}, F32(0.1f)},
    {kTruncF64F32, {F64(1.0 + 0x1p-30)}, F32(1.0f)},
    {kTruncF64F32, {F64(1e300)}, F32(kInfF)},
    {kTruncF64F32, {F64(-1e-300)}, F32(-0.0f)},  // Underflow keeps the sign.
    {kTruncF64F32, {F64(kNaN)}, F32(kNaNF)},
    // Bitcasts.
    {kBitcastI32F32, {I32(0x3f800000)}, F32(1.0f)},
    {kBitcastI32F32, {I32(kI32Min)}, F32(-0.0f)},
    {kBitcastF32I32, {F32(-2.0f)}, I32(static_cast<int32_t>(0xc0000000))},
    {kBitcastF32I32, {F32(kInfF)}, I32(0x7f800000)},
    {kBitcastI64F64, {I64(0x3ff0000000000000)}, F64(1.0)},
    {kBitcastI64F64, {I64(0x7ff0000000000000)}, F64(kInf)},
    {kBitcastF64I64, {F64(-0.0)}, I64(kI64Min)},
    {kBitcastF64I64, {F64(2.0)}, I64(0x4000000000000000)},
};

TEST(InterpreterOpsTest, Conversions) { RunVariantCases(kConversionCases); }

TEST(InterpreterOpsTest, BitcastsKeepNaNPayloads) {
  // SameValue treats all NaNs alike, so check these bit patterns directly.
  constexpr uint32_t kPayload32 = 0x7fc00123;
  Result<Variant> f = Eval(kBitcastI32F32, {I32(static_cast<int32_t>(kPayload32))});
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(BitsOf(f->f32()), kPayload32);
  Result<Variant> i = Eval(kBitcastF32I32, {F32(F32FromBits(0xffc00042))});
  ASSERT_TRUE(i.ok()) << i.status().ToString();
  EXPECT_EQ(static_cast<uint32_t>(i->i32()), 0xffc00042u);
  constexpr int64_t kPayload64 = 0x7ff8000000abcdef;
  Result<Variant> d = Eval(kBitcastI64F64, {I64(kPayload64)});
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(BitsOf(d->f64()), static_cast<uint64_t>(kPayload64));
  Result<Variant> l = Eval(kBitcastF64I64, {*d});
  ASSERT_TRUE(l.ok()) << l.status().ToString();
  EXPECT_EQ(l->i64(), kPayload64);
}

// --- Constants and moves: every bank is its own register file. ---

TEST(InterpreterOpsTest, ConstantsAndMovesUseSeparateBanks) {
  ModuleBuilder builder("consts");
  FunctionBuilder& fn = builder.AddFunction("fn", "_iIfFiIfF");
  // Register 0 of each bank holds a constant; writing one bank must not
  // disturb the same-numbered register of another.
  fn.Emit(kConstI32, {Reg(0), ImmI32(-123456789)});
  fn.Emit(kConstI64, {Reg(0), ImmI64(static_cast<int64_t>(0xfedcba9876543210))});
  fn.Emit(kConstF32, {Reg(0), ImmF32(0x1.fffffep127f)});
  fn.Emit(kConstF64, {Reg(0), ImmF64(-0x1.23456789abcdep-1000)});
  fn.Emit(kMovI32, {Reg(1), Reg(0)});
  fn.Emit(kMovI64, {Reg(1), Reg(0)});
  fn.Emit(kMovF32, {Reg(1), Reg(0)});
  fn.Emit(kMovF64, {Reg(1), Reg(0)});
  fn.Emit(kConstI32, {Reg(0), ImmI32(7)});  // Overwrites only i32:0.
  fn.EmitReturn({0, 0, 0, 0, 1, 1, 1, 1});
  builder.AddExport("fn", fn.ordinal());
  auto context = MakeContext(builder);
  ASSERT_TRUE(context.ok()) << context.status().ToString();
  auto results = Call(**context, "fn", {});
  ASSERT_TRUE(results.ok()) << results.status().ToString();
  ASSERT_EQ(results->size(), 8u);
  const Variant expected[] = {
      I32(7),
      I64(static_cast<int64_t>(0xfedcba9876543210)),
      F32(0x1.fffffep127f),
      F64(-0x1.23456789abcdep-1000),
      I32(-123456789),
      I64(static_cast<int64_t>(0xfedcba9876543210)),
      F32(0x1.fffffep127f),
      F64(-0x1.23456789abcdep-1000),
  };
  for (size_t i = 0; i < 8; ++i) EXPECT_TRUE(SameValue((*results)[i], expected[i])) << i;
}

// --- Constant-operand forms. ---

// add.imm.* adds a sign-extended 32-bit immediate with wrapping;
// br.lt.imm.i32.s compares against an immediate.
TEST(InterpreterOpsTest, ImmediateOperandForms) {
  ModuleBuilder builder("imm");
  FunctionBuilder& add32 = builder.AddFunction("add32", "i_iii");
  add32.Emit(kAddImmI32, {Reg(1), Reg(0), ImmI32(-2)});
  add32.Emit(kAddImmI32, {Reg(2), Reg(0), ImmI32(kI32Max)});
  add32.Emit(kAddImmI32, {Reg(3), Reg(0), ImmI32(0)});
  add32.EmitReturn({1, 2, 3});
  builder.AddExport("add32", add32.ordinal());
  FunctionBuilder& add64 = builder.AddFunction("add64", "I_II");
  add64.Emit(kAddImmI64, {Reg(1), Reg(0), ImmI32(-1)});
  add64.Emit(kAddImmI64, {Reg(2), Reg(0), ImmI32(kI32Max)});
  add64.EmitReturn({1, 2});
  builder.AddExport("add64", add64.ordinal());
  FunctionBuilder& below = builder.AddFunction("below_minus3", "i_i");
  Label yes = below.NewLabel(), no = below.NewLabel();
  below.Emit(kBrLtImmI32S, {Reg(0), ImmI32(-3), Target(yes), Target(no)});
  below.Bind(yes);
  below.Emit(kConstI32, {Reg(1), ImmI32(1)});
  below.EmitReturn({1});
  below.Bind(no);
  below.Emit(kConstI32, {Reg(1), ImmI32(0)});
  below.EmitReturn({1});
  builder.AddExport("below_minus3", below.ordinal());
  auto context = MakeContext(builder);
  ASSERT_TRUE(context.ok()) << context.status().ToString();

  auto r32 = Call(**context, "add32", {I32(5)});
  ASSERT_TRUE(r32.ok()) << r32.status().ToString();
  EXPECT_EQ((*r32)[0].i32(), 3);
  EXPECT_EQ((*r32)[1].i32(), kI32Min + 4);  // 5 + INT32_MAX wraps.
  EXPECT_EQ((*r32)[2].i32(), 5);
  auto r64 = Call(**context, "add64", {I64(kI64Min)});
  ASSERT_TRUE(r64.ok()) << r64.status().ToString();
  EXPECT_EQ((*r64)[0].i64(), kI64Max);  // The immediate -1 is sign-extended; wraps.
  EXPECT_EQ((*r64)[1].i64(), kI64Min + kI32Max);
  for (auto [value, expected] : {std::pair{-4, 1}, {-3, 0}, {-2, 0}, {kI32Min, 1}, {7, 0}}) {
    auto r = Call(**context, "below_minus3", {I32(value)});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ((*r)[0].i32(), expected) << value;
  }
}

// for.step.*: i += step, then body while i < bound. sum(bound) adds the
// values i takes in the body and also returns the final i.
TEST(InterpreterOpsTest, ForStepCountsLoops) {
  ModuleBuilder builder("for");
  for (bool wide : {false, true}) {
    FunctionBuilder& f = builder.AddFunction(wide ? "sum64" : "sum32", wide ? "I_II" : "i_ii");
    // r0 bound, r1 i, r2 sum.
    Label body = f.NewLabel(), done = f.NewLabel();
    const Opcode step = wide ? kForStepI64 : kForStepI32;
    // i starts at -2 (i32) or 2^40 - 2 (i64, past 32 bits).
    f.Emit(wide ? kConstI64 : kConstI32,
           {Reg(1), wide ? ImmI64((int64_t{1} << 40) - 2) : ImmI32(-2)});
    f.Emit(wide ? kConstI64 : kConstI32, {Reg(2), wide ? ImmI64(0) : ImmI32(0)});
    // Enter through the step: the body sees start + 3, start + 6, ...
    f.Emit(step, {Reg(1), ImmI32(3), Reg(0), Target(body), Target(done)});
    f.Bind(body);
    f.Emit(wide ? kAddI64 : kAddI32, {Reg(2), Reg(2), Reg(1)});
    f.Emit(step, {Reg(1), ImmI32(3), Reg(0), Target(body), Target(done)});
    f.Bind(done);
    f.EmitReturn({2, 1});
    builder.AddExport(wide ? "sum64" : "sum32", f.ordinal());
  }
  FunctionBuilder& wrap = builder.AddFunction("wrap", "i_i");  // One step from INT32_MAX wraps.
  Label body = wrap.NewLabel(), done = wrap.NewLabel();
  wrap.Emit(kConstI32, {Reg(1), ImmI32(kI32Max)});
  wrap.Emit(kForStepI32, {Reg(1), ImmI32(1), Reg(0), Target(body), Target(done)});
  wrap.Bind(body);
  wrap.EmitReturn({1});
  wrap.Bind(done);
  wrap.Emit(kConstI32, {Reg(1), ImmI32(0)});
  wrap.EmitReturn({1});
  builder.AddExport("wrap", wrap.ordinal());
  auto context = MakeContext(builder);
  ASSERT_TRUE(context.ok()) << context.status().ToString();
  auto r32 = Call(**context, "sum32", {I32(10)});
  ASSERT_TRUE(r32.ok()) << r32.status().ToString();
  EXPECT_EQ((*r32)[0].i32(), 1 + 4 + 7);  // The body runs for i = 1, 4, 7.
  EXPECT_EQ((*r32)[1].i32(), 10);         // The step that ends the loop still happened.
  auto empty = Call(**context, "sum32", {I32(1)});
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ((*empty)[0].i32(), 0);  // 1 < 1 is false: no iteration.
  const int64_t base = int64_t{1} << 40;
  auto r64 = Call(**context, "sum64", {I64(base + 8)});
  ASSERT_TRUE(r64.ok()) << r64.status().ToString();
  EXPECT_EQ((*r64)[0].i64(), (base + 1) + (base + 4) + (base + 7));
  EXPECT_EQ((*r64)[1].i64(), base + 10);
  auto wrapped = Call(**context, "wrap", {I32(0)});
  ASSERT_TRUE(wrapped.ok()) << wrapped.status().ToString();
  EXPECT_EQ((*wrapped)[0].i32(), kI32Min);  // INT32_MAX + 1 wraps, and INT32_MIN < 0.
}

// --- Every opcode has a test. ---

// Opcodes exercised by tests/vm/interpreter_test.cc (control flow, calls,
// globals, refs, lists, buffers, trace). Kept explicit: adding an opcode
// without a test makes EveryOpcodeIsCovered fail.
constexpr Opcode kCoveredByInterpreterTest[] = {
    kConstRefNull,   kConstRefRodata, kMovRef,         kSelectRef,      kBr,
    kCondBr,         kSwitch,         kReturn,         kFail,           kCall,
    kCallImport,     kImportResolved, kBrLtI32S,       kBrLtI64S,       kGlobalLoadI32,
    kGlobalLoadI64,  kGlobalLoadF32,  kGlobalLoadF64,  kGlobalLoadRef,  kGlobalStoreI32,
    kGlobalStoreI64, kGlobalStoreF32, kGlobalStoreF64, kGlobalStoreRef, kRefIsNull,
    kRefEq,          kRefIsType,      kListAlloc,      kListSize,       kListResize,
    kListGetI32,     kListGetI64,     kListGetF32,     kListGetF64,     kListGetRef,
    kListSetI32,     kListSetI64,     kListSetF32,     kListSetF64,     kListSetRef,
    kBufferAlloc,    kBufferLength,   kBufferCopy,     kBufferFill,     kBufferLoadI8S,
    kBufferLoadI8U,  kBufferLoadI16S, kBufferLoadI16U, kBufferLoadI32,  kBufferLoadI64,
    kBufferLoadF32,  kBufferLoadF64,  kBufferStoreI8,  kBufferStoreI16, kBufferStoreI32,
    kBufferStoreI64, kBufferStoreF32, kBufferStoreF64, kTrace,
};

// Opcodes covered here outside the tables.
constexpr Opcode kCoveredByThisFile[] = {
    kConstI32, kConstI64, kConstF32,  kConstF64,  kMovI32,      kMovI64,     kMovF32,     kMovF64,
    kFmaF32,   kFmaF64,   kAddImmI32, kAddImmI64, kBrLtImmI32S, kForStepI32, kForStepI64,
};

TEST(InterpreterOpsTest, EveryOpcodeIsCovered) {
  std::set<Opcode> covered(std::begin(kCoveredByInterpreterTest),
                           std::end(kCoveredByInterpreterTest));
  covered.insert(std::begin(kCoveredByThisFile), std::end(kCoveredByThisFile));
  for (const auto& c : kI32Cases) covered.insert(c.op);
  for (const auto& c : kI64Cases) covered.insert(c.op);
  for (const auto& c : kF32Cases) covered.insert(c.op);
  for (const auto& c : kF64Cases) covered.insert(c.op);
  for (const IntPredicate& p : kIntPredicates) covered.insert({p.i32, p.i64});
  for (const FloatPredicate& p : kFloatPredicates) covered.insert({p.f32, p.f64});
  for (const VariantCase& c : kConversionCases) covered.insert(c.op);
  for (const VariantCase& c : kSelectCases) covered.insert(c.op);
  for (int op = 0; op < kOpcodeCount; ++op) {
    EXPECT_TRUE(covered.count(static_cast<Opcode>(op)))
        << "opcode " << GetOpcodeInfo(static_cast<Opcode>(op)).mnemonic << " has no test";
  }
}

}  // namespace
}  // namespace kiln::vm
