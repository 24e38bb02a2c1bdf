#include "tools/common/flags.h"

namespace kiln::tools {

std::vector<std::string> RepeatedFlag(const cxxopts::ParseResult& result, std::string_view name) {
  std::vector<std::string> values;
  for (const cxxopts::KeyValue& argument : result.arguments()) {
    if (argument.key() == name) values.push_back(argument.value());
  }
  return values;
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
