// Instrument statistics: what kiln-dump-instruments prints of an instrument
// file (instrument_file.h), per dispatch site, from the records its rings
// kept.
//
//   Instrumented dispatches (clock ns; 3 sites, 9 workgroups in 4 calls; lower bounds: ...):
//       site    calls  workgroups     total us      mean us       max us      span us  dispatch
//          0        2           4        8.000        2.000        4.000       13.000  @ex0::@mul
//          (@main, prog.mlir:5:3)
//          ...
//   Dropped records: 3 (the oldest, overwritten when a ring wrapped; ...)
//
// A record is one workgroup of one dispatch (hal/cpu/kernel_abi.h); a call
// is one dispatch, counted by its workgroup (0,0,0), which every dispatch
// has. A workgroup's time is end - start in the file's clock (printed in us
// for "ns" clocks, as raw ticks otherwise); the span runs from the site's
// first start to its last end, so it covers the gaps between calls. Sites
// come by total time, largest first. Counts are singular for one ("1
// site, 1 workgroup in 1 call"). Records are those the rings kept: a ring
// that wrapped dropped its oldest (`dropped`), and the figures then cover
// the rest, so they are lower bounds (a call whose workgroup (0,0,0) was
// dropped is not counted, a site whose records all were is not listed):
// the header line says so and the "Dropped records" line below the table
// says how many.
//
// The Chrome trace (FormatInstrumentChromeTrace) has one complete event per
// record, on one track per site and one process per ring, its times in us
// from the earliest start of all records (a "ticks" clock is shown as if
// its ticks were ns).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "tools/common/instrument_file.h"

namespace kiln::tools {

struct InstrumentSiteStatistic {
  uint32_t site_id = 0;
  uint64_t calls = 0;       // Records with workgroup id (0,0,0).
  uint64_t workgroups = 0;  // Records.
  uint64_t total = 0;       // Sum of end - start, in clock units.
  uint64_t max = 0;         // The longest workgroup.
  uint64_t first_start = 0;
  uint64_t last_end = 0;
  // The site's entry in the file's site table; nullopt when it has none.
  std::optional<InstrumentSite> site;

  double mean() const { return workgroups ? static_cast<double>(total) / workgroups : 0.0; }
  uint64_t span() const { return last_end > first_start ? last_end - first_start : 0; }
};

struct InstrumentStatistics {
  std::string clock;                           // The file's clock unit.
  std::vector<InstrumentSiteStatistic> sites;  // By total, largest first; ties by site id.
  uint64_t records = 0;                        // Records kept in all rings.
  uint64_t dropped = 0;                        // Records overwritten in all rings.
  size_t rings = 0;
};

// The statistics of a file's records; DATA_LOSS when a ring's bytes are not
// a ring's (hal::ParseInstrumentRing), naming the ring.
Result<InstrumentStatistics> ComputeInstrumentStatistics(const InstrumentFileContents& contents);

// The table above (kiln-dump-instruments' text output).
std::string FormatInstrumentStatistics(const InstrumentStatistics& statistics);

// The same as JSON (--output=json): times in the clock's units.
std::string FormatInstrumentStatisticsJson(const InstrumentFileContents& contents,
                                           const InstrumentStatistics& statistics);

// The records as a Chrome trace (--chrome_trace=OUT.json); errors as
// ComputeInstrumentStatistics'.
Result<std::string> FormatInstrumentChromeTrace(const InstrumentFileContents& contents);

}  // namespace kiln::tools
