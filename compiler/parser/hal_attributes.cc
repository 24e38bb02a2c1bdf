#include "compiler/parser/hal_attributes.h"

#include <algorithm>
#include <limits>
#include <string_view>

#include "compiler/ir/diagnostics.h"
#include "compiler/ir/source.h"
#include "compiler/parser/lexer.h"
#include "compiler/parser/parser_impl.h"

namespace kiln::compiler {
namespace {

// A short excerpt of `text` from `offset`, for error messages.
std::string Excerpt(std::string_view text, size_t offset) {
  if (offset >= text.size()) return "the end of the body";
  std::string out(text.substr(offset, 24));
  std::replace(out.begin(), out.end(), '\n', ' ');
  return "'" + out + "'";
}

// Recursive descent over the tokens of one attribute body. Nested HAL
// attributes (`#hal.executable.target<...>` inside objects) are parsed in the
// same pass, so every error offset refers to the outermost body. Each
// Parse*Contents function starts after the attribute's '<' and stops at its
// closing '>' without consuming it. Functions return false after recording
// exactly one error.
class BodyParser {
 public:
  BodyParser(std::string_view attribute_name, std::string_view body)
      : name_(attribute_name), body_(body), lexer_(body) {
    Next();
  }

  const Status& error() const { return error_; }

  bool ExpectEnd() {
    if (tok_.is(TokenKind::kEof)) return true;
    return Fail("unexpected text after the attribute");
  }

  // ---- #hal.pipeline.layout ----

  bool ParseLayoutContents(PipelineLayout* layout) {
    bool seen_constants = false, seen_sets = false, seen_bindings = false, seen_flags = false;
    if (tok_.is(TokenKind::kEof) || tok_.is(TokenKind::kGreater)) return true;
    do {
      size_t key_offset = tok_.offset;
      std::string key;
      if (!ParseKey(&key)) return false;
      if (key == "push_constants" || key == "constants") {
        if (seen_constants) return FailAt(key_offset, "the push constant count is given twice");
        seen_constants = true;
        if (!ParseCount("the push constant count", &layout->constants)) return false;
      } else if (key == "sets") {
        if (seen_sets || seen_bindings) {
          return FailAt(key_offset, "the bindings are given twice ('sets' and 'bindings')");
        }
        seen_sets = true;
        if (!ParseSets(layout)) return false;
      } else if (key == "bindings") {
        if (seen_sets || seen_bindings) {
          return FailAt(key_offset, "the bindings are given twice ('sets' and 'bindings')");
        }
        seen_bindings = true;
        if (!ParseList([&] { return ParseNewBinding(layout); })) return false;
      } else if (key == "flags") {
        if (seen_flags) return FailAt(key_offset, "'flags' is given twice");
        seen_flags = true;
        Flags flags;
        if (!ParseFlags(/*allow_read_only=*/false, &flags)) return false;
        layout->indirect = layout->indirect || flags.indirect;
      } else {
        return FailAt(key_offset, "unknown key '" + key +
                                      "'; expected 'constants', 'push_constants', 'bindings', "
                                      "'sets' or 'flags'");
      }
    } while (ConsumeIf(TokenKind::kComma));
    return true;
  }

  // ---- #hal.executable.target ----

  bool ParseTargetContents(ExecutableTarget* target) {
    if (!ParseString("the backend name (e.g. \"llvm-cpu\", \"cuda\")", &target->backend)) {
      return false;
    }
    if (!Expect(TokenKind::kComma, "',' and the executable format after the backend")) {
      return false;
    }
    if (!ParseString("the executable format (e.g. \"embedded-elf-x86_64\")", &target->format)) {
      return false;
    }
    if (ConsumeIf(TokenKind::kComma)) {
      if (!tok_.is(TokenKind::kLBrace)) return Fail("expected the configuration dictionary");
      if (!ParseGenericAttribute(&target->config)) return false;
    }
    return true;
  }

  // Parses `#hal.executable.target<...>` (the current token is its name).
  bool ParseNestedTarget(ExecutableTarget* target) {
    return ParseNested("hal.executable.target", "an executable target",
                       [&] { return ParseTargetContents(target); });
  }

  // ---- #hal.executable.object ----

