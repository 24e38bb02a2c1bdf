// Command-line flag helpers shared by the tools (which parse flags with
// cxxopts).
//
// Repeatable flags (--input=..., --expected_output=...) are declared as plain
// string options and collected here in command-line order, so values are
// never split at commas (cxxopts splits vector options there, and a value
// such as a tensor literal may contain commas). Every other flag takes one
// value: cxxopts would keep the last of two silently, so a repeated one is an
// error (CheckSingleValuedFlags), as a typo in a long command line usually
// is. Every tool takes --version and --flagfile=FILE (flagfile.h; ToolMain
// expands it before the tool parses). cxxopts' exceptions are turned into
// one-line ASCII messages.
#pragma once

#include <cstdio>
#include <cxxopts.hpp>
#include <exception>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"
#include "tools/common/flagfile.h"

namespace kiln::tools {

// Every value given for flag `name`, in order.
std::vector<std::string> RepeatedFlag(const cxxopts::ParseResult& result, std::string_view name);

// The one positional argument (the tools declare positionals as a string
// vector option named "positional"), nullopt when there is none, an error
// naming the second when there are more.
Result<std::optional<std::string>> SinglePositional(const cxxopts::ParseResult& result);

// The modules a tool loads, in order: --module=FILE, repeated (as
// iree-run-module takes it: libraries first, the program last), or the one positional FILE (not
// both; never empty; "-", standard input, at most once).
Result<std::vector<std::string>> ModulePathsFlag(const cxxopts::ParseResult& result);

// An error naming the first flag given more than once that is not in
// `repeatable`: "--device given twice (cpu, cuda)", "--trace given 3 times
// (a, b, c)". The positional arguments are counted by SinglePositional.
Status CheckSingleValuedFlags(const cxxopts::ParseResult& result,
                              std::initializer_list<std::string_view> repeatable);

// Declares --version and --flagfile (which ToolMain has already expanded;
// declared so that --help lists it).
void AddStandardFlags(cxxopts::Options& flags);

// What every cxxopts tool does first with its parsed flags: prints --help
// (the usage of `flags`) or --version ("kiln-run-module version 0.1.0") and
// returns false, else checks that no single-valued flag is repeated and
// returns true.
Result<bool> HandleStandardFlags(const cxxopts::Options& flags, const cxxopts::ParseResult& result,
                                 std::initializer_list<std::string_view> repeatable);

// The message of a cxxopts exception with its typographic quotes made ASCII.
std::string FlagErrorMessage(const std::exception& error);

// The whole of a tool's main: --flagfile expanded (flagfile.h), then
// `parse(argc, argv, &options)` (a Result<bool>: false when there is nothing
// to run, after --help or --version), then
// `run(options)` (a Result<int>: the exit code). A bad flag, a failed run and
// an exception (out of memory, at worst) each print one `error:` line to
// stderr, after what the run printed, and exit 1.
template <typename Options, typename Parse, typename Run>
int ToolMain(int argc, char** argv, Parse parse, Run run) {
  try {
    Options options;
    Result<std::vector<std::string>> expanded = ExpandFlagfiles(argc, argv);
    if (!expanded.ok()) {
      std::fprintf(stderr, "error: %s (see --help)\n", expanded.status().message().c_str());
      return 1;
    }
    ArgvStorage arguments(std::move(*expanded));
    Result<bool> parsed = parse(arguments.argc(), arguments.argv(), &options);
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
