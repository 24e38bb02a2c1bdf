// A real shared object (test_kernels.c, built by CMake) wrapped in a
// "system-elf-*" executable FlatBuffer, loaded from memory by the CPU device
// and dispatched; plus the loader's errors.
#include <dirent.h>
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <string>

#include "base/file_io.h"
#include "flatbuffers/flatbuffers.h"
#include "hal/cpu/elf_loader.h"
#include "schemas/executable_elf_generated.h"
#include "tests/hal/elf_test_executable.h"
#include "tests/hal/test_util.h"

namespace kiln::hal {
namespace {

namespace fb = ::kiln::schema::elf;
using testing::BuildElfExecutable;
using testing::ElfExportSpec;
using testing::MakeBuffer;
using testing::ReadBuffer;
using testing::ReadTestKernelLibrary;
using testing::Unwrap;

const std::vector<ElfExportSpec> kKernelExports = {
    {"simple_mul", "simple_mul", 64, {true, true, false}, 1},
    {"simple_mul_inplace", "simple_mul_inplace", 64, {true, false}, 0},
    {"always_fail", "always_fail", 1, {}, 0},
};

std::set<std::string> ListDirectory(const char* path) {
  std::set<std::string> names;
  if (DIR* dir = opendir(path)) {
    while (dirent* entry = readdir(dir)) names.insert(entry->d_name);
    closedir(dir);
  }
  return names;
}

size_t CountOpenFds() { return ListDirectory("/proc/self/fd").size(); }

bool MapsContain(const std::string& fragment) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.find(fragment) != std::string::npos) return true;
  }
  return false;
}

class ElfExecutableTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    device_ = testing::CreateDevice(GetParam());
    library_ = ReadTestKernelLibrary();
    ASSERT_FALSE(library_.empty());
  }
  Ref<Device> device_;
  std::vector<uint8_t> library_;
};

TEST_P(ElfExecutableTest, LoadsFromMemoryAndDispatches) {
  std::set<std::string> tmp_before = ListDirectory("/tmp");
  size_t fds_before = CountOpenFds();
  std::vector<uint8_t> bytes = BuildElfExecutable(library_, kKernelExports);
  Ref<Executable> executable = Unwrap(device_->CreateExecutable(cpu::HostElfFormat(), bytes));
  // Loaded from an anonymous memory file, held open while the library is
  // loaded (the loader knows it by its /proc/self/fd path, which must not be
  // reused meanwhile): the mapping names the memfd, nothing appeared in /tmp.
  EXPECT_EQ(CountOpenFds(), fds_before + 1);
  EXPECT_TRUE(MapsContain("/memfd:kiln-executable"));
  for (const std::string& name : ListDirectory("/tmp")) {
    if (!tmp_before.count(name)) {
      EXPECT_EQ(name.find("kiln"), std::string::npos) << "new file in /tmp: " << name;
    }
  }
  ASSERT_EQ(executable->exports().size(), 3u);
  EXPECT_EQ(executable->format(), cpu::HostElfFormat());
  const ExecutableExport& mul = executable->export_at(0);
  EXPECT_EQ(mul.name, "simple_mul");
  EXPECT_EQ(mul.workgroup_size, (std::array<uint32_t, 3>{64, 1, 1}));
  EXPECT_EQ(mul.layout.constant_count, 1u);
  ASSERT_EQ(mul.layout.bindings.size(), 3u);
  EXPECT_TRUE(mul.layout.bindings[0].read_only);
  EXPECT_FALSE(mul.layout.bindings[2].read_only);
  EXPECT_EQ(mul.layout.ToString(),
            "constants = 1, bindings = [storage_buffer ReadOnly, storage_buffer ReadOnly, "
            "storage_buffer]");
  EXPECT_EQ(*executable->LookupExport("simple_mul_inplace"), 1u);
  Status missing = executable->LookupExport("nope").status();
  EXPECT_EQ(missing.code(), StatusCode::kNotFound);
  EXPECT_NE(missing.message().find("exports: simple_mul, simple_mul_inplace, always_fail"),
            std::string::npos)
      << missing.message();

  const uint32_t n = 200;
  std::vector<float> lhs(n), rhs(n);
  for (uint32_t i = 0; i < n; ++i) {
    lhs[i] = static_cast<float>(i);
    rhs[i] = 0.5f;
  }
  Ref<Buffer> lhs_buffer = MakeBuffer(*device_, lhs);
  Ref<Buffer> rhs_buffer = MakeBuffer(*device_, rhs);
  Ref<Buffer> out_buffer = MakeBuffer(*device_, std::vector<float>(n, 0.0f));
  Ref<CommandBuffer> cb = Unwrap(device_->CreateCommandBuffer(CommandBufferMode::kOneShot));
  KILN_ASSERT_OK(cb->Begin());
  const uint32_t constants[] = {n};
  const BufferRef mul_bindings[] = {BufferRef::Of(lhs_buffer), BufferRef::Of(rhs_buffer),
                                    BufferRef::Of(out_buffer)};
  KILN_ASSERT_OK(cb->Dispatch(executable, 0, {(n + 63) / 64, 1, 1}, constants, mul_bindings));
  KILN_ASSERT_OK(cb->ExecutionBarrier());
  const BufferRef inplace_bindings[] = {BufferRef::Of(lhs_buffer), BufferRef::Of(out_buffer)};
  KILN_ASSERT_OK(cb->Dispatch(executable, 1, {(n + 63) / 64, 1, 1}, {}, inplace_bindings));
  KILN_ASSERT_OK(cb->End());
  KILN_ASSERT_OK(testing::SubmitAndWait(*device_, cb));
  std::vector<float> out = ReadBuffer<float>(*out_buffer);
  for (uint32_t i = 0; i < n; ++i) ASSERT_EQ(out[i], 0.5f * i * i) << i;

  // The library is unloaded, and its descriptor closed, with the last
  // reference to the executable.
  cb = nullptr;
  executable = nullptr;
  EXPECT_FALSE(MapsContain("/memfd:kiln-executable"));
  EXPECT_EQ(CountOpenFds(), fds_before);
}

