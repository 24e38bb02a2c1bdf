#include "tools/common/trace_file.h"

#include <cstdint>
#include <set>
#include <span>

#include "base/file_io.h"
#include "tools/common/json_writer.h"

namespace kiln::tools {
namespace {

constexpr int kProcessId = 1;

// Chrome traces count in microseconds; a span keeps its nanoseconds as
// decimals.
double Microseconds(int64_t nanoseconds) { return static_cast<double>(nanoseconds) / 1000.0; }

std::string TrackName(uint64_t track) {
  if (track >= hal::Trace::kFirstDeviceTrack) {
    return "device queue " + std::to_string(track - hal::Trace::kFirstDeviceTrack);
  }
  return "host thread " + std::to_string(track);
}

}  // namespace

void WriteChromeMetadata(JsonWriter& json, std::string_view kind, int64_t pid,
                         const uint64_t* track, std::string_view name) {
  json.BeginObject();
  json.Key("name");
  json.String(kind);
  json.Key("ph");
  json.String("M");
  json.Key("pid");
  json.Int(pid);
  if (track) {
    json.Key("tid");
    json.Uint(*track);
  }
  json.Key("args");
  json.BeginObject();
  json.Key("name");
  json.String(name);
  json.EndObject();
  json.EndObject();
}

std::string FormatChromeTrace(const hal::Trace& trace, std::string_view process) {
  const std::vector<hal::Trace::Span> spans = trace.Spans();
  JsonWriter json;
  json.BeginObject();
  json.Key("displayTimeUnit");
  json.String("ns");
  json.Key("traceEvents");
  json.BeginArray();
  WriteChromeMetadata(json, "process_name", kProcessId, nullptr, process);
  std::set<uint64_t> tracks;
  for (const hal::Trace::Span& span : spans) tracks.insert(span.track);
  for (uint64_t track : tracks)
    WriteChromeMetadata(json, "thread_name", kProcessId, &track, TrackName(track));
  for (const hal::Trace::Span& span : spans) {
    json.BeginObject();
    json.Key("name");
    json.String(span.name);
    json.Key("cat");
    json.String(span.category);
    json.Key("ph");
    json.String("X");
    json.Key("pid");
    json.Int(kProcessId);
    json.Key("tid");
    json.Uint(span.track);
    json.Key("ts");
    json.Double(Microseconds(span.start_ns));
    json.Key("dur");
    json.Double(Microseconds(span.duration_ns));
    if (!span.detail.empty()) {
      json.Key("args");
      json.BeginObject();
      json.Key("detail");
      json.String(span.detail);
      json.EndObject();
    }
    json.EndObject();
  }
  json.EndArray();
  if (const size_t dropped = trace.DroppedSpans(); dropped != 0) {
    // Not part of the format: viewers ignore it, a reader learns the trace is partial.
    json.Key("kilnDroppedSpans");
    json.Uint(dropped);
  }
  json.EndObject();
  return json.str();
}

Status WriteTraceFile(const hal::Trace& trace, std::string_view process, const std::string& path) {
  const std::string text = FormatChromeTrace(trace, process);
  Status status =
      WriteFile(path, std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
  if (!status.ok()) {
    return Status(status.code(), "--trace: " + status.message());
  }
  return OkStatus();
}

}  // namespace kiln::tools