  bool ParseObjectContents(ExecutableObject* object) {
    size_t start = tok_.offset;
    if (!Expect(TokenKind::kLBrace, "'{' to start the object's dictionary")) return false;
    bool seen_path = false, seen_data = false;
    if (!tok_.is(TokenKind::kRBrace)) {
      do {
        size_t key_offset = tok_.offset;
        std::string key;
        if (!ParseKey(&key)) return false;
        if (key == "path") {
          if (seen_path) return FailAt(key_offset, "'path' is given twice");
          seen_path = true;
          if (!ParseString("the object's path as a string", &object->path)) return false;
          if (object->path.empty()) return FailAt(key_offset, "the object's path is empty");
        } else if (key == "data") {
          if (seen_data) return FailAt(key_offset, "'data' is given twice");
          seen_data = true;
          if (!ParseRawValue(&object->data)) return false;
        } else {
          return FailAt(key_offset, "unknown key '" + key + "'; expected 'path' or 'data'");
        }
      } while (ConsumeIf(TokenKind::kComma));
    }
    if (!Expect(TokenKind::kRBrace, "',' or '}' in the object's dictionary")) return false;
    if (!seen_path && !seen_data) {
      return FailAt(start, "an executable object needs a 'path' or 'data'");
    }
    return true;
  }

  // ---- #hal.executable.objects ----

  bool ParseObjectsContents(ExecutableObjects* objects) {
    if (!Expect(TokenKind::kLBrace, "'{' to start the map from targets to objects")) return false;
    if (!tok_.is(TokenKind::kRBrace)) {
      do {
        size_t key_offset = tok_.offset;
        ExecutableTarget target;
        if (!ParseNestedTarget(&target)) return false;
        for (const auto& entry : objects->targets) {
          if (entry.first == target) {
            return FailAt(key_offset, "target #hal.executable.target<\"" + target.backend +
                                          "\", \"" + target.format + "\", ...> is given twice");
          }
        }
        if (!Expect(TokenKind::kEqual, "'=' and a list of objects after the target")) {
          return false;
        }
        std::vector<ExecutableObject> list;
        bool ok = ParseList([&] {
          ExecutableObject object;
          if (!ParseNested("hal.executable.object", "an executable object",
                           [&] { return ParseObjectContents(&object); })) {
            return false;
          }
          list.push_back(std::move(object));
          return true;
        });
        if (!ok) return false;
        objects->targets.emplace_back(std::move(target), std::move(list));
      } while (ConsumeIf(TokenKind::kComma));
    }
    return Expect(TokenKind::kRBrace, "',' or '}' in the map from targets to objects");
  }

  // ---- #hal.device.target ----

  bool ParseDeviceContents(DeviceTarget* device) {
    if (!ParseString("the device name (e.g. \"cuda\", \"local\")", &device->device)) return false;
    bool seen_list = false;
    while (ConsumeIf(TokenKind::kComma)) {
      if (tok_.is(TokenKind::kLBrace) && device->config.is_null() && !seen_list) {
        if (!ParseGenericAttribute(&device->config)) return false;
      } else if (tok_.is(TokenKind::kLSquare) && !seen_list) {
        seen_list = true;
        bool ok = ParseList([&] {
          ExecutableTarget target;
          if (!ParseNestedTarget(&target)) return false;
          device->targets.push_back(std::move(target));
          return true;
        });
        if (!ok) return false;
      } else {
        return Fail(seen_list ? "unexpected text after the list of executable targets"
                              : "expected the configuration dictionary or the list of "
                                "executable targets");
      }
    }
    // The older spelling keeps the targets in the config's executable_targets.
    if (const Attribute* list = device->config.Find("executable_targets")) {
      if (list->kind != Attribute::Kind::kArray) {
        return FailAt(0, "'executable_targets' in the configuration must be a list");
      }
      for (const Attribute& element : list->elements) {
        Result<ExecutableTarget> target = ParseExecutableTarget(element);
        if (!target.ok()) {
          error_ =
              target.status().WithContext("#" + std::string(name_) + ": in 'executable_targets'");
          return false;
        }
        device->targets.push_back(std::move(target).value());
      }
    }
    return true;
  }

 private:
  struct Flags {
    bool read_only = false;
    bool indirect = false;
  };

  void Next() { tok_ = lexer_.Next(); }
  bool ConsumeIf(TokenKind kind) {
    if (!tok_.is(kind)) return false;
    Next();
    return true;
  }
  bool Expect(TokenKind kind, std::string_view what) {
    if (ConsumeIf(kind)) return true;
    return Fail("expected " + std::string(what));
  }
  bool Fail(std::string message) {
    if (tok_.is(TokenKind::kError) && tok_.error) message = tok_.error;
    return FailAt(tok_.offset, std::move(message));
  }
  bool FailAt(size_t offset, std::string message) {
    error_ = InvalidArgumentError("#" + std::string(name_) + ": " + message + ", at offset " +
                                  std::to_string(offset) + " of the body near " +
                                  Excerpt(body_, offset));
    return false;
  }

