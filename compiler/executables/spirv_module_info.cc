#include "compiler/executables/spirv_module_info.h"

#include <cstring>
#include <optional>
#include <unordered_map>

namespace kiln::compiler {
namespace {

// The numbers of the SPIR-V specification (unified spec, section 3) that this
// reader needs.
constexpr uint32_t kMagic = 0x07230203;
constexpr uint32_t kHeaderWords = 5;
constexpr uint32_t kOpTypeInt = 21;
constexpr uint32_t kOpConstant = 43;
constexpr uint32_t kOpConstantComposite = 44;
constexpr uint32_t kOpSpecConstant = 50;
constexpr uint32_t kOpSpecConstantComposite = 51;
constexpr uint32_t kOpEntryPoint = 15;
constexpr uint32_t kOpExecutionMode = 16;
constexpr uint32_t kOpExecutionModeId = 331;
constexpr uint32_t kOpDecorate = 71;
constexpr uint32_t kExecutionModelGLCompute = 5;
constexpr uint32_t kExecutionModeLocalSize = 17;
constexpr uint32_t kExecutionModeLocalSizeId = 38;
constexpr uint32_t kDecorationBuiltIn = 11;
constexpr uint32_t kBuiltInWorkgroupSize = 25;

uint32_t ByteSwap(uint32_t w) {
  return (w >> 24) | ((w >> 8) & 0xff00u) | ((w << 8) & 0xff0000u) | (w << 24);
}

std::string SizeText(const std::array<uint32_t, 3>& size) {
  return "[" + std::to_string(size[0]) + ", " + std::to_string(size[1]) + ", " +
         std::to_string(size[2]) + "]";
}

// What the instruction scan collects, by result id.
struct Declarations {
  struct EntryPoint {
    uint32_t model;
    uint32_t id;
    std::string name;
  };
  std::vector<EntryPoint> entry_points;
  std::unordered_map<uint32_t, std::array<uint32_t, 3>> local_size;     // Entry point id.
  std::unordered_map<uint32_t, std::array<uint32_t, 3>> local_size_id;  // Entry point id.
  std::unordered_map<uint32_t, uint32_t> int32_types;                   // Type id -> 1.
  std::unordered_map<uint32_t, uint32_t> int32_constants;               // Id -> value.
  std::unordered_map<uint32_t, std::vector<uint32_t>> composites;       // Id -> constituents.
  std::optional<uint32_t> workgroup_size_builtin;                       // Decorated id.
};

// A literal string operand occupying words [begin, end): UTF-8 bytes up to a
// NUL that must lie inside the operand.
std::optional<std::string> ReadString(const std::vector<uint32_t>& words, size_t begin,
                                      size_t end) {
  std::string text;
  for (size_t i = begin; i < end; ++i) {
    for (int byte = 0; byte < 4; ++byte) {
      // SPIR-V packs string bytes little-end first within each word.
      const char c = static_cast<char>((words[i] >> (8 * byte)) & 0xff);
      if (c == '\0') return text;
      text.push_back(c);
    }
  }
  return std::nullopt;
}

// The size one entry point runs with, or why there is none.
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
    return "its workgroup size " + SizeText(size) + " has a zero component";
  }
  return "";
}

}  // namespace

