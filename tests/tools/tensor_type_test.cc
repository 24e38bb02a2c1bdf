// Tensor types from export reflection (tools/common/tensor_type.h).
#include "tools/common/tensor_type.h"

#include <gtest/gtest.h>

namespace kiln::tools {
namespace {

using hal::ElementType;

TensorType Parse(std::string_view description) {
  auto type = ParseTensorTypeDescription(description);
  EXPECT_TRUE(type.ok()) << type.status().ToString();
  EXPECT_TRUE(type.ok() && type->has_value()) << description;
  return type.ok() && type->has_value() ? **type : TensorType{};
}

TEST(TensorTypeTest, ParsesDescriptions) {
  TensorType dynamic = Parse("tensor<?x4xf32>");
  EXPECT_EQ(dynamic.dims, (std::vector<int64_t>{TensorType::kDynamic, 4}));
  EXPECT_EQ(dynamic.element_type, ElementType::kFloat32);
  EXPECT_FALSE(dynamic.is_static());
  EXPECT_EQ(dynamic.ToString(), "tensor<?x4xf32>");
  EXPECT_EQ(dynamic.ShapeAndType(), "?x4xf32");

  TensorType scalar = Parse("tensor<i8>");
  EXPECT_TRUE(scalar.dims.empty());
  EXPECT_EQ(scalar.element_type, ElementType::kInt8);
  EXPECT_TRUE(scalar.is_static());
  EXPECT_EQ(scalar.ShapeAndType(), "i8");

  // Names around the type, an encoding, index (lowered to i64), bf16, zero dims.
  EXPECT_EQ(Parse("x: tensor<2x3xi32>").ToString(), "tensor<2x3xi32>");
  EXPECT_EQ(Parse("tensor<8xf16> input").ToString(), "tensor<8xf16>");
  EXPECT_EQ(Parse("tensor<4xf32, #enc>").ToString(), "tensor<4xf32>");
  EXPECT_EQ(Parse("tensor<?xindex>").element_type, ElementType::kInt64);
  EXPECT_EQ(Parse("tensor<0x2xbf16>").dims, (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(Parse("tensor<3xui8>").element_type, ElementType::kUint8);
}

TEST(TensorTypeTest, NonTensorsAndErrors) {
  for (std::string_view text : {"", "i32", "!vm.list", "n: f32"}) {
    auto type = ParseTensorTypeDescription(text);
    ASSERT_TRUE(type.ok()) << text;
    EXPECT_FALSE(type->has_value()) << text;
  }
  auto unclosed = ParseTensorTypeDescription("tensor<4xf32");
  ASSERT_FALSE(unclosed.ok());
  EXPECT_EQ(unclosed.status().message(), "malformed tensor type 'tensor<4xf32': no closing '>'");
  auto bad_dim = ParseTensorTypeDescription("tensor<4x-1xf32>");
  ASSERT_FALSE(bad_dim.ok());
  EXPECT_EQ(bad_dim.status().message(),
            "malformed tensor type 'tensor<4x-1xf32>': bad dimension '-1'");
  auto bad_type = ParseTensorTypeDescription("tensor<4xq7>");
  ASSERT_FALSE(bad_type.ok());
  EXPECT_NE(bad_type.status().message().find("malformed tensor type 'tensor<4xq7>': "),
            std::string::npos);
}

TEST(TensorTypeTest, Mismatches) {
  const TensorType type = Parse("tensor<?x4xf32>");
  const std::vector<int64_t> fits = {7, 4}, wrong_dim = {7, 3}, wrong_rank = {4};
  EXPECT_EQ(DescribeTensorTypeMismatch(type, fits, ElementType::kFloat32), std::nullopt);
  EXPECT_EQ(DescribeTensorTypeMismatch(type, wrong_dim, ElementType::kFloat32),
            "dimension 1 is 3, not 4");
  EXPECT_EQ(DescribeTensorTypeMismatch(type, wrong_rank, ElementType::kFloat32),
            "rank 1 differs from 2");
  EXPECT_EQ(DescribeTensorTypeMismatch(type, fits, ElementType::kInt32),
            "element type i32 differs from f32");
  const std::vector<int64_t> zero = {0, 4};
  EXPECT_EQ(DescribeTensorTypeMismatch(type, zero, ElementType::kFloat32), std::nullopt);
}

}  // namespace
}  // namespace kiln::tools
