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
