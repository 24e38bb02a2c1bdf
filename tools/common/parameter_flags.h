// --parameters: the external parameter files a program reads
// (#flow.parameter.named globals, hal/parameters/parameter_index.h), in
// IREE's form, shared by kiln-run-module, kiln-benchmark-module and
// kiln-check-module:
//
//   --parameters=model=weights.safetensors   scope "model" (what
//                                            kiln-import-onnx writes)
//   --parameters=weights.safetensors         the empty scope
//                                            (#flow.parameter.named<"key">)
//   --parameters==odd=name.safetensors       the empty scope, a path with '='
//
// The flag repeats: a scope may take several files (shards; a key in only
// one of them), and several scopes may be given. The files are opened,
// mapped and checked when the flags are read, before the program runs, so a
// missing or malformed file is the tool's first error.
#pragma once

#include <cxxopts.hpp>
#include <string>
#include <vector>

#include "base/ref.h"
#include "base/result.h"
#include "hal/parameters/parameter_index.h"

namespace kiln::tools {

// The help text of the flag (declared as a plain string option; see
// RepeatedFlag in flags.h).
inline constexpr const char* kParametersFlagHelp =
    "A safetensors file of external parameters, [SCOPE=]FILE (repeatable): "
    "--parameters=model=weights.safetensors serves #flow.parameter.named<\"model\"::\"key\">, "
    "--parameters=FILE the empty scope (#flow.parameter.named<\"key\">)";

// One --parameters value.
struct ParameterFile {
  std::string scope;  // Empty: the empty scope.
  std::string path;
};

// "scope=path" or "path" (split at the first '='); an empty path is an error.
Result<ParameterFile> ParseParameterFile(const std::string& value);

// Every --parameters value of `result`, parsed.
Result<std::vector<ParameterFile>> ParametersFlag(const cxxopts::ParseResult& result);

// The index of `files`: each opened and checked (errors name the file).
Result<Ref<hal::ParameterIndex>> OpenParameters(const std::vector<ParameterFile>& files);

}  // namespace kiln::tools
