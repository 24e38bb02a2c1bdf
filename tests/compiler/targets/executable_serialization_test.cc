// Tests of compiler/targets/executable_serialization.h: object lookup
// through the search path (or a reader in its place), format checks, the
// FlatBuffers written for each format, CUDA image merging, SPIR-V modules
// (one or one per export, entry points, workgroup sizes), inline objects and
// target selection.
#include "compiler/targets/executable_serialization.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "schemas/executable_cuda_generated.h"
#include "schemas/executable_elf_generated.h"
#include "schemas/executable_spirv_generated.h"
#include "tests/base/spirv_test_module.h"

namespace kiln::compiler {
namespace {

namespace stdfs = std::filesystem;
using ::kiln::testing::SpirvTestModule;

// A temporary directory removed when the test ends.
class ExecutableSerializationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = stdfs::temp_directory_path() /
           ("kiln_exe_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    stdfs::create_directories(dir_ / "objs");
  }
  void TearDown() override { stdfs::remove_all(dir_); }

  std::string Write(const std::string& relative, const std::vector<uint8_t>& bytes) {
    stdfs::path path = dir_ / relative;
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    return path.string();
  }
  std::string WriteText(const std::string& relative, const std::string& text) {
    return Write(relative, std::vector<uint8_t>(text.begin(), text.end()));
  }

