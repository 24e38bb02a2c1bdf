// Tests of compiler/targets/spirv_module_info.h: entry points and
// workgroup sizes read from glslc's output and from hand-assembled modules
// (LocalSize, LocalSizeId, the WorkgroupSize built-in, byte order), and
// malformed or hostile modules rejected with the object's name, never a
// crash. The parser itself (base/spirv_module.h) has its own tests in
// tests/base/spirv_module_test.cc; these show what the compiler gets from it.
#include "compiler/targets/spirv_module_info.h"

#include <gtest/gtest.h>

#include <array>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/base/spirv_test_module.h"

namespace kiln::compiler {
namespace {

using testing::SpirvTestModule;
using Size = std::array<uint32_t, 3>;

constexpr uint32_t kUint = 90;  // The id of the 32-bit integer type.

Result<SpirvModuleInfo> Read(const std::vector<uint8_t>& bytes) {
  return ReadSpirvModuleInfo(bytes, "Vulkan object 'k.spv'");
}

std::string Message(const Result<SpirvModuleInfo>& result) {
  return result.ok() ? "(ok)" : result.status().message();
}

// The glslc-compiled shaders of Inputs/ (built next to this test).
std::vector<uint8_t> ReadCompiled(const std::string& name) {
#ifdef KILN_TEST_SPIRV_DIR
  std::ifstream in(std::string(KILN_TEST_SPIRV_DIR) + "/" + name, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
#else
  (void)name;
  return {};
#endif
}

TEST(SpirvModuleInfoTest, GlslcOutputWithFixedLocalSize) {
  std::vector<uint8_t> bytes = ReadCompiled("fixed_local_size.spv");
  if (bytes.empty()) GTEST_SKIP() << "glslc was not found at configure time";
  auto info = Read(bytes);
  ASSERT_TRUE(info.ok()) << Message(info);
  ASSERT_EQ(info->entry_points.size(), 1u);
  EXPECT_EQ(info->entry_points[0].name, "main");
  EXPECT_EQ(info->entry_points[0].size_error, "");
  EXPECT_EQ(info->entry_points[0].local_size, (Size{16, 2, 1}));
  EXPECT_EQ(info->words.size() * 4, bytes.size());
  EXPECT_EQ(info->words[0], 0x07230203u);
}

TEST(SpirvModuleInfoTest, GlslcOutputWithASpecializationConstantUsesItsDefault) {
  std::vector<uint8_t> bytes = ReadCompiled("specialized_local_size.spv");
  if (bytes.empty()) GTEST_SKIP() << "glslc was not found at configure time";
  auto info = Read(bytes);
  ASSERT_TRUE(info.ok()) << Message(info);
  ASSERT_EQ(info->entry_points.size(), 1u);
  EXPECT_EQ(info->entry_points[0].local_size, (Size{32, 1, 1}));
}

TEST(SpirvModuleInfoTest, EntryPointsWithLiteralSizesInDeclarationOrder) {
  auto info = Read(SpirvTestModule()
                       .EntryPoint(1, "simple_mul")
                       .EntryPoint(2, "simple_add")
                       .EntryPoint(3, "vertex_main", SpirvTestModule::kFragment)
                       .LocalSize(2, 8, 4, 2)
                       .LocalSize(1, 64, 1, 1)
                       .Bytes());
  ASSERT_TRUE(info.ok()) << Message(info);
  ASSERT_EQ(info->entry_points.size(), 2u);
  EXPECT_EQ(info->entry_points[0].name, "simple_mul");
  EXPECT_EQ(info->entry_points[0].local_size, (Size{64, 1, 1}));
  EXPECT_EQ(info->entry_points[1].name, "simple_add");
  EXPECT_EQ(info->entry_points[1].local_size, (Size{8, 4, 2}));
  EXPECT_EQ(info->other_entry_points, std::vector<std::string>{"vertex_main"});
}

TEST(SpirvModuleInfoTest, NamesOfEveryLengthAreReadUpToTheirNul) {
  // Lengths 0..8 cover a NUL in every byte of a word and a word of padding.
  for (size_t length = 0; length <= 8; ++length) {
    const std::string name(length, 'k');
    auto info = Read(SpirvTestModule().EntryPoint(1, name).LocalSize(1, 1, 1, 1).Bytes());
    ASSERT_TRUE(info.ok()) << Message(info);
    EXPECT_EQ(info->entry_points[0].name, name);
  }
}

TEST(SpirvModuleInfoTest, LocalSizeIdReadsIntegerConstantsAndSpecConstantDefaults) {
  auto info = Read(SpirvTestModule()
                       .EntryPoint(1, "main")
                       .LocalSizeId(1, 10, 11, 12)
                       .TypeInt(kUint, 32)
                       .SpecConstant(kUint, 10, 128)
                       .Constant(kUint, 11, 2)
                       .Constant(kUint, 12, 1)
                       .Bytes());
  ASSERT_TRUE(info.ok()) << Message(info);
  EXPECT_EQ(info->entry_points[0].size_error, "");
  EXPECT_EQ(info->entry_points[0].local_size, (Size{128, 2, 1}));
}

TEST(SpirvModuleInfoTest, WorkgroupSizeBuiltInTakesPrecedenceOverLocalSize) {
  auto info = Read(SpirvTestModule()
                       .EntryPoint(1, "main")
                       .LocalSize(1, 1, 1, 1)
                       .DecorateWorkgroupSize(20)
                       .TypeInt(kUint, 32)
                       .Constant(kUint, 10, 256)
                       .Constant(kUint, 11, 1)
                       .Composite(91, 20, {10, 11, 11})
                       .Bytes());
  ASSERT_TRUE(info.ok()) << Message(info);
  EXPECT_EQ(info->entry_points[0].local_size, (Size{256, 1, 1}));
}

TEST(SpirvModuleInfoTest, AnUnusableSizeFailsOnlyItsEntryPoint) {
  auto info = Read(SpirvTestModule()
                       .EntryPoint(1, "no_size")
                       .EntryPoint(2, "computed")
                       .EntryPoint(3, "zero")
                       .EntryPoint(4, "wide")
                       .EntryPoint(5, "fine")
                       .LocalSizeId(2, 10, 10, 10)  // %10 is not a constant.
                       .LocalSize(3, 0, 1, 1)
                       .LocalSizeId(4, 12, 12, 12)
                       .LocalSize(5, 4, 4, 4)
                       .TypeInt(91, 64)
                       .Op(43, {91, 12, 7, 0})  // A 64-bit constant.
                       .Bytes());
  ASSERT_TRUE(info.ok()) << Message(info);
  ASSERT_EQ(info->entry_points.size(), 5u);
  EXPECT_NE(info->entry_points[0].size_error.find("no LocalSize or LocalSizeId"),
            std::string::npos);
  EXPECT_NE(info->entry_points[1].size_error.find("LocalSizeId operand %10 is not a 32-bit"),
            std::string::npos)
      << info->entry_points[1].size_error;
  EXPECT_NE(info->entry_points[2].size_error.find("[0, 1, 1] has a zero component"),
            std::string::npos);
  EXPECT_NE(info->entry_points[3].size_error.find("%12"), std::string::npos);
  EXPECT_EQ(info->entry_points[4].size_error, "");
  EXPECT_EQ(info->entry_points[4].local_size, (Size{4, 4, 4}));
}

TEST(SpirvModuleInfoTest, ABuiltInThatIsNotAConstantCompositeIsNamed) {
  auto info = Read(SpirvTestModule()
                       .EntryPoint(1, "main")
                       .LocalSize(1, 8, 1, 1)
                       .DecorateWorkgroupSize(30)
                       .Bytes());
  ASSERT_TRUE(info.ok()) << Message(info);
  EXPECT_NE(info->entry_points[0].size_error.find("BuiltIn WorkgroupSize object %30"),
            std::string::npos);
}

TEST(SpirvModuleInfoTest, OtherByteOrderIsAcceptedAndReturnedInHostOrder) {
  SpirvTestModule module;
  module.EntryPoint(1, "main").LocalSize(1, 64, 1, 1);
  const std::vector<uint32_t> host = module.words();
  for (uint32_t& w : module.words()) {
    w = (w >> 24) | ((w >> 8) & 0xff00u) | ((w << 8) & 0xff0000u) | (w << 24);
  }
  auto info = Read(module.Bytes());
  ASSERT_TRUE(info.ok()) << Message(info);
  EXPECT_EQ(info->words, host);
  EXPECT_EQ(info->entry_points[0].name, "main");
  EXPECT_EQ(info->entry_points[0].local_size, (Size{64, 1, 1}));
}

TEST(SpirvModuleInfoTest, ANonSpirvFileIsRejectedWithItsName) {
  std::string glsl = "#version 450\nvoid main() {}\n";
  while (glsl.size() % 4) glsl += ' ';
  auto text = Read(std::vector<uint8_t>(glsl.begin(), glsl.end()));
  EXPECT_EQ(Message(text),
            "Vulkan object 'k.spv' is not SPIR-V (bad magic number; compile GLSL with glslc)");
  auto odd = Read(std::vector<uint8_t>(22, 0));
  EXPECT_EQ(Message(odd),
            "Vulkan object 'k.spv' is not SPIR-V (its size, 22 bytes, is not a multiple of 4 "
            "bytes >= 20)");
  EXPECT_FALSE(Read(std::vector<uint8_t>(16, 0)).ok());
  EXPECT_FALSE(Read({}).ok());
}

TEST(SpirvModuleInfoTest, MalformedInstructionsAreErrorsNamingTheWord) {
  auto expect_error = [](SpirvTestModule module, const std::string& expected) {
    auto info = Read(module.Bytes());
    EXPECT_NE(Message(info).find(expected), std::string::npos) << Message(info);
    EXPECT_NE(Message(info).find("Vulkan object 'k.spv' is malformed SPIR-V"), std::string::npos);
  };
  SpirvTestModule zero;
  zero.words().push_back(0x0000000fu);
  expect_error(zero, "instruction at word 5 has a word count of 0");
  SpirvTestModule past_end;
  past_end.EntryPoint(1, "main").words().push_back(0x0009000fu);
  expect_error(past_end, "instruction at word 10 (opcode 15, 9 words) runs past the end");
  SpirvTestModule unterminated;
  unterminated.Op(15, {5, 1, 0x6e69616du});  // "main" with no NUL word after it.
  expect_error(unterminated, "(OpEntryPoint) has an unterminated name");
  expect_error(SpirvTestModule().Op(15, {5, 1}), "(OpEntryPoint) is too short");
  expect_error(SpirvTestModule().Op(16, {1, 17, 8, 8}), "LocalSize) needs 3 sizes");
  expect_error(SpirvTestModule().Op(331, {1, 38, 8}), "LocalSizeId) needs 3 ids");
  expect_error(SpirvTestModule().Op(16, {1}), "(OpExecutionMode) is too short");
  expect_error(SpirvTestModule().Op(71, {1}), "(OpDecorate) is too short");
  expect_error(SpirvTestModule().Op(21, {1, 32}), "(OpTypeInt) needs 3 operands");
  expect_error(SpirvTestModule().Op(43, {1, 2}), "(a constant) is too short");
  expect_error(SpirvTestModule().Op(44, {1}), "(a composite constant) is too short");
  expect_error(SpirvTestModule().EntryPoint(1, "main").EntryPoint(2, "main"),
               "declares the GLCompute entry point 'main' twice");
}

// Every truncation and many single-word corruptions of a valid module give
// an answer (a module or an error), never a crash or an out-of-bounds read
// (the ASan build of the fuzz preset runs this too).
TEST(SpirvModuleInfoTest, TruncatedAndCorruptedModulesNeverCrash) {
  SpirvTestModule module;
  module.EntryPoint(1, "simple_mul")
      .EntryPoint(2, "main")
      .LocalSize(1, 64, 1, 1)
      .LocalSizeId(2, 10, 11, 11)
      .DecorateWorkgroupSize(20)
      .TypeInt(kUint, 32)
      .SpecConstant(kUint, 10, 16)
      .Constant(kUint, 11, 1)
      .Composite(91, 20, {10, 11, 11});
  const std::vector<uint8_t> bytes = module.Bytes();
  for (size_t size = 0; size <= bytes.size(); ++size) {
    (void)Read(std::vector<uint8_t>(bytes.begin(), bytes.begin() + size));
  }
  const uint32_t values[] = {0u,          1u,          0xffffffffu, 0x0001000fu,
                             0xffff000fu, 0x00020010u, 0x0003014bu, 0x7fff002cu};
  for (size_t word = 0; word < module.words().size(); ++word) {
    for (uint32_t value : values) {
      SpirvTestModule corrupted = module;
      corrupted.words()[word] = value;
      (void)Read(corrupted.Bytes());
    }
  }
  auto info = Read(bytes);
  ASSERT_TRUE(info.ok()) << Message(info);
  EXPECT_EQ(info->entry_points[1].local_size, (Size{16, 1, 1}));
}

}  // namespace
}  // namespace kiln::compiler
