#include "tools/dump_module/module_dump.h"

#include <string_view>
#include <vector>

#include "schemas/module_generated.h"
#include "tools/common/json_writer.h"
#include "vm/disassembler.h"
#include "vm/signature.h"

namespace kiln::tools {
namespace {

namespace s = ::kiln::schema;

// DispatchSiteDescriptor.site_id of a dispatch that is not instrumented.
constexpr uint32_t kNoSiteId = 0xFFFFFFFFu;

std::string Str(const flatbuffers::String* text) { return text ? text->str() : std::string(); }

// Number of entries of an optional FlatBuffer vector.
template <typename Vector>
uint32_t SizeOf(const Vector* vector) {
  return vector ? vector->size() : 0;
}

// "(i32, i64) -> (f32)" for a calling-convention string.
std::string Signature(std::string_view signature) { return vm::FormatSignature(signature); }

// "file:line:col" of a debug-table entry; "" for none.
std::string FormatLocation(const s::Module& flat, const s::SourceLocation* location) {
  if (!location || location->file() >= SizeOf(flat.source_files())) return "";
  return flat.source_files()->Get(location->file())->str() + ":" +
         std::to_string(location->line()) + ":" + std::to_string(location->column());
}

// One instruction with the source location that covers it ("" if none).
struct Line {
  vm::DisassembledInstruction instruction;
  std::string location;
};

// Disassembles function `index`, pairing each instruction with the debug-table
// entry in force at its offset (entries are sorted; the verifier checked).
Result<std::vector<Line>> DisassembleWithLocations(const s::Module& flat, uint32_t index) {
  KILN_ASSIGN_OR_RETURN(std::vector<vm::DisassembledInstruction> instructions,
                        vm::DisassembleFunction(flat, index));
  const s::Function* f = flat.functions()->Get(index);
  const auto* locations = f->locations();
  const uint32_t location_count = SizeOf(locations);
  std::vector<Line> lines;
  lines.reserve(instructions.size());
  uint32_t next = 0;                           // First entry not yet in force.
  const s::SourceLocation* current = nullptr;  // Entry in force.
  for (vm::DisassembledInstruction& instruction : instructions) {
    while (next < location_count && locations->Get(next)->bytecode_offset() <= instruction.offset) {
      current = locations->Get(next++);
    }
    lines.push_back({std::move(instruction), FormatLocation(flat, current)});
  }
  return lines;
}

// "file:line:col" of the debug-table entry in force at `offset` of function
// `index`, or "" when the function has none there.
std::string LocationAt(const s::Module& flat, uint32_t index, uint32_t offset) {
  const auto* locations = flat.functions()->Get(index)->locations();
  const s::SourceLocation* current = nullptr;
  for (uint32_t i = 0; i < SizeOf(locations) && locations->Get(i)->bytecode_offset() <= offset;
       ++i) {
    current = locations->Get(i);
  }
  return FormatLocation(flat, current);
}

std::string WorkgroupSize(const flatbuffers::Vector<uint32_t>& size) {
  return "[" + std::to_string(size.Get(0)) + ", " + std::to_string(size.Get(1)) + ", " +
         std::to_string(size.Get(2)) + "]";
}

// The executables section: each embedded executable with its variants
// (target, format, size), exports (layout, workgroup size) and the dispatch
// sites that use it.
void AppendExecutablesText(const s::Module& flat, std::string& out) {
  out += "executables: " + std::to_string(SizeOf(flat.executables())) + "\n";
  for (uint32_t i = 0; i < SizeOf(flat.executables()); ++i) {
    const s::ExecutableDescriptor* e = flat.executables()->Get(i);
    out += "  @" + Str(e->name()) + "\n";
    for (uint32_t v = 0; v < SizeOf(e->variants()); ++v) {
      const s::ExecutableVariantDescriptor* variant = e->variants()->Get(v);
      const s::RodataSegment* segment = flat.rodata()->Get(variant->rodata());
      out += "    variant " + Str(variant->target()) + " " + Str(variant->format()) +
             (Str(variant->config()).empty() ? "" : " " + Str(variant->config())) + ": " +
             std::to_string(SizeOf(segment->data())) + " bytes in rodata [" +
             std::to_string(variant->rodata()) + "]\n";
    }
    for (uint32_t x = 0; x < SizeOf(e->exports()); ++x) {
      const s::ExecutableExportDescriptor* d = e->exports()->Get(x);
      out += "    export " + std::to_string(d->ordinal()) + " @" + Str(d->name()) +
             " workgroup_size " + WorkgroupSize(*d->workgroup_size()) + " layout " +
             Str(d->layout()) + "\n";
    }
    for (uint32_t k = 0; k < SizeOf(e->dispatch_sites()); ++k) {
      const s::DispatchSiteDescriptor* d = e->dispatch_sites()->Get(k);
      const std::string location = LocationAt(flat, d->function(), d->bytecode_offset());
      out += "    dispatch of @" + Str(e->exports()->Get(d->export_ordinal())->name()) +
             " in function " + std::to_string(d->function()) + " '" +
             Str(flat.functions()->Get(d->function())->name()) + "' at offset " +
             std::to_string(d->bytecode_offset()) +
             (location.empty() ? "" : " (" + location + ")") +
             (d->site_id() == kNoSiteId ? "" : ", site " + std::to_string(d->site_id())) + "\n";
    }
  }
}

void AppendExecutablesJson(const s::Module& flat, JsonWriter& json) {
  json.Key("executables");
  json.BeginArray();
  for (uint32_t i = 0; i < SizeOf(flat.executables()); ++i) {
    const s::ExecutableDescriptor* e = flat.executables()->Get(i);
    json.BeginObject();
    json.Key("name");
    json.String(Str(e->name()));
    json.Key("variants");
    json.BeginArray();
    for (uint32_t v = 0; v < SizeOf(e->variants()); ++v) {
      const s::ExecutableVariantDescriptor* variant = e->variants()->Get(v);
      json.BeginObject();
      json.Key("target");
      json.String(Str(variant->target()));
      json.Key("format");
      json.String(Str(variant->format()));
      json.Key("config");
      json.String(Str(variant->config()));
      json.Key("rodata");
      json.Uint(variant->rodata());
      json.Key("size");
      json.Uint(SizeOf(flat.rodata()->Get(variant->rodata())->data()));
      json.EndObject();
    }
    json.EndArray();
    json.Key("exports");
    json.BeginArray();
    for (uint32_t x = 0; x < SizeOf(e->exports()); ++x) {
      const s::ExecutableExportDescriptor* d = e->exports()->Get(x);
      json.BeginObject();
      json.Key("name");
      json.String(Str(d->name()));
      json.Key("ordinal");
      json.Uint(d->ordinal());
      json.Key("layout");
      json.String(Str(d->layout()));
      json.Key("workgroup_size");
      json.BeginArray();
      for (uint32_t c = 0; c < 3; ++c) json.Uint(d->workgroup_size()->Get(c));
      json.EndArray();
      json.EndObject();
    }
    json.EndArray();
    json.Key("dispatch_sites");
    json.BeginArray();
    for (uint32_t k = 0; k < SizeOf(e->dispatch_sites()); ++k) {
      const s::DispatchSiteDescriptor* d = e->dispatch_sites()->Get(k);
      json.BeginObject();
      json.Key("export");
      json.String(Str(e->exports()->Get(d->export_ordinal())->name()));
      json.Key("function");
      json.Uint(d->function());
      json.Key("function_name");
      json.String(Str(flat.functions()->Get(d->function())->name()));
      json.Key("offset");
      json.Uint(d->bytecode_offset());
      json.Key("location");
      json.String(LocationAt(flat, d->function(), d->bytecode_offset()));
      json.Key("site_id");  // null: the dispatch is not instrumented.
      if (d->site_id() == kNoSiteId) {
        json.Null();
      } else {
        json.Uint(d->site_id());
      }
      json.EndObject();
    }
    json.EndArray();
    json.EndObject();
  }
  json.EndArray();
}

constexpr std::string_view kBankNames[vm::kBankCount] = {"i32", "i64", "f32", "f64", "ref"};

std::array<uint32_t, vm::kBankCount> RegisterCounts(const s::Function& f) {
  return {f.i32_register_count(), f.i64_register_count(), f.f32_register_count(),
          f.f64_register_count(), f.ref_register_count()};
}

std::string InitializerName(const s::Module& flat) {
  if (flat.initializer() < 0) return "";
  return Str(flat.functions()->Get(static_cast<uint32_t>(flat.initializer()))->name());
}

void AppendPadded(std::string& out, std::string_view text, size_t width) {
  out += text;
  if (text.size() < width) out.append(width - text.size(), ' ');
}

}  // namespace

Result<std::string> DumpModuleText(const vm::BytecodeModule& module) {
  const s::Module& flat = module.flat();
  std::string out;
  auto line = [&out](const std::string& text) { out += text + "\n"; };

  line("module: " + std::string(module.name()));
  line("version: " + std::to_string(flat.version()));
  line("bytecode version: " + std::to_string(flat.bytecode_version_major()) + "." +
       std::to_string(flat.bytecode_version_minor()));

  line("imports: " + std::to_string(SizeOf(flat.imports())));
  for (uint32_t i = 0; i < SizeOf(flat.imports()); ++i) {
    const s::Import* import = flat.imports()->Get(i);
    line("  " + Str(import->name()) + " " + Signature(Str(import->signature())) +
         (import->optional() ? " optional" : ""));
  }

  line("exports: " + std::to_string(SizeOf(flat.exports())));
  for (uint32_t i = 0; i < SizeOf(flat.exports()); ++i) {
    const s::Export* e = flat.exports()->Get(i);
    const s::Function* f = flat.functions()->Get(e->function());
    line("  @" + Str(e->name()) + " -> function " + std::to_string(e->function()) + " '" +
         Str(f->name()) + "' " + Signature(Str(f->signature())));
    for (uint32_t k = 0; k < SizeOf(e->attributes()); ++k) {
      const s::Attribute* attribute = e->attributes()->Get(k);
      // The function's memory arena (--kiln-hal-plan-memory): the device
      // memory each context allocates once for its intermediate buffers.
      if (Str(attribute->key()) == "arena_size") {
        line("    arena: " + Str(attribute->value()) + " bytes");
        continue;
      }
      line("    attribute " + Str(attribute->key()) + " = " +
           vm::QuoteString(Str(attribute->value())));
    }
    for (uint32_t k = 0; k < SizeOf(e->argument_descriptions()); ++k) {
      line("    argument " + std::to_string(k) + ": " + e->argument_descriptions()->Get(k)->str());
    }
    for (uint32_t k = 0; k < SizeOf(e->result_descriptions()); ++k) {
      line("    result " + std::to_string(k) + ": " + e->result_descriptions()->Get(k)->str());
    }
  }

  std::string initializer = InitializerName(flat);
  line("globals: " + std::to_string(flat.global_bytes()) + " bytes, " +
       std::to_string(flat.global_refs()) + " refs, " +
       (flat.initializer() < 0 ? std::string("no initializer")
                               : "initializer function " + std::to_string(flat.initializer()) +
                                     " '" + initializer + "'"));

  for (uint32_t i = 0; i < SizeOf(flat.globals()); ++i) {
    const s::GlobalDescriptor* g = flat.globals()->Get(i);
    line("  @" + Str(g->name()) + " : " + Str(g->type()) +
         (g->is_ref() ? " at ref slot " + std::to_string(g->offset())
                      : " at byte " + std::to_string(g->offset()) + " (" +
                            std::to_string(g->size()) + " bytes)"));
  }

  line("rodata segments: " + std::to_string(SizeOf(flat.rodata())));
  for (uint32_t i = 0; i < SizeOf(flat.rodata()); ++i) {
    const s::RodataSegment* segment = flat.rodata()->Get(i);
    line("  [" + std::to_string(i) + "] " + vm::QuoteString(Str(segment->name())) + ": " +
         std::to_string(SizeOf(segment->data())) + " bytes, alignment " +
         std::to_string(segment->alignment()));
  }
  AppendExecutablesText(flat, out);
  line("ref types: " + std::to_string(SizeOf(flat.types())));
  for (uint32_t i = 0; i < SizeOf(flat.types()); ++i) line("  " + flat.types()->Get(i)->str());
  line("strings: " + std::to_string(SizeOf(flat.strings())));
  line("source files: " + std::to_string(SizeOf(flat.source_files())));
  for (uint32_t i = 0; i < SizeOf(flat.source_files()); ++i) {
    line("  " + flat.source_files()->Get(i)->str());
  }

  for (uint32_t i = 0; i < SizeOf(flat.functions()); ++i) {
    const s::Function* f = flat.functions()->Get(i);
    line("");
    line("function " + std::to_string(i) + " '" + Str(f->name()) + "' " +
         Signature(Str(f->signature())));
    const auto counts = RegisterCounts(*f);
    std::string registers = "  registers:";
    uint32_t slots = 0;
    for (int b = 0; b < vm::kBankCount; ++b) {
      registers += (b ? ", " : " ") + std::string(kBankNames[b]) + " " + std::to_string(counts[b]);
      slots += counts[b];
    }
    line(registers + " (" + std::to_string(slots) + " frame slots)");
    line("  bytecode: " + std::to_string(f->bytecode_length()) + " bytes at module offset " +
         std::to_string(f->bytecode_offset()));
    KILN_ASSIGN_OR_RETURN(std::vector<Line> lines, DisassembleWithLocations(flat, i));
    for (const Line& instruction : lines) {
      std::string text = std::to_string(instruction.instruction.offset);
      std::string row(text.size() < 8 ? 8 - text.size() : 0, ' ');
      row += text + "  ";
      if (instruction.location.empty()) {
        row += instruction.instruction.ToString();
      } else {
        AppendPadded(row, instruction.instruction.ToString(), 40);
        row += "  " + instruction.location;
      }
      line(row);
    }
  }
  return out;
}

Result<std::string> DumpModuleJson(const vm::BytecodeModule& module) {
  const s::Module& flat = module.flat();
  JsonWriter json;
  json.BeginObject();
  json.Key("name");
  json.String(module.name());
  json.Key("version");
  json.Uint(flat.version());
  json.Key("bytecode_version");
  json.String(std::to_string(flat.bytecode_version_major()) + "." +
              std::to_string(flat.bytecode_version_minor()));

  json.Key("imports");
  json.BeginArray();
  for (uint32_t i = 0; i < SizeOf(flat.imports()); ++i) {
    const s::Import* import = flat.imports()->Get(i);
    json.BeginObject();
    json.Key("name");
    json.String(Str(import->name()));
    json.Key("signature");
    json.String(Str(import->signature()));
    json.Key("optional");
    json.Bool(import->optional());
    json.EndObject();
  }
  json.EndArray();

  json.Key("exports");
  json.BeginArray();
  for (uint32_t i = 0; i < SizeOf(flat.exports()); ++i) {
    const s::Export* e = flat.exports()->Get(i);
    const s::Function* f = flat.functions()->Get(e->function());
    json.BeginObject();
    json.Key("name");
    json.String(Str(e->name()));
    json.Key("function");
    json.Uint(e->function());
    json.Key("function_name");
    json.String(Str(f->name()));
    json.Key("signature");
    json.String(Str(f->signature()));
    json.Key("attributes");
    json.BeginArray();  // An array of pairs: keeps order and repeated keys.
    for (uint32_t k = 0; k < SizeOf(e->attributes()); ++k) {
      const s::Attribute* attribute = e->attributes()->Get(k);
      json.BeginObject();
      json.Key("key");
      json.String(Str(attribute->key()));
      json.Key("value");
      json.String(Str(attribute->value()));
      json.EndObject();
    }
    json.EndArray();
    json.Key("argument_descriptions");
    json.BeginArray();
    for (uint32_t k = 0; k < SizeOf(e->argument_descriptions()); ++k) {
      json.String(e->argument_descriptions()->Get(k)->string_view());
    }
    json.EndArray();
    json.Key("result_descriptions");
    json.BeginArray();
    for (uint32_t k = 0; k < SizeOf(e->result_descriptions()); ++k) {
      json.String(e->result_descriptions()->Get(k)->string_view());
    }
    json.EndArray();
    json.EndObject();
  }
  json.EndArray();

  json.Key("globals");
  json.BeginObject();
  json.Key("bytes");
  json.Uint(flat.global_bytes());
  json.Key("refs");
  json.Uint(flat.global_refs());
  json.Key("initializer");
  if (flat.initializer() < 0) {
    json.Null();
  } else {
    json.String(InitializerName(flat));
  }
  json.Key("named");
  json.BeginArray();
  for (uint32_t i = 0; i < SizeOf(flat.globals()); ++i) {
    const s::GlobalDescriptor* g = flat.globals()->Get(i);
    json.BeginObject();
    json.Key("name");
    json.String(Str(g->name()));
    json.Key("type");
    json.String(Str(g->type()));
    json.Key(g->is_ref() ? "ref_slot" : "offset");
    json.Uint(g->offset());
    json.Key("size");
    json.Uint(g->size());
    json.EndObject();
  }
  json.EndArray();
  json.EndObject();

  json.Key("rodata");
  json.BeginArray();
  for (uint32_t i = 0; i < SizeOf(flat.rodata()); ++i) {
    const s::RodataSegment* segment = flat.rodata()->Get(i);
    json.BeginObject();
    json.Key("name");
    json.String(Str(segment->name()));
    json.Key("size");
    json.Uint(SizeOf(segment->data()));
    json.Key("alignment");
    json.Uint(segment->alignment());
    json.EndObject();
  }
  json.EndArray();

  AppendExecutablesJson(flat, json);

  json.Key("types");
  json.BeginArray();
  for (uint32_t i = 0; i < SizeOf(flat.types()); ++i) json.String(flat.types()->Get(i)->str());
  json.EndArray();
  json.Key("strings");
  json.Uint(SizeOf(flat.strings()));
  json.Key("source_files");
  json.BeginArray();
  for (uint32_t i = 0; i < SizeOf(flat.source_files()); ++i) {
    json.String(flat.source_files()->Get(i)->str());
  }
  json.EndArray();

  json.Key("functions");
  json.BeginArray();
  for (uint32_t i = 0; i < SizeOf(flat.functions()); ++i) {
    const s::Function* f = flat.functions()->Get(i);
    json.BeginObject();
    json.Key("name");
    json.String(Str(f->name()));
    json.Key("signature");
    json.String(Str(f->signature()));
    json.Key("registers");
    json.BeginObject();
    const auto counts = RegisterCounts(*f);
    uint32_t slots = 0;
    for (int b = 0; b < vm::kBankCount; ++b) {
      json.Key(kBankNames[b]);
      json.Uint(counts[b]);
      slots += counts[b];
    }
    json.EndObject();
    json.Key("frame_slots");
    json.Uint(slots);
    json.Key("bytecode_offset");
    json.Uint(f->bytecode_offset());
    json.Key("bytecode_size");
    json.Uint(f->bytecode_length());
    json.Key("instructions");
    json.BeginArray();
    KILN_ASSIGN_OR_RETURN(std::vector<Line> lines, DisassembleWithLocations(flat, i));
    for (const Line& line : lines) {
      json.BeginObject();
      json.Key("offset");
      json.Uint(line.instruction.offset);
      json.Key("mnemonic");
      json.String(line.instruction.mnemonic);
      json.Key("operands");
      json.BeginArray();
      for (const auto& operand : line.instruction.operands) json.String(operand.text);
      json.EndArray();
      json.Key("text");
      json.String(line.instruction.ToString());
      if (!line.location.empty()) {
        json.Key("location");
        json.String(line.location);
      }
      json.EndObject();
    }
    json.EndArray();
    json.EndObject();
  }
  json.EndArray();
  json.EndObject();
  return json.str();
}

}  // namespace kiln::tools
