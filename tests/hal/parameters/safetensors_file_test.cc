// The safetensors reader: a good file (every dtype, metadata, empty and
// scalar tensors) and each kind of malformed or hostile file, which must be
// an error naming the file and what is wrong, never a crash or a tensor
// outside the file.
#include "hal/parameters/safetensors_file.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "tests/hal/parameters/safetensors_test_file.h"

namespace kiln::hal {
namespace {

using testing::BytesOf;
using testing::SafetensorsBytes;

#define EXPECT_CONTAINS(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << (text)

Result<std::unique_ptr<SafetensorsFile>> ParseText(std::string_view header,
                                                   const std::vector<uint8_t>& data,
                                                   std::vector<uint8_t>* storage) {
  *storage = SafetensorsBytes(header, data);
  return SafetensorsFile::Parse(*storage, "w.safetensors");
}

// The message of parsing `header` + `data`, which must fail.
std::string ParseError(std::string_view header, const std::vector<uint8_t>& data = {}) {
  std::vector<uint8_t> storage;
  auto file = ParseText(header, data, &storage);
  EXPECT_FALSE(file.ok()) << header;
  return file.ok() ? "" : file.status().ToString();
}

TEST(SafetensorsFileTest, ReadsTensorsAndMetadata) {
  std::vector<uint8_t> data = BytesOf<float>({1.5f, -2.0f});
  const std::vector<uint8_t> ints = BytesOf<int64_t>({7, -8, 9});
  data.insert(data.end(), ints.begin(), ints.end());
  data.push_back(1);  // BOOL [1]
  std::vector<uint8_t> storage;
  auto file = ParseText(
      R"({"__metadata__": {"format": "pt"},
          "w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
          "n": {"dtype": "I64", "shape": [1, 3], "data_offsets": [8, 32]},
          "flag": {"dtype": "BOOL", "shape": [1], "data_offsets": [32, 33]},
          "empty": {"dtype": "F16", "shape": [0, 4], "data_offsets": [33, 33]}}   )",
      data, &storage);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_EQ((*file)->path(), "w.safetensors");
  EXPECT_EQ((*file)->tensors().size(), 4u);
  const SafetensorsTensor* w = (*file)->Find("w");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->dtype, "F32");
  EXPECT_EQ(w->element_type, ElementType::kFloat32);
  EXPECT_EQ(w->shape, std::vector<int64_t>({2}));
  ASSERT_EQ(w->bytes.size(), 8u);
  float values[2];
  std::memcpy(values, w->bytes.data(), 8);
  EXPECT_EQ(values[0], 1.5f);
  EXPECT_EQ(values[1], -2.0f);
  const SafetensorsTensor* n = (*file)->Find("n");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->element_type, ElementType::kSint64);
  EXPECT_EQ(n->shape, std::vector<int64_t>({1, 3}));
  EXPECT_EQ(n->bytes.data(), w->bytes.data() + 8);
  EXPECT_EQ((*file)->Find("flag")->element_type, ElementType::kBool);
  EXPECT_EQ((*file)->Find("empty")->bytes.size(), 0u);
  EXPECT_EQ((*file)->Find("missing"), nullptr);
  EXPECT_EQ((*file)->Find("__metadata__"), nullptr);
}

TEST(SafetensorsFileTest, MapsDtypes) {
  EXPECT_EQ(SafetensorsElementType("F16"), ElementType::kFloat16);
  EXPECT_EQ(SafetensorsElementType("BF16"), ElementType::kBFloat16);
  EXPECT_EQ(SafetensorsElementType("F64"), ElementType::kFloat64);
  EXPECT_EQ(SafetensorsElementType("I8"), ElementType::kSint8);
  EXPECT_EQ(SafetensorsElementType("U8"), ElementType::kUint8);
  EXPECT_EQ(SafetensorsElementType("I16"), ElementType::kSint16);
  EXPECT_EQ(SafetensorsElementType("I32"), ElementType::kSint32);
  EXPECT_EQ(SafetensorsElementType("U64"), ElementType::kUint64);
  EXPECT_EQ(SafetensorsElementType("F8_E4M3"), ElementType::kNone);
}