TEST_P(ElfExecutableTest, KernelFailureNamesTheExport) {
  Ref<Executable> executable = Unwrap(device_->CreateExecutable(
      cpu::HostElfFormat(), BuildElfExecutable(library_, kKernelExports)));
  Ref<CommandBuffer> cb = Unwrap(device_->CreateCommandBuffer(CommandBufferMode::kOneShot));
  KILN_ASSERT_OK(cb->Begin());
  KILN_ASSERT_OK(cb->Dispatch(executable, 2, {1, 1, 1}, {}, {}));
  KILN_ASSERT_OK(cb->End());
  Status status = testing::SubmitAndWait(*device_, cb);
  EXPECT_NE(status.message().find("kernel 'always_fail'"), std::string::npos) << status.ToString();
  EXPECT_NE(status.message().find("return code 42"), std::string::npos) << status.ToString();
}

TEST_P(ElfExecutableTest, MissingSymbolIsANamedError) {
  std::vector<ElfExportSpec> specs = kKernelExports;
  specs.push_back({"broken", "no_such_kernel", 1, {}, 0});
  size_t fds_before = CountOpenFds();
  Status status =
      device_->CreateExecutable(cpu::HostElfFormat(), BuildElfExecutable(library_, specs)).status();
  EXPECT_EQ(status.code(), StatusCode::kNotFound);
  EXPECT_NE(status.message().find("symbol 'no_such_kernel' of export 'broken'"), std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find(std::string(cpu::HostElfFormat()) + " executable"),
            std::string::npos)
      << status.message();
  EXPECT_EQ(CountOpenFds(), fds_before);
  EXPECT_FALSE(MapsContain("/memfd:kiln-executable"));  // Unloaded again.
}

TEST_P(ElfExecutableTest, MalformedInputsAreErrors) {
  Status status = device_->CreateExecutable("cuda-nvptx-fb", {}).status();
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("cannot load 'cuda-nvptx-fb'"), std::string::npos)
      << status.message();
  const char* other =
      cpu::HostElfFormat() == "system-elf-x86_64" ? "system-elf-arm_64" : "system-elf-x86_64";
  EXPECT_EQ(device_->CreateExecutable(other, {}).status().code(), StatusCode::kUnavailable);
  // Garbage, a truncated buffer, and a library that is not an ELF file.
  std::vector<uint8_t> garbage(100, 0xAB);
  status = device_->CreateExecutable(cpu::HostElfFormat(), garbage).status();
  EXPECT_NE(status.message().find("not a valid ELF executable FlatBuffer"), std::string::npos)
      << status.message();
  std::vector<uint8_t> good = BuildElfExecutable(library_, kKernelExports);
  std::vector<uint8_t> truncated(good.begin(), good.begin() + good.size() / 2);
  EXPECT_FALSE(device_->CreateExecutable(cpu::HostElfFormat(), truncated).ok());
  std::vector<uint8_t> not_elf(256, 0x7F);
  status =
      device_->CreateExecutable(cpu::HostElfFormat(), BuildElfExecutable(not_elf, kKernelExports))
          .status();
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("dlopen of the embedded shared object failed"), std::string::npos)
      << status.message();
  // Zero workgroup size and duplicate names are rejected.
  std::vector<ElfExportSpec> zero = {{"z", "simple_mul", 0, {}, 0}};
  EXPECT_EQ(device_->CreateExecutable(cpu::HostElfFormat(), BuildElfExecutable(library_, zero))
                .status()
                .code(),
            StatusCode::kInvalidArgument);
  std::vector<ElfExportSpec> duplicate = {{"d", "simple_mul", 1, {}, 0},
                                          {"d", "simple_mul_inplace", 1, {}, 0}};
  status = device_->CreateExecutable(cpu::HostElfFormat(), BuildElfExecutable(library_, duplicate))
               .status();
  EXPECT_NE(status.message().find("duplicate export name 'd'"), std::string::npos)
      << status.message();
}

INSTANTIATE_TEST_SUITE_P(Devices, ElfExecutableTest, ::testing::Values("cpu", "cpu-sync"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param == "cpu" ? std::string("cpu")
                                                      : std::string("cpu_sync");
                         });

}  // namespace
}  // namespace kiln::hal
