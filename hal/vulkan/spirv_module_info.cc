#include "hal/vulkan/spirv_module_info.h"

#include <algorithm>
#include <cstdio>
#include <unordered_map>

namespace kiln::hal::vulkan {
namespace {

constexpr uint32_t kHeaderWords = 5;
constexpr uint32_t kOpEntryPoint = 15;
constexpr uint32_t kOpExecutionMode = 16;
constexpr uint32_t kOpConstant = 43;
constexpr uint32_t kOpConstantComposite = 44;
constexpr uint32_t kOpFunction = 54;
constexpr uint32_t kOpFunctionEnd = 56;
constexpr uint32_t kOpDecorate = 71;
constexpr uint32_t kExecutionModeLocalSize = 17;
constexpr uint32_t kDecorationBuiltIn = 11;
constexpr uint32_t kBuiltInWorkgroupSize = 25;

// Reads the nul-terminated literal string starting at words[0]; false when
// no nul byte lies within `words`. Returns the number of words it used.
bool ReadLiteralString(std::span<const uint32_t> words, std::string* out, size_t* used) {
  out->clear();
  for (size_t w = 0; w < words.size(); ++w) {
    for (int byte = 0; byte < 4; ++byte) {
      char c = static_cast<char>((words[w] >> (8 * byte)) & 0xff);
      if (c == '\0') {
        *used = w + 1;
        return true;
      }
      out->push_back(c);
    }
  }
  return false;
}

}  // namespace

const SpirvEntryPoint* SpirvModuleInfo::FindComputeEntryPoint(const std::string& name) const {
  for (const SpirvEntryPoint& entry : entry_points) {
    if (entry.execution_model == kSpirvExecutionModelGLCompute && entry.name == name) return &entry;
  }
  return nullptr;
}

std::string SpirvModuleInfo::DescribeEntryPoints() const {
  std::string out;
  for (const SpirvEntryPoint& entry : entry_points) {
    out += (out.empty() ? "" : ", ") + entry.name;
    if (entry.execution_model != kSpirvExecutionModelGLCompute) {
      out += " (execution model " + std::to_string(entry.execution_model) + ", not GLCompute)";
    }
  }
  return out.empty() ? "none" : out;
}

Result<SpirvModuleInfo> ParseSpirvModule(std::span<const uint32_t> words) {
  if (words.empty()) return InvalidArgumentError("the SPIR-V module is empty");
  if (words[0] != kSpirvMagic) {
    char hex[16];
    std::snprintf(hex, sizeof(hex), "0x%08x", words[0]);
    return InvalidArgumentError(std::string("not SPIR-V: the first word is ") + hex +
                                (words[0] == 0x03022307 ? " (a byte-swapped module)"
                                                        : " (the magic number is 0x07230203)"));
  }
  if (words.size() < kHeaderWords) {
    return InvalidArgumentError("the SPIR-V module has " + std::to_string(words.size()) +
                                " words, fewer than its 5-word header");
  }
  SpirvModuleInfo info;
  info.version = words[1];
  info.id_bound = words[3];
  std::vector<uint32_t> functions;  // Result ids of OpFunction.
  bool in_function = false;
  // For the WorkgroupSize built-in: 32-bit constants and composites by id.
  std::unordered_map<uint32_t, uint32_t> constants;
  std::unordered_map<uint32_t, std::vector<uint32_t>> composites;
  std::optional<uint32_t> workgroup_size_id;
  for (size_t at = kHeaderWords; at < words.size();) {
    const uint32_t word_count = words[at] >> 16;
    const uint32_t opcode = words[at] & 0xffff;
    auto where = [&] {
      return "SPIR-V instruction at word " + std::to_string(at) + " (opcode " +
             std::to_string(opcode) + ")";
    };
    if (word_count == 0) return InvalidArgumentError(where() + " has a zero word count");
    if (word_count > words.size() - at) {
      return InvalidArgumentError(where() + " needs " + std::to_string(word_count) +
                                  " words but the module ends after " +
                                  std::to_string(words.size() - at));
    }
    std::span<const uint32_t> operands = words.subspan(at + 1, word_count - 1);
    if (opcode == kOpEntryPoint) {
      if (operands.size() < 3) return InvalidArgumentError(where() + ": OpEntryPoint is too short");
      SpirvEntryPoint entry;
      entry.execution_model = operands[0];
      entry.function_id = operands[1];
      size_t used = 0;
      if (!ReadLiteralString(operands.subspan(2), &entry.name, &used)) {
        return InvalidArgumentError(where() + ": OpEntryPoint name is not nul-terminated");
      }
      info.entry_points.push_back(std::move(entry));
    } else if (opcode == kOpExecutionMode && operands.size() >= 2 &&
               operands[1] == kExecutionModeLocalSize) {
      if (operands.size() != 5) {
        return InvalidArgumentError(where() + ": OpExecutionMode LocalSize needs 3 sizes");
      }
      for (SpirvEntryPoint& entry : info.entry_points) {
        if (entry.function_id == operands[0]) {
          entry.local_size = std::array<uint32_t, 3>{operands[2], operands[3], operands[4]};
        }
      }
    } else if (opcode == kOpFunction) {
      if (in_function) return InvalidArgumentError(where() + ": OpFunction inside a function");
      if (operands.size() < 4) return InvalidArgumentError(where() + ": OpFunction is too short");
      in_function = true;
      functions.push_back(operands[1]);
    } else if (opcode == kOpFunctionEnd) {
      if (!in_function) return InvalidArgumentError(where() + ": OpFunctionEnd outside a function");
      in_function = false;
    } else if (opcode == kOpDecorate && operands.size() >= 3 && operands[1] == kDecorationBuiltIn &&
               operands[2] == kBuiltInWorkgroupSize) {
      info.has_workgroup_size_builtin = true;
      workgroup_size_id = operands[0];
    } else if (opcode == kOpConstant && operands.size() == 3) {
      constants[operands[1]] = operands[2];
    } else if (opcode == kOpConstantComposite && operands.size() >= 2) {
      composites[operands[1]].assign(operands.begin() + 2, operands.end());
    }
    at += word_count;
  }
  if (in_function) {
    return InvalidArgumentError("the SPIR-V module ends inside a function (no OpFunctionEnd)");
  }
  if (workgroup_size_id) {
    // The built-in overrides every LocalSize. A constant composite (what
    // GLSL compilers emit for local_size_*) gives the size; a specialization
    // constant leaves it unknown here.
    std::optional<std::array<uint32_t, 3>> size;
    auto composite = composites.find(*workgroup_size_id);
    if (composite != composites.end() && composite->second.size() == 3) {
      std::array<uint32_t, 3> values;
      bool known = true;
      for (int i = 0; i < 3; ++i) {
        auto constant = constants.find(composite->second[i]);
        known = known && constant != constants.end();
        if (known) values[i] = constant->second;
      }
      if (known) size = values;
    }
    for (SpirvEntryPoint& entry : info.entry_points) entry.local_size = size;
  }
  for (const SpirvEntryPoint& entry : info.entry_points) {
    if (entry.function_id >= info.id_bound) {
      return InvalidArgumentError("SPIR-V entry point '" + entry.name + "' names id " +
                                  std::to_string(entry.function_id) + ", not below the id bound " +
                                  std::to_string(info.id_bound));
    }
    if (std::find(functions.begin(), functions.end(), entry.function_id) == functions.end()) {
      return InvalidArgumentError("SPIR-V entry point '" + entry.name + "' names id " +
                                  std::to_string(entry.function_id) +
                                  ", which is not a function of the module");
    }
  }
  return info;
}

}  // namespace kiln::hal::vulkan
