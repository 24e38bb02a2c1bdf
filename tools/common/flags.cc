#include "tools/common/flags.h"

#include "tools/common/version.h"

namespace kiln::tools {

std::vector<std::string> RepeatedFlag(const cxxopts::ParseResult& result, std::string_view name) {
  std::vector<std::string> values;
  for (const cxxopts::KeyValue& argument : result.arguments()) {
    if (argument.key() == name) values.push_back(argument.value());
  }
  return values;
}

Result<std::optional<std::string>> SinglePositional(const cxxopts::ParseResult& result) {
  if (!result.count("positional")) return std::optional<std::string>();
  const auto& positional = result["positional"].as<std::vector<std::string>>();
  if (positional.size() > 1) {
    return InvalidArgumentError("unexpected argument '" + positional[1] + "'");
  }
  return positional.empty() ? std::optional<std::string>() : std::optional(positional[0]);
}

Result<std::vector<std::string>> ModulePathsFlag(const cxxopts::ParseResult& result) {
  KILN_ASSIGN_OR_RETURN(std::optional<std::string> positional, SinglePositional(result));
  std::vector<std::string> paths = RepeatedFlag(result, "module");
  if (!paths.empty() && positional) {
    return InvalidArgumentError("module given twice: --module=" + paths.front() + " and '" +
                                *positional + "'");
  }
  if (positional) paths.push_back(*positional);
  if (paths.empty()) {
    return InvalidArgumentError("no module given (--module=FILE or a positional FILE)");
  }
  int from_stdin = 0;
  for (const std::string& path : paths) {
    if (path.empty()) return InvalidArgumentError("empty module path");
    if (path == "-" && ++from_stdin > 1) {
      return InvalidArgumentError("--module=- (standard input) given more than once");
    }
  }
  return paths;
}

Status CheckSingleValuedFlags(const cxxopts::ParseResult& result,
                              std::initializer_list<std::string_view> repeatable) {
  // In command-line order, so that the error names the first flag the user
  // repeated.
  std::vector<std::string> seen;
  for (const cxxopts::KeyValue& argument : result.arguments()) {
    const std::string& key = argument.key();
    if (key == "positional") continue;
    bool is_repeatable = false;
    for (std::string_view name : repeatable) is_repeatable |= key == name;
    if (is_repeatable) continue;
    bool repeated = false;
    for (const std::string& name : seen) repeated |= name == key;
    if (!repeated) {
      seen.push_back(key);
      continue;
    }
    const std::vector<std::string> values = RepeatedFlag(result, key);
    std::string message =
        "--" + key + " given " +
        (values.size() == 2 ? "twice" : std::to_string(values.size()) + " times") + " (";
    for (size_t i = 0; i < values.size(); ++i) message += (i ? ", " : "") + values[i];
    return InvalidArgumentError(message + ")");
  }
  return OkStatus();
}

void AddStandardFlags(cxxopts::Options& flags) {
  flags.add_options()  //
      ("version", "Print the tool's version and exit")(
          "flagfile",
          "Read more flags from FILE, one per line ('#' starts a comment line); they take the "
          "place of this flag on the command line",
          cxxopts::value<std::string>());
}

Result<bool> HandleStandardFlags(const cxxopts::Options& flags, const cxxopts::ParseResult& result,
                                 std::initializer_list<std::string_view> repeatable) {
  if (result.count("help")) {
    std::printf("%s", flags.help().c_str());
    return false;
  }
  if (result.count("version")) {
    std::printf("%s\n", VersionLine(flags.program()).c_str());
    return false;
  }
  KILN_RETURN_IF_ERROR(CheckSingleValuedFlags(result, repeatable));
  return true;
}

std::string FlagErrorMessage(const std::exception& error) {
  const std::string_view what = error.what();
  std::string message;
  for (size_t i = 0; i < what.size();) {
    if (what.substr(i).starts_with("\u2018") || what.substr(i).starts_with("\u2019")) {
      message += '\'';
      i += std::string_view("\u2018").size();
    } else {
      message += what[i++];
    }
  }
  return message;
}

}  // namespace kiln::tools