  stdfs::path dir_;
};

// The 20 header bytes the serializer checks, plus padding.
std::vector<uint8_t> ElfHeader(uint16_t type, uint16_t machine) {
  std::vector<uint8_t> bytes(64, 0);
  bytes[0] = 0x7f, bytes[1] = 'E', bytes[2] = 'L', bytes[3] = 'F';
  bytes[4] = 2, bytes[5] = 1;
  bytes[16] = type & 0xff, bytes[17] = type >> 8;
  bytes[18] = machine & 0xff, bytes[19] = machine >> 8;
  return bytes;
}

// A module with one GLCompute entry point per export of TwoExports(), named
// like them, of the exports' workgroup size.
std::vector<uint8_t> SpirvWords() {
  return SpirvTestModule()
      .EntryPoint(1, "simple_mul")
      .EntryPoint(2, "simple_mul_inplace")
      .LocalSize(1, 64, 1, 1)
      .LocalSize(2, 64, 1, 1)
      .Bytes();
}

// GLSL's shape: one `main` of the given size.
std::vector<uint8_t> GlslMain(uint32_t x, uint32_t y = 1, uint32_t z = 1) {
  return SpirvTestModule().EntryPoint(7, "main").LocalSize(7, x, y, z).Bytes();
}

const char* kPtx =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry simple_mul(\n)\n{\nret;\n}\n"
    ".visible .entry simple_mul_inplace(\n)\n{\nret;\n}\n";

TargetObjects Target(std::string backend, std::string format, std::string arch = "") {
  TargetObjects target{std::move(backend), std::move(format), arch, "", {}};
  if (!arch.empty()) target.config_text = "{target_arch = \"" + arch + "\"}";
  return target;
}

// `target` with objects at `paths`.
TargetObjects With(TargetObjects target, std::vector<std::string> paths) {
  for (std::string& path : paths) target.objects.push_back({std::move(path), {}});
  return target;
}

ExecutableInfo TwoExports() {
  ExecutableInfo spec;
  spec.name = "executable";
  spec.exports = {{"simple_mul", 0, 1, {true, true, false}, {64, 1, 1}},
                  {"simple_mul_inplace", 1, 1, {true, false}, {64, 1, 1}}};
  return spec;
}

TEST_F(ExecutableSerializationTest, CpuObjectFoundThroughSearchPathBecomesElfExecutable) {
  std::vector<uint8_t> library = ElfHeader(3, 62);
  Write("objs/kernels.so", library);
  ExecutableInfo spec = TwoExports();
  spec.targets.push_back(With(Target("llvm-cpu", "system-elf-x86_64"), {"kernels.so"}));
  ObjectSearch search{dir_.string(), {(dir_ / "nowhere").string(), (dir_ / "objs").string()}, {}};
  auto result = SerializeExecutable(spec, search);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(result->size(), 1u);
  const SerializedExecutable& elf = (*result)[0];
  EXPECT_EQ(elf.backend, "llvm-cpu");
  EXPECT_EQ(elf.format, "system-elf-x86_64");
  flatbuffers::Verifier verifier(elf.bytes.data(), elf.bytes.size());
  ASSERT_TRUE(schema::elf::VerifyElfExecutableBuffer(verifier));
  const auto* root = schema::elf::GetElfExecutable(elf.bytes.data());
  ASSERT_EQ(root->library()->size(), library.size());
  EXPECT_EQ(std::memcmp(root->library()->data(), library.data(), library.size()), 0);
  // 64-byte aligned within the FlatBuffer (which the module embeds at a
  // 64-byte aligned rodata offset).
  EXPECT_EQ((root->library()->data() - elf.bytes.data()) % 64, 0);
  ASSERT_EQ(root->exports()->size(), 2u);
  const auto* mul = root->exports()->Get(0);
  EXPECT_EQ(mul->name()->str(), "simple_mul");
  EXPECT_EQ(mul->symbol()->str(), "simple_mul");
  EXPECT_EQ(mul->workgroup_size()->x(), 64u);
  EXPECT_EQ(mul->constant_count(), 1u);
  ASSERT_EQ(mul->bindings()->size(), 3u);
  EXPECT_TRUE(mul->bindings()->Get(0)->read_only());
  EXPECT_FALSE(mul->bindings()->Get(2)->read_only());
  EXPECT_EQ(root->exports()->Get(1)->bindings()->size(), 2u);
}

TEST_F(ExecutableSerializationTest, EmbeddedElfFormatIsAcceptedAsSystemElf) {
  Write("kernels.so", ElfHeader(3, 62));
  ExecutableInfo spec = TwoExports();
  spec.targets.push_back(With(Target("llvm-cpu", "embedded-elf-x86_64"), {"kernels.so"}));
  auto result = SerializeExecutable(spec, {dir_.string(), {}, {}});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ((*result)[0].format, "system-elf-x86_64");
}

TEST_F(ExecutableSerializationTest, MissingObjectNamesPathAndEveryDirectorySearched) {
  ExecutableInfo spec = TwoExports();
  spec.targets.push_back(With(Target("llvm-cpu", "system-elf-x86_64"), {"gone.so"}));
  std::string a = (dir_ / "a").string(), b = (dir_ / "b").string();
  auto result = SerializeExecutable(spec, {dir_.string(), {a, b}, {}});
  ASSERT_FALSE(result.ok());
  const std::string& message = result.status().message();
  EXPECT_NE(message.find("'gone.so' not found"), std::string::npos) << message;
  EXPECT_NE(message.find(dir_.string() + ", " + a + ", " + b), std::string::npos) << message;
  EXPECT_NE(message.find("executable 'executable'"), std::string::npos) << message;
}

TEST_F(ExecutableSerializationTest, WrongCpuObjectsAreRejected) {
  ExecutableInfo spec = TwoExports();
  spec.targets.push_back(With(Target("llvm-cpu", "system-elf-x86_64"), {"k.o"}));
  Write("k.o", ElfHeader(1, 62));  // A relocatable object, not a shared one.
  auto relocatable = SerializeExecutable(spec, {dir_.string(), {}, {}});
  ASSERT_FALSE(relocatable.ok());
  EXPECT_NE(relocatable.status().message().find("not a shared object"), std::string::npos);
  Write("k.o", ElfHeader(3, 183));  // aarch64 for an x86_64 target.
  auto wrong_machine = SerializeExecutable(spec, {dir_.string(), {}, {}});
  ASSERT_FALSE(wrong_machine.ok());
  EXPECT_NE(wrong_machine.status().message().find("not x86_64"), std::string::npos);
  WriteText("k.o", "not an elf file at all");
  auto text = SerializeExecutable(spec, {dir_.string(), {}, {}});
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.status().message().find("is not an ELF shared object"), std::string::npos);
}

