#include "tools/common/run_statistics.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

namespace kiln::tools {
namespace {

std::string PoolRow(std::string_view name, const hal::PoolStatistics& pool) {
  char line[128];
  std::snprintf(line, sizeof(line),
                "  %-8.*s %15" PRIu64 " %15" PRIu64 " %15" PRIu64 " %15" PRIu64 "\n",
                static_cast<int>(name.size()), name.data(), pool.peak_bytes, pool.allocated_bytes,
                pool.freed_bytes, pool.live_bytes());
  return line;
}

}  // namespace

std::string FormatMemoryStatistics(const hal::AllocatorStatistics& statistics,
                                   std::string_view device) {
  std::string text = "Memory of " + std::string(device) + "'s allocator (bytes):\n";
  char header[128];
  std::snprintf(header, sizeof(header), "  %-8s %15s %15s %15s %15s\n", "", "peak", "allocated",
                "freed", "live");
  text += header;
  text += PoolRow("host", statistics.host);
  text += PoolRow("device", statistics.device);
  return text;
}

std::string FormatPhaseTimes(std::span<const PhaseTime> phases) {
  // Names in one column as wide as the longest ("call @a_long_function").
  size_t width = 12;
  for (const PhaseTime& phase : phases) width = std::max(width, phase.name.size() + 2);
  std::string text = "Host time:\n";
  for (const PhaseTime& phase : phases) {
    char figure[64];
    std::snprintf(figure, sizeof(figure), "%10.3f ms\n",
                  static_cast<double>(phase.nanoseconds) / 1e6);
    std::string name = phase.name;
    name.resize(width, ' ');
    text += "  " + name + figure;
  }
  return text;
}

}  // namespace kiln::tools
