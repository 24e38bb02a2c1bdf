// WriteTraceFile: a hal::Trace as a Chrome trace (the JSON object format of
// the Trace Event Format), which Perfetto (ui.perfetto.dev) and
// chrome://tracing open, for the tools' --trace=FILE.json:
//
//   {"displayTimeUnit": "ns",
//    "traceEvents": [
//      {"name": "process_name", "ph": "M", "pid": 1, "args": {"name": "kiln-run-module"}},
//      {"name": "thread_name", "ph": "M", "pid": 1, "tid": 1, "args": {"name": "host thread 1"}},
//      {"name": "call @main", "cat": "host", "ph": "X", "pid": 1, "tid": 1,
//       "ts": 1520.125, "dur": 88.5, "args": {"detail": "..."}},
//      ...]}
//
// Every span is a complete event ("ph": "X"); times are microseconds since
// the trace began, with nanosecond decimals. Host spans sit on the track of
// their thread, device spans on their device queue's track, each named by a
// metadata event.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "hal/trace.h"
#include "tools/common/json_writer.h"

namespace kiln::tools {

// The trace as Chrome trace JSON; `process` names the process track.
std::string FormatChromeTrace(const hal::Trace& trace, std::string_view process);

// One metadata event ("ph": "M") of kind `kind` ("process_name",
// "thread_name") giving process `pid`, or its track `track` when not null,
// the name `name`: what Chrome traces name their tracks with (kiln's
// --trace files and kiln-dump-instruments --chrome_trace).
void WriteChromeMetadata(JsonWriter& json, std::string_view kind, int64_t pid,
                         const uint64_t* track, std::string_view name);

// Writes FormatChromeTrace to `path`; the error names the file.
Status WriteTraceFile(const hal::Trace& trace, std::string_view process, const std::string& path);

}  // namespace kiln::tools
