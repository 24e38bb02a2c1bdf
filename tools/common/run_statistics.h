// Run statistics: the memory and host-time figures that --print_statistics
// prints after the dispatch table (dispatch_statistics.h), as
// iree-run-module's --print_statistics prints its allocator's statistics.
//
//   Memory of cpu's allocator (bytes):
//                     peak       allocated           freed            live
//     host             192             384             384               0
//     device             0               0               0               0
//   Host time:
//     load             0.412 ms
//     initialize       0.051 ms
//     call @mul        0.020 ms
//
// Memory is counted by the device's allocator (hal/allocator_statistics.h):
// every buffer it allocated over the run, freed and peak; "live" is what is
// still allocated when the figures are read (kiln-run-module reads them
// after releasing the program, so anything live then was kept past it).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "hal/allocator_statistics.h"

namespace kiln::tools {

// The memory table above, for the allocator of the device named `device`.
std::string FormatMemoryStatistics(const hal::AllocatorStatistics& statistics,
                                   std::string_view device);

// One phase of a run and the host time it took.
struct PhaseTime {
  std::string name;  // "load", "initialize", "call @f".
  int64_t nanoseconds = 0;
};

// The "Host time:" table above, phases in the order given.
std::string FormatPhaseTimes(std::span<const PhaseTime> phases);

}  // namespace kiln::tools