  // `name =`
  bool ParseKey(std::string* key) {
    if (!tok_.is(TokenKind::kBareId)) return Fail("expected a key");
    *key = std::string(tok_.text);
    Next();
    return Expect(TokenKind::kEqual, "'=' after '" + *key + "'");
  }

  bool ParseString(std::string_view what, std::string* out) {
    if (!tok_.is(TokenKind::kString)) return Fail("expected " + std::string(what));
    if (!Lexer::DecodeString(tok_.text, out)) return Fail("invalid escape in string");
    Next();
    return true;
  }

  // A non-negative decimal integer that fits in an int.
  bool ParseCount(std::string_view what, int* out) {
    if (!tok_.is(TokenKind::kInteger)) return Fail("expected " + std::string(what));
    int64_t value = 0;
    for (char c : tok_.text) {
      if (c < '0' || c > '9' || value > (std::numeric_limits<int>::max() - (c - '0')) / 10) {
        return Fail(std::string(what) + " must be a decimal integer below 2^31");
      }
      value = value * 10 + (c - '0');
    }
    *out = static_cast<int>(value);
    Next();
    return true;
  }

  // `[elem, elem, ...]` (possibly empty).
  template <typename ParseElement>
  bool ParseList(ParseElement parse_element) {
    if (!Expect(TokenKind::kLSquare, "'[' to start a list")) return false;
    if (ConsumeIf(TokenKind::kRSquare)) return true;
    do {
      if (!parse_element()) return false;
    } while (ConsumeIf(TokenKind::kComma));
    return Expect(TokenKind::kRSquare, "',' or ']' in the list");
  }

  // `#<name><contents>` with the contents parsed by `parse_contents`.
  template <typename ParseContents>
  bool ParseNested(std::string_view name, std::string_view what, ParseContents parse_contents) {
    if (!tok_.is(TokenKind::kHashId) || tok_.text.substr(1) != name) {
      if (tok_.is(TokenKind::kHashId) && tok_.text.find('.') == std::string_view::npos) {
        return Fail("undefined attribute alias '" + std::string(tok_.text) + "'");
      }
      return Fail("expected " + std::string(what) + " (#" + std::string(name) + "<...>)");
    }
    Next();
    if (!Expect(TokenKind::kLess, "'<' after #" + std::string(name))) return false;
    if (!parse_contents()) return false;
    return Expect(TokenKind::kGreater, "'>' to end #" + std::string(name));
  }

  // `<contents>` or `#<name><contents>`: the older layout spelling allows
  // both for descriptor sets and their bindings.
  template <typename ParseContents>
  bool ParseShortOrNested(std::string_view name, std::string_view what,
                          ParseContents parse_contents) {
    if (tok_.is(TokenKind::kHashId)) return ParseNested(name, what, parse_contents);
    if (!Expect(TokenKind::kLess,
                "'<' to start " + std::string(what) + " (or #" + std::string(name) + "<...>)")) {
      return false;
    }
    if (!parse_contents()) return false;
    return Expect(TokenKind::kGreater, "'>' to end " + std::string(what));
  }

  // `sets = [<0, bindings = [...]>]`: only descriptor set 0.
  bool ParseSets(PipelineLayout* layout) {
    bool seen_set = false;
    return ParseList([&] {
      size_t set_offset = tok_.offset;
      if (seen_set) return FailAt(set_offset, "only one descriptor set (set 0) is supported");
      seen_set = true;
      return ParseShortOrNested("hal.descriptor_set.layout", "a descriptor set layout", [&] {
        size_t ordinal_offset = tok_.offset;
        int ordinal = 0;
        if (!ParseCount("the descriptor set ordinal", &ordinal)) return false;
        if (ordinal != 0) {
          return FailAt(ordinal_offset, "descriptor set " + std::to_string(ordinal) +
                                            " is not supported; kiln's layouts use set 0 only");
        }
        bool seen_bindings = false, seen_flags = false;
        while (ConsumeIf(TokenKind::kComma)) {
          size_t key_offset = tok_.offset;
          std::string key;
          if (!ParseKey(&key)) return false;
          if (key == "bindings" && !seen_bindings) {
            seen_bindings = true;
            if (!ParseList([&] { return ParseOldBinding(layout); })) return false;
          } else if (key == "flags" && !seen_flags) {
            seen_flags = true;
            Flags flags;
            if (!ParseFlags(/*allow_read_only=*/false, &flags)) return false;
            layout->indirect = layout->indirect || flags.indirect;
          } else if (key == "bindings" || key == "flags") {
            return FailAt(key_offset, "'" + key + "' is given twice");
          } else {
            return FailAt(key_offset,
                          "unknown key '" + key + "' in a descriptor set; expected 'bindings'");
          }
        }
        return true;
      });
    });
  }

