#include "base/spirv_module.h"

#include <cstdio>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace kiln {
namespace {

// The numbers of the SPIR-V specification (unified spec, section 3) that this
// reader needs.
constexpr uint32_t kHeaderWords = 5;
constexpr uint32_t kOpCapability = 17;
constexpr uint32_t kCapabilityShaderClockKHR = 5055;
constexpr uint32_t kOpEntryPoint = 15;
constexpr uint32_t kOpExecutionMode = 16;
constexpr uint32_t kOpTypeInt = 21;
constexpr uint32_t kOpConstant = 43;
constexpr uint32_t kOpConstantComposite = 44;
constexpr uint32_t kOpSpecConstant = 50;
constexpr uint32_t kOpSpecConstantComposite = 51;
constexpr uint32_t kOpFunction = 54;
constexpr uint32_t kOpFunctionEnd = 56;
constexpr uint32_t kOpDecorate = 71;
constexpr uint32_t kOpExecutionModeId = 331;
constexpr uint32_t kExecutionModeLocalSize = 17;
constexpr uint32_t kExecutionModeLocalSizeId = 38;
constexpr uint32_t kDecorationBuiltIn = 11;
constexpr uint32_t kBuiltInWorkgroupSize = 25;

// What the instruction scan collects, by id, for the checks and sizes that
// can only be settled once the whole module has been seen (execution modes
// and constants may come in any order relative to what they refer to).
struct Declarations {
  std::unordered_map<uint32_t, std::array<uint32_t, 3>> local_size;     // Entry point id.
  std::unordered_map<uint32_t, std::array<uint32_t, 3>> local_size_id;  // Entry point id.
  std::unordered_set<uint32_t> int32_types;
  std::unordered_map<uint32_t, uint32_t> int32_constants;          // Id -> (default) value.
  std::unordered_map<uint32_t, std::vector<uint32_t>> composites;  // Id -> constituents.
  std::optional<uint32_t> workgroup_size_builtin;                  // The decorated id.
  std::unordered_set<uint32_t> functions;                          // OpFunction result ids.
};

// A literal string operand: UTF-8 bytes up to a NUL that must lie inside
// `words` (the rest of its instruction).
std::optional<std::string> ReadString(std::span<const uint32_t> words) {
  std::string text;
  for (uint32_t word : words) {
    for (int byte = 0; byte < 4; ++byte) {
      // SPIR-V packs string bytes low byte first within each word.
      const char c = static_cast<char>((word >> (8 * byte)) & 0xff);
      if (c == '\0') return text;
      text.push_back(c);
    }
  }
  return std::nullopt;
}

// Fills `size` with the workgroup size entry point `id` runs with and returns
// "", or returns why there is none.
std::string ResolveLocalSize(const Declarations& d, uint32_t id, std::array<uint32_t, 3>& size) {
  auto constant = [&](uint32_t operand, uint32_t& value) {
    auto it = d.int32_constants.find(operand);
    if (it == d.int32_constants.end()) return false;
    value = it->second;
    return true;
  };
  if (d.workgroup_size_builtin) {
    auto it = d.composites.find(*d.workgroup_size_builtin);
    if (it == d.composites.end() || it->second.size() != 3 || !constant(it->second[0], size[0]) ||
        !constant(it->second[1], size[1]) || !constant(it->second[2], size[2])) {
      return "its BuiltIn WorkgroupSize object %" + std::to_string(*d.workgroup_size_builtin) +
             " is not a constant composite of three 32-bit integer constants";
    }
  } else if (auto literal = d.local_size.find(id); literal != d.local_size.end()) {
    size = literal->second;
  } else if (auto ids = d.local_size_id.find(id); ids != d.local_size_id.end()) {
    for (int i = 0; i < 3; ++i) {
      if (!constant(ids->second[i], size[i])) {
        return "its LocalSizeId operand %" + std::to_string(ids->second[i]) +
               " is not a 32-bit integer constant or spec constant (computed sizes are not "
               "supported)";
      }
    }
  } else {
    return "it has no LocalSize or LocalSizeId execution mode";
  }
  if (size[0] == 0 || size[1] == 0 || size[2] == 0) {
    return "its workgroup size " + WorkgroupSizeText(size) + " has a zero component";
  }
  return "";
}

}  // namespace

const SpirvEntryPoint* SpirvModule::FindComputeEntryPoint(std::string_view name) const {
  for (const SpirvEntryPoint& entry : entry_points) {
    if (entry.execution_model == kSpirvExecutionModelGLCompute && entry.name == name) return &entry;
  }
  return nullptr;
}

std::string SpirvModule::DescribeEntryPoints() const {
  std::string out;
  for (const SpirvEntryPoint& entry : entry_points) {
    out += (out.empty() ? "" : ", ") + entry.name;
    if (entry.execution_model != kSpirvExecutionModelGLCompute) {
      out += " (execution model " + std::to_string(entry.execution_model) + ", not GLCompute)";
    }
  }
  return out.empty() ? "none" : out;
}

std::string WorkgroupSizeText(const std::array<uint32_t, 3>& size) {
  return "[" + std::to_string(size[0]) + ", " + std::to_string(size[1]) + ", " +
         std::to_string(size[2]) + "]";
}

