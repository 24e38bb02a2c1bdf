#include "tools/common/instrument_file.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "base/file_io.h"
#include "hal/transfer.h"
#include "schemas/instruments_generated.h"
#include "schemas/module_generated.h"

namespace kiln::tools {
namespace {

namespace fb = kiln::schema::instruments;

// DispatchSiteDescriptor.site_id of a dispatch that is not instrumented.
constexpr uint32_t kNoSiteId = 0xFFFFFFFFu;

std::string Str(const flatbuffers::String* text) { return text ? text->str() : std::string(); }

}  // namespace

std::string InstrumentClockUnit(std::string_view driver) {
  return driver.starts_with("vulkan") ? "ticks" : "ns";
}

std::vector<InstrumentSite> CollectInstrumentSites(const vm::BytecodeModule& module) {
  std::vector<InstrumentSite> sites;
  const auto* executables = module.flat().executables();
  if (executables == nullptr) return sites;
  for (const auto* executable : *executables) {
    if (!executable->dispatch_sites()) continue;
    std::map<uint32_t, std::string> exports;  // By ordinal.
    if (executable->exports()) {
      for (const auto* e : *executable->exports()) exports[e->ordinal()] = Str(e->name());
    }
    for (const auto* descriptor : *executable->dispatch_sites()) {
      if (descriptor->site_id() == kNoSiteId) continue;
      InstrumentSite site;
      site.site_id = descriptor->site_id();
      site.module = std::string(module.name());
      site.executable = Str(executable->name());
      if (auto it = exports.find(descriptor->export_ordinal()); it != exports.end()) {
        site.export_name = it->second;
      }
      // The loader verified the functions; the debug table is trusted only
      // as far as it indexes them.
      if (descriptor->function() < module.functions().size()) {
        site.function = module.function(descriptor->function()).name;
        site.location =
            module.SourceLocation(descriptor->function(), descriptor->bytecode_offset());
      }
      sites.push_back(std::move(site));
    }
  }
  std::stable_sort(
      sites.begin(), sites.end(),
      [](const InstrumentSite& a, const InstrumentSite& b) { return a.site_id < b.site_id; });
  return sites;
}

Result<std::vector<InstrumentRingBytes>> ReadInstrumentRings(
    const hal::InstrumentationRings& rings) {
  std::vector<InstrumentRingBytes> result;
  for (const hal::InstrumentationRing& ring : rings.rings()) {
    InstrumentRingBytes bytes;
    bytes.device = ring.device->properties().uri;
    bytes.data.resize(ring.byte_length);
    KILN_RETURN_IF_ERROR(hal::ReadBuffer(*ring.device, ring.buffer, bytes.data,
                                         "the instrumentation ring of " + bytes.device));
    // Checked here so that a broken ring is reported by the run that made
    // it, not later by the reader of the file.
    KILN_RETURN_IF_ERROR(hal::ParseInstrumentRing(bytes.data).status());
    result.push_back(std::move(bytes));
  }
  return result;
}

std::vector<uint8_t> SerializeInstrumentFile(const InstrumentFileContents& contents) {
  flatbuffers::FlatBufferBuilder builder;
  std::vector<flatbuffers::Offset<fb::Site>> sites;
  for (const InstrumentSite& site : contents.sites) {
    sites.push_back(fb::CreateSiteDirect(builder, site.site_id, site.module.c_str(),
                                         site.executable.c_str(), site.export_name.c_str(),
                                         site.function.c_str(), site.location.c_str()));
  }
  std::vector<flatbuffers::Offset<fb::Ring>> rings;
  for (const InstrumentRingBytes& ring : contents.rings) {
    rings.push_back(fb::CreateRingDirect(builder, ring.device.c_str(), &ring.data));
  }
  builder.Finish(fb::CreateInstrumentFileDirect(builder, contents.tool.c_str(),
                                                contents.driver.c_str(), contents.device.c_str(),
                                                contents.clock.c_str(), &sites, &rings),
                 fb::InstrumentFileIdentifier());
  return std::vector<uint8_t>(builder.GetBufferPointer(),
                              builder.GetBufferPointer() + builder.GetSize());
}

Result<InstrumentFileContents> ParseInstrumentFile(std::span<const uint8_t> bytes,
                                                   std::string_view name) {
  const std::string what = "'" + std::string(name) + "'";
  // Identifier first: a file of another kind (a .kmod given by mistake) is
  // named as such rather than called corrupt.
  if (bytes.size() < 8) {
    return InvalidArgumentError(what + " is not an instrument file: it is " +
                                std::to_string(bytes.size()) + " bytes long");
  }
  if (!fb::InstrumentFileBufferHasIdentifier(bytes.data())) {
    return InvalidArgumentError(what + " is not an instrument file: its identifier is '" +
                                std::string(reinterpret_cast<const char*>(bytes.data()) + 4, 4) +
                                "', expected 'KINS'");
  }
  flatbuffers::Verifier verifier(bytes.data(), bytes.size());
  if (!fb::VerifyInstrumentFileBuffer(verifier)) {
    return InvalidArgumentError(what +
                                " is corrupt: FlatBuffer verification failed (truncated or "
                                "malformed instrument file)");
  }
  const fb::InstrumentFile& file = *fb::GetInstrumentFile(bytes.data());
  InstrumentFileContents contents;
  contents.tool = Str(file.tool());
  contents.driver = Str(file.driver());
  contents.device = Str(file.device());
  contents.clock = Str(file.clock());
  if (file.sites()) {
    for (const fb::Site* site : *file.sites()) {
      contents.sites.push_back({.site_id = site->site_id(),
                                .module = Str(site->module_()),
                                .executable = Str(site->executable()),
                                .export_name = Str(site->export_()),
                                .function = Str(site->function()),
                                .location = Str(site->location())});
    }
  }
  if (file.rings()) {
    for (const fb::Ring* ring : *file.rings()) {
      InstrumentRingBytes bytes;
      bytes.device = Str(ring->device());
      if (ring->data()) bytes.data.assign(ring->data()->begin(), ring->data()->end());
      contents.rings.push_back(std::move(bytes));
    }
  }
  return contents;
}

Status WriteInstrumentFile(const std::string& path, const InstrumentFileContents& contents) {
  return WriteFile(path, SerializeInstrumentFile(contents));
}

Result<InstrumentFileContents> ReadInstrumentFile(const std::string& path) {
  KILN_ASSIGN_OR_RETURN(AlignedBuffer bytes, ReadFile(path));
  return ParseInstrumentFile(bytes.span(), path);
}

void InstrumentRecorder::AddModule(const vm::BytecodeModule& module) {
  for (InstrumentSite& site : CollectInstrumentSites(module)) sites_.push_back(std::move(site));
}

Status InstrumentRecorder::Write(const std::string& path, std::string_view tool,
                                 const hal::Device& device) const {
  InstrumentFileContents contents;
  contents.tool = std::string(tool);
  contents.driver = device.properties().driver;
  contents.device = device.properties().uri;
  contents.clock = InstrumentClockUnit(contents.driver);
  contents.sites = sites_;
  KILN_ASSIGN_OR_RETURN(contents.rings, ReadInstrumentRings(*rings_));
  if (contents.rings.empty()) {
    // Not an error: the file says so too, but a user who expected records
    // learns why there are none before reading it.
    std::fprintf(stderr,
                 "warning: --instrument_file: the program made no instrumentation ring (no "
                 "instrumented dispatches; compile it with kiln-compile "
                 "--instrument-dispatches): '%s' has no rings\n",
                 path.c_str());
  }
  Status written = WriteInstrumentFile(path, contents);
  if (!written.ok()) return Status(written.code(), "--instrument_file: " + written.message());
  return OkStatus();
}

}  // namespace kiln::tools
