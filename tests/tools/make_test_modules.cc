// kiln-make-tool-test-modules DIR: writes the modules of test_modules.h into
// DIR (created if missing) for the ctest tests of the tools:
//   tools_test.kmod, tensors_test.kmod, plain.kmod, broken.kmod (fails
//   verification) and truncated.kmod (the first half of tools_test.kmod: a
//   corrupt file),
// input files for the tensor tests:
//   two_arrays.npy (2x4xf32 = 0..7, then 3xi32 = 10 20 30, appended) and
//   floats.bin (the raw bytes of six f32: 1.5 2.5 3.5 4.5 5.5 6.5),
// and for kiln-dump-instruments:
//   instruments.kins (test_instruments.h) and truncated.kins (its first
//   half: a corrupt file).
#include <cstdio>
#include <filesystem>
#include <span>
#include <string>
#include <system_error>
#include <vector>

#include "base/file_io.h"
#include "tests/tools/test_instruments.h"
#include "tests/tools/test_modules.h"
#include "tools/common/instrument_file.h"
#include "tools/common/npy.h"
#include "tools/common/tensor_literal.h"

namespace {

using namespace kiln;

Status WriteModules(const std::string& directory) {
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (error) {
    return UnavailableError("cannot create directory '" + directory + "': " + error.message());
  }
  KILN_ASSIGN_OR_RETURN(std::vector<uint8_t> tools_test, testing::BuildToolsTestModule());
  KILN_ASSIGN_OR_RETURN(std::vector<uint8_t> tensors_test, testing::BuildTensorsTestModule());
  KILN_ASSIGN_OR_RETURN(std::vector<uint8_t> plain, testing::BuildPlainModule());
  KILN_ASSIGN_OR_RETURN(tools::HostTensor first,
                        tools::ParseTensorLiteral("2x4xf32=0 1 2 3 4 5 6 7"));
  KILN_ASSIGN_OR_RETURN(tools::HostTensor second, tools::ParseTensorLiteral("3xi32=10 20 30"));
  KILN_ASSIGN_OR_RETURN(std::vector<uint8_t> two_arrays, tools::WriteNpy(first));
  KILN_ASSIGN_OR_RETURN(std::vector<uint8_t> second_bytes, tools::WriteNpy(second));
  two_arrays.insert(two_arrays.end(), second_bytes.begin(), second_bytes.end());
  KILN_ASSIGN_OR_RETURN(tools::HostTensor floats,
                        tools::ParseTensorLiteral("6xf32=1.5 2.5 3.5 4.5 5.5 6.5"));
  KILN_ASSIGN_OR_RETURN(std::vector<uint8_t> broken, testing::BuildBrokenModule());
  const std::span<const uint8_t> truncated(tools_test.data(), tools_test.size() / 2);
  const std::vector<uint8_t> instruments =
      tools::SerializeInstrumentFile(testing::BuildTestInstrumentFile());
  const std::span<const uint8_t> truncated_instruments(instruments.data(), instruments.size() / 2);
  const std::pair<const char*, std::span<const uint8_t>> files[] = {
      {"tools_test.kmod", tools_test},
      {"tensors_test.kmod", tensors_test},
      {"two_arrays.npy", two_arrays},
      {"floats.bin", floats.bytes},
      {"plain.kmod", plain},
      {"broken.kmod", broken},
      {"truncated.kmod", truncated},
      {"instruments.kins", instruments},
      {"truncated.kins", truncated_instruments},
  };
  for (const auto& [name, bytes] : files) {
    KILN_RETURN_IF_ERROR(WriteFile(directory + "/" + name, bytes));
    std::printf("wrote %s/%s (%zu bytes)\n", directory.c_str(), name, bytes.size());
  }
  return OkStatus();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <directory>\n", argv[0]);
    return 1;
  }
  Status status = WriteModules(argv[1]);
  if (!status.ok()) {
    std::fprintf(stderr, "kiln-make-tool-test-modules: %s\n", status.ToString().c_str());
    return 1;
  }
  return 0;
}
