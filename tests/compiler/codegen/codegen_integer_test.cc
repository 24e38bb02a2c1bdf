// Integer ops at every width the VM supports (i1, i8, i16, i32, i64, index):
// each arith op is compiled into a function of two arguments and run in the VM
// against a reference written with MLIR's semantics (wrapping two's
// complement at the op's width; results of i1/i8/i16 checked in their
// canonical register form: i8/i16 sign-extended, i1 as 0 or 1). Inputs that
// MLIR calls undefined (division by zero, signed overflow of divisions,
// shift amounts ≥ the width) are skipped.
#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tests/compiler/codegen/codegen_test_util.h"

namespace kiln::compiler::testing {
namespace {

using vm::Variant;

struct IntType {
  const char* name;
  int width;
};
constexpr IntType kIntTypes[] = {{"i1", 1},   {"i8", 8},   {"i16", 16},
                                 {"i32", 32}, {"i64", 64}, {"index", 64}};

// The canonical register value of the low `w` bits of `x`.
int64_t Canon(uint64_t x, int w) {
  if (w == 1) return static_cast<int64_t>(x & 1);
  if (w == 64) return static_cast<int64_t>(x);
  const uint64_t sign = uint64_t{1} << (w - 1);
  const uint64_t low = x & ((uint64_t{1} << w) - 1);
  return static_cast<int64_t>((low ^ sign) - sign);
}
// Signed and unsigned readings of a canonical value.
int64_t SV(int64_t c, int w) { return w == 1 ? -(c & 1) : c; }
uint64_t UV(int64_t c, int w) {
  return w == 64 ? static_cast<uint64_t>(c) : static_cast<uint64_t>(c) & ((uint64_t{1} << w) - 1);
}
int64_t SignedMin(int w) { return w == 64 ? INT64_MIN : -(int64_t{1} << (w - 1)); }

std::vector<int64_t> Inputs(int w) {
  switch (w) {
    case 1:
      return {0, 1};
    case 8:
      return {-128, -127, -2, -1, 0, 1, 2, 5, 63, 100, 127};
    case 16:
      return {-32768, -32767, -300, -1, 0, 1, 7, 255, 256, 32767};
    case 32:
      return {INT32_MIN, INT32_MIN + 1, -70000, -7, -1, 0, 1, 3, 31, 65536, INT32_MAX};
    default:
      return {INT64_MIN,        INT64_MIN + 1, -(int64_t{1} << 40), -7, -1, 0, 1, 3, 63,
              int64_t{1} << 33, INT64_MAX};
  }
}

Variant Arg(int64_t v, int w) {
  return w == 64 ? Variant::I64(v) : Variant::I32(static_cast<int32_t>(v));
}
int64_t Value(const Variant& v, int w) { return w == 64 ? v.i64() : v.i32(); }

using Reference = std::function<std::optional<int64_t>(int64_t a, int64_t b, int w)>;

struct BinaryOp {
  const char* name;
  Reference reference;
};

bool DivisionUndefined(int64_t a, int64_t b, int w) {
  return SV(b, w) == 0 || (SV(a, w) == SignedMin(w) && SV(b, w) == -1);
}

const std::vector<BinaryOp>& BinaryOps() {
  static const std::vector<BinaryOp> ops = {
      {"addi", [](int64_t a, int64_t b, int w) { return Canon(uint64_t(a) + uint64_t(b), w); }},
      {"subi", [](int64_t a, int64_t b, int w) { return Canon(uint64_t(a) - uint64_t(b), w); }},
      {"muli", [](int64_t a, int64_t b, int w) { return Canon(uint64_t(a) * uint64_t(b), w); }},
      {"andi", [](int64_t a, int64_t b, int w) { return Canon(uint64_t(a & b), w); }},
      {"ori", [](int64_t a, int64_t b, int w) { return Canon(uint64_t(a | b), w); }},
      {"xori", [](int64_t a, int64_t b, int w) { return Canon(uint64_t(a ^ b), w); }},
      {"divsi",
       [](int64_t a, int64_t b, int w) -> std::optional<int64_t> {
         if (DivisionUndefined(a, b, w)) return std::nullopt;
         return Canon(uint64_t(SV(a, w) / SV(b, w)), w);
       }},
      {"remsi",
       [](int64_t a, int64_t b, int w) -> std::optional<int64_t> {
         if (DivisionUndefined(a, b, w)) return std::nullopt;
         return Canon(uint64_t(SV(a, w) % SV(b, w)), w);
       }},
      {"divui",
       [](int64_t a, int64_t b, int w) -> std::optional<int64_t> {
         if (UV(b, w) == 0) return std::nullopt;
         return Canon(UV(a, w) / UV(b, w), w);
       }},
      {"remui",
       [](int64_t a, int64_t b, int w) -> std::optional<int64_t> {
         if (UV(b, w) == 0) return std::nullopt;
         return Canon(UV(a, w) % UV(b, w), w);
       }},
      {"ceildivsi",
       [](int64_t a, int64_t b, int w) -> std::optional<int64_t> {
         if (DivisionUndefined(a, b, w)) return std::nullopt;
         const int64_t x = SV(a, w), y = SV(b, w);
         int64_t q = x / y;
         if (x % y != 0 && ((x < 0) == (y < 0))) ++q;
         return Canon(uint64_t(q), w);
       }},
      {"floordivsi",
       [](int64_t a, int64_t b, int w) -> std::optional<int64_t> {
         if (DivisionUndefined(a, b, w)) return std::nullopt;
         const int64_t x = SV(a, w), y = SV(b, w);
         int64_t q = x / y;
         if (x % y != 0 && ((x < 0) != (y < 0))) --q;
         return Canon(uint64_t(q), w);
       }},
      {"shli",
       [](int64_t a, int64_t b, int w) -> std::optional<int64_t> {
         if (UV(b, w) >= uint64_t(w)) return std::nullopt;
         return Canon(UV(a, w) << UV(b, w), w);
       }},
      {"shrsi",
       [](int64_t a, int64_t b, int w) -> std::optional<int64_t> {
         if (UV(b, w) >= uint64_t(w)) return std::nullopt;
         return Canon(uint64_t(SV(a, w) >> UV(b, w)), w);
       }},
      {"shrui",
       [](int64_t a, int64_t b, int w) -> std::optional<int64_t> {
         if (UV(b, w) >= uint64_t(w)) return std::nullopt;
         return Canon(UV(a, w) >> UV(b, w), w);
       }},
      {"maxsi", [](int64_t a, int64_t b,
                   int w) { return Canon(uint64_t(std::max(SV(a, w), SV(b, w))), w); }},
      {"minsi", [](int64_t a, int64_t b,
                   int w) { return Canon(uint64_t(std::min(SV(a, w), SV(b, w))), w); }},
      {"maxui", [](int64_t a, int64_t b, int w) { return Canon(std::max(UV(a, w), UV(b, w)), w); }},
      {"minui", [](int64_t a, int64_t b, int w) { return Canon(std::min(UV(a, w), UV(b, w)), w); }},
  };
  return ops;
}

class IntegerWidthTest : public ::testing::TestWithParam<IntType> {};

TEST_P(IntegerWidthTest, BinaryOps) {
  const IntType type = GetParam();
  const std::string t = type.name;
  std::string text;
  for (const BinaryOp& op : BinaryOps()) {
    text += "func.func @" + std::string(op.name) + "(%a: " + t + ", %b: " + t + ") -> " + t +
            " {\n  %r = arith." + op.name + " %a, %b : " + t + "\n  return %r : " + t + "\n}\n";
  }
  Compiled c = Compiled::FromText(text);
  ASSERT_TRUE(c.ok()) << c.error();
  const int w = type.width;
  for (const BinaryOp& op : BinaryOps()) {
    for (int64_t a : Inputs(w)) {
      for (int64_t b : Inputs(w)) {
        std::optional<int64_t> expected = op.reference(a, b, w);
        if (!expected) continue;
        auto result = c.Call(op.name, {Arg(a, w), Arg(b, w)});
        ASSERT_TRUE(result.ok()) << op.name << ": " << result.status().ToString();
        EXPECT_EQ(Value((*result)[0], w), *expected)
            << t << " " << op.name << "(" << a << ", " << b << ")\n"
            << c.Listing(op.name);
      }
    }
  }
}

TEST_P(IntegerWidthTest, ComparePredicates) {
  const IntType type = GetParam();
  const std::string t = type.name;
  const char* predicates[] = {"eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"};
  std::string text;
  for (const char* p : predicates) {
    text += "func.func @" + std::string(p) + "(%a: " + t + ", %b: " + t +
            ") -> i1 {\n  %r = arith.cmpi " + p + ", %a, %b : " + t + "\n  return %r : i1\n}\n";
  }
  Compiled c = Compiled::FromText(text);
  ASSERT_TRUE(c.ok()) << c.error();
  const int w = type.width;
  for (const char* p : predicates) {
    const std::string name = p;
    for (int64_t a : Inputs(w)) {
      for (int64_t b : Inputs(w)) {
        const int64_t sa = SV(a, w), sb = SV(b, w);
        const uint64_t ua = UV(a, w), ub = UV(b, w);
        bool expected = name == "eq"    ? a == b
                        : name == "ne"  ? a != b
                        : name == "slt" ? sa < sb
                        : name == "sle" ? sa <= sb
                        : name == "sgt" ? sa > sb
                        : name == "sge" ? sa >= sb
                        : name == "ult" ? ua < ub
                        : name == "ule" ? ua <= ub
                        : name == "ugt" ? ua > ub
                                        : ua >= ub;
        EXPECT_EQ(CallOne(c, p, {Arg(a, w), Arg(b, w)}).i32(), expected ? 1 : 0)
            << t << " cmpi " << p << "(" << a << ", " << b << ")";
      }
    }
  }
}

TEST_P(IntegerWidthTest, AbsAndSelect) {
  const IntType type = GetParam();
  const std::string t = type.name;
  Compiled c = Compiled::FromText("func.func @abs(%a: " + t + ") -> " + t +
                                  " {\n  %r = math.absi %a : " + t + "\n  return %r : " + t +
                                  "\n}\n"
                                  "func.func @sel(%c: i1, %a: " +
                                  t + ", %b: " + t + ") -> " + t +
                                  " {\n  %r = arith.select %c, %a, %b : " + t +
                                  "\n  return %r : " + t + "\n}\n");
  ASSERT_TRUE(c.ok()) << c.error();
  const int w = type.width;
  for (int64_t a : Inputs(w)) {
    const int64_t s = SV(a, w);
    const int64_t expected = Canon(s < 0 ? 0 - uint64_t(s) : uint64_t(s), w);
    EXPECT_EQ(Value(CallOne(c, "abs", {Arg(a, w)}), w), expected) << t << " absi " << a;
    for (int32_t cond : {0, 1}) {
      const int64_t b = Inputs(w).front();
      EXPECT_EQ(Value(CallOne(c, "sel", {Variant::I32(cond), Arg(a, w), Arg(b, w)}), w),
                cond ? a : b);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Widths, IntegerWidthTest, ::testing::ValuesIn(kIntTypes),
                         [](const ::testing::TestParamInfo<IntType>& info) {
                           return std::string(info.param.name);
                         });

TEST(IntegerTest, NarrowArithmeticWrapsAcrossSeveralOps) {
  // (a + b) * 3 >> 1 in i8: every intermediate wraps at 8 bits.
  Compiled c = Compiled::FromText(R"mlir(
func.func @f(%a: i8, %b: i8) -> i8 {
  %c3 = arith.constant 3 : i8
  %c1 = arith.constant 1 : i8
  %s = arith.addi %a, %b : i8
  %m = arith.muli %s, %c3 : i8
  %r = arith.shrui %m, %c1 : i8
  return %r : i8
}
)mlir");
  ASSERT_TRUE(c.ok()) << c.error();
  for (int a : {-128, -1, 0, 1, 100, 127}) {
    for (int b : {-128, -1, 0, 1, 100, 127}) {
      const uint8_t m = static_cast<uint8_t>(static_cast<uint8_t>(a + b) * 3);
      const int8_t expected = static_cast<int8_t>(m >> 1);
      EXPECT_EQ(CallOne(c, "f", {Variant::I32(a), Variant::I32(b)}).i32(), expected);
    }
  }
}

TEST(IntegerTest, DivisionByZeroTraps) {
  Compiled c = Compiled::FromText(R"mlir(
func.func @f(%a: i32, %b: i32) -> i32 {
  %r = arith.divui %a, %b : i32
  return %r : i32
}
)mlir");
  ASSERT_TRUE(c.ok()) << c.error();
  auto result = c.Call("f", {Variant::I32(1), Variant::I32(0)});
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("division by zero"), std::string::npos)
      << result.status().ToString();
}

TEST(IntegerTest, NarrowArgumentsOfPublicFunctionsAreCanonicalised) {
  // The host passes 255 for an i8 and 3 for an i1: they read as -1 and true.
  Compiled c = Compiled::FromText(R"mlir(
func.func @f(%a: i8, %c: i1) -> (i32, i32) {
  %x = arith.extsi %a : i8 to i32
  %y = arith.extui %c : i1 to i32
  return %x, %y : i32, i32
}
)mlir");
  ASSERT_TRUE(c.ok()) << c.error();
  auto r = c.Call("f", {Variant::I32(255), Variant::I32(3)});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].i32(), -1);
  EXPECT_EQ((*r)[1].i32(), 1);
}

}  // namespace
}  // namespace kiln::compiler::testing
