// kiln_fuzz_regression_test: replays fuzz inputs without libFuzzer, so every
// CI build (any compiler, with or without sanitizers) re-runs the seed corpus
// and every reproducer the fuzzer ever found.
//
//   kiln_fuzz_regression_test --seeds=tests/fuzz/corpus tests/fuzz/regressions
//
// Each file of each directory goes through LLVMFuzzerTestOneInput; a crash or
// sanitizer report fails the test. Files of a --seeds directory must also be
// valid modules that load, link and get at least one export invoked: a seed
// that stopped verifying (after an encoding change) no longer steers the
// fuzzer into the interpreter; regenerate them with kiln-make-fuzz-corpus.
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "base/file_io.h"
#include "tests/fuzz/module_runner.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define KILN_SANITIZED_BUILD 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define KILN_SANITIZED_BUILD 1
#endif

// Without a sanitizer allocator to cap it (sanitizer_options.cc), a module's
// 16 GiB buffer.alloc would succeed under overcommit and then be zero-filled;
// an address-space limit makes it fail cleanly as it does under the fuzzer.
// Sanitizers reserve terabytes of shadow memory, so they keep their own caps.
void LimitAddressSpace() {
#ifndef KILN_SANITIZED_BUILD
  rlimit limit{};
  limit.rlim_cur = limit.rlim_max = rlim_t{8} << 30;
  if (setrlimit(RLIMIT_AS, &limit) != 0) std::perror("setrlimit(RLIMIT_AS)");
#endif
}

std::vector<std::filesystem::path> FilesIn(const std::filesystem::path& directory) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(directory)) {
    if (entry.is_regular_file() && entry.path().filename().string().front() != '.') {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

int main(int argc, char** argv) {
  LimitAddressSpace();
  int inputs = 0, seeds = 0, failures = 0;
  for (int i = 1; i < argc; ++i) {
    std::string_view argument = argv[i];
    const bool is_seed_directory = argument.starts_with("--seeds=");
    if (is_seed_directory) argument.remove_prefix(std::string_view("--seeds=").size());
    std::error_code error;
    if (!std::filesystem::is_directory(argument, error)) {
      std::fprintf(stderr, "error: '%.*s' is not a directory\n", static_cast<int>(argument.size()),
                   argument.data());
      return 2;
    }
    for (const std::filesystem::path& path : FilesIn(argument)) {
      auto bytes = kiln::ReadFile(path.string());
      if (!bytes.ok()) {
        std::fprintf(stderr, "error: %s\n", bytes.status().ToString().c_str());
        return 2;
      }
      ++inputs;
      if (!is_seed_directory) {
        LLVMFuzzerTestOneInput(bytes->data(), bytes->size());
        continue;
      }
      // Exactly what LLVMFuzzerTestOneInput runs, plus a look at how far it got.
      ++seeds;
      kiln::fuzz::RunSummary summary = kiln::fuzz::RunModuleBytes(bytes->span());
      if (!summary.loaded || !summary.linked || summary.invoked == 0) {
        ++failures;
        std::fprintf(stderr,
                     "seed %s: loaded=%d linked=%d invoked=%d skipped=%d (a seed must load, link "
                     "and run at least one export; regenerate with kiln-make-fuzz-corpus)\n",
                     path.string().c_str(), summary.loaded, summary.linked, summary.invoked,
                     summary.skipped);
      }
    }
  }
  std::printf("ran %d inputs (%d seeds, %d reproducers); %d seed failures\n", inputs, seeds,
              inputs - seeds, failures);
  if (inputs == 0) {
    std::fprintf(stderr, "error: no inputs found\n");
    return 1;
  }
  return failures == 0 ? 0 : 1;
}
