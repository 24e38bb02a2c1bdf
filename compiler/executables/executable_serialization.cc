#include "compiler/executables/executable_serialization.h"

#include <algorithm>
#include <cctype>

namespace kiln::compiler {
namespace {

// Parses `dense<[1, 2, 255]> : vector<3xi8>` (or `dense<"0x0102">`, MLIR's
// hex form) into bytes.
Result<std::vector<uint8_t>> ParseInlineData(std::string_view text) {
  auto bad = [&](std::string_view why) {
    return InvalidArgumentError("inline object data " + std::string(why) + ": '" +
                                std::string(text.substr(0, 60)) + "'");
  };
  size_t open = text.find('<');
  size_t close = text.rfind('>');
  if (text.substr(0, 5) != "dense" || open == std::string_view::npos || close <= open) {
    return bad("must be dense<[...]> : vector<Nxi8>");
  }
  std::string_view body = text.substr(open + 1);
  std::vector<uint8_t> bytes;
  size_t quote = body.find('"');
  if (quote != std::string_view::npos && quote < body.find('[')) {
    std::string_view hex = body.substr(quote + 1);
    hex = hex.substr(0, hex.find('"'));
    if (hex.substr(0, 2) != "0x" || hex.size() % 2 != 0) return bad("hex string is malformed");
    for (size_t i = 2; i < hex.size(); i += 2) {
      unsigned value = 0;
      for (char c : hex.substr(i, 2)) {
        if (!std::isxdigit(static_cast<unsigned char>(c))) return bad("has a non-hex digit");
        value = value * 16 + (std::isdigit(static_cast<unsigned char>(c))
                                  ? c - '0'
                                  : std::tolower(static_cast<unsigned char>(c)) - 'a' + 10);
      }
      bytes.push_back(static_cast<uint8_t>(value));
    }
    return bytes;
  }
  size_t begin = body.find('[');
  size_t end = body.find(']');
  if (begin == std::string_view::npos || end == std::string_view::npos || end < begin) {
    return bad("must list its bytes in [...]");
  }
  std::string_view list = body.substr(begin + 1, end - begin - 1);
  size_t pos = 0;
  while (pos < list.size()) {
    while (pos < list.size() && (list[pos] == ' ' || list[pos] == ',' || list[pos] == '\n')) ++pos;
    if (pos >= list.size()) break;
    bool negative = list[pos] == '-';
    if (negative) ++pos;
    if (pos >= list.size() || !std::isdigit(static_cast<unsigned char>(list[pos]))) {
      return bad("has a non-integer element");
    }
    int value = 0;
    while (pos < list.size() && std::isdigit(static_cast<unsigned char>(list[pos]))) {
      value = value * 10 + (list[pos++] - '0');
      if (value > 255) return bad("has an element outside i8");
    }
    if (negative) {
      if (value > 128) return bad("has an element outside i8");
      value = 256 - value;
    }
    bytes.push_back(static_cast<uint8_t>(value));
  }
  return bytes;
}

// The string value of `key` in a target's config dictionary, or "".
std::string ConfigString(const ExecutableTarget& target, std::string_view key) {
  const Attribute* value = target.config.Find(key);
  return value && value->kind == Attribute::Kind::kString ? value->text : "";
}

}  // namespace

Result<std::vector<SerializedExecutable>> SerializeExecutable(const ExecutableSpec& spec,
                                                              const ObjectSearch& search) {
  ExecutableInfo info;
  info.name = spec.name;
  for (const ExecutableExportSpec& e : spec.exports) {
    ExportInfo out{e.name, e.ordinal, static_cast<uint32_t>(e.layout.constants), {},
                   e.workgroup_size, e.workgroup_size_declared};
    for (const PipelineLayout::Binding& binding : e.layout.bindings) {
      out.read_only.push_back(binding.read_only);
    }
    info.exports.push_back(std::move(out));
  }
  for (const auto& [target, objects] : spec.objects.targets) {
    TargetObjects out{target.backend, target.format, ConfigString(target, "target_arch"),
                      target.config.is_null() ? "" : target.config.ToString(), {}};
    // Only the selected targets' inline data is parsed, as before.
    const std::string name = TargetNameOfBackend(target.backend);
    const bool selected = search.selected_targets.empty() ||
                          std::find(search.selected_targets.begin(), search.selected_targets.end(),
                                    name) != search.selected_targets.end();
    for (const ExecutableObject& object : objects) {
      ObjectSource source{object.path, {}};
      if (object.path.empty() && selected) {
        if (object.data.empty()) {
          return InvalidArgumentError("executable object has no path or data")
              .WithContext("executable '" + spec.name + "'");
        }
        Result<std::vector<uint8_t>> bytes = ParseInlineData(object.data);
        if (!bytes.ok()) return bytes.status().WithContext("executable '" + spec.name + "'");
        source.data = std::move(*bytes);
      }
      out.objects.push_back(std::move(source));
    }
    info.targets.push_back(std::move(out));
  }
  return SerializeExecutable(info, search);
}

}  // namespace kiln::compiler
