// SpirvModuleInfo: what the Vulkan driver reads from a SPIR-V module before
// handing it to the driver: the header, the instruction stream's framing,
// the entry points and their LocalSize.
//
// Vulkan drivers are entitled to crash on malformed SPIR-V, and an
// executable FlatBuffer may be hostile. This is not a validator (the
// validation layer runs one, and it too can crash on bad input), but it
// rejects what is cheap to see: a wrong magic number, a truncated header,
// instructions whose word counts run past the end or are zero,
// unterminated entry-point names, functions that do not end (or nest), an
// entry point naming no function of the module, and an export whose entry
// point is missing or whose declared workgroup size disagrees with the
// shader's LocalSize (which would silently compute the wrong workgroup
// count). SPIR-V that frames correctly but is otherwise invalid reaches the
// driver, which may reject it (the error names the export and the VkResult)
// or misbehave: executables are trusted to carry valid SPIR-V once framed.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/result.h"

namespace kiln::hal::vulkan {

inline constexpr uint32_t kSpirvMagic = 0x07230203;
inline constexpr uint32_t kSpirvExecutionModelGLCompute = 5;

struct SpirvEntryPoint {
  uint32_t execution_model = 0;
  uint32_t function_id = 0;
  std::string name;
  // The workgroup size: from a constant WorkgroupSize built-in when the
  // module has one (it overrides LocalSize), else from OpExecutionMode
  // LocalSize; absent when only specialization or LocalSizeId set it.
  std::optional<std::array<uint32_t, 3>> local_size;
};

struct SpirvModuleInfo {
  uint32_t version = 0;  // Header word 1, e.g. 0x00010000 for 1.0.
  uint32_t id_bound = 0;
  std::vector<SpirvEntryPoint> entry_points;
  // The module decorates a WorkgroupSize built-in.
  bool has_workgroup_size_builtin = false;

  // The GLCompute entry point called `name`, or null.
  const SpirvEntryPoint* FindComputeEntryPoint(const std::string& name) const;
  // "main, other" for messages ("none" when empty).
  std::string DescribeEntryPoints() const;
};

// INVALID_ARGUMENT naming the word offset for malformed modules.
Result<SpirvModuleInfo> ParseSpirvModule(std::span<const uint32_t> words);

}  // namespace kiln::hal::vulkan