  // `<ordinal, storage_buffer[, flags]>`
  bool ParseOldBinding(PipelineLayout* layout) {
    return ParseShortOrNested("hal.descriptor_set.binding", "a binding", [&] {
      size_t ordinal_offset = tok_.offset;
      int ordinal = 0;
      if (!ParseCount("the binding ordinal", &ordinal)) return false;
      if (ordinal != static_cast<int>(layout->bindings.size())) {
        return FailAt(ordinal_offset, "binding " + std::to_string(ordinal) +
                                          " is out of order: expected binding " +
                                          std::to_string(layout->bindings.size()) +
                                          " (bindings are numbered 0..n-1 in order)");
      }
      if (!Expect(TokenKind::kComma, "',' and the binding type after the ordinal")) return false;
      return ParseBindingBody(layout);
    });
  }

  // `#hal.pipeline.binding<storage_buffer[, flags]>`
  bool ParseNewBinding(PipelineLayout* layout) {
    return ParseNested("hal.pipeline.binding", "a binding",
                       [&] { return ParseBindingBody(layout); });
  }

  // `storage_buffer[, ReadOnly | "ReadOnly|Indirect" | flags = ...]`
  bool ParseBindingBody(PipelineLayout* layout) {
    if (!tok_.is(TokenKind::kBareId)) return Fail("expected the binding type 'storage_buffer'");
    if (tok_.text != "storage_buffer") {
      return Fail("binding type '" + std::string(tok_.text) +
                  "' is not supported; kiln's layouts have storage_buffer bindings only");
    }
    Next();
    PipelineLayout::Binding binding;
    if (ConsumeIf(TokenKind::kComma)) {
      if (tok_.IsKeyword("flags")) {
        Next();
        if (!Expect(TokenKind::kEqual, "'=' after 'flags'")) return false;
      }
      Flags flags;
      if (!ParseFlags(/*allow_read_only=*/true, &flags)) return false;
      binding.read_only = flags.read_only;
      binding.indirect = flags.indirect;
    }
    layout->bindings.push_back(binding);
    return true;
  }

  // `ReadOnly`, `Indirect`, `None` or a string of them joined by '|'.
  bool ParseFlags(bool allow_read_only, Flags* flags) {
    std::string_view expected =
        allow_read_only ? "'ReadOnly', 'Indirect' or 'None'" : "'Indirect' or 'None'";
    size_t offset = tok_.offset;
    std::string text;
    if (tok_.is(TokenKind::kBareId)) {
      text = std::string(tok_.text);
    } else if (tok_.is(TokenKind::kString)) {
      if (!Lexer::DecodeString(tok_.text, &text)) return Fail("invalid escape in string");
    } else {
      return Fail("expected flags: " + std::string(expected));
    }
    Next();
    size_t start = 0;
    while (true) {
      size_t bar = text.find('|', start);
      std::string flag = text.substr(start, bar == std::string::npos ? bar : bar - start);
      flag.erase(0, flag.find_first_not_of(' '));
      flag.erase(flag.find_last_not_of(' ') + 1);
      if (flag == "ReadOnly" && allow_read_only) {
        flags->read_only = true;
      } else if (flag == "Indirect") {
        flags->indirect = true;
      } else if (flag != "None") {
        return FailAt(offset, "unknown flag '" + flag + "'; expected " + std::string(expected));
      }
      if (bar == std::string::npos) break;
      start = bar + 1;
    }
    return true;
  }