Result<SpirvModule> ParseSpirvModule(std::span<const uint32_t> words,
                                     const SpirvParseOptions& options) {
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
  const uint32_t id_bound = words[3];

  SpirvModule module;
  Declarations d;
  bool in_function = false;
  for (size_t at = kHeaderWords; at < words.size();) {
    const uint32_t count = words[at] >> 16;
    const uint32_t opcode = words[at] & 0xffff;
    auto malformed = [&](const std::string& why) {
      return InvalidArgumentError("the instruction at word " + std::to_string(at) + " " + why);
    };
    if (count == 0) return malformed("has a word count of 0");
    if (count > words.size() - at) {
      return malformed("(opcode " + std::to_string(opcode) + ", " + std::to_string(count) +
                       " words) runs past the end of the module, which has " +
                       std::to_string(words.size()) + " words");
    }
    const std::span<const uint32_t> op = words.subspan(at + 1, count - 1);
    switch (opcode) {
      case kOpCapability:
        if (op.size() >= 1 && op[0] == kCapabilityShaderClockKHR) module.uses_shader_clock = true;
        break;
      case kOpEntryPoint: {
        if (op.size() < 3) return malformed("(OpEntryPoint) is too short");
        std::optional<std::string> name = ReadString(op.subspan(2));
        if (!name) {
          return malformed(
              "(OpEntryPoint) has an unterminated name (its bytes are not nul-terminated within "
              "the instruction)");
        }
        SpirvEntryPoint& entry = module.entry_points.emplace_back();
        entry.execution_model = op[0];
        entry.function_id = op[1];
        entry.name = std::move(*name);
        break;
      }
      case kOpExecutionMode:
        if (op.size() < 2) return malformed("(OpExecutionMode) is too short");
        if (op[1] == kExecutionModeLocalSize) {
          if (op.size() != 5) return malformed("(OpExecutionMode LocalSize) needs 3 sizes");
          d.local_size[op[0]] = {op[2], op[3], op[4]};
        }
        break;
      case kOpExecutionModeId:
        if (op.size() < 2) return malformed("(OpExecutionModeId) is too short");
        if (op[1] == kExecutionModeLocalSizeId) {
          if (op.size() != 5) return malformed("(OpExecutionModeId LocalSizeId) needs 3 ids");
          d.local_size_id[op[0]] = {op[2], op[3], op[4]};
        }
        break;
      case kOpDecorate:
        if (op.size() < 2) return malformed("(OpDecorate) is too short");
        if (op[1] == kDecorationBuiltIn && op.size() >= 3 && op[2] == kBuiltInWorkgroupSize) {
          d.workgroup_size_builtin = op[0];
        }
        break;
      case kOpTypeInt:
        if (op.size() != 3) return malformed("(OpTypeInt) needs 3 operands");
        if (op[1] == 32) d.int32_types.insert(op[0]);
        break;
      case kOpConstant:
      case kOpSpecConstant:
        if (op.size() < 3) return malformed("(a constant) is too short");
        // A 32-bit integer constant has exactly one value word.
        if (op.size() == 3 && d.int32_types.count(op[0])) d.int32_constants[op[1]] = op[2];
        break;
      case kOpConstantComposite:
      case kOpSpecConstantComposite:
        if (op.size() < 2) return malformed("(a composite constant) is too short");
        d.composites[op[1]].assign(op.begin() + 2, op.end());
        break;
      case kOpFunction:
        if (in_function) return malformed("(OpFunction) is inside a function");
        if (op.size() < 4) return malformed("(OpFunction) is too short");
        in_function = true;
        d.functions.insert(op[1]);
        break;
      case kOpFunctionEnd:
        if (!in_function) return malformed("(OpFunctionEnd) is outside a function");
        in_function = false;
        break;
      default:
        break;
    }
    at += count;
  }
  if (in_function) {
    return InvalidArgumentError("the SPIR-V module ends inside a function (no OpFunctionEnd)");
  }

  for (size_t i = 0; i < module.entry_points.size(); ++i) {
    SpirvEntryPoint& entry = module.entry_points[i];
    // SPIR-V allows one name twice only under different execution models.
    for (size_t j = 0; j < i; ++j) {
      const SpirvEntryPoint& seen = module.entry_points[j];
      if (seen.name != entry.name || seen.execution_model != entry.execution_model) continue;
      const std::string what = entry.execution_model == kSpirvExecutionModelGLCompute
                                   ? "GLCompute entry point '" + entry.name + "'"
                                   : "entry point '" + entry.name + "' of execution model " +
                                         std::to_string(entry.execution_model);
      return InvalidArgumentError("the module declares the " + what + " twice");
    }
    if (options.require_entry_point_functions) {
      if (entry.function_id >= id_bound) {
        return InvalidArgumentError("SPIR-V entry point '" + entry.name + "' names id " +
                                    std::to_string(entry.function_id) +
                                    ", not below the id bound " + std::to_string(id_bound));
      }
      if (!d.functions.count(entry.function_id)) {
        return InvalidArgumentError("SPIR-V entry point '" + entry.name + "' names id " +
                                    std::to_string(entry.function_id) +
                                    ", which is not a function of the module");
      }
    }
    if (entry.execution_model == kSpirvExecutionModelGLCompute) {
      entry.size_error = ResolveLocalSize(d, entry.function_id, entry.local_size);
    } else {
      entry.size_error = "it is not a GLCompute entry point";
    }
  }
  return module;
}

}  // namespace kiln
