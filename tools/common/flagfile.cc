#include "tools/common/flagfile.h"

#include <fstream>
#include <string_view>
#include <utility>

namespace kiln::tools {
namespace {

// Deep enough for any real nesting; a file that names itself stops here.
constexpr int kMaxDepth = 8;

std::string_view Trim(std::string_view text) {
  constexpr std::string_view kBlank = " \t\r\n\f\v";
  const size_t begin = text.find_first_not_of(kBlank);
  if (begin == std::string_view::npos) return {};
  return text.substr(begin, text.find_last_not_of(kBlank) - begin + 1);
}

Status Expand(const std::vector<std::string>& arguments, int depth, std::vector<std::string>& out);

Status ExpandFile(const std::string& path, int depth, std::vector<std::string>& out) {
  if (path.empty()) return InvalidArgumentError("--flagfile needs a file name");
  if (depth >= kMaxDepth) {
    return InvalidArgumentError("--flagfile=" + path + ": flag files nest more than " +
                                std::to_string(kMaxDepth) + " deep (does one name itself?)");
  }
  std::ifstream file(path);
  if (!file) return InvalidArgumentError("--flagfile=" + path + ": cannot open the file");
  std::vector<std::string> flags;
  std::string line;
  for (int number = 1; std::getline(file, line); ++number) {
    const std::string_view flag = Trim(line);
    if (flag.empty() || flag.front() == '#') continue;
    if (flag.front() != '-') {
      return InvalidArgumentError(path + ":" + std::to_string(number) + ": '" + std::string(flag) +
                                  "' is not a flag (one --flag=value per line)");
    }
    flags.emplace_back(flag);
  }
  if (file.bad()) return InvalidArgumentError("--flagfile=" + path + ": cannot read the file");
  return Expand(flags, depth + 1, out);
}

Status Expand(const std::vector<std::string>& arguments, int depth, std::vector<std::string>& out) {
  for (size_t i = 0; i < arguments.size(); ++i) {
    const std::string_view argument = arguments[i];
    if (argument.starts_with("--flagfile=")) {
      KILN_RETURN_IF_ERROR(ExpandFile(std::string(argument.substr(11)), depth, out));
    } else if (argument == "--flagfile") {
      if (i + 1 == arguments.size()) return InvalidArgumentError("--flagfile needs a file name");
      KILN_RETURN_IF_ERROR(ExpandFile(arguments[++i], depth, out));
    } else {
      out.push_back(arguments[i]);
    }
  }
  return OkStatus();
}

}  // namespace

Result<std::vector<std::string>> ExpandFlagfiles(int argc, const char* const* argv) {
  std::vector<std::string> expanded;
  if (argc < 1) return expanded;
  expanded.emplace_back(argv[0]);
  KILN_RETURN_IF_ERROR(
      Expand(std::vector<std::string>(argv + 1, argv + argc), /*depth=*/0, expanded));
  return expanded;
}

ArgvStorage::ArgvStorage(std::vector<std::string> arguments)
    : arguments_(std::move(arguments)), argc_(static_cast<int>(arguments_.size())) {
  for (std::string& argument : arguments_) pointers_.push_back(argument.data());
  pointers_.push_back(nullptr);
}

}  // namespace kiln::tools
