// Tests of tools/common/value_parsing.h: literal parsing with and without a
// type prefix, integer ranges and overflow, floats, errors naming both types,
// list parsing with counts and positions, formatting, and comparison
// tolerances.
#include "tools/common/value_parsing.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "vm/list.h"

namespace kiln::tools {
namespace {

using vm::ValueType;
using vm::Variant;

Variant Parse(std::string_view text, ValueType expected) {
  auto value = ParseValue(text, expected);
  EXPECT_TRUE(value.ok()) << text << ": " << value.status().ToString();
  return value.ok() ? *value : Variant();
}

std::string ParseError(std::string_view text, ValueType expected) {
  auto value = ParseValue(text, expected);
  EXPECT_FALSE(value.ok()) << text << " parsed as " << (value.ok() ? value->ToString() : "");
  return value.ok() ? std::string() : value.status().message();
}

TEST(ValueParsingTest, UntypedLiteralsTakeTheSignatureType) {
  Variant i32 = Parse("5", ValueType::kI32);
  EXPECT_EQ(i32.type(), ValueType::kI32);
  EXPECT_EQ(i32.i32(), 5);
  Variant i64 = Parse("-3", ValueType::kI64);
  EXPECT_EQ(i64.type(), ValueType::kI64);
  EXPECT_EQ(i64.i64(), -3);
  Variant f32 = Parse("1.5", ValueType::kF32);
  EXPECT_EQ(f32.type(), ValueType::kF32);
  EXPECT_EQ(f32.f32(), 1.5f);
  Variant f64 = Parse("2.25", ValueType::kF64);
  EXPECT_EQ(f64.type(), ValueType::kF64);
  EXPECT_EQ(f64.f64(), 2.25);
  EXPECT_EQ(Parse("+7", ValueType::kI32).i32(), 7);
  EXPECT_EQ(Parse("3", ValueType::kF64).f64(), 3.0);
}

TEST(ValueParsingTest, TypedLiterals) {
  EXPECT_EQ(Parse("i32=5", ValueType::kI32).i32(), 5);
  EXPECT_EQ(Parse("i64=-3", ValueType::kI64).i64(), -3);
  EXPECT_EQ(Parse("f32=1.5", ValueType::kF32).f32(), 1.5f);
  EXPECT_EQ(Parse("f64=2.25", ValueType::kF64).f64(), 2.25);
  EXPECT_EQ(Parse("index=7", ValueType::kI64).i64(), 7);
  EXPECT_EQ(Parse("i1=1", ValueType::kI32).i32(), 1);
  EXPECT_EQ(Parse("i1=0", ValueType::kI32).i32(), 0);
  // Narrow integers take the signed or the unsigned range of their width and
  // are stored sign-extended.
  EXPECT_EQ(Parse("i8=-128", ValueType::kI32).i32(), -128);
  EXPECT_EQ(Parse("i8=127", ValueType::kI32).i32(), 127);
  EXPECT_EQ(Parse("i8=255", ValueType::kI32).i32(), -1);
  EXPECT_EQ(Parse("i8=200", ValueType::kI32).i32(), -56);
  EXPECT_EQ(Parse("i16=-32768", ValueType::kI32).i32(), -32768);
  EXPECT_EQ(Parse("i16=65535", ValueType::kI32).i32(), -1);
  EXPECT_EQ(Parse("i32=4294967295", ValueType::kI32).i32(), -1);
  EXPECT_EQ(Parse("i32=-2147483648", ValueType::kI32).i32(), std::numeric_limits<int32_t>::min());
  EXPECT_EQ(Parse("i64=-9223372036854775808", ValueType::kI64).i64(),
            std::numeric_limits<int64_t>::min());
  EXPECT_EQ(Parse("i64=18446744073709551615", ValueType::kI64).i64(), -1);
}

TEST(ValueParsingTest, IntegerRangeAndOverflow) {
  EXPECT_EQ(ParseError("i8=256", ValueType::kI32), "'i8=256' is out of range for i8");
  EXPECT_EQ(ParseError("i8=-129", ValueType::kI32), "'i8=-129' is out of range for i8");
  EXPECT_EQ(ParseError("i16=65536", ValueType::kI32), "'i16=65536' is out of range for i16");
  EXPECT_EQ(ParseError("4294967296", ValueType::kI32), "'4294967296' is out of range for i32");
  EXPECT_EQ(ParseError("-2147483649", ValueType::kI32), "'-2147483649' is out of range for i32");
  EXPECT_EQ(ParseError("i64=18446744073709551616", ValueType::kI64),
            "'i64=18446744073709551616' is out of range for i64");
  EXPECT_EQ(ParseError("-9223372036854775809", ValueType::kI64),
            "'-9223372036854775809' is out of range for i64");
  EXPECT_EQ(ParseError("i1=2", ValueType::kI32), "'i1=2' is out of range for i1 (0 or 1)");
  EXPECT_EQ(ParseError("i1=-1", ValueType::kI32), "'i1=-1' is out of range for i1 (0 or 1)");
}

TEST(ValueParsingTest, UnparsableValues) {
  EXPECT_EQ(ParseError("abc", ValueType::kI32), "'abc' is not a valid i32 value");
  EXPECT_EQ(ParseError("1.5", ValueType::kI32), "'1.5' is not a valid i32 value");
  EXPECT_EQ(ParseError("12abc", ValueType::kI64), "'12abc' is not a valid i64 value");
  EXPECT_EQ(ParseError(" 1", ValueType::kI32), "' 1' is not a valid i32 value");
  EXPECT_EQ(ParseError("+-1", ValueType::kI32), "'+-1' is not a valid i32 value");
  EXPECT_EQ(ParseError("--1", ValueType::kI32), "'--1' is not a valid i32 value");
  EXPECT_EQ(ParseError("f32=x", ValueType::kF32), "'f32=x' is not a valid f32 value");
  EXPECT_EQ(ParseError("1.5.2", ValueType::kF64), "'1.5.2' is not a valid f64 value");
  EXPECT_EQ(ParseError("+-1.5", ValueType::kF64), "'+-1.5' is not a valid f64 value");
  EXPECT_EQ(ParseError("", ValueType::kI32), "'' has no value");
  EXPECT_EQ(ParseError("i32=", ValueType::kI32), "'i32=' has no value");
  EXPECT_EQ(ParseError("q32=5", ValueType::kI32),
            "'q32=5': unknown value type 'q32' (expected i1, i8, i16, i32, i64, index, f32 or "
            "f64)");
}

TEST(ValueParsingTest, TypeMismatchNamesBothTypes) {
  EXPECT_EQ(ParseError("f32=1.5", ValueType::kI32),
            "'f32=1.5' has type f32 but the signature expects i32");
  EXPECT_EQ(ParseError("i32=1", ValueType::kI64),
            "'i32=1' has type i32 but the signature expects i64");
  EXPECT_EQ(ParseError("i8=1", ValueType::kF32),
            "'i8=1' has type i8 but the signature expects f32");
  EXPECT_EQ(ParseError("index=1", ValueType::kI32),
            "'index=1' has type index but the signature expects i32");
  EXPECT_EQ(ParseError("5", ValueType::kRef), "'5': values of type ref cannot be given as text");
}

TEST(ValueParsingTest, Floats) {
  EXPECT_EQ(Parse("f32=0.1", ValueType::kF32).f32(), 0.1f);
  EXPECT_EQ(Parse("-2.5e3", ValueType::kF64).f64(), -2500.0);
  EXPECT_TRUE(std::isinf(Parse("inf", ValueType::kF32).f32()));
  EXPECT_LT(Parse("f64=-inf", ValueType::kF64).f64(), 0);
  EXPECT_TRUE(std::isnan(Parse("nan", ValueType::kF64).f64()));
  EXPECT_EQ(ParseError("f32=1e39", ValueType::kF32), "'f32=1e39' is out of range for f32");
  EXPECT_EQ(ParseError("1e400", ValueType::kF64), "'1e400' is out of range for f64");
}

TEST(ValueParsingTest, ElementTypes) {
  for (std::string_view name : {"i1", "i8", "i16", "i32", "i64", "index", "f32", "f64"}) {
    auto type = ParseElementType(name);
    ASSERT_TRUE(type.ok()) << name;
    EXPECT_EQ(ElementTypeName(*type), name);
  }
  EXPECT_EQ(StorageType(ElementType::kI1), ValueType::kI32);
  EXPECT_EQ(StorageType(ElementType::kI16), ValueType::kI32);
  EXPECT_EQ(StorageType(ElementType::kIndex), ValueType::kI64);
  EXPECT_EQ(StorageType(ElementType::kF64), ValueType::kF64);
  EXPECT_FALSE(ParseElementType("8xf32").ok());
}

TEST(ValueParsingTest, FormatsLikeIreeRunModule) {
  EXPECT_EQ(FormatValue(Variant::I32(832040)), "i32=832040");
  EXPECT_EQ(FormatValue(Variant::I32(-7)), "i32=-7");
  EXPECT_EQ(FormatValue(Variant::I64(std::numeric_limits<int64_t>::min())),
            "i64=-9223372036854775808");
  EXPECT_EQ(FormatValue(Variant::F32(1.5f)), "f32=1.5");
  EXPECT_EQ(FormatValue(Variant::F32(0.1f)), "f32=0.1");
  EXPECT_EQ(FormatValue(Variant::F64(0.1 + 0.2)), "f64=0.30000000000000004");
  EXPECT_EQ(FormatValue(Variant::F64(1e100)), "f64=1e+100");
  EXPECT_EQ(FormatValue(Variant::F32(std::numeric_limits<float>::infinity())), "f32=inf");
  EXPECT_EQ(FormatValue(Variant::FromRef(vm::List::Create())), "vm.list");
  EXPECT_EQ(FormatValue(Variant::FromRef(nullptr)), "null");
  // Formatting then parsing gives back the same value.
  const float f = 3.14159274f;
  EXPECT_EQ(Parse(FormatValue(Variant::F32(f)), ValueType::kF32).f32(), f);
  const double d = 2.0 / 3.0;
  EXPECT_EQ(Parse(FormatValue(Variant::F64(d)), ValueType::kF64).f64(), d);
}

TEST(ValueParsingTest, Comparison) {
  EXPECT_TRUE(ValuesMatch(Variant::I32(5), Variant::I32(5)));
  EXPECT_FALSE(ValuesMatch(Variant::I32(5), Variant::I32(6)));
  EXPECT_FALSE(ValuesMatch(Variant::I32(5), Variant::I64(5)));
  EXPECT_TRUE(ValuesMatch(Variant::I64(-1), Variant::I64(-1)));
  // f32: 1e-5 relative to max(1, |expected|).
  EXPECT_TRUE(ValuesMatch(Variant::F32(1.0f), Variant::F32(1.000009f)));
  EXPECT_FALSE(ValuesMatch(Variant::F32(1.0f), Variant::F32(1.00002f)));
  EXPECT_TRUE(ValuesMatch(Variant::F32(0.0f), Variant::F32(5e-6f)));
  EXPECT_TRUE(ValuesMatch(Variant::F32(1000.0f), Variant::F32(1000.009f)));
  EXPECT_FALSE(ValuesMatch(Variant::F32(1000.0f), Variant::F32(1000.02f)));
  // f64: 1e-12 relative.
  EXPECT_TRUE(ValuesMatch(Variant::F64(0.3), Variant::F64(0.1 + 0.2)));
  EXPECT_FALSE(ValuesMatch(Variant::F64(0.3), Variant::F64(0.3 + 1e-11)));
  // NaN matches NaN only; infinities only themselves.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(ValuesMatch(Variant::F64(nan), Variant::F64(-nan)));
  EXPECT_FALSE(ValuesMatch(Variant::F64(nan), Variant::F64(1.0)));
  EXPECT_FALSE(ValuesMatch(Variant::F64(1.0), Variant::F64(nan)));
  EXPECT_TRUE(ValuesMatch(Variant::F64(inf), Variant::F64(inf)));
  EXPECT_FALSE(ValuesMatch(Variant::F64(inf), Variant::F64(-inf)));
  EXPECT_FALSE(ValuesMatch(Variant::F64(inf), Variant::F64(1e308)));
  EXPECT_TRUE(ValuesMatch(Variant::F32(std::numeric_limits<float>::quiet_NaN()),
                          Variant::F32(std::numeric_limits<float>::quiet_NaN())));
}

}  // namespace
}  // namespace kiln::tools
