// Element types: encoding, byte sizes, parsing and printing.
#include "hal/element_type.h"

#include <gtest/gtest.h>

namespace kiln::hal {
namespace {

TEST(ElementTypeTest, SizesAndKinds) {
  EXPECT_EQ(ElementByteSize(ElementType::kBool), 1u);
  EXPECT_EQ(ElementBitWidth(ElementType::kBool), 1u);
  EXPECT_EQ(ElementByteSize(ElementType::kInt8), 1u);
  EXPECT_EQ(ElementByteSize(ElementType::kUint16), 2u);
  EXPECT_EQ(ElementByteSize(ElementType::kSint32), 4u);
  EXPECT_EQ(ElementByteSize(ElementType::kInt64), 8u);
  EXPECT_EQ(ElementByteSize(ElementType::kFloat16), 2u);
  EXPECT_EQ(ElementByteSize(ElementType::kBFloat16), 2u);
  EXPECT_EQ(ElementByteSize(ElementType::kFloat32), 4u);
  EXPECT_EQ(ElementByteSize(ElementType::kFloat64), 8u);
  EXPECT_EQ(ElementKind(ElementType::kUint8), NumericalKind::kIntegerUnsigned);
  EXPECT_EQ(ElementKind(ElementType::kSint64), NumericalKind::kIntegerSigned);
  EXPECT_EQ(ElementKind(ElementType::kBFloat16), NumericalKind::kFloatBrain);
  EXPECT_TRUE(IsIntegerType(ElementType::kBool));
  EXPECT_TRUE(IsFloatType(ElementType::kFloat16));
  EXPECT_FALSE(IsFloatType(ElementType::kInt32));
}

TEST(ElementTypeTest, RoundTripsEveryName) {
  for (const char* name : {"i1", "i8", "i16", "i32", "i64", "si8", "si16", "si32", "si64", "ui8",
                           "ui16", "ui32", "ui64", "f16", "f32", "f64", "bf16"}) {
    Result<ElementType> type = ParseElementType(name);
    ASSERT_TRUE(type.ok()) << name << ": " << type.status().ToString();
    EXPECT_EQ(FormatElementType(*type), name);
  }
  EXPECT_EQ(*ParseElementType("f32"), ElementType::kFloat32);
  EXPECT_EQ(*ParseElementType("ui8"), ElementType::kUint8);
  EXPECT_EQ(FormatElementType(ElementType::kNone), "none");
}

TEST(ElementTypeTest, UnknownNameIsAnError) {
  Result<ElementType> type = ParseElementType("f17");
  ASSERT_FALSE(type.ok());
  EXPECT_EQ(type.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(type.status().message().find("'f17'"), std::string::npos);
  EXPECT_NE(type.status().message().find("bf16"), std::string::npos);
}

TEST(ElementTypeTest, SignlessIntegersAcceptSignedAndUnsignedOfTheirWidth) {
  EXPECT_TRUE(IsCompatibleElementType(ElementType::kInt8, ElementType::kUint8));
  EXPECT_TRUE(IsCompatibleElementType(ElementType::kInt8, ElementType::kSint8));
  EXPECT_TRUE(IsCompatibleElementType(ElementType::kInt64, ElementType::kInt64));
  EXPECT_TRUE(IsCompatibleElementType(ElementType::kFloat32, ElementType::kFloat32));
  // Not the other way round, not another width, not floats or bools.
  EXPECT_FALSE(IsCompatibleElementType(ElementType::kUint8, ElementType::kInt8));
  EXPECT_FALSE(IsCompatibleElementType(ElementType::kInt8, ElementType::kUint16));
  EXPECT_FALSE(IsCompatibleElementType(ElementType::kInt32, ElementType::kFloat32));
  EXPECT_FALSE(IsCompatibleElementType(ElementType::kInt8, ElementType::kBool));
  EXPECT_FALSE(IsCompatibleElementType(ElementType::kSint8, ElementType::kUint8));
}

}  // namespace
}  // namespace kiln::hal