TEST_F(ExecutableSerializationTest, CudaTargetsMergeIntoOneExecutableWithAnImagePerArch) {
  WriteText("k75.ptx", kPtx);
  WriteText("k80.ptx", kPtx);
  ExecutableInfo spec = TwoExports();
  spec.targets.push_back(With(Target("cuda", "cuda-nvptx-fb", "sm_75"), {"k75.ptx"}));
  spec.targets.push_back(With(Target("cuda", "cuda-nvptx-fb", "sm_80"), {"k80.ptx"}));
  auto result = SerializeExecutable(spec, {dir_.string(), {}, {}});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(result->size(), 1u);
  EXPECT_EQ((*result)[0].format, "cuda-nvptx-fb");
  EXPECT_EQ((*result)[0].config_text, "target_arch = [sm_75, sm_80]");
  const std::vector<uint8_t>& bytes = (*result)[0].bytes;
  flatbuffers::Verifier verifier(bytes.data(), bytes.size());
  ASSERT_TRUE(schema::cuda::VerifyCudaExecutableBuffer(verifier));
  const auto* root = schema::cuda::GetCudaExecutable(bytes.data());
  ASSERT_EQ(root->images()->size(), 2u);
  EXPECT_EQ(root->images()->Get(0)->target_arch()->str(), "sm_75");
  EXPECT_EQ(root->images()->Get(1)->ptx()->str(), kPtx);
  EXPECT_EQ(root->exports()->Get(1)->kernel_name()->str(), "simple_mul_inplace");
  EXPECT_EQ(root->exports()->Get(0)->block_size()->x(), 64u);
}

TEST_F(ExecutableSerializationTest, PtxWithoutTheExportedKernelIsRejected) {
  WriteText("k.ptx", ".version 8.0\n.target sm_80\n.visible .entry other()\n{ret;}\n");
  ExecutableInfo spec = TwoExports();
  spec.targets.push_back(With(Target("cuda", "cuda-nvptx-fb", "sm_80"), {"k.ptx"}));
  auto result = SerializeExecutable(spec, {dir_.string(), {}, {}});
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("no kernel '.entry simple_mul'"), std::string::npos)
      << result.status().message();
}

TEST_F(ExecutableSerializationTest, PtxEntryNamesMatchWhole) {
  // simple_mul_inplace is no `simple_mul` kernel.
  WriteText("k.ptx", ".version 8.0\n.target sm_80\n.visible .entry simple_mul_inplace(\n)\n");
  ExecutableInfo spec = TwoExports();
  spec.targets.push_back(With(Target("cuda", "cuda-nvptx-fb", "sm_80"), {"k.ptx"}));
  auto result = SerializeExecutable(spec, {dir_.string(), {}, {}});
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("no kernel '.entry simple_mul'"), std::string::npos)
      << result.status().message();
  WriteText("k.ptx",
            ".version 8.0\n.target sm_80\n.visible .entry simple_mul_inplace(\n)\n"
            ".visible .entry simple_mul\n(\n)\n");
  EXPECT_TRUE(SerializeExecutable(spec, {dir_.string(), {}, {}}).ok());
}

TEST_F(ExecutableSerializationTest, CudaTargetNeedsTargetArch) {
  WriteText("k.ptx", kPtx);
  ExecutableInfo spec = TwoExports();
  spec.targets.push_back(With(Target("cuda", "cuda-nvptx-fb"), {"k.ptx"}));
  auto result = SerializeExecutable(spec, {dir_.string(), {}, {}});
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("target_arch"), std::string::npos);
}

const schema::spirv::SpirvExecutable* VerifiedSpirv(const SerializedExecutable& serialized) {
  EXPECT_EQ(serialized.backend, "vulkan-spirv");
  EXPECT_EQ(serialized.format, "vulkan-spirv-fb");
  flatbuffers::Verifier verifier(serialized.bytes.data(), serialized.bytes.size());
  if (!schema::spirv::VerifySpirvExecutableBuffer(verifier)) return nullptr;
  return schema::spirv::GetSpirvExecutable(serialized.bytes.data());
}

TargetObjects Vulkan() { return Target("vulkan-spirv", "vulkan-spirv-fb"); }

