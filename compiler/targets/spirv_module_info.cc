#include "compiler/targets/spirv_module_info.h"

#include <cstring>

namespace kiln::compiler {
namespace {

uint32_t ByteSwap(uint32_t w) {
  return (w >> 24) | ((w >> 8) & 0xff00u) | ((w << 8) & 0xff0000u) | (w << 24);
}

}  // namespace

Result<SpirvModuleInfo> ReadSpirvModuleInfo(std::span<const uint8_t> bytes,
                                            std::string_view object_name) {
  const std::string name(object_name);
  if (bytes.size() < 20 || bytes.size() % 4 != 0) {
    return InvalidArgumentError(name + " is not SPIR-V (its size, " + std::to_string(bytes.size()) +
                                " bytes, is not a multiple of 4 bytes >= 20)");
  }
  SpirvModuleInfo info;
  info.words.resize(bytes.size() / 4);
  std::memcpy(info.words.data(), bytes.data(), bytes.size());
  if (info.words[0] == ByteSwap(kSpirvMagic)) {
    for (uint32_t& w : info.words) w = ByteSwap(w);
  } else if (info.words[0] != kSpirvMagic) {
    return InvalidArgumentError(name +
                                " is not SPIR-V (bad magic number; compile GLSL with glslc)");
  }
  // Functions are not required: the export table needs only the interface,
  // and the driver that loads the executable checks them.
  Result<SpirvModule> module =
      ParseSpirvModule(info.words, {.require_entry_point_functions = false});
  if (!module.ok()) {
    return InvalidArgumentError(name + " is malformed SPIR-V: " + module.status().message());
  }
  for (SpirvEntryPoint& entry : module->entry_points) {
    if (entry.execution_model == kSpirvExecutionModelGLCompute) {
      info.entry_points.push_back(std::move(entry));
    } else {
      info.other_entry_points.push_back(std::move(entry.name));
    }
  }
  return info;
}

}  // namespace kiln::compiler