TEST(SafetensorsFileTest, EmptyHeaderObject) {
  std::vector<uint8_t> storage;
  auto file = ParseText("{}", {}, &storage);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_TRUE((*file)->tensors().empty());
}

TEST(SafetensorsFileTest, TruncatedFiles) {
  std::vector<uint8_t> short_file = {1, 0, 0};
  auto file = SafetensorsFile::Parse(short_file, "w.safetensors");
  ASSERT_FALSE(file.ok());
  EXPECT_CONTAINS(file.status().ToString(),
                  "'w.safetensors' is not a valid safetensors file: it holds 3 bytes");
  // The header length says more than the file holds.
  std::vector<uint8_t> bytes = SafetensorsBytes("{}", {});
  bytes[0] = 200;
  file = SafetensorsFile::Parse(bytes, "w.safetensors");
  ASSERT_FALSE(file.ok());
  EXPECT_CONTAINS(file.status().ToString(),
                  "the header length 200 runs past the end of the file (10 bytes; truncated?)");
  // Huge lengths do not wrap around.
  for (int i = 0; i < 8; ++i) bytes[i] = 0xFF;
  file = SafetensorsFile::Parse(bytes, "w.safetensors");
  ASSERT_FALSE(file.ok());
  EXPECT_CONTAINS(file.status().ToString(), "runs past the end of the file");
  // The data section ends before a tensor does.
  EXPECT_CONTAINS(
      ParseError(R"({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}})", {0, 0, 0, 0}),
      "tensor \"w\": data_offsets [0, 8] run past the data section (4 bytes)");
}

TEST(SafetensorsFileTest, MalformedJson) {
  EXPECT_CONTAINS(ParseError("{\"w\": "), "the header is not JSON");
  EXPECT_CONTAINS(ParseError("[1, 2]"), "the header is not a JSON object");
  EXPECT_CONTAINS(ParseError(R"({"w": 3})"), "tensor \"w\": its entry is not an object");
  EXPECT_CONTAINS(ParseError(R"({"__metadata__": [1]})"), "__metadata__ is not an object");
  EXPECT_CONTAINS(ParseError(R"({"__metadata__": {"a": 1}})"),
                  "__metadata__ \"a\" is not a string");
}

TEST(SafetensorsFileTest, RepeatedKeys) {
  EXPECT_CONTAINS(ParseError(R"({"w": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]},
                     "w": {"dtype": "U8", "shape": [1], "data_offsets": [1, 2]}})",
                             {1, 2}),
                  "the header repeats the key \"w\"");
  EXPECT_CONTAINS(
      ParseError(R"({"w": {"dtype": "U8", "dtype": "I8", "shape": [1], "data_offsets": [0, 1]}})",
                 {1}),
      "the header repeats the key \"dtype\"");
}

TEST(SafetensorsFileTest, BadEntries) {
  EXPECT_CONTAINS(ParseError(R"({"w": {"shape": [1], "data_offsets": [0, 4]}})", {0, 0, 0, 0}),
                  "tensor \"w\": dtype is missing or not a string");
  EXPECT_CONTAINS(
      ParseError(R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4], "x": 1}})",
                 {0, 0, 0, 0}),
      "tensor \"w\": unknown field \"x\"");
  EXPECT_CONTAINS(
      ParseError(R"({"w": {"dtype": "F8_E4M3", "shape": [1], "data_offsets": [0, 1]}})", {0}),
      "tensor \"w\": dtype \"F8_E4M3\" is not one kiln reads");
  EXPECT_CONTAINS(
      ParseError(R"({"w": {"dtype": "F32", "shape": 4, "data_offsets": [0, 4]}})", {0, 0, 0, 0}),
      "tensor \"w\": shape is missing or not an array");
  EXPECT_CONTAINS(
      ParseError(R"({"w": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}})", {0, 0, 0, 0}),
      "tensor \"w\": shape [-1] holds -1, not a non-negative integer");
  EXPECT_CONTAINS(ParseError(R"({"w": {"dtype": "F32", "shape": [1.5], "data_offsets": [0, 4]}})",
                             {0, 0, 0, 0}),
                  "not a non-negative integer");
  EXPECT_CONTAINS(
      ParseError(R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": [4]}})", {0, 0, 0, 0}),
      "tensor \"w\": data_offsets is missing or not two non-negative integers");
  EXPECT_CONTAINS(
      ParseError(R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": [4, 0]}})", {0, 0, 0, 0}),
      "tensor \"w\": data_offsets [4, 0] ends before it begins");
}

