// SPIR-V module info: what kiln-compile reads from a SPIR-V binary to build
// the "vulkan-spirv-fb" export table — the module's GLCompute entry points
// and each one's workgroup size (LocalSize).
//
//   Result<SpirvModuleInfo> info = ReadSpirvModuleInfo(bytes, "'kernels.spv'");
//   info->entry_points[0].name        // "main"
//   info->entry_points[0].local_size  // {64, 1, 1}
//
// Only the few instructions that say this are read: OpEntryPoint, OpExecutionMode
// LocalSize, OpExecutionModeId LocalSizeId with 32-bit integer (spec) constant
// operands, and a constant composite decorated BuiltIn WorkgroupSize, which
// the SPIR-V specification says takes precedence over both execution modes.
// A spec constant counts with its default value: kiln specializes nothing.
//
// The bytes are untrusted (a user's file, or a fuzzer's input): every word
// read is bounds-checked, instruction lengths are checked against the module's
// end, and anything malformed is an InvalidArgument error naming the object,
// never a crash. A module in the other byte order (its magic number reversed)
// is accepted and returned in host order, which is what Vulkan consumes.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace kiln::compiler {

struct SpirvEntryPoint {
  std::string name;
  // The workgroup size, each component >= 1; meaningful when `size_error` is
  // empty. An entry point whose size cannot be determined (no LocalSize, a
  // LocalSizeId operand that is not an integer constant) only fails the export
  // that uses it, so `size_error` says why instead.
  std::array<uint32_t, 3> local_size = {0, 0, 0};
  std::string size_error;
};

struct SpirvModuleInfo {
  std::vector<uint32_t> words;                  // The module in host byte order.
  std::vector<SpirvEntryPoint> entry_points;    // GLCompute ones, in declaration order.
  std::vector<std::string> other_entry_points;  // Names of non-compute entry points.
};

// Reads `bytes` as a SPIR-V module. `object_name` names the object in error
// messages (e.g. "Vulkan object 'kernels.spv'").
Result<SpirvModuleInfo> ReadSpirvModuleInfo(std::span<const uint8_t> bytes,
                                            std::string_view object_name);

}  // namespace kiln::compiler