  // A value kept as written, up to the next ',' or '}' outside brackets.
  bool ParseRawValue(std::string* out) {
    size_t start = tok_.offset, end = start;
    int depth = 0;
    while (true) {
      if (tok_.is(TokenKind::kEof)) return Fail("unexpected end of the body in a value");
      if (tok_.is(TokenKind::kError)) return Fail("malformed value");
      if (depth == 0 && (tok_.is(TokenKind::kComma) || tok_.is(TokenKind::kRBrace))) break;
      switch (tok_.kind) {
        case TokenKind::kLess:
        case TokenKind::kLParen:
        case TokenKind::kLSquare:
        case TokenKind::kLBrace:
          ++depth;
          break;
        case TokenKind::kGreater:
        case TokenKind::kRParen:
        case TokenKind::kRSquare:
        case TokenKind::kRBrace:
          if (--depth < 0) return Fail("unbalanced bracket in a value");
          break;
        default:
          break;
      }
      end = tok_.end();
      Next();
    }
    if (end == start) return Fail("expected a value");
    *out = std::string(body_.substr(start, end - start));
    return true;
  }

  // A builtin attribute starting at the current '{' (a configuration
  // dictionary), parsed by kiln's attribute parser.
  bool ParseGenericAttribute(Attribute* out) {
    size_t open = tok_.offset, close = 0, error_offset = 0;
    if (!lexer_.ScanBalanced(open, &close, &error_offset)) {
      return FailAt(error_offset, "unbalanced bracket");
    }
    std::string_view text = body_.substr(open, close - open + 1);
    SourceManager sources;
    uint32_t file = sources.AddFile("<attribute>", std::string(text));
    DiagnosticEngine diagnostics(sources);
    parser_internal::Parser parser(sources, file, diagnostics);
    bool ok = parser.ParseAttribute(out);
    if (ok && !parser.tok().is(TokenKind::kEof)) {
      return FailAt(open + parser.tok().offset, "unexpected text after the dictionary");
    }
    if (!ok) {
      if (diagnostics.diagnostics().empty()) return FailAt(open, "invalid attribute");
      const Diagnostic& d = diagnostics.diagnostics().front();
      return FailAt(open + OffsetOf(text, d.location), d.message);
    }
    lexer_.ResetTo(close + 1);
    Next();
    return true;
  }

  // The byte offset of a 1-based line:column in `text`.
  static size_t OffsetOf(std::string_view text, const Location& location) {
    size_t offset = 0;
    for (uint32_t line = 1; line < location.line && offset < text.size(); ++line) {
      size_t newline = text.find('\n', offset);
      if (newline == std::string_view::npos) return text.size();
      offset = newline + 1;
    }
    if (location.column > 0) offset += location.column - 1;
    return std::min(offset, text.size());
  }

  std::string_view name_;
  std::string_view body_;
  Lexer lexer_;
  Token tok_;
  Status error_;
};

// Checks that `attribute` is `#<name><...>` and runs `parse` over its body.
template <typename T, typename ParseContents>
Result<T> ParseBody(const Attribute& attribute, std::string_view name,
                    ParseContents parse_contents) {
  if (attribute.kind != Attribute::Kind::kDialect || attribute.text != name) {
    return InvalidArgumentError("expected #" + std::string(name) + "<...>, got " +
                                attribute.ToString());
  }
  BodyParser parser(name, attribute.body);
  T value;
  if (!parse_contents(parser, &value) || !parser.ExpectEnd()) return parser.error();
  return value;
}

}  // namespace

Result<PipelineLayout> ParsePipelineLayout(const Attribute& attribute) {
  return ParseBody<PipelineLayout>(
      attribute, "hal.pipeline.layout",
      [](BodyParser& p, PipelineLayout* v) { return p.ParseLayoutContents(v); });
}

Result<ExecutableTarget> ParseExecutableTarget(const Attribute& attribute) {
  return ParseBody<ExecutableTarget>(
      attribute, "hal.executable.target",
      [](BodyParser& p, ExecutableTarget* v) { return p.ParseTargetContents(v); });
}

Result<ExecutableObject> ParseExecutableObject(const Attribute& attribute) {
  return ParseBody<ExecutableObject>(
      attribute, "hal.executable.object",
      [](BodyParser& p, ExecutableObject* v) { return p.ParseObjectContents(v); });
}

Result<ExecutableObjects> ParseExecutableObjects(const Attribute& attribute) {
  return ParseBody<ExecutableObjects>(
      attribute, "hal.executable.objects",
      [](BodyParser& p, ExecutableObjects* v) { return p.ParseObjectsContents(v); });
}

Result<DeviceTarget> ParseDeviceTarget(const Attribute& attribute) {
  return ParseBody<DeviceTarget>(
      attribute, "hal.device.target",
      [](BodyParser& p, DeviceTarget* v) { return p.ParseDeviceContents(v); });
}

}  // namespace kiln::compiler