TEST(SafetensorsFileTest, ByteCountMustMatchDtypeAndShape) {
  EXPECT_CONTAINS(
      ParseError(R"({"w": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 12]}})",
                 std::vector<uint8_t>(12)),
      "'w.safetensors' is not a valid safetensors file: tensor \"w\": data_offsets [0, 12] hold "
      "12 bytes, but F32 [2, 2] needs 16");
  // A shape whose byte count overflows 64 bits is not a small tensor.
  EXPECT_CONTAINS(ParseError(R"({"w": {"dtype": "F64", "shape": [4294967296, 4294967296],
                           "data_offsets": [0, 0]}})"),
                  "tensor \"w\": F64 [4294967296, 4294967296] has more bytes than a file can hold");
  EXPECT_CONTAINS(ParseError(R"({"w": {"dtype": "F64", "shape": [2305843009213693952],
                                       "data_offsets": [0, 0]}})"),
                  "has more bytes than a file can hold");
}

TEST(SafetensorsFileTest, OverlapsAndGaps) {
  EXPECT_CONTAINS(ParseError(R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                     "b": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}})",
                             std::vector<uint8_t>(8)),
                  "tensors \"a\" [0, 8] and \"b\" [4, 8] overlap");
  EXPECT_CONTAINS(ParseError(R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}})",
                             std::vector<uint8_t>(8)),
                  "bytes [0, 4) of the data section belong to no tensor");
  EXPECT_CONTAINS(ParseError(R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}})",
                             std::vector<uint8_t>(8)),
                  "bytes [4, 8) of the data section belong to no tensor");
}

TEST(SafetensorsFileTest, OpensFilesByPath) {
  const std::string path = testing::WriteTestFile(
      "open.safetensors",
      SafetensorsBytes(R"({"w": {"dtype": "I32", "shape": [2], "data_offsets": [0, 8]}})",
                       BytesOf<int32_t>({3, 4})));
  auto file = SafetensorsFile::Open(path);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_EQ((*file)->path(), path);
  int32_t values[2];
  std::memcpy(values, (*file)->Find("w")->bytes.data(), 8);
  EXPECT_EQ(values[0], 3);
  EXPECT_EQ(values[1], 4);

  auto missing = SafetensorsFile::Open(::testing::TempDir() + "no_such.safetensors");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_CONTAINS(missing.status().ToString(), "no_such.safetensors': No such file or directory");

  // A file cut short after it was written: the check runs on the mapping.
  std::vector<uint8_t> bytes = SafetensorsBytes(
      R"({"w": {"dtype": "I32", "shape": [2], "data_offsets": [0, 8]}})", BytesOf<int32_t>({3}));
  auto truncated = SafetensorsFile::Open(testing::WriteTestFile("cut.safetensors", bytes));
  ASSERT_FALSE(truncated.ok());
  EXPECT_CONTAINS(truncated.status().ToString(), "run past the data section (4 bytes)");

  auto empty = SafetensorsFile::Open(testing::WriteTestFile("empty.safetensors", {}));
  ASSERT_FALSE(empty.ok());
  EXPECT_CONTAINS(empty.status().ToString(), "it holds 0 bytes");
}

}  // namespace
}  // namespace kiln::hal
