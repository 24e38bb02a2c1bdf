// Command-line flag helpers shared by the tools (which parse flags with
// cxxopts).
//
// Repeatable flags (--input=..., --expected_output=...) are declared as plain
// string options and collected here in command-line order, so values are
// never split at commas (cxxopts splits vector options there, and a value
// such as a tensor literal may contain commas). cxxopts' exceptions are turned
// into one-line ASCII messages.
#pragma once

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

}  // namespace kiln::tools