TEST_F(ExecutableSerializationTest, OneSpirvModuleServesEveryExportByEntryPointName) {
  std::vector<uint8_t> module = SpirvTestModule()
                                    .EntryPoint(1, "simple_mul_inplace")
                                    .EntryPoint(2, "simple_mul")
                                    .LocalSize(1, 64, 1, 1)
                                    .LocalSize(2, 32, 2, 1)
                                    .Bytes();
  Write("k.spv", module);
  ExecutableInfo spec = TwoExports();  // Neither declares its workgroup size.
  spec.targets.push_back(With(Vulkan(), {"k.spv"}));
  auto result = SerializeExecutable(spec, {dir_.string(), {}, {}});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(result->size(), 1u);
  const auto* root = VerifiedSpirv((*result)[0]);
  ASSERT_NE(root, nullptr);
  ASSERT_EQ(root->modules()->size(), 1u);
  ASSERT_EQ(root->modules()->Get(0)->code()->size() * 4, module.size());
  EXPECT_EQ(std::memcmp(root->modules()->Get(0)->code()->data(), module.data(), module.size()), 0);
  ASSERT_EQ(root->exports()->size(), 2u);
  const auto* mul = root->exports()->Get(0);
  EXPECT_EQ(mul->name()->str(), "simple_mul");
  EXPECT_EQ(mul->entry_point()->str(), "simple_mul");
  EXPECT_EQ(mul->module_ordinal(), 0u);
  // The shader's LocalSize, not the undeclared IR default.
  EXPECT_EQ(mul->workgroup_size()->x(), 32u);
  EXPECT_EQ(mul->workgroup_size()->y(), 2u);
  EXPECT_EQ(mul->constant_count(), 1u);
  ASSERT_EQ(mul->bindings()->size(), 3u);
  EXPECT_TRUE(mul->bindings()->Get(1)->read_only());
  EXPECT_FALSE(mul->bindings()->Get(2)->read_only());
  const auto* inplace = root->exports()->Get(1);
  EXPECT_EQ(inplace->entry_point()->str(), "simple_mul_inplace");
  EXPECT_EQ(inplace->module_ordinal(), 0u);
  EXPECT_EQ(inplace->workgroup_size()->x(), 64u);
  EXPECT_EQ(inplace->bindings()->size(), 2u);
}

TEST_F(ExecutableSerializationTest, OneSpirvModulePerExportUsesEachModulesOnlyEntryPoint) {
  Write("mul.spv", GlslMain(64));
  Write("inplace.spv", GlslMain(16, 4));
  ExecutableInfo spec = TwoExports();
  spec.exports[0].workgroup_size_declared = true;  // [64, 1, 1], as the shader says.
  spec.targets.push_back(With(Vulkan(), {"mul.spv", "inplace.spv"}));
  auto result = SerializeExecutable(spec, {dir_.string(), {}, {}});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  const auto* root = VerifiedSpirv((*result)[0]);
  ASSERT_NE(root, nullptr);
  ASSERT_EQ(root->modules()->size(), 2u);
  EXPECT_EQ(root->modules()->Get(1)->code()->size() * 4, GlslMain(16, 4).size());
  const auto* mul = root->exports()->Get(0);
  EXPECT_EQ(mul->entry_point()->str(), "main");
  EXPECT_EQ(mul->module_ordinal(), 0u);
  EXPECT_EQ(mul->workgroup_size()->x(), 64u);
  const auto* inplace = root->exports()->Get(1);
  EXPECT_EQ(inplace->name()->str(), "simple_mul_inplace");
  EXPECT_EQ(inplace->entry_point()->str(), "main");
  EXPECT_EQ(inplace->module_ordinal(), 1u);
  EXPECT_EQ(inplace->workgroup_size()->x(), 16u);
  EXPECT_EQ(inplace->workgroup_size()->y(), 4u);
}

TEST_F(ExecutableSerializationTest, SpirvObjectCountMustBeOneOrOnePerExport) {
  Write("k.spv", GlslMain(64));
  ExecutableInfo spec = TwoExports();
  spec.targets.push_back(With(Vulkan(), {"k.spv", "k.spv", "k.spv"}));
  auto result = SerializeExecutable(spec, {dir_.string(), {}, {}});
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find(
                "the Vulkan target takes one SPIR-V module for all exports or one per export "
                "(2 exports, in ordinal order), got 3 objects"),
            std::string::npos)
      << result.status().message();
  EXPECT_NE(result.status().message().find("\"vulkan-spirv\", \"vulkan-spirv-fb\""),
            std::string::npos);
}

