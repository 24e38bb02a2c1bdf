#include "tools/common/instrument_statistics.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <limits>
#include <map>
#include <set>

#include "hal/instrumentation.h"
#include "tools/common/json_writer.h"
#include "tools/common/trace_file.h"

namespace kiln::tools {
namespace {

// A record's workgroup time. A clock read that went backwards (a device
// clock that is not monotonic across cores) counts as zero, not as 2^64.
uint64_t Duration(const kiln_hal_instrument_record_t& record) {
  return record.end >= record.start ? record.end - record.start : 0;
}

bool IsFirstWorkgroup(const kiln_hal_instrument_record_t& record) {
  return record.workgroup_id[0] == 0 && record.workgroup_id[1] == 0 && record.workgroup_id[2] == 0;
}

// Every ring of the file, parsed; the error names the ring.
Result<std::vector<hal::RingContents>> ParseRings(const InstrumentFileContents& contents) {
  std::vector<hal::RingContents> rings;
  for (size_t i = 0; i < contents.rings.size(); ++i) {
    Result<hal::RingContents> ring = hal::ParseInstrumentRing(contents.rings[i].data);
    if (!ring.ok()) {
      return ring.status().WithContext("ring " + std::to_string(i) + " (" +
                                       contents.rings[i].device + ")");
    }
    rings.push_back(std::move(*ring));
  }
  return rings;
}

// "@ex::@export", or "site N" for an id the site table does not have.
std::string SiteName(uint32_t site_id, const std::optional<InstrumentSite>& site) {
  if (!site) return "site " + std::to_string(site_id);
  return "@" + site->executable + "::@" + site->export_name;
}

// The site table by id; the first entry of an id wins (ids are unique per
// module, so a repeat comes from a second instrumented module).
std::map<uint32_t, const InstrumentSite*> SitesById(const InstrumentFileContents& contents) {
  std::map<uint32_t, const InstrumentSite*> sites;
  for (const InstrumentSite& site : contents.sites) sites.emplace(site.site_id, &site);
  return sites;
}

// "1 call", "2 calls": `count` and `noun`, plural unless it is 1.
std::string Count(uint64_t count, const char* noun) {
  return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

// A time in the clock's unit as the table prints it: us with ns decimals
// for an "ns" clock, whole ticks otherwise.
std::string FormatTime(double value, bool ns_clock) {
  char text[64];
  if (ns_clock) {
    std::snprintf(text, sizeof(text), "%.3f", value / 1000.0);
  } else {
    std::snprintf(text, sizeof(text), "%.0f", value);
  }
  return text;
}

}  // namespace

Result<InstrumentStatistics> ComputeInstrumentStatistics(const InstrumentFileContents& contents) {
  KILN_ASSIGN_OR_RETURN(std::vector<hal::RingContents> rings, ParseRings(contents));
  const std::map<uint32_t, const InstrumentSite*> table = SitesById(contents);
  InstrumentStatistics statistics;
  statistics.clock = contents.clock;
  statistics.rings = rings.size();
  std::map<uint32_t, InstrumentSiteStatistic> by_site;
  for (const hal::RingContents& ring : rings) {
    statistics.dropped += ring.dropped;
    statistics.records += ring.records.size();
    for (const kiln_hal_instrument_record_t& record : ring.records) {
      auto [it, inserted] = by_site.try_emplace(record.site_id);
      InstrumentSiteStatistic& entry = it->second;
      if (inserted) {
        entry.site_id = record.site_id;
        entry.first_start = record.start;
        entry.last_end = record.end;
        if (auto site = table.find(record.site_id); site != table.end()) {
          entry.site = *site->second;
        }
      }
      const uint64_t duration = Duration(record);
      ++entry.workgroups;
      if (IsFirstWorkgroup(record)) ++entry.calls;
      entry.total += duration;
      entry.max = std::max(entry.max, duration);
      entry.first_start = std::min(entry.first_start, record.start);
      entry.last_end = std::max(entry.last_end, record.end);
    }
  }
  for (auto& [id, entry] : by_site) statistics.sites.push_back(std::move(entry));
  // by_site is ordered by id, so a stable sort leaves ties by id.
  std::stable_sort(statistics.sites.begin(), statistics.sites.end(),
                   [](const InstrumentSiteStatistic& a, const InstrumentSiteStatistic& b) {
                     return a.total > b.total;
                   });
  return statistics;
}

std::string FormatInstrumentStatistics(const InstrumentStatistics& statistics) {
  if (statistics.rings == 0) {
    return "No instrumented dispatches: the file has no rings (the program made no "
           "instrumentation ring).\n";
  }
  std::string out;
  if (statistics.sites.empty()) {
    out =
        "No instrumented dispatch was recorded (" + Count(statistics.rings, "ring") + ", empty).\n";
  } else {
    const bool ns_clock = statistics.clock == "ns";
    const char* unit = ns_clock ? "us" : "ticks";
    uint64_t calls = 0;
    for (const InstrumentSiteStatistic& s : statistics.sites) calls += s.calls;
    out += "Instrumented dispatches (clock " + statistics.clock + "; " +
           Count(statistics.sites.size(), "site") + ", " + Count(statistics.records, "workgroup") +
           " in " + Count(calls, "call");
    // What a wrapped ring overwrote is not counted: not its workgroups, nor
    // a call whose workgroup (0,0,0) it held, nor a site it held entirely.
    if (statistics.dropped != 0) out += "; lower bounds: records were dropped";
    out += "):\n";
    char line[256];
    const std::string total = std::string("total ") + unit, mean = std::string("mean ") + unit,
                      max = std::string("max ") + unit, span = std::string("span ") + unit;
    std::snprintf(line, sizeof(line), "  %6s %8s %11s %12s %12s %12s %12s  %s\n", "site", "calls",
                  "workgroups", total.c_str(), mean.c_str(), max.c_str(), span.c_str(), "dispatch");
    out += line;
    for (const InstrumentSiteStatistic& s : statistics.sites) {
      std::snprintf(line, sizeof(line), "  %6" PRIu32 " %8" PRIu64 " %11" PRIu64 " %12s", s.site_id,
                    s.calls, s.workgroups,
                    FormatTime(static_cast<double>(s.total), ns_clock).c_str());
      out += line;
      // A tick clock's mean keeps one decimal: whole ticks would hide small means.
      std::string mean_text = ns_clock ? FormatTime(s.mean(), true) : [&] {
        char text[64];
        std::snprintf(text, sizeof(text), "%.1f", s.mean());
        return std::string(text);
      }();
      std::snprintf(line, sizeof(line), " %12s %12s %12s  ", mean_text.c_str(),
                    FormatTime(static_cast<double>(s.max), ns_clock).c_str(),
                    FormatTime(static_cast<double>(s.span()), ns_clock).c_str());
      out += line;
      out += SiteName(s.site_id, s.site);
      if (!s.site) {
        out += " (not in the file's site table)";
      } else if (!s.site->location.empty()) {
        out += " (@" + s.site->function + ", " + s.site->location + ")";
      } else if (!s.site->function.empty()) {
        out += " (@" + s.site->function + ")";
      }
      out += "\n";
    }
  }
  if (statistics.dropped != 0) {
    out += "Dropped records: " + std::to_string(statistics.dropped) +
           " (the oldest, overwritten when a ring wrapped; the figures cover the " +
           std::to_string(statistics.records) +
           " kept, so they are lower bounds: a call counts only if its workgroup (0,0,0) was "
           "kept; a larger kiln-compile --instrument-dispatches=SIZE keeps more)\n";
  }
  return out;
}

std::string FormatInstrumentStatisticsJson(const InstrumentFileContents& contents,
                                           const InstrumentStatistics& statistics) {
  JsonWriter json;
  json.BeginObject();
  json.Key("tool");
  json.String(contents.tool);
  json.Key("driver");
  json.String(contents.driver);
  json.Key("device");
  json.String(contents.device);
  json.Key("clock");
  json.String(contents.clock);
  json.Key("rings");
  json.Uint(statistics.rings);
  json.Key("records");
  json.Uint(statistics.records);
  json.Key("dropped");
  json.Uint(statistics.dropped);
  json.Key("sites");
  json.BeginArray();
  for (const InstrumentSiteStatistic& s : statistics.sites) {
    json.BeginObject();
    json.Key("site_id");
    json.Uint(s.site_id);
    if (s.site) {
      json.Key("module");
      json.String(s.site->module);
      json.Key("executable");
      json.String(s.site->executable);
      json.Key("export");
      json.String(s.site->export_name);
      json.Key("function");
      json.String(s.site->function);
      json.Key("location");
      json.String(s.site->location);
    }
    json.Key("calls");
    json.Uint(s.calls);
    json.Key("workgroups");
    json.Uint(s.workgroups);
    json.Key("total");
    json.Uint(s.total);
    json.Key("mean");
    json.Double(s.mean());
    json.Key("max");
    json.Uint(s.max);
    json.Key("first_start");
    json.Uint(s.first_start);
    json.Key("last_end");
    json.Uint(s.last_end);
    json.Key("span");
    json.Uint(s.span());
    json.EndObject();
  }
  json.EndArray();
  json.EndObject();
  return json.str();
}

Result<std::string> FormatInstrumentChromeTrace(const InstrumentFileContents& contents) {
  KILN_ASSIGN_OR_RETURN(std::vector<hal::RingContents> rings, ParseRings(contents));
  const std::map<uint32_t, const InstrumentSite*> table = SitesById(contents);
  auto site_of = [&](uint32_t id) -> std::optional<InstrumentSite> {
    auto it = table.find(id);
    if (it == table.end()) return std::nullopt;
    return *it->second;
  };
  uint64_t earliest = std::numeric_limits<uint64_t>::max();
  for (const hal::RingContents& ring : rings) {
    for (const kiln_hal_instrument_record_t& record : ring.records) {
      earliest = std::min(earliest, record.start);
    }
  }
  // Chrome traces count in us; a clock in ns (or ticks, shown as ns) keeps
  // its unit as decimals.
  auto microseconds = [](uint64_t value) { return static_cast<double>(value) / 1000.0; };
  JsonWriter json;
  json.BeginObject();
  json.Key("displayTimeUnit");
  json.String("ns");
  json.Key("traceEvents");
  json.BeginArray();
  for (size_t i = 0; i < rings.size(); ++i) {
    const int pid = static_cast<int>(i) + 1;
    std::string name = "ring " + std::to_string(i) + " (" + contents.rings[i].device + ", clock " +
                       contents.clock + ")";
    WriteChromeMetadata(json, "process_name", pid, nullptr, name);
    std::set<uint32_t> ids;
    for (const kiln_hal_instrument_record_t& record : rings[i].records) ids.insert(record.site_id);
    for (uint32_t id : ids) {
      std::optional<InstrumentSite> site = site_of(id);
      std::string track = "site " + std::to_string(id);
      if (site) track += " " + SiteName(id, site);
      const uint64_t track_id = id;
      WriteChromeMetadata(json, "thread_name", pid, &track_id, track);
    }
    for (const kiln_hal_instrument_record_t& record : rings[i].records) {
      std::optional<InstrumentSite> site = site_of(record.site_id);
      json.BeginObject();
      json.Key("name");
      json.String(SiteName(record.site_id, site));
      json.Key("cat");
      json.String("workgroup");
      json.Key("ph");
      json.String("X");
      json.Key("pid");
      json.Int(pid);
      json.Key("tid");
      json.Uint(record.site_id);
      json.Key("ts");
      json.Double(microseconds(record.start - earliest));
      json.Key("dur");
      json.Double(microseconds(Duration(record)));
      json.Key("args");
      json.BeginObject();
      json.Key("workgroup");
      json.BeginArray();
      for (uint32_t component : record.workgroup_id) json.Uint(component);
      json.EndArray();
      if (site && !site->location.empty()) {
        json.Key("location");
        json.String(site->location);
      }
      json.EndObject();
      json.EndObject();
    }
  }
  json.EndArray();
  json.EndObject();
  return json.str();
}

}  // namespace kiln::tools
