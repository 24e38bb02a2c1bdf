// Float arithmetic, every cmpf predicate (NaN included), math ops against
// <cmath>, and every cast (integer widths, index, floats, bitcasts), run in
// the VM.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "tests/compiler/codegen/codegen_test_util.h"

namespace kiln::compiler::testing {
namespace {

using vm::Variant;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

std::string Unary(const std::string& name, const std::string& op, const std::string& t) {
  return "func.func @" + name + "(%a: " + t + ") -> " + t + " {\n  %r = " + op + " %a : " + t +
         "\n  return %r : " + t + "\n}\n";
}
std::string Binary(const std::string& name, const std::string& op, const std::string& t) {
  return "func.func @" + name + "(%a: " + t + ", %b: " + t + ") -> " + t + " {\n  %r = " + op +
         " %a, %b : " + t + "\n  return %r : " + t + "\n}\n";
}

// Same value, NaNs equal to each other, -0 distinct from +0.
bool Same(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

class FloatWidthTest : public ::testing::TestWithParam<const char*> {
 protected:
  bool is64() const { return std::string(GetParam()) == "f64"; }
  Variant Arg(double v) const {
    return is64() ? Variant::F64(v) : Variant::F32(static_cast<float>(v));
  }
  double Get(const Variant& v) const { return is64() ? v.f64() : v.f32(); }
  // The reference computed at the test's width.
  double Round(double v) const { return is64() ? v : static_cast<float>(v); }
};

TEST_P(FloatWidthTest, Arithmetic) {
  const std::string t = GetParam();
  Compiled c =
      Compiled::FromText(Binary("add", "arith.addf", t) + Binary("sub", "arith.subf", t) +
                         Binary("mul", "arith.mulf", t) + Binary("div", "arith.divf", t) +
                         Binary("rem", "arith.remf", t) + Binary("max", "arith.maximumf", t) +
                         Binary("min", "arith.minimumf", t) + Binary("pow", "math.powf", t) +
                         Unary("neg", "arith.negf", t));
  ASSERT_TRUE(c.ok()) << c.error();
  const double inputs[] = {0.0, -0.0, 1.5, -2.25, 7.0, 1e30, -kInf, kInf, kNaN};
  for (double a : inputs) {
    EXPECT_TRUE(Same(Get(CallOne(c, "neg", {Arg(a)})), Round(-a))) << a;
    for (double b : inputs) {
      const double fa = Round(a), fb = Round(b);
      auto check = [&](const char* name, double expected) {
        const double got = Get(CallOne(c, name, {Arg(a), Arg(b)}));
        EXPECT_TRUE(Same(got, Round(expected))) << t << " " << name << "(" << a << ", " << b
                                                << ") = " << got << ", expected " << expected;
      };
      if (is64()) {
        check("add", fa + fb);
        check("sub", fa - fb);
        check("mul", fa * fb);
        check("div", fa / fb);
        check("rem", std::fmod(fa, fb));
        check("pow", std::pow(fa, fb));
      } else {
        const float x = static_cast<float>(a), y = static_cast<float>(b);
        check("add", x + y);
        check("sub", x - y);
        check("mul", x * y);
        check("div", x / y);
        check("rem", std::fmod(x, y));
        check("pow", std::pow(x, y));
      }
      // IEEE 754-2019 maximum/minimum: NaN wins, -0 < +0.
      double max, min;
      if (std::isnan(fa) || std::isnan(fb)) {
        max = min = kNaN;
      } else if (fa == fb) {
        max = std::signbit(fa) ? fb : fa;
        min = std::signbit(fa) ? fa : fb;
      } else {
        max = std::max(fa, fb);
        min = std::min(fa, fb);
      }
      check("max", max);
      check("min", min);
    }
  }
}

TEST_P(FloatWidthTest, ComparePredicates) {
  const std::string t = GetParam();
  const char* predicates[] = {"false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
                              "ueq",   "ugt", "uge", "ult", "ule", "une", "uno", "true"};
  std::string text;
  for (const char* p : predicates) {
    text += "func.func @" + std::string(p) + "(%a: " + t + ", %b: " + t +
            ") -> i1 {\n  %r = arith.cmpf " + p + ", %a, %b : " + t + "\n  return %r : i1\n}\n";
  }
  Compiled c = Compiled::FromText(text);
  ASSERT_TRUE(c.ok()) << c.error();
  const double inputs[] = {-1.0, 0.0, -0.0, 2.5, kInf, kNaN};
  for (const char* p : predicates) {
    const std::string name = p;
    for (double a : inputs) {
      for (double b : inputs) {
        const bool unordered = std::isnan(a) || std::isnan(b);
        bool expected;
        if (name == "false")
          expected = false;
        else if (name == "true")
          expected = true;
        else if (name == "ord")
          expected = !unordered;
        else if (name == "uno")
          expected = unordered;
        else {
          const std::string rel = name.substr(1);
          const bool r = rel == "eq"   ? a == b
                         : rel == "gt" ? a > b
                         : rel == "ge" ? a >= b
                         : rel == "lt" ? a < b
                         : rel == "le" ? a <= b
                                       : a != b;
          expected = name[0] == 'o' ? !unordered && r : unordered || r;
        }
        EXPECT_EQ(CallOne(c, p, {Arg(a), Arg(b)}).i32(), expected ? 1 : 0)
            << t << " cmpf " << p << "(" << a << ", " << b << ")";
      }
    }
  }
}

TEST_P(FloatWidthTest, MathOps) {
  const std::string t = GetParam();
  struct Case {
    const char* name;
    const char* op;
    double (*reference)(double);
  };
  const Case cases[] = {
      {"sqrt", "math.sqrt", [](double x) { return std::sqrt(x); }},
      {"rsqrt", "math.rsqrt", [](double x) { return 1.0 / std::sqrt(x); }},
      {"exp", "math.exp", [](double x) { return std::exp(x); }},
      {"exp2", "math.exp2", [](double x) { return std::exp2(x); }},
      {"log", "math.log", [](double x) { return std::log(x); }},
      {"log2", "math.log2", [](double x) { return std::log2(x); }},
      {"sin", "math.sin", [](double x) { return std::sin(x); }},
      {"cos", "math.cos", [](double x) { return std::cos(x); }},
      {"tanh", "math.tanh", [](double x) { return std::tanh(x); }},
      {"absf", "math.absf", [](double x) { return std::fabs(x); }},
      {"floor", "math.floor", [](double x) { return std::floor(x); }},
      {"ceil", "math.ceil", [](double x) { return std::ceil(x); }},
      {"round", "math.round", [](double x) { return std::round(x); }},
  };
  std::string text;
  for (const Case& k : cases) text += Unary(k.name, k.op, t);
  text += "func.func @fma(%a: " + t + ", %b: " + t + ", %c: " + t + ") -> " + t +
          " {\n  %r = math.fma %a, %b, %c : " + t + "\n  return %r : " + t + "\n}\n";
  Compiled c = Compiled::FromText(text);
  ASSERT_TRUE(c.ok()) << c.error();
  const double inputs[] = {0.0, 0.5,   1.0,  2.5,   -2.5, -0.5, 3.0,
                           8.0, 0.001, 1e10, -7.25, kInf, kNaN};
  for (const Case& k : cases) {
    for (double x : inputs) {
      const double fx = Round(x);
      const double expected = Round(k.reference(fx));
      const double got = Get(CallOne(c, k.name, {Arg(x)}));
      if (std::isnan(expected) || std::isinf(expected) || expected == 0) {
        EXPECT_TRUE(Same(got, expected) || (expected == 0 && got == 0))
            << t << " " << k.name << "(" << x << ") = " << got << ", expected " << expected;
      } else {
        // Within a few ulp of <cmath> at this width.
        const double ulp = is64() ? std::ldexp(1.0, std::ilogb(expected) - 52)
                                  : std::ldexp(1.0, std::ilogb(expected) - 23);
        EXPECT_LE(std::fabs(got - expected), 2 * ulp)
            << t << " " << k.name << "(" << x << ") = " << got << ", expected " << expected;
      }
    }
  }
  // math.round rounds halfway cases away from zero.
  EXPECT_EQ(Get(CallOne(c, "round", {Arg(2.5)})), 3.0);
  EXPECT_EQ(Get(CallOne(c, "round", {Arg(-2.5)})), -3.0);
  EXPECT_EQ(Get(CallOne(c, "round", {Arg(0.5)})), 1.0);
  // log2 and exp2 are exact at powers of two.
  for (int k = -20; k <= 20; ++k) {
    EXPECT_EQ(Get(CallOne(c, "log2", {Arg(std::ldexp(1.0, k))})), k) << k;
    EXPECT_EQ(Get(CallOne(c, "exp2", {Arg(k)})), std::ldexp(1.0, k)) << k;
  }
  EXPECT_EQ(Get(CallOne(c, "fma", {Arg(2.0), Arg(3.0), Arg(0.5)})), 6.5);
}

INSTANTIATE_TEST_SUITE_P(Widths, FloatWidthTest, ::testing::Values("f32", "f64"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param);
                         });

std::string Cast(const std::string& name, const std::string& op, const std::string& from,
                 const std::string& to) {
  return "func.func @" + name + "(%a: " + from + ") -> " + to + " {\n  %r = arith." + op +
         " %a : " + from + " to " + to + "\n  return %r : " + to + "\n}\n";
}

TEST(CastTest, IntegerCasts) {
  Compiled c = Compiled::FromText(
      Cast("extsi_1_32", "extsi", "i1", "i32") + Cast("extsi_1_64", "extsi", "i1", "i64") +
      Cast("extsi_8_16", "extsi", "i8", "i16") + Cast("extsi_8_64", "extsi", "i8", "i64") +
      Cast("extsi_32_64", "extsi", "i32", "i64") + Cast("extui_1_32", "extui", "i1", "i32") +
      Cast("extui_8_16", "extui", "i8", "i16") + Cast("extui_8_32", "extui", "i8", "i32") +
      Cast("extui_8_64", "extui", "i8", "i64") + Cast("extui_16_32", "extui", "i16", "i32") +
      Cast("extui_32_64", "extui", "i32", "i64") + Cast("trunci_32_8", "trunci", "i32", "i8") +
      Cast("trunci_16_8", "trunci", "i16", "i8") + Cast("trunci_32_1", "trunci", "i32", "i1") +
      Cast("trunci_64_32", "trunci", "i64", "i32") + Cast("trunci_64_16", "trunci", "i64", "i16") +
      Cast("trunci_64_1", "trunci", "i64", "i1") +
      Cast("index_cast_to_i32", "index_cast", "index", "i32") +
      Cast("index_cast_from_i32", "index_cast", "i32", "index") +
      Cast("index_cast_from_i8", "index_cast", "i8", "index") +
      Cast("index_cast_to_i8", "index_cast", "index", "i8") +
      Cast("index_cast_i64", "index_cast", "i64", "index") +
      Cast("index_castui_from_i32", "index_castui", "i32", "index") +
      Cast("index_castui_from_i8", "index_castui", "i8", "index") +
      Cast("index_castui_to_i16", "index_castui", "index", "i16"));
  ASSERT_TRUE(c.ok()) << c.error();
  auto i32 = [&](const char* f, Variant arg) { return CallOne(c, f, {arg}).i32(); };
  auto i64 = [&](const char* f, Variant arg) { return CallOne(c, f, {arg}).i64(); };
  EXPECT_EQ(i32("extsi_1_32", Variant::I32(1)), -1);
  EXPECT_EQ(i32("extsi_1_32", Variant::I32(0)), 0);
  EXPECT_EQ(i64("extsi_1_64", Variant::I32(1)), -1);
  EXPECT_EQ(i32("extsi_8_16", Variant::I32(-5)), -5);
  EXPECT_EQ(i64("extsi_8_64", Variant::I32(-128)), -128);
  EXPECT_EQ(i64("extsi_32_64", Variant::I32(INT32_MIN)), INT32_MIN);
  EXPECT_EQ(i32("extui_1_32", Variant::I32(1)), 1);
  EXPECT_EQ(i32("extui_8_16", Variant::I32(-1)), 255);
  EXPECT_EQ(i32("extui_8_32", Variant::I32(-128)), 128);
  EXPECT_EQ(i64("extui_8_64", Variant::I32(-1)), 255);
  EXPECT_EQ(i32("extui_16_32", Variant::I32(-1)), 65535);
  EXPECT_EQ(i64("extui_32_64", Variant::I32(-1)), 4294967295LL);
  EXPECT_EQ(i32("trunci_32_8", Variant::I32(0x1FF)), -1);
  EXPECT_EQ(i32("trunci_32_8", Variant::I32(0x80)), -128);
  EXPECT_EQ(i32("trunci_32_8", Variant::I32(0x7F)), 127);
  EXPECT_EQ(i32("trunci_16_8", Variant::I32(-32768 + 0x81)), -127);
  EXPECT_EQ(i32("trunci_32_1", Variant::I32(3)), 1);
  EXPECT_EQ(i32("trunci_32_1", Variant::I32(2)), 0);
  EXPECT_EQ(i32("trunci_64_32", Variant::I64(0x1'8000'0001LL)), INT32_MIN + 1);
  EXPECT_EQ(i32("trunci_64_16", Variant::I64(0x1'0000'8000LL)), -32768);
  EXPECT_EQ(i32("trunci_64_1", Variant::I64(-1)), 1);
  EXPECT_EQ(i32("index_cast_to_i32", Variant::I64((int64_t{1} << 32) + 5)), 5);
  EXPECT_EQ(i64("index_cast_from_i32", Variant::I32(-1)), -1);
  EXPECT_EQ(i64("index_cast_from_i8", Variant::I32(-1)), -1);
  EXPECT_EQ(i32("index_cast_to_i8", Variant::I64(300)), 44);
  EXPECT_EQ(i64("index_cast_i64", Variant::I64(INT64_MIN)), INT64_MIN);
  EXPECT_EQ(i64("index_castui_from_i32", Variant::I32(-1)), 4294967295LL);
  EXPECT_EQ(i64("index_castui_from_i8", Variant::I32(-1)), 255);
  EXPECT_EQ(i32("index_castui_to_i16", Variant::I64(0xFFFF)), -1);
}

TEST(CastTest, IntegerFloatConversions) {
  Compiled c = Compiled::FromText(
      Cast("sitofp_8_32", "sitofp", "i8", "f32") + Cast("sitofp_1_64", "sitofp", "i1", "f64") +
      Cast("sitofp_32_64", "sitofp", "i32", "f64") + Cast("sitofp_64_32", "sitofp", "i64", "f32") +
      Cast("uitofp_8_32", "uitofp", "i8", "f32") + Cast("uitofp_1_32", "uitofp", "i1", "f32") +
      Cast("uitofp_32_64", "uitofp", "i32", "f64") + Cast("uitofp_64_64", "uitofp", "i64", "f64") +
      Cast("fptosi_32_32", "fptosi", "f32", "i32") + Cast("fptosi_64_8", "fptosi", "f64", "i8") +
      Cast("fptosi_64_64", "fptosi", "f64", "i64") + Cast("fptoui_32_32", "fptoui", "f32", "i32") +
      Cast("fptoui_64_8", "fptoui", "f64", "i8") + Cast("fptoui_32_1", "fptoui", "f32", "i1") +
      Cast("fptoui_64_64", "fptoui", "f64", "i64") + Cast("extf", "extf", "f32", "f64") +
      Cast("truncf", "truncf", "f64", "f32") + Cast("bitcast_i32_f32", "bitcast", "i32", "f32") +
      Cast("bitcast_f32_i32", "bitcast", "f32", "i32") +
      Cast("bitcast_i64_f64", "bitcast", "i64", "f64") +
      Cast("bitcast_f64_i64", "bitcast", "f64", "i64"));
  ASSERT_TRUE(c.ok()) << c.error();
  auto call = [&](const char* f, Variant arg) { return CallOne(c, f, {arg}); };
  EXPECT_EQ(call("sitofp_8_32", Variant::I32(-128)).f32(), -128.0f);
  EXPECT_EQ(call("sitofp_1_64", Variant::I32(1)).f64(), -1.0);
  EXPECT_EQ(call("sitofp_32_64", Variant::I32(INT32_MIN)).f64(), -2147483648.0);
  EXPECT_EQ(call("sitofp_64_32", Variant::I64(-(int64_t{1} << 40))).f32(), -1099511627776.0f);
  EXPECT_EQ(call("uitofp_8_32", Variant::I32(-1)).f32(), 255.0f);
  EXPECT_EQ(call("uitofp_1_32", Variant::I32(1)).f32(), 1.0f);
  EXPECT_EQ(call("uitofp_32_64", Variant::I32(-1)).f64(), 4294967295.0);
  EXPECT_EQ(call("uitofp_64_64", Variant::I64(-1)).f64(), 18446744073709551615.0);
  EXPECT_EQ(call("fptosi_32_32", Variant::F32(-3.75f)).i32(), -3);
  EXPECT_EQ(call("fptosi_64_8", Variant::F64(-100.9)).i32(), -100);
  EXPECT_EQ(call("fptosi_64_64", Variant::F64(-1e15)).i64(), -1'000'000'000'000'000LL);
  EXPECT_EQ(call("fptoui_32_32", Variant::F32(3.99f)).i32(), 3);
  EXPECT_EQ(call("fptoui_32_32", Variant::F32(4e9f)).i32(), static_cast<int32_t>(4000000000u));
  EXPECT_EQ(call("fptoui_64_8", Variant::F64(200.0)).i32(), -56);  // 200 as a canonical i8
  EXPECT_EQ(call("fptoui_32_1", Variant::F32(1.0f)).i32(), 1);
  EXPECT_EQ(call("fptoui_64_64", Variant::F64(1e19)).i64(),
            static_cast<int64_t>(10000000000000000000ull));
  EXPECT_EQ(call("extf", Variant::F32(0.1f)).f64(), static_cast<double>(0.1f));
  EXPECT_EQ(call("truncf", Variant::F64(0.1)).f32(), 0.1f);
  EXPECT_EQ(call("bitcast_i32_f32", Variant::I32(0x3F800000)).f32(), 1.0f);
  EXPECT_EQ(call("bitcast_f32_i32", Variant::F32(-2.0f)).i32(), std::bit_cast<int32_t>(-2.0f));
  EXPECT_EQ(call("bitcast_i64_f64", Variant::I64(0x4000000000000000LL)).f64(), 2.0);
  EXPECT_EQ(call("bitcast_f64_i64", Variant::F64(1.0)).i64(), 0x3FF0000000000000LL);
}

TEST(FloatTest, ConstantsOfEveryBank) {
  Compiled c = Compiled::FromText(R"mlir(
func.func @f(%x: f32, %y: f64) -> (f32, f64, i64, i1) {
  %a = arith.constant 0.25 : f32
  %b = arith.constant -1.5e300 : f64
  %c = arith.constant -123456789012 : i64
  %t = arith.constant true
  %r = arith.addf %x, %a : f32
  %s = arith.mulf %y, %b : f64
  return %r, %s, %c, %t : f32, f64, i64, i1
}
)mlir");
  ASSERT_TRUE(c.ok()) << c.error();
  auto r = c.Call("f", {Variant::F32(1.0f), Variant::F64(2.0)});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].f32(), 1.25f);
  EXPECT_EQ((*r)[1].f64(), -3e300);
  EXPECT_EQ((*r)[2].i64(), -123456789012LL);
  EXPECT_EQ((*r)[3].i32(), 1);
}

}  // namespace
}  // namespace kiln::compiler::testing