TEST_F(ExecutableSerializationTest, SpirvEntryPointMustBeFoundOrUnambiguous) {
  Write("k.spv",
        SpirvTestModule().EntryPoint(1, "a").EntryPoint(2, "b").LocalSize(1, 1, 1, 1).Bytes());
  ExecutableInfo spec = TwoExports();
  spec.targets.push_back(With(Vulkan(), {"k.spv"}));
  auto ambiguous = SerializeExecutable(spec, {dir_.string(), {}, {}});
  ASSERT_FALSE(ambiguous.ok());
  EXPECT_NE(ambiguous.status().message().find(
                "Vulkan object '" + (dir_ / "k.spv").string() +
                "' has no GLCompute entry point named 'simple_mul' for export @simple_mul, and "
                "more than one to choose from: 'a', 'b'"),
            std::string::npos)
      << ambiguous.status().message();

  Write("k.spv", SpirvTestModule().EntryPoint(1, "frag", SpirvTestModule::kFragment).Bytes());
  auto none = SerializeExecutable(spec, {dir_.string(), {}, {}});
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("has no GLCompute entry point for export @simple_mul "
                                         "(its other entry points: 'frag')"),
            std::string::npos)
      << none.status().message();
}

TEST_F(ExecutableSerializationTest, DeclaredWorkgroupSizeMustMatchTheShader) {
  Write("mul.spv", GlslMain(64));
  Write("inplace.spv", GlslMain(32));
  ExecutableInfo spec = TwoExports();
  spec.exports[1].workgroup_size_declared = true;  // [64, 1, 1]; the shader has 32.
  spec.targets.push_back(With(Vulkan(), {"mul.spv", "inplace.spv"}));
  auto result = SerializeExecutable(spec, {dir_.string(), {}, {}});
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find(
                "export @simple_mul_inplace declares workgroup_size [64, 1, 1] but its SPIR-V "
                "entry point 'main' in Vulkan object 1 '" +
                (dir_ / "inplace.spv").string() + "' has LocalSize [32, 1, 1]"),
            std::string::npos)
      << result.status().message();
  // Undeclared, the shader's size is taken as it is.
  spec.exports[1].workgroup_size_declared = false;
  EXPECT_TRUE(SerializeExecutable(spec, {dir_.string(), {}, {}}).ok());
}

TEST_F(ExecutableSerializationTest, SpirvEntryPointWithoutASizeFailsItsExport) {
  Write("k.spv", SpirvTestModule().EntryPoint(1, "main").Bytes());
  ExecutableInfo spec = TwoExports();
  spec.targets.push_back(With(Vulkan(), {"k.spv"}));
  auto result = SerializeExecutable(spec, {dir_.string(), {}, {}});
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find(
                "entry point 'main' (export @simple_mul) has no usable workgroup size: it has no "
                "LocalSize or LocalSizeId execution mode"),
            std::string::npos)
      << result.status().message();
}

TEST_F(ExecutableSerializationTest, MalformedSpirvIsAnErrorNamingTheObject) {
  Write("mul.spv", GlslMain(64));
  SpirvTestModule truncated;
  truncated.EntryPoint(1, "main").words().push_back(0x0010000fu);
  Write("bad.spv", truncated.Bytes());
  ExecutableInfo spec = TwoExports();
  spec.targets.push_back(With(Vulkan(), {"mul.spv", "bad.spv"}));
  auto result = SerializeExecutable(spec, {dir_.string(), {}, {}});
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("Vulkan object 1 '" + (dir_ / "bad.spv").string() +
                                           "' is malformed SPIR-V"),
            std::string::npos)
      << result.status().message();

  WriteText("mul.spv", "this is glsl, not spirv");
  auto text = SerializeExecutable(spec, {dir_.string(), {}, {}});
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.status().message().find("is not SPIR-V"), std::string::npos);
}

TEST_F(ExecutableSerializationTest, TargetSelectionKeepsOnlyTheNamedTargets) {
  Write("k.so", ElfHeader(3, 62));
  WriteText("k.ptx", kPtx);
  Write("k.spv", SpirvWords());
  ExecutableInfo spec = TwoExports();
  spec.targets.push_back(With(Vulkan(), {"k.spv"}));
  spec.targets.push_back(With(Target("cuda", "cuda-nvptx-fb", "sm_80"), {"k.ptx"}));
  spec.targets.push_back(With(Target("llvm-cpu", "system-elf-x86_64"), {"k.so"}));
  auto all = SerializeExecutable(spec, {dir_.string(), {}, {}});
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[0].format, "vulkan-spirv-fb");  // Declaration order.
  EXPECT_EQ((*all)[1].format, "cuda-nvptx-fb");
  EXPECT_EQ((*all)[2].format, "system-elf-x86_64");
  auto cpu_cuda = SerializeExecutable(spec, {dir_.string(), {}, {"cuda", "cpu"}});
  ASSERT_TRUE(cpu_cuda.ok());
  ASSERT_EQ(cpu_cuda->size(), 2u);
  EXPECT_EQ((*cpu_cuda)[0].format, "cuda-nvptx-fb");
  auto none = SerializeExecutable(spec, {dir_.string(), {}, {"cpu"}});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->size(), 1u);
  // A deselected target's objects are not even looked up.
  stdfs::remove(dir_ / "k.ptx");
  EXPECT_TRUE(SerializeExecutable(spec, {dir_.string(), {}, {"cpu", "vulkan"}}).ok());
  auto unknown = SerializeExecutable(spec, {dir_.string(), {}, {"rocm"}});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().message(), "unknown target 'rocm' (targets: cpu, cuda, vulkan)");
}

