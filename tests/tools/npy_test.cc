// .npy reading and writing (tools/common/npy.h).
#include "tools/common/npy.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "base/file_io.h"
#include "tools/common/tensor_literal.h"

namespace kiln::tools {
namespace {

using hal::ElementType;

std::span<const uint8_t> Bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// A file laid out byte for byte as numpy.save writes it: magic, version,
// little-endian header length, the dict, space padding, '\n', the data.
std::string NumpyFile(int major, std::string_view dict, size_t padding, std::string data) {
  std::string header = std::string(dict) + std::string(padding, ' ') + "\n";
  std::string file = "\x93NUMPY";
  file += static_cast<char>(major);
  file += '\0';
  const size_t length_bytes = major == 1 ? 2 : 4;
  for (size_t i = 0; i < length_bytes; ++i) file += static_cast<char>(header.size() >> (8 * i));
  return file + header + data;
}

template <typename T>
std::string Raw(std::initializer_list<T> values) {
  std::string bytes(values.size() * sizeof(T), '\0');
  std::memcpy(bytes.data(), std::data(values), bytes.size());
  return bytes;
}

// numpy.save(f, numpy.arange(6, dtype=numpy.float32).reshape(2, 3))
const std::string kF32Matrix =
    NumpyFile(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 58,
              Raw<float>({0, 1, 2, 3, 4, 5}));
// numpy.save(f, numpy.int64(-42))
const std::string kI64Scalar = NumpyFile(
    1, "{'descr': '<i8', 'fortran_order': False, 'shape': (), }", 62, Raw<int64_t>({-42}));
// numpy.save(f, numpy.array([True, False, True, True, False]))
const std::string kBoolVector =
    NumpyFile(1, "{'descr': '|b1', 'fortran_order': False, 'shape': (5,), }", 60,
              std::string("\x01\x00\x01\x01\x00", 5));

HostTensor ReadOk(const std::string& file) {
  auto tensor = ReadNpy(Bytes(file));
  EXPECT_TRUE(tensor.ok()) << tensor.status().ToString();
  return tensor.ok() ? *tensor : HostTensor{};
}

std::string ReadError(const std::string& file) {
  auto tensor = ReadNpy(Bytes(file));
  EXPECT_FALSE(tensor.ok());
  return tensor.ok() ? std::string() : tensor.status().message();
}

HostTensor Literal(std::string_view text) {
  auto tensor = ParseTensorLiteral(text);
  EXPECT_TRUE(tensor.ok()) << tensor.status().ToString();
  return tensor.ok() ? *tensor : HostTensor{};
}

TEST(NpyTest, ReadsNumpyFiles) {
  EXPECT_EQ(kF32Matrix.size(), 128u + 24u);  // numpy aligns the data to 64 bytes.
  EXPECT_EQ(ReadOk(kF32Matrix), Literal("2x3xf32=0 1 2 3 4 5"));
  EXPECT_EQ(ReadOk(kI64Scalar), Literal("i64=-42"));
  EXPECT_EQ(ReadOk(kBoolVector), Literal("5xi1=1 0 1 1 0"));
}

TEST(NpyTest, ReadsVersion2AndOldPadding) {
  // Version 2.0: a 32-bit header length.
  EXPECT_EQ(ReadOk(NumpyFile(2, "{'descr': '<u2', 'fortran_order': False, 'shape': (3,), }", 58,
                             Raw<uint16_t>({1, 65535, 7}))),
            Literal("3xui16=1 65535 7"));
  // Old NumPy versions aligned to 16 bytes; other key orders and spacing and
  // double quotes are Python literals too.
  EXPECT_EQ(ReadOk(NumpyFile(1, "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", 12,
                             Raw<int32_t>({-1, 2}))),
            Literal("2xi32=-1 2"));
  EXPECT_EQ(ReadOk(NumpyFile(1, "{\"shape\":(2,1),\"fortran_order\":False,\"descr\":\"<f8\"}", 0,
                             Raw<double>({0.5, -1}))),
            Literal("2x1xf64=0.5 -1"));
}

TEST(NpyTest, EveryDtype) {
  const struct {
    const char* descr;
    ElementType type;
  } cases[] = {
      {"<f2", ElementType::kFloat16}, {"<f4", ElementType::kFloat32},
      {"<f8", ElementType::kFloat64}, {"|i1", ElementType::kInt8},
      {"<i1", ElementType::kInt8},    {"<i2", ElementType::kInt16},
      {"<i4", ElementType::kInt32},   {"<i8", ElementType::kInt64},
      {"|u1", ElementType::kUint8},   {"<u2", ElementType::kUint16},
      {"<u4", ElementType::kUint32},  {"<u8", ElementType::kUint64},
      {"|b1", ElementType::kBool},
  };
  for (const auto& c : cases) {
    const size_t size = hal::ElementByteSize(c.type);
    const std::string dict =
        "{'descr': '" + std::string(c.descr) + "', 'fortran_order': False, 'shape': (2,), }";
    HostTensor tensor = ReadOk(NumpyFile(1, dict, 0, std::string(2 * size, '\x01')));
    EXPECT_EQ(tensor.element_type, c.type) << c.descr;
    EXPECT_EQ(tensor.shape, (std::vector<int64_t>{2})) << c.descr;
  }
}

TEST(NpyTest, WriteMatchesNumpyByteForByte) {
  auto f32 = WriteNpy(Literal("2x3xf32=0 1 2 3 4 5"));
  ASSERT_TRUE(f32.ok());
  EXPECT_EQ(std::string(f32->begin(), f32->end()), kF32Matrix);
  auto i64 = WriteNpy(Literal("i64=-42"));
  ASSERT_TRUE(i64.ok());
  EXPECT_EQ(std::string(i64->begin(), i64->end()), kI64Scalar);
  auto b1 = WriteNpy(Literal("5xi1=1 0 1 1 0"));
  ASSERT_TRUE(b1.ok());
  EXPECT_EQ(std::string(b1->begin(), b1->end()), kBoolVector);
}

TEST(NpyTest, RoundTrip) {
  for (const char* text :
       {"f32=1.5", "8xf32=2", "2x3xi32=1 -2 3 4 5 6", "2x2x2xi64=1 2 3 4 5 6 7 8",
        "0x4xf32=", "3xi1=1 0 1", "2xi8=-1 127", "2xsi16=-32768 32767", "2xui32=4294967295 0",
        "4xf16=0.1 -65504 6e-8 inf", "2xf64=0.30000000000000004 nan", "2xui8=0 255",
        "2xui64=18446744073709551615 1"}) {
    HostTensor tensor = Literal(text);
    auto bytes = WriteNpy(tensor);
    ASSERT_TRUE(bytes.ok()) << text;
    EXPECT_EQ(bytes->size() % 64, tensor.bytes.size() % 64) << text;  // Data 64-byte aligned.
    auto back = ReadNpy(*bytes);
    ASSERT_TRUE(back.ok()) << text << ": " << back.status().ToString();
    HostTensor expected = tensor;
    // Signed integers come back signless: NumPy's <iN does not tell them apart.
    if (hal::ElementKind(expected.element_type) == hal::NumericalKind::kIntegerSigned) {
      expected.element_type =
          static_cast<ElementType>((static_cast<uint32_t>(hal::NumericalKind::kInteger) << 24) |
                                   hal::ElementBitWidth(expected.element_type));
    }
    EXPECT_EQ(*back, expected) << text;
  }
}

TEST(NpyTest, LargeHeaderUsesVersion2) {
  std::string text;
  for (int i = 0; i < 25000; ++i) text += "1x";
  text += "f32=3";
  HostTensor tensor = Literal(text);
  auto bytes = WriteNpy(tensor);
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ((*bytes)[6], 2);
  EXPECT_EQ(bytes->size() % 64, 4u);
  // 25000 dimensions exceed the reader's limit of 64: a clear error.
  auto back = ReadNpy(*bytes);
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.status().message().find("more than 64 dimensions"), std::string::npos);
}

TEST(NpyTest, Bf16CannotBeWritten) {
  auto bytes = WriteNpy(Literal("bf16=1"));
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.status().message(),
            "bf16 tensors cannot be written as .npy (NumPy has no such dtype)");
}

