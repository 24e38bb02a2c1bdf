#include "tools/common/parameter_flags.h"

#include "tools/common/flags.h"

namespace kiln::tools {

Result<ParameterFile> ParseParameterFile(const std::string& value) {
  ParameterFile file;
  const size_t equals = value.find('=');
  if (equals == std::string::npos) {
    file.path = value;
  } else {
    file.scope = value.substr(0, equals);
    file.path = value.substr(equals + 1);
  }
  if (file.path.empty()) {
    return InvalidArgumentError("--parameters='" + value +
                                "' names no file (expected [SCOPE=]FILE.safetensors)");
  }
  return file;
}

Result<std::vector<ParameterFile>> ParametersFlag(const cxxopts::ParseResult& result) {
  std::vector<ParameterFile> files;
  for (const std::string& value : RepeatedFlag(result, "parameters")) {
    KILN_ASSIGN_OR_RETURN(ParameterFile file, ParseParameterFile(value));
    files.push_back(std::move(file));
  }
  return files;
}

Result<Ref<hal::ParameterIndex>> OpenParameters(const std::vector<ParameterFile>& files) {
  Ref<hal::ParameterIndex> index = hal::ParameterIndex::Create();
  for (const ParameterFile& file : files) {
    Status status = index->AddFile(file.scope, file.path);
    if (!status.ok()) {
      return status.WithContext("--parameters=" + (file.scope.empty() ? "" : file.scope + "=") +
                                file.path);
    }
  }
  return index;
}

}  // namespace kiln::tools