TEST_F(ExecutableSerializationTest, InlineDataObjects) {
  ExecutableInfo spec = TwoExports();
  std::vector<uint8_t> bytes = GlslMain(200);
  TargetObjects vulkan = Vulkan();
  vulkan.objects.push_back({"", bytes});
  spec.targets = {vulkan};
  auto result = SerializeExecutable(spec, {dir_.string(), {}, {}});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  const auto* root = VerifiedSpirv((*result)[0]);
  ASSERT_NE(root, nullptr);
  ASSERT_EQ(root->modules()->Get(0)->code()->size() * 4, bytes.size());
  EXPECT_EQ(std::memcmp(root->modules()->Get(0)->code()->data(), bytes.data(), bytes.size()), 0);
  EXPECT_EQ(root->exports()->Get(1)->workgroup_size()->x(), 200u);
  // Inline bytes that are not SPIR-V are named as inline data.
  spec.targets[0].objects[0].data = {1, 2, 3, 4};
  auto short_data = SerializeExecutable(spec, {dir_.string(), {}, {}});
  ASSERT_FALSE(short_data.ok());
  EXPECT_NE(short_data.status().message().find("Vulkan object 'inline data' is not SPIR-V"),
            std::string::npos)
      << short_data.status().message();
}

TEST_F(ExecutableSerializationTest, ObjectReaderReplacesTheFileSystem) {
  ExecutableInfo spec = TwoExports();
  spec.targets.push_back(With(Target("cuda", "cuda-nvptx-fb", "sm_80"), {"nowhere/k.ptx"}));
  std::vector<std::string> asked;
  ObjectSearch search{dir_.string(), {}, {}};
  search.read_object = [&](const std::string& path) -> Result<std::vector<uint8_t>> {
    asked.push_back(path);
    return std::vector<uint8_t>(kPtx, kPtx + std::strlen(kPtx));
  };
  auto result = SerializeExecutable(spec, search);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(asked, std::vector<std::string>{"nowhere/k.ptx"});
  EXPECT_EQ((*result)[0].config_text, "target_arch = [sm_80]");
}

TEST_F(ExecutableSerializationTest, TargetNamesOfBackends) {
  EXPECT_EQ(TargetNameOfBackend("llvm-cpu"), "cpu");
  EXPECT_EQ(TargetNameOfBackend("cpu"), "cpu");
  EXPECT_EQ(TargetNameOfBackend("cuda"), "cuda");
  EXPECT_EQ(TargetNameOfBackend("vulkan-spirv"), "vulkan");
  EXPECT_EQ(TargetNameOfBackend("vulkan"), "vulkan");
  EXPECT_EQ(TargetNameOfBackend("rocm"), "");
}

TEST_F(ExecutableSerializationTest, OrdinalsMustBeDense) {
  ExecutableInfo spec = TwoExports();
  spec.exports[1].ordinal = 2;
  auto result = SerializeExecutable(spec, {dir_.string(), {}, {}});
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("has ordinal 2, expected 1"), std::string::npos);
}

TEST_F(ExecutableSerializationTest, UnknownBackendIsAnError) {
  ExecutableInfo spec = TwoExports();
  spec.targets.push_back(With(Target("rocm", "rocm-hsaco-fb"), {"k.hsaco"}));
  auto result = SerializeExecutable(spec, {dir_.string(), {}, {}});
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("'rocm' has no kiln driver"), std::string::npos);
}

}  // namespace
}  // namespace kiln::compiler
