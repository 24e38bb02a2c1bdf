// Executable serialization of the hand-written IR: reads a
// `hal.executable.source`'s exports and objects (hal_attributes.h) into
// compiler/targets/executable_serialization.h's ExecutableInfo, which does
// the format-level work shared with the MLIR-based compiler.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "compiler/parser/hal_attributes.h"
#include "compiler/targets/executable_serialization.h"

namespace kiln::compiler {

struct ExecutableExportSpec {
  std::string name;
  uint32_t ordinal = 0;
  PipelineLayout layout;
  std::array<uint32_t, 3> workgroup_size = {1, 1, 1};
  // Whether the IR wrote `workgroup_size` (else the size above is the
  // default): a declared size must match a SPIR-V shader's LocalSize.
  bool workgroup_size_declared = false;
};

struct ExecutableSpec {
  std::string name;  // The executable's symbol, without '@' (for messages).
  std::vector<ExecutableExportSpec> exports;
  ExecutableObjects objects;
};

// Serializes every selected target of `spec` (in declaration order, one
// result per format). Exports must have ordinals 0..n-1. An empty result
// means no target was selected; the caller decides whether that is an error.
Result<std::vector<SerializedExecutable>> SerializeExecutable(const ExecutableSpec& spec,
                                                              const ObjectSearch& search);

}  // namespace kiln::compiler
