// SPIR-V module info: what kiln-compile reads from a SPIR-V binary to build
// the "vulkan-spirv-fb" export table — the module's words in host byte order
// and its GLCompute entry points with each one's workgroup size.
//
//   Result<SpirvModuleInfo> info = ReadSpirvModuleInfo(bytes, "'kernels.spv'");
//   info->entry_points[0].name        // "main"
//   info->entry_points[0].local_size  // {64, 1, 1}
//
// The parsing is base/spirv_module.h's, the one the Vulkan driver runs when
// it loads the result (see there for which instructions give the size and
// what is rejected). This adds what a compiler input needs: the bytes of a
// file (a size that is not whole words is an error), a module in the other
// byte order (its magic number reversed) accepted and returned in host
// order, which is what Vulkan consumes, and errors that name the object
// ("Vulkan object 'kernels.spv' is malformed SPIR-V: ..."), never a crash.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/spirv_module.h"

namespace kiln::compiler {

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
