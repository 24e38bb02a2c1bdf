// The parameter index: scopes of safetensors files, lookups checked against
// the program's tensor type, and errors that name the parameter, the scope
// and the file.
#include "hal/parameters/parameter_index.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/hal/parameters/safetensors_test_file.h"

namespace kiln::hal {
namespace {

using testing::BytesOf;
using testing::SafetensorsBytes;
using testing::WriteTestFile;

#define EXPECT_CONTAINS(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << (text)

std::string WeightsFile(const std::string& name) {
  std::vector<uint8_t> data = BytesOf<float>({1, 2, 3, 4, 5, 6});
  const std::vector<uint8_t> bytes = BytesOf<uint8_t>({200, 1});
  data.insert(data.end(), bytes.begin(), bytes.end());
  return WriteTestFile(name, SafetensorsBytes(R"({"fc.weight": {"dtype": "F32", "shape": [2, 3],
                                              "data_offsets": [0, 24]},
                                "u": {"dtype": "U8", "shape": [2], "data_offsets": [24, 26]}})",
                                              data));
}

TEST(ParameterIndexTest, LooksUpCheckedTensors) {
  const std::string path = WeightsFile("index.safetensors");
  Ref<ParameterIndex> index = ParameterIndex::Create();
  ASSERT_TRUE(index->AddFile("model", path).ok());
  EXPECT_TRUE(index->HasScope("model"));
  EXPECT_FALSE(index->HasScope(""));
  const int64_t dims[] = {2, 3};
  auto tensor = index->Lookup("model", "fc.weight", ElementType::kFloat32, dims);
  ASSERT_TRUE(tensor.ok()) << tensor.status().ToString();
  EXPECT_EQ((*tensor)->bytes.size(), 24u);
  // A program's signless i8 reads the file's U8 (an ONNX uint8 initializer).
  const int64_t two[] = {2};
  EXPECT_TRUE(index->Lookup("model", "u", ElementType::kInt8, two).ok());
  EXPECT_TRUE(index->Lookup("model", "u", ElementType::kUint8, two).ok());
}

TEST(ParameterIndexTest, ErrorsNameTheParameterScopeAndFile) {
  const std::string path = WeightsFile("errors.safetensors");
  Ref<ParameterIndex> index = ParameterIndex::Create();
  ASSERT_TRUE(index->AddFile("model", path).ok());
  const int64_t dims[] = {2, 3};

  auto missing_scope = index->Lookup("other", "fc.weight", ElementType::kFloat32, dims);
  ASSERT_FALSE(missing_scope.ok());
  EXPECT_EQ(missing_scope.status().code(), StatusCode::kNotFound);
  EXPECT_CONTAINS(missing_scope.status().message(),
                  "no parameter files for scope \"other\" (parameter \"other\"::\"fc.weight\"); "
                  "give them as --parameters=other=FILE.safetensors (scopes given: \"model\")");

  auto missing_key = index->Lookup("model", "fc.bias", ElementType::kFloat32, dims);
  ASSERT_FALSE(missing_key.ok());
  EXPECT_EQ(missing_key.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(missing_key.status().message(),
            "parameter \"model\"::\"fc.bias\" not found in '" + path + "'");

  const int64_t transposed[] = {3, 2};
  auto wrong_shape = index->Lookup("model", "fc.weight", ElementType::kFloat32, transposed);
  ASSERT_FALSE(wrong_shape.ok());
  EXPECT_EQ(wrong_shape.status().message(),
            "parameter \"model\"::\"fc.weight\" in '" + path +
                "' holds F32 [2, 3], but the program expects tensor<3x2xf32>");

  auto wrong_type = index->Lookup("model", "fc.weight", ElementType::kFloat16, dims);
  ASSERT_FALSE(wrong_type.ok());
  EXPECT_CONTAINS(wrong_type.status().message(),
                  "holds F32 [2, 3], but the program expects tensor<2x3xf16>");

  const int64_t two[] = {2};
  auto signedness = index->Lookup("model", "u", ElementType::kSint8, two);
  ASSERT_FALSE(signedness.ok());
  EXPECT_CONTAINS(signedness.status().message(), "holds U8 [2], but the program expects");

  auto rank = index->Lookup("model", "u", ElementType::kInt8, {});
  ASSERT_FALSE(rank.ok());
  EXPECT_CONTAINS(rank.status().message(), "but the program expects tensor<i8>");
}

TEST(ParameterIndexTest, EmptyScopeAndShards) {
  const std::string first = WriteTestFile(
      "shard0.safetensors",
      SafetensorsBytes(R"({"a": {"dtype": "I64", "shape": [1], "data_offsets": [0, 8]}})",
                       BytesOf<int64_t>({-5})));
  const std::string second = WriteTestFile(
      "shard1.safetensors",
      SafetensorsBytes(R"({"b": {"dtype": "BOOL", "shape": [3], "data_offsets": [0, 3]}})",
                       {1, 0, 1}));
  Ref<ParameterIndex> index = ParameterIndex::Create();
  ASSERT_TRUE(index->AddFile("", first).ok());
  ASSERT_TRUE(index->AddFile("", second).ok());
  const int64_t one[] = {1}, three[] = {3};
  EXPECT_TRUE(index->Lookup("", "a", ElementType::kInt64, one).ok());
  EXPECT_TRUE(index->Lookup("", "b", ElementType::kBool, three).ok());
  auto missing = index->Lookup("", "c", ElementType::kBool, three);
  ASSERT_FALSE(missing.ok());
  // The empty scope is spelled as IREE does: the key alone.
  EXPECT_EQ(missing.status().message(),
            "parameter \"c\" not found in '" + first + "', '" + second + "'");
  EXPECT_EQ(ParameterIndex::FormatParameter("", "k"), "\"k\"");
  EXPECT_EQ(ParameterIndex::FormatParameter("s", "k"), "\"s\"::\"k\"");

  // One key in two files of a scope is ambiguous.
  Status twice = index->AddFile("", first);
  ASSERT_FALSE(twice.ok());
  EXPECT_CONTAINS(twice.message(),
                  "parameter \"a\" is in both '" + first + "' and '" + first + "'");
  // In two scopes it is not.
  EXPECT_TRUE(index->AddFile("other", first).ok());
}

TEST(ParameterIndexTest, BadFilesFailWhenAdded) {
  Ref<ParameterIndex> index = ParameterIndex::Create();
  Status missing = index->AddFile("model", ::testing::TempDir() + "absent.safetensors");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.code(), StatusCode::kNotFound);
  EXPECT_CONTAINS(missing.message(), "cannot open '");
  const std::string bad = WriteTestFile("bad.safetensors", SafetensorsBytes("{", {}));
  Status malformed = index->AddFile("model", bad);
  ASSERT_FALSE(malformed.ok());
  EXPECT_CONTAINS(malformed.message(), "'" + bad + "' is not a valid safetensors file");
  EXPECT_FALSE(index->HasScope("model"));
}

}  // namespace
}  // namespace kiln::hal
