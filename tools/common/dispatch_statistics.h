// Dispatch statistics: which dispatches took the most device time, from the
// device spans of a trace (kiln-benchmark-module and kiln-run-module
// --print_statistics).
//
//   Dispatches by device time (3 dispatch names, 2400 calls, 12.345 ms on the device):
//        total ms  calls    mean us   share  dispatch
//           9.876   1200      8.230   80.0%  dispatch @d1::@d1  (m.mlir:9:5)
//           ...
//
// Spans of one name are summed over every call and queue; the `detail` of
// the first span of a name (its dispatch sites) is printed after it.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "hal/trace.h"

namespace kiln::tools {

struct DispatchStatistic {
  std::string name;    // "dispatch @ex::@f".
  std::string detail;  // Its dispatch sites, when known.
  uint64_t calls = 0;
  int64_t total_ns = 0;
};

// One entry per dispatch name among the trace's device spans, by total time
// (largest first; ties by name).
std::vector<DispatchStatistic> CollectDispatchStatistics(const hal::Trace& trace);

// The table above, with the first `top` entries; "No dispatches were
// traced.\n" when there are none.
std::string FormatDispatchStatistics(std::span<const DispatchStatistic> statistics,
                                     size_t top = 10);

// The table of the trace's device spans (what --print_statistics prints),
// with a last line saying how many spans the trace dropped past
// hal::Trace::kMaxSpans when it did: the figures then cover the first ones.
std::string FormatTraceStatistics(const hal::Trace& trace, size_t top = 10);

}  // namespace kiln::tools