TEST(NpyTest, FortranOrder) {
  EXPECT_EQ(ReadError(NumpyFile(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", 0,
                                Raw<float>({0, 1, 2, 3, 4, 5}))),
            ".npy array 2x3xf32 is in Fortran order (fortran_order: True); only C order is "
            "supported (save a C-contiguous array, e.g. numpy.ascontiguousarray)");
  // One non-trivial dimension: both orders are the same bytes.
  EXPECT_EQ(ReadOk(NumpyFile(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (1, 3), }", 0,
                             Raw<float>({1, 2, 3}))),
            Literal("1x3xf32=1 2 3"));
}

TEST(NpyTest, UnsupportedDtypes) {
  EXPECT_EQ(ReadError(NumpyFile(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", 0,
                                Raw<float>({1}))),
            "big-endian .npy dtype '>f4' is not supported (save with '<' byte order)");
  EXPECT_EQ(ReadError(NumpyFile(1, "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", 0,
                                Raw<float>({1, 2}))),
            "unsupported .npy dtype '<c8' (supported: <f2 <f4 <f8 |b1 |i1 <i2 <i4 <i8 |u1 <u2 "
            "<u4 <u8)");
  EXPECT_EQ(ReadError(NumpyFile(1,
                                "{'descr': [('a', '<f4')], 'fortran_order': False, "
                                "'shape': (1,), }",
                                0, Raw<float>({1}))),
            "malformed .npy header at character 10: expected a quoted string");
}

