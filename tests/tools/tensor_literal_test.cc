// Tensor literals (tools/common/tensor_literal.h): iree-run-module's input
// syntax, its printed form, and HostTensor comparison (host_tensor.h).
#include "tools/common/tensor_literal.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "tools/common/host_tensor.h"

namespace kiln::tools {
namespace {

using hal::ElementType;

HostTensor Parse(std::string_view text) {
  auto tensor = ParseTensorLiteral(text);
  EXPECT_TRUE(tensor.ok()) << text << ": " << tensor.status().ToString();
  return tensor.ok() ? *tensor : HostTensor{};
}

std::string ParseError(std::string_view text) {
  auto tensor = ParseTensorLiteral(text);
  EXPECT_FALSE(tensor.ok()) << text << " parsed as " << FormatTensor(*tensor);
  return tensor.ok() ? std::string() : tensor.status().message();
}

template <typename T>
std::vector<T> Elements(const HostTensor& tensor) {
  std::vector<T> values(tensor.bytes.size() / sizeof(T));
  if (!values.empty()) std::memcpy(values.data(), tensor.bytes.data(), tensor.bytes.size());
  return values;
}

template <typename T>
HostTensor Make(std::vector<int64_t> shape, ElementType type, std::vector<T> values) {
  auto tensor = HostTensor::FromBytes(
      std::move(shape), type,
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(values.data()),
                               values.size() * sizeof(T)));
  EXPECT_TRUE(tensor.ok()) << tensor.status().ToString();
  return *tensor;
}

TEST(TensorLiteralTest, IsTensorLiteral) {
  EXPECT_TRUE(IsTensorLiteral("8xf32=2"));
  EXPECT_TRUE(IsTensorLiteral("0x4xf32="));
  EXPECT_TRUE(IsTensorLiteral("2x2xf32=[[1 2][3 4]]"));
  EXPECT_FALSE(IsTensorLiteral("f32=1.5"));
  EXPECT_FALSE(IsTensorLiteral("5"));
  EXPECT_FALSE(IsTensorLiteral("i32=0x10"));  // An 'x' after the '=' is a value's.
  EXPECT_FALSE(IsTensorLiteral("@x.npy"));
  EXPECT_FALSE(IsTensorLiteral("index=100"));  // The 'x' of a type name.
  EXPECT_FALSE(IsTensorLiteral("x=1"));
}

TEST(TensorLiteralTest, Splat) {
  HostTensor t = Parse("8xf32=2");
  EXPECT_EQ(t.shape, (std::vector<int64_t>{8}));
  EXPECT_EQ(t.element_type, ElementType::kFloat32);
  EXPECT_EQ(Elements<float>(t), std::vector<float>(8, 2.0f));
  EXPECT_EQ(Elements<int16_t>(Parse("2x3xi16=-7")), std::vector<int16_t>(6, -7));
}

TEST(TensorLiteralTest, FlatValuesWithSpacesAndCommas) {
  HostTensor t = Parse("2x3xi32=1 2 3 4 5 6");
  EXPECT_EQ(t.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(t.element_type, ElementType::kInt32);
  EXPECT_EQ(Elements<int32_t>(t), (std::vector<int32_t>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(Parse("2x3xi32=1,2,3,4,5,6"), t);
  EXPECT_EQ(Parse("2x3xi32=1, 2 ,3,  4\t5\n6"), t);
}

TEST(TensorLiteralTest, Brackets) {
  HostTensor expected = Make<float>({2, 2}, ElementType::kFloat32, {1, 2, 3, 4});
  EXPECT_EQ(Parse("2x2xf32=[[1 2][3 4]]"), expected);
  EXPECT_EQ(Parse("2x2xf32=[[1, 2], [3, 4]]"), expected);
  EXPECT_EQ(Parse("2x2xf32=[1 2][3 4]"), expected);  // The printed form.
  EXPECT_EQ(Parse("4xi8=[1 2 3 4]"), Make<int8_t>({4}, ElementType::kInt8, {1, 2, 3, 4}));
  EXPECT_EQ(Parse("2x2x2xi32=[[1 2][3 4]][[5 6][7 8]]"),
            Make<int32_t>({2, 2, 2}, ElementType::kInt32, {1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(Parse("2x2x2xi32=[[[1,2],[3,4]],[[5,6],[7,8]]]"),
            Make<int32_t>({2, 2, 2}, ElementType::kInt32, {1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(Parse("2x0xf32=[][]").shape, (std::vector<int64_t>{2, 0}));
}

TEST(TensorLiteralTest, BracketErrors) {
  EXPECT_EQ(ParseError("2x2xf32=[[1 2][3 4]"),
            "'2x2xf32=[[1 2][3 4]': unbalanced brackets: 1 '[' not closed");
  EXPECT_EQ(ParseError("2x2xf32=[1 2]][3 4]"),
            "'2x2xf32=[1 2]][3 4]': unbalanced brackets: ']' without '['");
  EXPECT_EQ(ParseError("2x2xf32=[[1 2 3][4]]"),
            "'2x2xf32=[[1 2 3][4]]': a bracketed group has 3 element(s) but dimension 1 of "
            "2x2xf32 is 2");
  EXPECT_EQ(ParseError("2x2xf32=[[[1 2][3 4]]]"),
            "'2x2xf32=[[[1 2][3 4]]]': brackets nest 3 deep but 2x2xf32 has rank 2 "
            "(expected 2 or 1)");
  EXPECT_EQ(ParseError("2x2xf32=[1 2] 3 4"),
            "'2x2xf32=[1 2] 3 4': value '3' is outside the innermost brackets");
  EXPECT_EQ(ParseError("2x2xf32=[1 2][3 4][5 6]"),
            "'2x2xf32=[1 2][3 4][5 6]': 2x2xf32 needs 2 bracketed rows, got 3");
  EXPECT_EQ(ParseError("2x2xf32=[[1 2]][[3 4]]"),
            "'2x2xf32=[[1 2]][[3 4]]': a bracketed group has 1 element(s) but dimension 0 of "
            "2x2xf32 is 2");
  EXPECT_EQ(ParseError("2x2xf32=[[1 2][3 4]][[1 2][3 4]]"),
            "'2x2xf32=[[1 2][3 4]][[1 2][3 4]]': expected one bracketed group around all "
            "values");
  EXPECT_EQ(ParseError("4xf32=[2]"),
            "'4xf32=[2]': a bracketed group has 1 element(s) but dimension 0 of 4xf32 is 4");
}

TEST(TensorLiteralTest, ScalarsAndZeroD) {
  HostTensor t = Parse("f32=1.5");
  EXPECT_TRUE(t.shape.empty());
  EXPECT_EQ(t.element_count(), 1);
  EXPECT_EQ(Elements<float>(t), std::vector<float>{1.5f});
  EXPECT_EQ(Elements<int8_t>(Parse("4xi8=-1")), std::vector<int8_t>(4, -1));
  EXPECT_EQ(Elements<int64_t>(Parse("i64=-9223372036854775808")),
            std::vector<int64_t>{std::numeric_limits<int64_t>::min()});
  EXPECT_EQ(ParseError("f32=1 2"), "'f32=1 2': f32 needs 1 value, got 2");
}

TEST(TensorLiteralTest, EmptyTensors) {
  HostTensor t = Parse("0x4xf32=");
  EXPECT_EQ(t.shape, (std::vector<int64_t>{0, 4}));
  EXPECT_EQ(t.element_count(), 0);
  EXPECT_TRUE(t.bytes.empty());
  EXPECT_EQ(Parse("0xi32=").element_count(), 0);
  EXPECT_EQ(ParseError("0xf32=1"), "'0xf32=1': 0xf32 needs 0 values, got 1");
  // No values at all fill with zeros, as iree-run-module does.
  EXPECT_EQ(Elements<float>(Parse("3xf32=")), std::vector<float>(3, 0.0f));
}

TEST(TensorLiteralTest, CountMismatch) {
  EXPECT_EQ(ParseError("2x3xi32=1 2 3 4 5"), "'2x3xi32=1 2 3 4 5': 2x3xi32 needs 6 values, got 5");
  EXPECT_EQ(ParseError("2xi32=1 2 3"), "'2xi32=1 2 3': 2xi32 needs 2 values, got 3");
}

TEST(TensorLiteralTest, IntegerRanges) {
  EXPECT_EQ(Elements<uint8_t>(Parse("3xi8=-128 255 127")),
            (std::vector<uint8_t>{0x80, 0xFF, 0x7F}));
  EXPECT_EQ(Elements<int8_t>(Parse("2xsi8=-128 127")), (std::vector<int8_t>{-128, 127}));
  EXPECT_EQ(Elements<uint8_t>(Parse("2xui8=0 255")), (std::vector<uint8_t>{0, 255}));
  EXPECT_EQ(Elements<uint16_t>(Parse("2xui16=+65535 -0")), (std::vector<uint16_t>{65535, 0}));
  EXPECT_EQ(Elements<uint32_t>(Parse("i32=4294967295")), std::vector<uint32_t>{0xFFFFFFFFu});
  EXPECT_EQ(Elements<uint64_t>(Parse("ui64=18446744073709551615")),
            std::vector<uint64_t>{~uint64_t{0}});
  EXPECT_EQ(Elements<uint8_t>(Parse("3xi1=1 0 1")), (std::vector<uint8_t>{1, 0, 1}));

  EXPECT_EQ(ParseError("2xi8=1 256"), "'2xi8=1 256': '256' is out of range for i8");
  EXPECT_EQ(ParseError("i8=-129"), "'i8=-129': '-129' is out of range for i8");
  EXPECT_EQ(ParseError("si8=128"), "'si8=128': '128' is out of range for si8");
  EXPECT_EQ(ParseError("ui8=-1"), "'ui8=-1': '-1' is out of range for ui8");
  EXPECT_EQ(ParseError("i64=18446744073709551616"),
            "'i64=18446744073709551616': '18446744073709551616' is out of range for i64");
  EXPECT_EQ(ParseError("i1=2"), "'i1=2': '2' is out of range for i1 (0 or 1)");
  EXPECT_EQ(ParseError("2xi32=1 x"), "'2xi32=1 x': 'x' is not a valid i32 value");
  EXPECT_EQ(ParseError("i32=1.5"), "'i32=1.5': '1.5' is not a valid i32 value");
  EXPECT_EQ(ParseError("i32=+-1"), "'i32=+-1': '+-1' is not a valid i32 value");
}

TEST(TensorLiteralTest, Floats) {
  std::vector<double> d = Elements<double>(Parse("6xf64=0x1.8p1 -0X10p-4 nan inf -inf 1e-320"));
  EXPECT_EQ(d[0], 3.0);
  EXPECT_EQ(d[1], -1.0);
  EXPECT_TRUE(std::isnan(d[2]));
  EXPECT_EQ(d[3], INFINITY);
  EXPECT_EQ(d[4], -INFINITY);
  EXPECT_GT(d[5], 0.0);  // A subnormal, not an error.
  std::vector<float> f = Elements<float>(Parse("3xf32=0.1 -2.5e3 1e-50"));
  EXPECT_EQ(f[0], 0.1f);
  EXPECT_EQ(f[1], -2500.0f);
  EXPECT_EQ(f[2], 0.0f);  // Underflow rounds to zero.
  EXPECT_EQ(ParseError("f32=1e39"), "'f32=1e39': '1e39' is out of range for f32");
  EXPECT_EQ(ParseError("f64=1e400"), "'f64=1e400': '1e400' is out of range for f64");
  EXPECT_EQ(ParseError("f32=abc"), "'f32=abc': 'abc' is not a valid f32 value");
  EXPECT_EQ(ParseError("f32=1.5.2"), "'f32=1.5.2': '1.5.2' is not a valid f32 value");
  EXPECT_EQ(ParseError("f32=--1"), "'f32=--1': '--1' is not a valid f32 value");
}

TEST(TensorLiteralTest, HalfAndBFloat16RoundToNearestEven) {
  // f16: 1 + 2^-10 is the next value after 1; 1 + 2^-11 is halfway: ties to even (1).
  EXPECT_EQ(Elements<uint16_t>(Parse("4xf16=1 1.00048828125 1.0009765625 1.00146484375")),
            (std::vector<uint16_t>{0x3C00, 0x3C00, 0x3C01, 0x3C02}));
  EXPECT_EQ(Elements<uint16_t>(Parse("5xf16=65504 -2 0.1 6e-8 nan")),
            (std::vector<uint16_t>{0x7BFF, 0xC000, 0x2E66, 0x0001, 0x7E00}));
  EXPECT_EQ(Elements<uint16_t>(Parse("2xf16=inf -inf")), (std::vector<uint16_t>{0x7C00, 0xFC00}));
  // Decimals just off a halfway point that the nearest double rounds onto it.
  EXPECT_EQ(Elements<uint16_t>(Parse("3xf16=1.0004882812500001 1.00146484374999999 "
                                     "-1.0004882812500001")),
            (std::vector<uint16_t>{0x3C01, 0x3C01, 0xBC01}));
  EXPECT_EQ(Elements<uint16_t>(Parse("bf16=1.0039062500000001")), std::vector<uint16_t>{0x3F81});
  EXPECT_EQ(ParseError("f16=65520"), "'f16=65520': '65520' is out of range for f16");
  EXPECT_EQ(Elements<uint16_t>(Parse("f16=65519")), std::vector<uint16_t>{0x7BFF});
  // bf16: 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even (1).
  EXPECT_EQ(Elements<uint16_t>(Parse("4xbf16=1 1.00390625 1.01171875 0.1")),
            (std::vector<uint16_t>{0x3F80, 0x3F80, 0x3F82, 0x3DCD}));
  EXPECT_EQ(HalfToFloat(0x3555), 0.333251953125f);
  EXPECT_EQ(HalfToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(BFloat16ToFloat(0xC040), -3.0f);
  EXPECT_TRUE(std::isnan(BFloat16ToFloat(FloatToBFloat16(NAN))));
  EXPECT_EQ(FloatToHalf(1e-9f), 0);
  EXPECT_EQ(FloatToHalf(-1e-9f), 0x8000);
}

TEST(TensorLiteralTest, TypeAndShapeErrors) {
  EXPECT_EQ(ParseError("2x3xf33=1"),
            "'2x3xf33=1': unknown element type 'f33' (accepted: i1, i8, i16, i32, i64, si8, si16, "
            "si32, si64, ui8, ui16, ui32, ui64, f16, f32, f64, bf16)");
  EXPECT_EQ(ParseError("2xax3xf32=1"),
            "'2xax3xf32=1': bad dimension 'a' in shape '2xax3' (dimensions are non-negative "
            "integers)");
  EXPECT_EQ(ParseError("2xx3xf32=1"),
            "'2xx3xf32=1': bad dimension '' in shape '2xx3' (dimensions are non-negative "
            "integers)");
  EXPECT_EQ(ParseError("-2xf32=1"),
            "'-2xf32=1': bad dimension '-2' in shape '-2' (dimensions are non-negative integers)");
  EXPECT_EQ(ParseError("?xf32=1"),
            "'?xf32=1': bad dimension '?' in shape '?' (dimensions are non-negative integers)");
  EXPECT_EQ(ParseError("2x3xf32"),
            "'2x3xf32': no '=' (expected SHAPExTYPE=VALUES, e.g. 2x3xf32=1 2 3 4 5 6)");
  EXPECT_EQ(ParseError("1000000x1000000x1000000xf32=0"),
            "'1000000x1000000x1000000xf32=0': a tensor of shape 1000000x1000000x1000000 would "
            "exceed the 16 GiB limit of host tensors");
  EXPECT_EQ(ParseError("99999999999999999999xf32=0"),
            "'99999999999999999999xf32=0': bad dimension '99999999999999999999' in shape "
            "'99999999999999999999' (dimensions are non-negative integers)");
}

TEST(TensorLiteralTest, LongLiteralsAreCutInErrors) {
  std::string text = "100xi32=";
  for (int i = 0; i < 99; ++i) text += std::to_string(i) + " ";
  const std::string message = ParseError(text);
  EXPECT_EQ(message, "'" + text.substr(0, 64) + "...': 100xi32 needs 100 values, got 99");
}

TEST(TensorFormatTest, LikeIreeRunModule) {
  EXPECT_EQ(FormatTensor(Parse("8xf32=96")), "8xf32=96 96 96 96 96 96 96 96");
  EXPECT_EQ(FormatTensor(Parse("f32=1.5")), "f32=1.5");
  EXPECT_EQ(FormatTensor(Parse("2x2xi32=1 2 3 4")), "2x2xi32=[1 2][3 4]");
  EXPECT_EQ(FormatTensor(Parse("2x2x2xi32=1 2 3 4 5 6 7 8")), "2x2x2xi32=[[1 2][3 4]][[5 6][7 8]]");
  EXPECT_EQ(FormatTensor(Parse("0x4xf32=")), "0x4xf32=");
  EXPECT_EQ(FormatTensor(Parse("0xf32=")), "0xf32=");
  EXPECT_EQ(FormatTensor(Parse("2x0xf32=")), "2x0xf32=[][]");
  EXPECT_EQ(FormatTensor(Parse("3xi8=-1 127 -128")), "3xi8=-1 127 -128");
  EXPECT_EQ(FormatTensor(Parse("2xui8=255 0")), "2xui8=255 0");
  EXPECT_EQ(FormatTensor(Parse("ui64=18446744073709551615")), "ui64=18446744073709551615");
  EXPECT_EQ(FormatTensor(Parse("2xi1=1 0")), "2xi1=1 0");
}

TEST(TensorFormatTest, FloatsUsePrintfG) {
  EXPECT_EQ(FormatTensor(Parse("8xf32=0.1 1e10 -2.5 1e-5 123456789 nan inf -inf")),
            "8xf32=0.1 1E+10 -2.5 1E-05 1.23457E+08 NAN INF -INF");
  EXPECT_EQ(FormatTensor(Parse("2xf64=0.30000000000000004 100000")), "2xf64=0.3 100000");
  EXPECT_EQ(FormatTensor(Parse("2xf16=0.1 -3")), "2xf16=0.0999756 -3");
  EXPECT_EQ(FormatTensor(Parse("bf16=0.1")), "bf16=0.100098");
}

TEST(TensorFormatTest, ShortestNotation) {
  TensorFormatOptions options;
  options.float_notation = FloatNotation::kShortest;
  EXPECT_EQ(FormatTensor(Parse("3xf64=0.30000000000000004 1e10 nan"), options),
            "3xf64=0.30000000000000004 1e+10 nan");
  EXPECT_EQ(FormatTensor(Parse("2xf32=0.1 123456789"), options), "2xf32=0.1 123456792");
  EXPECT_EQ(FormatTensor(Parse("f16=0.1"), options), "f16=0.099975586");
}

TEST(TensorFormatTest, MaxElementCountElides) {
  TensorFormatOptions options;
  options.max_element_count = 4;
  EXPECT_EQ(FormatTensor(Parse("8xf32=1"), options), "8xf32=1 1 1 1...");
  EXPECT_EQ(FormatTensor(Parse("2x3xi32=1 2 3 4 5 6"), options), "2x3xi32=[1 2 3][4...]");
  EXPECT_EQ(FormatTensor(Parse("3x2xi32=1 2 3 4 5 6"), options), "3x2xi32=[1 2][3 4][...]");
  options.max_element_count = 0;
  EXPECT_EQ(FormatTensor(Parse("f32=1"), options), "f32=...");
  // The default is iree's 1024.
  const std::string all = FormatTensor(Parse("1025xi8=7"));
  EXPECT_EQ(all.substr(all.size() - 7), " 7 7...");
  EXPECT_EQ(FormatTensor(Parse("1024xi8=7")).substr(FormatTensor(Parse("1024xi8=7")).size() - 2),
            " 7");
}

TEST(TensorFormatTest, RoundTrip) {
  TensorFormatOptions shortest;
  shortest.float_notation = FloatNotation::kShortest;
  for (const char* text :
       {"f32=1.5", "8xf32=2", "2x3xi32=1 -2 3 4 5 6",
        "2x2x2xi64=1 2 3 4 5 6 7 -9223372036854775808", "0x4xf32=", "2x0xi8=", "3xi1=1 0 1",
        "2xsi16=-32768 32767", "2xui32=4294967295 0", "4xf16=0.1 -65504 6e-8 inf",
        "3xbf16=0.1 -3 1e38", "2xf64=0.30000000000000004 -1e-300",
        "4xf32=0.1 3.4028235e38 1e-45 -0"}) {
    HostTensor tensor = Parse(text);
    EXPECT_EQ(Parse(FormatTensor(tensor, shortest)), tensor) << text;
  }
  // iree's %G text reads back exactly for values with at most 6 digits.
  HostTensor simple = Parse("2x2xf32=1.5 -96 0.25 1e+10");
  EXPECT_EQ(Parse(FormatTensor(simple)), simple);
  HostTensor special = Parse("3xf64=nan inf -inf");
  EXPECT_TRUE(TensorsMatch(Parse(FormatTensor(special)), special));
}

TEST(HostTensorTest, ZerosAndFromBytes) {
  auto zeros = HostTensor::Zeros({2, 3}, ElementType::kFloat64);
  ASSERT_TRUE(zeros.ok());
  EXPECT_EQ(zeros->bytes.size(), 48u);
  EXPECT_EQ(zeros->element_count(), 6);
  auto negative = HostTensor::Zeros({2, -1}, ElementType::kFloat32);
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.status().message(), "dimension 1 of the shape is negative (-1)");
  auto none = HostTensor::Zeros({2}, ElementType::kNone);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(), "unsupported element type 0x00000000");
  EXPECT_EQ(FormatTensor(HostTensor{}), "none=<unsupported element type>");
  HostTensor bad_size = *HostTensor::Zeros({2}, ElementType::kInt32);
  bad_size.bytes.pop_back();
  EXPECT_EQ(FormatTensor(bad_size), "2xi32=<data does not match the shape>");
  EXPECT_EQ(*HostTensor::Zeros({}, ElementType::kFloat32), Parse("f32=0"));
  const uint8_t bytes[3] = {1, 2, 3};
  auto short_bytes = HostTensor::FromBytes({2}, ElementType::kInt16, bytes);
  ASSERT_FALSE(short_bytes.ok());
  EXPECT_EQ(short_bytes.status().message(), "2xi16 needs 4 bytes, got 3");
  EXPECT_EQ(FormatShapeAndType({}, ElementType::kBFloat16), "bf16");
  EXPECT_EQ(FormatShapeAndType(std::vector<int64_t>{0, 4}, ElementType::kUint8), "0x4xui8");
}

TEST(HostTensorTest, ElementAccessors) {
  HostTensor t = Parse("4xi8=-1 2 255 -128");
  EXPECT_EQ(t.ElementAsInt64(0), -1);
  EXPECT_EQ(t.ElementAsInt64(2), -1);  // Signless reads as signed.
  EXPECT_EQ(t.ElementAsDouble(3), -128.0);
  HostTensor u = Parse("2xui8=255 1");
  EXPECT_EQ(u.ElementAsInt64(0), 255);
  EXPECT_EQ(u.ElementAsDouble(0), 255.0);
  HostTensor h = Parse("f16=-2.5");
  EXPECT_EQ(h.ElementAsDouble(0), -2.5);
  EXPECT_EQ(h.ElementAsInt64(0), -2);
  EXPECT_EQ(Parse("f32=nan").ElementAsInt64(0), 0);
  EXPECT_EQ(Parse("f64=1e300").ElementAsInt64(0), 0);
  EXPECT_EQ(Parse("ui64=18446744073709551615").ElementAsUint64(0), ~uint64_t{0});
}

TEST(HostTensorTest, IntegersMatchExactly) {
  EXPECT_TRUE(TensorsMatch(Parse("2x2xi32=1 2 3 4"), Parse("2x2xi32=[1 2][3 4]")));
  EXPECT_EQ(DescribeMismatch(Parse("2x3xi32=1 2 3 4 5 6"), Parse("2x3xi32=1 2 3 4 5 7")),
            "element [1, 2]: expected 6 but got 7");
  EXPECT_EQ(DescribeMismatch(Parse("2x3xi32=1"), Parse("3x2xi32=1")),
            "expected 2x3xi32 but got 3x2xi32");
  EXPECT_EQ(DescribeMismatch(Parse("2xi32=1"), Parse("2xi64=1")), "expected 2xi32 but got 2xi64");
  EXPECT_EQ(DescribeMismatch(Parse("i8=-1"), Parse("i8=255")), std::nullopt);  // Same bits.
  EXPECT_TRUE(TensorsMatch(Parse("0x3xi32="), Parse("0x3xi32=")));
}

TEST(HostTensorTest, FloatsMatchWithinTolerance) {
  // f32: |actual - expected| <= 1e-5 + 1e-5 * |expected|.
  EXPECT_TRUE(TensorsMatch(Parse("2xf32=3 1000"), Parse("2xf32=3.00001 1000.01")));
  EXPECT_EQ(DescribeMismatch(Parse("2xf32=3 1000"), Parse("2xf32=3.0001 1000")),
            "element [0]: expected 3 but got 3.0001");
  EXPECT_TRUE(TensorsMatch(Parse("f64=0.3"), Parse("f64=0.30000000000000004")));
  EXPECT_FALSE(TensorsMatch(Parse("f64=0.3"), Parse("f64=0.3000001")));
  EXPECT_TRUE(TensorsMatch(Parse("f16=0.1"), Parse("f16=0.1001")));
  // NaN matches NaN; infinities only themselves.
  EXPECT_TRUE(TensorsMatch(Parse("3xf32=nan inf -inf"), Parse("3xf32=-nan inf -inf")));
  EXPECT_EQ(DescribeMismatch(Parse("f32=inf"), Parse("f32=3.4e38")),
            "element []: expected inf but got 3.4e+38");
  EXPECT_FALSE(TensorsMatch(Parse("f32=1"), Parse("f32=nan")));
  // An explicit tolerance.
  EXPECT_TRUE(TensorsMatch(Parse("f32=1"), Parse("f32=1.5"), Tolerance{0.5, 0}));
  EXPECT_FALSE(TensorsMatch(Parse("f32=1"), Parse("f32=1.5"), Tolerance{0.1, 0.1}));
}

}  // namespace
}  // namespace kiln::tools
