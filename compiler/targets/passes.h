// The passes of the targets layer (compiler/targets), which turns
// hand-authored executables into the binaries the runtime's drivers load.
//
//   --kiln-serialize-executables   hal.executable.source + objects
//                                  -> hal.executable with hal.executable.binary
//                                  (serialize_executables.cc)
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "compiler/targets/executable_serialization.h"
#include "mlir/Pass/Pass.h"

namespace kiln::compiler {

struct SerializeExecutablesOptions {
  // Targets to embed: kiln's names (cpu, cuda, vulkan) or IREE's backends
  // (llvm-cpu, vulkan-spirv); empty: those of the module's
  // `hal.device.targets`, else every declared target.
  std::vector<std::string> targets;
  // Searched for relative object paths after the source file's directory.
  std::vector<std::string> object_search_paths;
  // The directory relative object paths start from; empty: the directory of
  // the file named by the module's location (the .mlir file).
  std::string source_directory;
  // When set, objects are read through this instead of the file system (the
  // fuzzer's stand-in bytes).
  std::function<Result<std::vector<uint8_t>>(const std::string& path)> read_object = nullptr;
};

// Normalizes a target list (`--target`, `--iree-hal-target-backends`) to
// kiln's names: llvm-cpu -> cpu, vulkan-spirv -> vulkan. Unknown names are an
// InvalidArgument error naming the first one.
Result<std::vector<std::string>> NormalizeTargetNames(const std::vector<std::string>& names);

std::unique_ptr<mlir::Pass> createSerializeExecutablesPass(
    SerializeExecutablesOptions options = {});

// Registers --kiln-serialize-executables (with options `targets` and
// `object-search-paths`) for kiln-opt and --pass-pipeline.
void registerSerializeExecutablesPass();

}  // namespace kiln::compiler
