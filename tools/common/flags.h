// Command-line flag helpers shared by the tools (which parse flags with
// cxxopts).
//
// Repeatable flags (--input=..., --expected_output=...) are declared as plain
// string options and collected here in command-line order, so values are
// never split at commas (cxxopts splits vector options there, and a value
// such as a tensor literal may contain commas). cxxopts' exceptions are turned
// into one-line ASCII messages.
#pragma once

#include <cstdio>
#include <cxxopts.hpp>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace kiln::tools {

// Every value given for flag `name`, in order.
std::vector<std::string> RepeatedFlag(const cxxopts::ParseResult& result, std::string_view name);

// The one positional argument (the tools declare positionals as a string
// vector option named "positional"), nullopt when there is none, an error
// naming the second when there are more.
Result<std::optional<std::string>> SinglePositional(const cxxopts::ParseResult& result);

// The module a tool runs: --module=FILE or the one positional FILE (not
// both, --module at most once, never empty; "-" is standard input).
Result<std::string> ModulePathFlag(const cxxopts::ParseResult& result);

// The message of a cxxopts exception with its typographic quotes made ASCII.
std::string FlagErrorMessage(const std::exception& error);

// The whole of a tool's main: `parse(argc, argv, &options)` (a
// Result<bool>: false when there is nothing to run, after --help), then
// `run(options)` (a Result<int>: the exit code). A bad flag, a failed run and
// an exception (out of memory, at worst) each print one `error:` line to
// stderr, after what the run printed, and exit 1.
template <typename Options, typename Parse, typename Run>
int ToolMain(int argc, char** argv, Parse parse, Run run) {
  try {
    Options options;
    Result<bool> parsed = parse(argc, argv, &options);
    if (!parsed.ok()) {
      std::fprintf(stderr, "error: %s (see --help)\n", parsed.status().message().c_str());
      return 1;
    }
    if (!*parsed) return 0;
    Result<int> exit_code = run(options);
    std::fflush(stdout);
    if (!exit_code.ok()) {
      std::fprintf(stderr, "error: %s\n", exit_code.status().message().c_str());
      return 1;
    }
    return *exit_code;
  } catch (const std::exception& error) {
    std::fflush(stdout);
    std::fprintf(stderr, "error: %s\n", error.what());
    return 1;
  }
}

}  // namespace kiln::tools