TEST(NpyTest, TruncatedAndCorruptFiles) {
  EXPECT_EQ(ReadError(""), "not a .npy file (no \\x93NUMPY magic)");
  EXPECT_EQ(ReadError("PK\x03\x04 not numpy"), "not a .npy file (no \\x93NUMPY magic)");
  EXPECT_EQ(ReadError(kF32Matrix.substr(0, 8)),
            "truncated .npy file: 8 bytes end inside the header length");
  EXPECT_EQ(ReadError(kF32Matrix.substr(0, 60)),
            "truncated .npy file: the header needs 118 bytes, 50 remain");
  EXPECT_EQ(ReadError(kF32Matrix.substr(0, kF32Matrix.size() - 1)),
            "truncated .npy file: 2x3xf32 needs 24 bytes of data, the file has 23");
  EXPECT_EQ(ReadError(kF32Matrix + "x"),
            "corrupt .npy file: 2x3xf32 needs 24 bytes of data, the file has 25");
  std::string version = kF32Matrix;
  version[6] = 9;
  EXPECT_EQ(ReadError(version), "unsupported .npy version 9.0 (supported: 1.0, 2.0, 3.0)");
  std::string bool_value = kBoolVector;
  bool_value.back() = 7;
  EXPECT_EQ(ReadError(bool_value), "corrupt .npy file: bool element 4 is 7, not 0 or 1");
  EXPECT_EQ(ReadError(NumpyFile(1, "{'descr': '<f4', 'shape': (1,), }", 0, Raw<float>({1}))),
            "malformed .npy header: no 'fortran_order'");
  EXPECT_EQ(ReadError(NumpyFile(1, "{'descr': '<f4', 'fortran_order': False}", 0, "")),
            "malformed .npy header: no 'shape'");
  EXPECT_EQ(ReadError(NumpyFile(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,)", 0,
                                Raw<float>({1}))),
            "malformed .npy header at character 55: expected ',' or '}'");
  EXPECT_EQ(ReadError(NumpyFile(1, "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (1,)}", 0,
                                Raw<float>({1}))),
            "malformed .npy header at character 34: fortran_order must be True or False");
  EXPECT_EQ(
      ReadError(NumpyFile(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}", 0, "")),
      "malformed .npy header at character 51: bad dimension in shape");
  EXPECT_EQ(ReadError(NumpyFile(1,
                                "{'descr': '<f4', 'fortran_order': False, 'shape': "
                                "(99999999999, 99999999999)}",
                                0, "")),
            "a tensor of shape 99999999999x99999999999 would exceed the 16 GiB limit of host "
            "tensors");
  EXPECT_EQ(ReadError(NumpyFile(1,
                                "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), "
                                "'extra': 1}",
                                0, Raw<float>({1}))),
            "malformed .npy header at character 65: unknown key 'extra'");
  EXPECT_EQ(ReadError(NumpyFile(1, "{'descr': '<f4", 0, "")),
            "malformed .npy header at character 11: unterminated string");

  // Every prefix of a valid file is an error, never a crash.
  for (size_t n = 0; n < kF32Matrix.size(); ++n) {
    EXPECT_FALSE(ReadNpy(Bytes(kF32Matrix.substr(0, n))).ok()) << n;
  }
  // And every single-byte corruption of the header either reads or errors.
  for (size_t i = 0; i < 128; ++i) {
    for (int v : {0, 0x7F, 0xFF, int{'('}, int{')'}, int{'\''}, int{','}}) {
      std::string corrupt = kF32Matrix;
      corrupt[i] = static_cast<char>(v);
      (void)ReadNpy(Bytes(corrupt));
    }
  }
}

