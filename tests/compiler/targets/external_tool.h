// The external validators the target tests run on what the compiler emits
// (spirv-val on SPIR-V, ptxas on PTX): found on PATH (after any directories
// named first), run on a temporary file, their exit status and output kept
// for the test's message.
#pragma once

#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <string_view>

#include "gtest/gtest.h"

namespace kiln::compiler::testing {

// The path of the executable `name` in `first_dirs` (':'-separated) or on
// PATH, or "" when there is none.
inline std::string FindTool(const std::string& name, const std::string& first_dirs = "") {
  std::string dirs = first_dirs;
  const char* path = std::getenv("PATH");
  dirs += std::string(dirs.empty() ? "" : ":") + (path ? path : "/usr/bin:/bin");
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string candidate = dirs.substr(start, end - start) + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return "";
}

struct ToolRun {
  int status = -1;  // The exit status; -1 when the tool could not run.
  std::string output;
};

// Writes `contents` to a temporary file and runs `tool arguments FILE`.
inline ToolRun RunToolOnFile(const std::string& tool, const std::string& arguments,
                             std::string_view contents) {
  std::string path = ::testing::TempDir() + "kiln_target_test_XXXXXX";
  const int fd = ::mkstemp(path.data());
  if (fd < 0) return {-1, "cannot create a temporary file"};
  const bool written =
      ::write(fd, contents.data(), contents.size()) == static_cast<ssize_t>(contents.size());
  ::close(fd);
  if (!written) {
    ::unlink(path.c_str());
    return {-1, "cannot write " + path};
  }
  const std::string command = tool + " " + arguments + " " + path + " 2>&1";
  ToolRun run;
  if (FILE* pipe = ::popen(command.c_str(), "r")) {
    char buffer[512];
    while (size_t n = std::fread(buffer, 1, sizeof(buffer), pipe)) run.output.append(buffer, n);
    int status = ::pclose(pipe);
    run.status = status != -1 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  ::unlink(path.c_str());
  return run;
}

}  // namespace kiln::compiler::testing
