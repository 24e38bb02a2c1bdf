#include "tools/common/flags.h"

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

Result<std::string> ModulePathFlag(const cxxopts::ParseResult& result) {
  KILN_ASSIGN_OR_RETURN(std::optional<std::string> positional, SinglePositional(result));
  if (result.count("module") > 1) return InvalidArgumentError("--module given more than once");
  std::string path;
  if (result.count("module")) {
    path = result["module"].as<std::string>();
    if (positional) {
      return InvalidArgumentError("module given twice: --module=" + path + " and '" + *positional +
                                  "'");
    }
  } else if (positional) {
    path = *positional;
  } else {
    return InvalidArgumentError("no module given (--module=FILE or a positional FILE)");
  }
  if (path.empty()) return InvalidArgumentError("empty module path");
  return path;
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
