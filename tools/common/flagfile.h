// --flagfile=FILE: flags read from a file, as IREE's tools take them.
//
//   $ cat run.flags
//   # fib of 30 on the cpu
//   --module=fib.kmod
//   --function=fib
//   --input=30
//   $ kiln-run-module --flagfile=run.flags --device=cpu-sync
//
// The file holds one flag per line (the whole line, spaces included, is one
// argument: `--input=2x2xf32=1 2 3 4` needs no quotes); blank lines and
// lines whose first non-blank character is `#` are ignored, as is leading and
// trailing whitespace. A line that is not a flag (does not start with `-`) is
// an error naming the file and the line. The file's flags take the place of
// the --flagfile argument, exactly as if they had been typed there: a
// repeatable flag (--input) adds to those around it, a single-valued one
// given in both places is an error as any repeated flag is (flags.h). A flag
// file may name another (--flagfile nests, up to a depth that catches a file
// naming itself).
//
// ExpandFlagfiles runs before cxxopts (or Google Benchmark) sees argv, so
// every tool accepts the flag the same way.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"

namespace kiln::tools {

// argv with every --flagfile=FILE (or `--flagfile FILE`) replaced by the
// flags of FILE; argv[0] is kept. Errors name the file, and the line of a
// malformed one.
Result<std::vector<std::string>> ExpandFlagfiles(int argc, const char* const* argv);

// An argv for parsers that take (argc, char**) and may reorder or remove
// entries (Google Benchmark's Initialize does): it owns the strings.
class ArgvStorage {
 public:
  explicit ArgvStorage(std::vector<std::string> arguments);
  ArgvStorage(const ArgvStorage&) = delete;
  ArgvStorage& operator=(const ArgvStorage&) = delete;

  int& argc() { return argc_; }
  char** argv() { return pointers_.data(); }

 private:
  std::vector<std::string> arguments_;
  std::vector<char*> pointers_;  // Into arguments_, then a null.
  int argc_;
};

}  // namespace kiln::tools
