// Loading vulkan-spirv-fb executables: the export table, and every way a
// malformed or hostile executable is refused with a message instead of
// reaching the Vulkan driver.
#include "hal/vulkan/vulkan_executable.h"

#include <gtest/gtest.h>

#include "tests/hal/vulkan/vulkan_test_util.h"

namespace kiln::hal::vulkan {
namespace {

using testing::BuildSpirvExecutable;
using testing::ReadTestShader;
using testing::SpirvExportSpec;
using testing::Unwrap;
using testing::VulkanTest;

SpirvExportSpec AddConstantSpec() { return {"add", "main", 0, {64, 1, 1}, {false}, 2}; }

class VulkanExecutableTest : public VulkanTest {
 protected:
  Status Load(const std::vector<std::vector<uint32_t>>& modules,
              const std::vector<SpirvExportSpec>& specs) {
    std::vector<uint8_t> bytes = BuildSpirvExecutable(modules, specs);
    return device_->CreateExecutable("vulkan-spirv-fb", bytes).status();
  }
  static void ExpectError(const Status& status, StatusCode code, const std::string& text) {
    EXPECT_EQ(status.code(), code) << status.ToString();
    EXPECT_NE(status.message().find(text), std::string::npos) << status.ToString();
  }
};

TEST_F(VulkanExecutableTest, LoadsExportsFromSeveralModules) {
  Ref<Executable> executable = LoadTestExecutable();
  EXPECT_EQ(executable->format(), "vulkan-spirv-fb");
  ASSERT_EQ(executable->exports().size(), 3u);
  const ExecutableExport& mul = executable->export_at(testing::kMul);
  EXPECT_EQ(mul.name, "mul");
  EXPECT_EQ(mul.workgroup_size, (std::array<uint32_t, 3>{64, 1, 1}));
  EXPECT_EQ(mul.layout.ToString(),
            "constants = 1, bindings = [storage_buffer ReadOnly, storage_buffer ReadOnly, "
            "storage_buffer]");
  EXPECT_EQ(Unwrap(executable->LookupExport("workgroup_ids")), testing::kWorkgroupIds);
  // Exports of the same shape share one pipeline layout.
  auto* vulkan = static_cast<VulkanExecutable*>(executable.get());
  std::vector<uint8_t> twice = BuildSpirvExecutable(
      {ReadTestShader("add_constant")},
      {{"a", "main", 0, {64, 1, 1}, {false}, 2}, {"b", "main", 0, {64, 1, 1}, {true}, 2}});
  Ref<Executable> other = Unwrap(device_->CreateExecutable("vulkan-spirv-fb", twice));
  auto* other_vulkan = static_cast<VulkanExecutable*>(other.get());
  EXPECT_EQ(other_vulkan->pipeline(0).layout.pipeline_layout,
            vulkan->pipeline(testing::kAddConstant).layout.pipeline_layout);
  EXPECT_EQ(other_vulkan->pipeline(1).layout.pipeline_layout,
            other_vulkan->pipeline(0).layout.pipeline_layout);
}

TEST_F(VulkanExecutableTest, EntryPointDefaultsToTheExportName) {
  // An export without entry_point names its OpEntryPoint by its own name.
  Status status = Load({ReadTestShader("add_constant")}, {{"main", "", 0, {64, 1, 1}, {false}, 2}});
  KILN_ASSERT_OK(status);
}

TEST_F(VulkanExecutableTest, NotAFlatBuffer) {
  std::vector<uint8_t> garbage(100, 0xab);
  Status status = device_->CreateExecutable("vulkan-spirv-fb", garbage).status();
  ExpectError(status, StatusCode::kInvalidArgument,
              "not a valid SPIR-V executable FlatBuffer (identifier KSPV)");
  std::vector<uint8_t> good = testing::BuildTestExecutable();
  good.resize(good.size() / 2);
  ExpectError(device_->CreateExecutable("vulkan-spirv-fb", good).status(),
              StatusCode::kInvalidArgument, "not a valid SPIR-V executable FlatBuffer");
}

TEST_F(VulkanExecutableTest, ModuleOrdinalOutOfRange) {
  SpirvExportSpec spec = AddConstantSpec();
  spec.module_ordinal = 3;
  ExpectError(Load({ReadTestShader("add_constant")}, {spec}), StatusCode::kInvalidArgument,
              "export 0 'add': module ordinal 3 is out of range (the executable has 1 shader "
              "modules)");
}

TEST_F(VulkanExecutableTest, NoModulesOrEmptyCode) {
  ExpectError(Load({}, {AddConstantSpec()}), StatusCode::kInvalidArgument, "has no shader modules");
  ExpectError(Load({{}}, {AddConstantSpec()}), StatusCode::kInvalidArgument,
              "shader module 0 has no code");
}

TEST_F(VulkanExecutableTest, WrongMagicAndTruncatedModules) {
  std::vector<uint32_t> code = ReadTestShader("add_constant");
  std::vector<uint32_t> swapped = code;
  swapped[0] = 0x03022307;
  ExpectError(Load({swapped}, {AddConstantSpec()}), StatusCode::kInvalidArgument,
              "shader module 0: not SPIR-V: the first word is 0x03022307 (a byte-swapped module)");
  std::vector<uint32_t> header_only(code.begin(), code.begin() + 3);
  ExpectError(Load({header_only}, {AddConstantSpec()}), StatusCode::kInvalidArgument,
              "fewer than its 5-word header");
  // Cut inside the first instruction longer than two words.
  size_t at = 5;
  while ((code[at] >> 16) <= 2) at += code[at] >> 16;
  std::vector<uint32_t> truncated(code.begin(), code.begin() + at + 2);
  ExpectError(Load({truncated}, {AddConstantSpec()}), StatusCode::kInvalidArgument,
              "runs past the end of the module, which has " + std::to_string(at + 2) + " words");
  // Whole instructions, but the function never ends.
  std::vector<uint32_t> unended(code.begin(), code.end() - 1);
  ASSERT_EQ(code.back(), (1u << 16) | 56u);  // OpFunctionEnd.
  ExpectError(Load({unended}, {AddConstantSpec()}), StatusCode::kInvalidArgument,
              "the SPIR-V module ends inside a function (no OpFunctionEnd)");
  std::vector<uint32_t> zero_count = code;
  zero_count[5] = 0;  // The first instruction's word count and opcode.
  ExpectError(Load({zero_count}, {AddConstantSpec()}), StatusCode::kInvalidArgument,
              "shader module 0: the instruction at word 5 has a word count of 0");
}

TEST_F(VulkanExecutableTest, MissingEntryPointListsTheModulesEntryPoints) {
  SpirvExportSpec spec = AddConstantSpec();
  spec.entry_point = "add_kernel";
  ExpectError(Load({ReadTestShader("add_constant")}, {spec}), StatusCode::kInvalidArgument,
              "export 0 'add': shader module 0 has no GLCompute entry point 'add_kernel' (entry "
              "points: main)");
}

TEST_F(VulkanExecutableTest, WorkgroupSizeMustMatchLocalSize) {
  SpirvExportSpec spec = AddConstantSpec();
  spec.workgroup_size = {32, 1, 1};
  ExpectError(Load({ReadTestShader("add_constant")}, {spec}), StatusCode::kInvalidArgument,
              "export 0 'add' declares workgroup size [32, 1, 1] but its entry point 'main' has "
              "workgroup size [64, 1, 1]");
}

// glslc compiles layout(local_size_x_id = 0) to a spec constant composite
// decorated WorkgroupSize (which overrides LocalSize): its default counts.
TEST_F(VulkanExecutableTest, SpecConstantWorkgroupSizeCountsWithItsDefault) {
  SpirvExportSpec spec = AddConstantSpec();
  spec.workgroup_size = {64, 1, 1};
  ExpectError(Load({ReadTestShader("spec_constant_size")}, {spec}), StatusCode::kInvalidArgument,
              "export 0 'add' declares workgroup size [64, 1, 1] but its entry point 'main' has "
              "workgroup size [32, 1, 1]");
  spec.workgroup_size = {32, 1, 1};
  KILN_ASSERT_OK(Load({ReadTestShader("spec_constant_size")}, {spec}));
}

TEST_F(VulkanExecutableTest, LayoutBeyondTheDeviceLimits) {
  const VkPhysicalDeviceLimits& limits = device_->logical().limits();
  SpirvExportSpec spec = AddConstantSpec();
  spec.constant_count = limits.maxPushConstantsSize / 4 + 1;
  ExpectError(Load({ReadTestShader("add_constant")}, {spec}), StatusCode::kInvalidArgument,
              "but the device allows " + std::to_string(limits.maxPushConstantsSize) +
                  " bytes (maxPushConstantsSize)");
  if (limits.maxPerStageDescriptorStorageBuffers < 1024) {
    spec = AddConstantSpec();
    spec.read_only.assign(limits.maxPerStageDescriptorStorageBuffers + 1, false);
    ExpectError(Load({ReadTestShader("add_constant")}, {spec}), StatusCode::kInvalidArgument,
                "(maxPerStageDescriptorStorageBuffers)");
  }
}

TEST_F(VulkanExecutableTest, DuplicateExportNames) {
  ExpectError(Load({ReadTestShader("add_constant")}, {AddConstantSpec(), AddConstantSpec()}),
              StatusCode::kInvalidArgument, "duplicate export name 'add'");
}

// SPIR-V that frames correctly but is invalid: the validation layer's
// SPIR-V validator reports it, which shows that the tests' no-message check
// catches it (this test takes the message out so that the fixture passes).
// What the driver then does is its own: lavapipe refuses the pipeline (the
// error names the export and the VkResult), NVIDIA's driver accepts it.
TEST_F(VulkanExecutableTest, InvalidSpirvIsReportedByTheValidationLayer) {
  if (!validation_enabled()) GTEST_SKIP() << "needs KILN_VULKAN_VALIDATION=1";
  std::vector<uint32_t> code = ReadTestShader("add_constant");
  // OpMemoryModel's memory model operand becomes an unknown enumerant.
  size_t at = 5;
  while ((code[at] & 0xffff) != 14) at += code[at] >> 16;
  code[at + 2] = 77;
  Status status = Load({code}, {AddConstantSpec()});
  if (!status.ok()) {
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << status.ToString();
    EXPECT_TRUE(status.message().find("shader module 0 (of export 'add') was rejected by "
                                      "vkCreateShaderModule: VK_") != std::string::npos ||
                status.message().find("export 0 'add': vkCreateComputePipelines (entry point "
                                      "'main'): VK_") != std::string::npos)
        << status.ToString();
  }
  std::vector<std::string> messages = driver_->instance().validation_log().Take();
  ASSERT_FALSE(messages.empty());
  EXPECT_NE(messages[0].find("Invalid memory model operand: 77"), std::string::npos) << messages[0];
}

}  // namespace
}  // namespace kiln::hal::vulkan
