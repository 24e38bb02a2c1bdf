#include "tools/common/dispatch_statistics.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace kiln::tools {

std::vector<DispatchStatistic> CollectDispatchStatistics(const hal::Trace& trace) {
  std::map<std::string, DispatchStatistic> by_name;
  for (const hal::Trace::Span& span : trace.Spans()) {
    if (span.category != "device" || !span.name.starts_with("dispatch ")) continue;
    DispatchStatistic& entry = by_name[span.name];
    if (entry.calls == 0) {
      entry.name = span.name;
      entry.detail = span.detail;
    }
    ++entry.calls;
    entry.total_ns += span.duration_ns;
  }
  std::vector<DispatchStatistic> result;
  result.reserve(by_name.size());
  for (auto& [name, entry] : by_name) result.push_back(std::move(entry));
  std::stable_sort(result.begin(), result.end(),
                   [](const DispatchStatistic& a, const DispatchStatistic& b) {
                     return a.total_ns > b.total_ns;
                   });
  return result;
}

std::string FormatDispatchStatistics(std::span<const DispatchStatistic> statistics, size_t top) {
  if (statistics.empty()) return "No dispatches were traced.\n";
  int64_t total_ns = 0;
  uint64_t calls = 0;
  for (const DispatchStatistic& s : statistics) {
    total_ns += s.total_ns;
    calls += s.calls;
  }
  char line[160];
  std::snprintf(
      line, sizeof(line),
      "Dispatches by device time (%zu dispatch names, %llu calls, %.3f ms on the device):\n",
      statistics.size(), static_cast<unsigned long long>(calls),
      static_cast<double>(total_ns) / 1e6);
  std::string out = line;
  out += "      total ms      calls      mean us    share  dispatch\n";
  for (size_t i = 0; i < statistics.size() && i < top; ++i) {
    const DispatchStatistic& s = statistics[i];
    const double share = total_ns > 0 ? 100.0 * static_cast<double>(s.total_ns) / total_ns : 0.0;
    std::snprintf(line, sizeof(line), "  %12.3f %10llu %12.3f %7.1f%%  ",
                  static_cast<double>(s.total_ns) / 1e6, static_cast<unsigned long long>(s.calls),
                  static_cast<double>(s.total_ns) / 1e3 / static_cast<double>(s.calls), share);
    out += line + s.name;
    if (!s.detail.empty()) out += "  (" + s.detail + ")";
    out += "\n";
  }
  if (statistics.size() > top) {
    out += "  ... and " + std::to_string(statistics.size() - top) + " more\n";
  }
  return out;
}

std::string FormatTraceStatistics(const hal::Trace& trace, size_t top) {
  std::string out = FormatDispatchStatistics(CollectDispatchStatistics(trace), top);
  if (const size_t dropped = trace.DroppedSpans(); dropped != 0) {
    out += "  (" + std::to_string(dropped) + " spans past the trace's limit of " +
           std::to_string(hal::Trace::kMaxSpans) + " were dropped: these figures cover the first)\n";
  }
  return out;
}

}  // namespace kiln::tools