Result<SpirvModuleInfo> ReadSpirvModuleInfo(std::span<const uint8_t> bytes,
                                            std::string_view object_name) {
  const std::string name(object_name);
  if (bytes.size() < kHeaderWords * 4 || bytes.size() % 4 != 0) {
    return InvalidArgumentError(name + " is not SPIR-V (its size, " + std::to_string(bytes.size()) +
                                " bytes, is not a multiple of 4 bytes >= 20)");
  }
  SpirvModuleInfo info;
  info.words.resize(bytes.size() / 4);
  std::memcpy(info.words.data(), bytes.data(), bytes.size());
  std::vector<uint32_t>& words = info.words;
  if (words[0] == ByteSwap(kMagic)) {
    for (uint32_t& w : words) w = ByteSwap(w);
  } else if (words[0] != kMagic) {
    return InvalidArgumentError(name +
                                " is not SPIR-V (bad magic number; compile GLSL with glslc)");
  }

  Declarations d;
  auto malformed = [&](size_t at, const std::string& why) {
    return InvalidArgumentError(name + " is malformed SPIR-V: the instruction at word " +
                                std::to_string(at) + " " + why);
  };
  for (size_t at = kHeaderWords; at < words.size();) {
    const uint32_t count = words[at] >> 16;
    const uint32_t opcode = words[at] & 0xffff;
    if (count == 0) return malformed(at, "has a word count of 0");
    if (count > words.size() - at) {
      return malformed(at, "(opcode " + std::to_string(opcode) + ", " + std::to_string(count) +
                               " words) runs past the end of the module");
    }
    // Operand i of this instruction is words[at + 1 + i], present when i < n.
    const size_t n = count - 1;
    const uint32_t* op = words.data() + at + 1;
    switch (opcode) {
      case kOpEntryPoint: {
        if (n < 3) return malformed(at, "(OpEntryPoint) is too short");
        std::optional<std::string> entry = ReadString(words, at + 3, at + count);
        if (!entry) return malformed(at, "(OpEntryPoint) has an unterminated name");
        d.entry_points.push_back({op[0], op[1], std::move(*entry)});
        break;
      }
      case kOpExecutionMode:
        if (n < 2) return malformed(at, "(OpExecutionMode) is too short");
        if (op[1] == kExecutionModeLocalSize) {
          if (n != 5) return malformed(at, "(OpExecutionMode LocalSize) needs 3 sizes");
          d.local_size[op[0]] = {op[2], op[3], op[4]};
        }
        break;
      case kOpExecutionModeId:
        if (n < 2) return malformed(at, "(OpExecutionModeId) is too short");
        if (op[1] == kExecutionModeLocalSizeId) {
          if (n != 5) return malformed(at, "(OpExecutionModeId LocalSizeId) needs 3 ids");
          d.local_size_id[op[0]] = {op[2], op[3], op[4]};
        }
        break;
      case kOpDecorate:
        if (n < 2) return malformed(at, "(OpDecorate) is too short");
        if (op[1] == kDecorationBuiltIn && n >= 3 && op[2] == kBuiltInWorkgroupSize) {
          d.workgroup_size_builtin = op[0];
        }
        break;
      case kOpTypeInt:
        if (n != 3) return malformed(at, "(OpTypeInt) needs 3 operands");
        if (op[1] == 32) d.int32_types[op[0]] = 1;
        break;
      case kOpConstant:
      case kOpSpecConstant:
        if (n < 3) return malformed(at, "(a constant) is too short");
        // A 32-bit integer constant has exactly one value word.
        if (n == 3 && d.int32_types.count(op[0])) d.int32_constants[op[1]] = op[2];
        break;
      case kOpConstantComposite:
      case kOpSpecConstantComposite:
        if (n < 2) return malformed(at, "(a composite constant) is too short");
        d.composites[op[1]] = std::vector<uint32_t>(op + 2, op + n);
        break;
      default:
        break;
    }
    at += count;
  }

  for (Declarations::EntryPoint& e : d.entry_points) {
    if (e.model != kExecutionModelGLCompute) {
      info.other_entry_points.push_back(std::move(e.name));
      continue;
    }
    for (const SpirvEntryPoint& seen : info.entry_points) {
      if (seen.name == e.name) {
        return InvalidArgumentError(name +
                                    " is malformed SPIR-V: it declares the GLCompute "
                                    "entry point '" +
                                    e.name + "' twice");
      }
    }
    SpirvEntryPoint entry;
    entry.name = std::move(e.name);
    entry.size_error = ResolveLocalSize(d, e.id, entry.local_size);
    info.entry_points.push_back(std::move(entry));
  }
  return info;
}

}  // namespace kiln::compiler