TEST(NpyTest, Files) {
  const std::string path =
      ::testing::TempDir() + "/kiln_npy_test_" + std::to_string(getpid()) + ".npy";
  HostTensor tensor = Literal("2x2xf32=[[1 2][3 4]]");
  ASSERT_TRUE(WriteNpyFile(path, tensor).ok());
  auto back = ReadNpyFile(path);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, tensor);
  ASSERT_TRUE(WriteFile(path, Bytes(kF32Matrix.substr(0, 20))).ok());
  auto truncated = ReadNpyFile(path);
  ASSERT_FALSE(truncated.ok());
  EXPECT_EQ(truncated.status().message(),
            "'" + path + "': truncated .npy file: the header needs 118 bytes, 10 remain");
  std::remove(path.c_str());
  auto missing = ReadNpyFile(path);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find(path), std::string::npos);
}

// Arrays written one after another (numpy.save on an open file, or
// AppendNpyFile) are read one at a time with ReadNpyArray.
TEST(NpyTest, ConsecutiveArrays) {
  const std::string both = kF32Matrix + kI64Scalar;
  size_t consumed = 0;
  auto first = ReadNpyArray(Bytes(both), &consumed);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(consumed, kF32Matrix.size());
  auto second = ReadNpyArray(Bytes(both).subspan(consumed), &consumed);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(second->ElementAsInt64(0), -42);
  EXPECT_EQ(consumed, kI64Scalar.size());
  // ReadNpy insists on exactly one array.
  auto whole = ReadNpy(Bytes(both));
  ASSERT_FALSE(whole.ok());
  EXPECT_NE(whole.status().message().find("corrupt .npy file: 2x3xf32 needs 24 bytes of data"),
            std::string::npos)
      << whole.status().message();
  // A truncated second array is still an error.
  auto cut = ReadNpyArray(Bytes(kF32Matrix.substr(0, kF32Matrix.size() - 1)), &consumed);
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.status().message().find("truncated"), std::string::npos);
}

TEST(NpyTest, AppendFile) {
  const std::string path =
      ::testing::TempDir() + "/kiln_npy_append_" + std::to_string(getpid()) + ".npy";
  std::remove(path.c_str());
  const HostTensor a = Literal("2xi32=1 2");
  const HostTensor b = Literal("f64=0.5");
  ASSERT_TRUE(AppendNpyFile(path, a).ok());  // Creates the file.
  ASSERT_TRUE(AppendNpyFile(path, b).ok());
  auto file = ReadFile(path);
  ASSERT_TRUE(file.ok());
  size_t consumed = 0;
  auto first = ReadNpyArray(file->span(), &consumed);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(*first, a);
  auto second = ReadNpyArray(file->span().subspan(consumed), &consumed);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(*second, b);
  // Writing starts the file over.
  ASSERT_TRUE(WriteNpyFile(path, b).ok());
  auto rewritten = ReadNpyFile(path);
  ASSERT_TRUE(rewritten.ok());
  EXPECT_EQ(*rewritten, b);
  std::remove(path.c_str());
  const Status bad = AppendFile(::testing::TempDir() + "/no_such_dir/x.npy", Bytes("x"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("cannot open"), std::string::npos) << bad.message();
}

}  // namespace
}  // namespace kiln::tools
