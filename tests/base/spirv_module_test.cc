// Tests of base/spirv_module.h on hand-assembled modules: entry points and
// their workgroup sizes (LocalSize, LocalSizeId and the WorkgroupSize
// built-in, with constants and spec constants at their defaults), the
// function checks, and malformed modules rejected with a message naming the
// word, never a crash. The other ways a size is found or found unusable
// (LocalSizeId, constant composites, zero components), the instructions too
// short to read and truncated or corrupted modules are tested through the
// compiler's wrapper (tests/compiler/executables/spirv_module_info_test.cc),
// glslc's output there and through the Vulkan driver's loader.
#include "base/spirv_module.h"

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "tests/base/spirv_test_module.h"

namespace kiln {
namespace {

using testing::SpirvTestModule;
using Size = std::array<uint32_t, 3>;

constexpr uint32_t kUint = 90;  // The id of the 32-bit integer type.

std::string Message(const Result<SpirvModule>& result) {
  return result.ok() ? "(ok)" : result.status().message();
}

void ExpectError(const Result<SpirvModule>& result, const std::string& text) {
  ASSERT_FALSE(result.ok()) << "expected an error containing: " << text;
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(result.status().message().find(text), std::string::npos) << Message(result);
}

TEST(SpirvModuleTest, ReadsEntryPointsAndLocalSize) {
  std::vector<uint32_t> code =
      SpirvTestModule().EntryPoint(1, "main").LocalSize(1, 1, 1, 1).Function(1).words();
  Result<SpirvModule> parsed = ParseSpirvModule(code);
  ASSERT_TRUE(parsed.ok()) << Message(parsed);
  const SpirvModule& info = *parsed;
  ASSERT_EQ(info.entry_points.size(), 1u);
  const SpirvEntryPoint* entry = info.FindComputeEntryPoint("main");
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->local_size, (Size{1, 1, 1}));
  EXPECT_EQ(entry->size_error, "");
  EXPECT_EQ(entry->function_id, 1u);
  EXPECT_EQ(info.FindComputeEntryPoint("other"), nullptr);
  EXPECT_EQ(info.DescribeEntryPoints(), "main");
  // An entry-point name without its terminating nul.
  for (size_t at = 5; at < code.size();) {
    uint32_t count = code[at] >> 16;
    if ((code[at] & 0xffff) == 15) {
      std::vector<uint32_t> cut(code.begin(), code.begin() + at + 4);
      cut[at] = (4u << 16) | 15u;
      cut[at + 3] = 0x6e69616d;  // "main" with no nul in the instruction.
      Result<SpirvModule> bad = ParseSpirvModule(cut);
      ASSERT_FALSE(bad.ok());
      EXPECT_NE(bad.status().message().find("not nul-terminated"), std::string::npos);
      break;
    }
    at += count;
  }
}

TEST(SpirvModuleTest, EveryExecutionModelIsListedAndDescribed) {
  auto info = ParseSpirvModule(SpirvTestModule()
                                   .EntryPoint(1, "main")
                                   .EntryPoint(2, "frag", SpirvTestModule::kFragment)
                                   .EntryPoint(2, "main", SpirvTestModule::kFragment)
                                   .LocalSize(1, 8, 1, 1)
                                   .Function(1)
                                   .Function(2)
                                   .words());
  ASSERT_TRUE(info.ok()) << Message(info);
  ASSERT_EQ(info->entry_points.size(), 3u);
  EXPECT_EQ(info->entry_points[1].execution_model, SpirvTestModule::kFragment);
  EXPECT_EQ(info->entry_points[1].size_error, "it is not a GLCompute entry point");
  EXPECT_EQ(info->FindComputeEntryPoint("frag"), nullptr);
  EXPECT_EQ(info->FindComputeEntryPoint("main"), &info->entry_points[0]);
  EXPECT_EQ(info->DescribeEntryPoints(),
            "main, frag (execution model 4, not GLCompute), main (execution model 4, not "
            "GLCompute)");
  EXPECT_EQ(ParseSpirvModule(SpirvTestModule().Function(1).words())->DescribeEntryPoints(), "none");
}

// What glslc emits for layout(local_size_x_id = 0): LocalSize with the
// default, overridden by a spec constant composite decorated WorkgroupSize.
TEST(SpirvModuleTest, SpecConstantWorkgroupSizeBuiltInOverridesLocalSize) {
  auto info = ParseSpirvModule(SpirvTestModule()
                                   .EntryPoint(1, "main")
                                   .LocalSize(1, 1, 1, 1)
                                   .DecorateWorkgroupSize(20)
                                   .TypeInt(kUint, 32)
                                   .SpecConstant(kUint, 10, 32)
                                   .Constant(kUint, 11, 1)
                                   .SpecComposite(91, 20, {10, 11, 11})
                                   .Function(1)
                                   .words());
  ASSERT_TRUE(info.ok()) << Message(info);
  EXPECT_EQ(info->entry_points[0].size_error, "");
  EXPECT_EQ(info->entry_points[0].local_size, (Size{32, 1, 1}));
}

TEST(SpirvModuleTest, EntryPointsMustNameFunctionsUnlessTheOptionsSayNot) {
  SpirvTestModule no_function;
  no_function.EntryPoint(7, "main").LocalSize(7, 1, 1, 1).Function(1);
  ExpectError(ParseSpirvModule(no_function.words()),
              "SPIR-V entry point 'main' names id 7, which is not a function of the module");
  SpirvTestModule beyond_bound;
  beyond_bound.EntryPoint(100, "main").Function(100);
  ExpectError(ParseSpirvModule(beyond_bound.words()),
              "SPIR-V entry point 'main' names id 100, not below the id bound 100");
  const SpirvParseOptions lenient = {.require_entry_point_functions = false};
  auto info = ParseSpirvModule(no_function.words(), lenient);
  ASSERT_TRUE(info.ok()) << Message(info);
  EXPECT_EQ(info->entry_points[0].function_id, 7u);
}

TEST(SpirvModuleTest, FunctionsMustEndAndNotNest) {
  ExpectError(ParseSpirvModule(SpirvTestModule().Op(54, {98, 1, 0, 99}).words()),
              "the SPIR-V module ends inside a function (no OpFunctionEnd)");
  ExpectError(
      ParseSpirvModule(SpirvTestModule().Op(54, {98, 1, 0, 99}).Op(54, {98, 2, 0, 99}).words()),
      "the instruction at word 10 (OpFunction) is inside a function");
  ExpectError(ParseSpirvModule(SpirvTestModule().Function(1).Op(56, {}).words()),
              "the instruction at word 11 (OpFunctionEnd) is outside a function");
  ExpectError(ParseSpirvModule(SpirvTestModule().Op(54, {98, 1, 0}).words()),
              "(OpFunction) is too short");
}

TEST(SpirvModuleTest, HeaderErrors) {
  ExpectError(ParseSpirvModule({}), "the SPIR-V module is empty");
  std::vector<uint32_t> swapped = SpirvTestModule().words();
  swapped[0] = 0x03022307;
  ExpectError(ParseSpirvModule(swapped),
              "not SPIR-V: the first word is 0x03022307 (a byte-swapped module)");
  swapped[0] = 0x2a;
  ExpectError(ParseSpirvModule(swapped),
              "not SPIR-V: the first word is 0x0000002a (the magic number is 0x07230203)");
  std::vector<uint32_t> header_only = SpirvTestModule().words();
  header_only.resize(3);
  ExpectError(ParseSpirvModule(header_only),
              "the SPIR-V module has 3 words, fewer than its 5-word header");
}

TEST(SpirvModuleTest, FramingErrorsNameTheWord) {
  SpirvTestModule zero;
  zero.words().push_back(0x0000000fu);
  ExpectError(ParseSpirvModule(zero.words()), "the instruction at word 5 has a word count of 0");
  SpirvTestModule past_end;
  past_end.EntryPoint(1, "main").words().push_back(0x0009000fu);
  ExpectError(ParseSpirvModule(past_end.words()),
              "the instruction at word 10 (opcode 15, 9 words) runs past the end of the module, "
              "which has 11 words");
}

// SPIR-V allows a name twice only under different execution models.
TEST(SpirvModuleTest, AnEntryPointDeclaredTwiceIsAnError) {
  SpirvTestModule twice;
  twice.EntryPoint(1, "a").EntryPoint(2, "a").Function(1).Function(2);
  ExpectError(ParseSpirvModule(twice.words()),
              "the module declares the GLCompute entry point 'a' twice");
  ExpectError(ParseSpirvModule(SpirvTestModule()
                                   .EntryPoint(1, "f", SpirvTestModule::kFragment)
                                   .EntryPoint(2, "f", SpirvTestModule::kFragment)
                                   .Function(1)
                                   .Function(2)
                                   .words()),
              "the module declares the entry point 'f' of execution model 4 twice");
}

TEST(SpirvModuleTest, WorkgroupSizeText) { EXPECT_EQ(WorkgroupSizeText({64, 2, 1}), "[64, 2, 1]"); }

}  // namespace
}  // namespace kiln
