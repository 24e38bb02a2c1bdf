// The instrument file (tools/common/instrument_file.h) and its statistics
// (tools/common/instrument_statistics.h) on the synthetic file of
// test_instruments.h, whose records are known: every figure is checked
// exactly, and a wrapped ring's dropped records are counted. Also: the file
// round-trips, a short, foreign or corrupt file is an error saying which,
// and rings are read back from a CPU device.
#include "tools/common/instrument_file.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hal/builtin_drivers.h"
#include "hal/driver_registry.h"
#include "hal/instrumentation.h"
#include "hal/transfer.h"
#include "tests/tools/test_instruments.h"
#include "tools/common/instrument_statistics.h"

namespace kiln::tools {
namespace {

TEST(InstrumentFileTest, RoundTrips) {
  const InstrumentFileContents contents = testing::BuildTestInstrumentFile();
  const std::vector<uint8_t> bytes = SerializeInstrumentFile(contents);
  auto parsed = ParseInstrumentFile(bytes, "t.kins");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(*parsed, contents);

  const std::string path =
      (std::filesystem::temp_directory_path() / "kiln_instrument_file_test.kins").string();
  ASSERT_TRUE(WriteInstrumentFile(path, contents).ok());
  auto read = ReadInstrumentFile(path);
  std::remove(path.c_str());
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(*read, contents);
}

TEST(InstrumentFileTest, EmptyFileRoundTrips) {
  InstrumentFileContents contents;
  contents.tool = "kiln-run-module";
  contents.clock = "ticks";
  auto parsed = ParseInstrumentFile(SerializeInstrumentFile(contents), "e.kins");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(*parsed, contents);
}

TEST(InstrumentFileTest, BadFilesAreErrors) {
  const std::vector<uint8_t> good = SerializeInstrumentFile(testing::BuildTestInstrumentFile());

  const std::vector<uint8_t> short_file(good.begin(), good.begin() + 5);
  auto parsed = ParseInstrumentFile(short_file, "s.kins");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().message(), "'s.kins' is not an instrument file: it is 5 bytes long");

  std::vector<uint8_t> foreign = good;
  std::memcpy(foreign.data() + 4, "KILN", 4);
  parsed = ParseInstrumentFile(foreign, "m.kmod");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().message(),
            "'m.kmod' is not an instrument file: its identifier is 'KILN', expected 'KINS'");

  const std::vector<uint8_t> truncated(good.begin(), good.begin() + good.size() / 2);
  parsed = ParseInstrumentFile(truncated, "t.kins");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().message(),
            "'t.kins' is corrupt: FlatBuffer verification failed (truncated or malformed "
            "instrument file)");

  auto missing = ReadInstrumentFile("/nonexistent-dir/x.kins");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("/nonexistent-dir/x.kins"), std::string::npos);
}

TEST(InstrumentFileTest, ClockUnits) {
  EXPECT_EQ(InstrumentClockUnit("cpu"), "ns");
  EXPECT_EQ(InstrumentClockUnit("cpu-sync"), "ns");
  EXPECT_EQ(InstrumentClockUnit("cuda"), "ns");
  EXPECT_EQ(InstrumentClockUnit("vulkan"), "ticks");
}

TEST(InstrumentStatisticsTest, ExactFigures) {
  auto statistics = ComputeInstrumentStatistics(testing::BuildTestInstrumentFile());
  ASSERT_TRUE(statistics.ok()) << statistics.status().ToString();
  EXPECT_EQ(statistics->clock, "ns");
  EXPECT_EQ(statistics->rings, 2u);
  EXPECT_EQ(statistics->records, 9u);
  EXPECT_EQ(statistics->dropped, 3u);
  ASSERT_EQ(statistics->sites.size(), 3u);

  // By total time, largest first.
  const InstrumentSiteStatistic& s0 = statistics->sites[0];
  EXPECT_EQ(s0.site_id, 0u);
  EXPECT_EQ(s0.calls, 2u);
  EXPECT_EQ(s0.workgroups, 4u);
  EXPECT_EQ(s0.total, 8000u);
  EXPECT_EQ(s0.mean(), 2000.0);
  EXPECT_EQ(s0.max, 4000u);
  EXPECT_EQ(s0.first_start, 1000u);
  EXPECT_EQ(s0.last_end, 14000u);
  EXPECT_EQ(s0.span(), 13000u);
  ASSERT_TRUE(s0.site.has_value());
  EXPECT_EQ(s0.site->location, "prog.mlir:5:3");

  const InstrumentSiteStatistic& s1 = statistics->sites[1];
  EXPECT_EQ(s1.site_id, 1u);
  EXPECT_EQ(s1.calls, 1u);
  EXPECT_EQ(s1.workgroups, 3u);
  EXPECT_EQ(s1.total, 1800u);
  EXPECT_EQ(s1.mean(), 600.0);
  EXPECT_EQ(s1.max, 700u);
  EXPECT_EQ(s1.span(), 800u);

  // The wrapped ring: only the two kept records count.
  const InstrumentSiteStatistic& s2 = statistics->sites[2];
  EXPECT_EQ(s2.site_id, 2u);
  EXPECT_EQ(s2.calls, 1u);
  EXPECT_EQ(s2.workgroups, 2u);
  EXPECT_EQ(s2.total, 400u);
  EXPECT_EQ(s2.mean(), 200.0);
  EXPECT_EQ(s2.max, 300u);
  EXPECT_EQ(s2.first_start, 20000u);
  EXPECT_EQ(s2.last_end, 21100u);
  ASSERT_TRUE(s2.site.has_value());
  EXPECT_EQ(s2.site->function, "loop");
}

TEST(InstrumentStatisticsTest, RecordsOfUnknownSitesAndBackwardClocks) {
  InstrumentFileContents contents;
  contents.clock = "ticks";
  std::vector<uint8_t> ring = hal::NewInstrumentRingImage(32 + 4 * 32);
  kiln_hal_instrument_record_t record{};
  record.site_id = 7;
  record.start = 50;
  record.end = 40;  // A clock that went backwards counts as zero time.
  std::memcpy(ring.data() + 32, &record, sizeof(record));
  const uint32_t next = 1;
  std::memcpy(ring.data(), &next, sizeof(next));
  contents.rings = {{"vulkan://0", ring}};
  auto statistics = ComputeInstrumentStatistics(contents);
  ASSERT_TRUE(statistics.ok()) << statistics.status().ToString();
  ASSERT_EQ(statistics->sites.size(), 1u);
  EXPECT_EQ(statistics->sites[0].total, 0u);
  EXPECT_EQ(statistics->sites[0].calls, 1u);
  EXPECT_FALSE(statistics->sites[0].site.has_value());
  EXPECT_EQ(FormatInstrumentStatistics(*statistics),
            "Instrumented dispatches (clock ticks; 1 site, 1 workgroup in 1 call):\n"
            "    site    calls  workgroups  total ticks   mean ticks    max ticks   span ticks  "
            "dispatch\n"
            "       7        1           1            0          0.0            0            0  "
            "site 7 (not in the file's site table)\n");
}

TEST(InstrumentStatisticsTest, Text) {
  auto statistics = ComputeInstrumentStatistics(testing::BuildTestInstrumentFile());
  ASSERT_TRUE(statistics.ok()) << statistics.status().ToString();
  EXPECT_EQ(FormatInstrumentStatistics(*statistics),
            "Instrumented dispatches (clock ns; 3 sites, 9 workgroups in 4 calls; lower bounds: "
            "records were dropped):\n"
            "    site    calls  workgroups     total us      mean us       max us      span us  "
            "dispatch\n"
            "       0        2           4        8.000        2.000        4.000       13.000  "
            "@ex0::@mul (@main, prog.mlir:5:3)\n"
            "       1        1           3        1.800        0.600        0.700        0.800  "
            "@ex1::@add (@main, prog.mlir:9:3)\n"
            "       2        1           2        0.400        0.200        0.300        1.100  "
            "@ex0::@mul (@loop, prog.mlir:14:5)\n"
            "Dropped records: 3 (the oldest, overwritten when a ring wrapped; the figures cover "
            "the 9 kept, so they are lower bounds: a call counts only if its workgroup (0,0,0) "
            "was kept; a larger kiln-compile --instrument-dispatches=SIZE keeps more)\n");
}

// Without dropped records the figures are exact: the header says nothing
// of lower bounds and no "Dropped records" line follows.
TEST(InstrumentStatisticsTest, WithoutDroppedRecordsTheFiguresAreExact) {
  InstrumentFileContents contents = testing::BuildTestInstrumentFile();
  contents.rings.pop_back();  // The ring that wrapped.
  auto statistics = ComputeInstrumentStatistics(contents);
  ASSERT_TRUE(statistics.ok()) << statistics.status().ToString();
  EXPECT_EQ(statistics->dropped, 0u);
  const std::string text = FormatInstrumentStatistics(*statistics);
  EXPECT_EQ(text.substr(0, text.find('\n')),
            "Instrumented dispatches (clock ns; 2 sites, 7 workgroups in 3 calls):");
  EXPECT_EQ(text.find("Dropped"), std::string::npos) << text;
  EXPECT_EQ(text.find("lower bound"), std::string::npos) << text;
}

// A wrapped ring that overwrote a call's workgroup (0,0,0) keeps its other
// workgroups but not the call: the header marks the figures as lower bounds
// and the "Dropped records" line says why.
TEST(InstrumentStatisticsTest, ADroppedFirstWorkgroupLeavesItsCallUncounted) {
  InstrumentFileContents contents;
  contents.clock = "ns";
  std::vector<uint8_t> ring = hal::NewInstrumentRingImage(32 + 2 * 32);
  // Three workgroups of one call claimed slots 0, 1, 2 of a ring of two:
  // (0,0,0), in slot 0, was overwritten by (2,0,0).
  for (uint32_t x : {2u, 1u}) {
    kiln_hal_instrument_record_t record{};
    record.site_id = 0;
    record.workgroup_id[0] = x;
    record.start = 100;
    record.end = 200;
    std::memcpy(ring.data() + 32 + (x % 2) * 32, &record, sizeof(record));
  }
  const uint32_t next = 3;
  std::memcpy(ring.data(), &next, sizeof(next));
  contents.rings = {{"cpu://0", ring}};
  auto statistics = ComputeInstrumentStatistics(contents);
  ASSERT_TRUE(statistics.ok()) << statistics.status().ToString();
  ASSERT_EQ(statistics->sites.size(), 1u);
  EXPECT_EQ(statistics->sites[0].calls, 0u);
  EXPECT_EQ(statistics->sites[0].workgroups, 2u);
  EXPECT_EQ(statistics->dropped, 1u);
  EXPECT_EQ(FormatInstrumentStatistics(*statistics),
            "Instrumented dispatches (clock ns; 1 site, 2 workgroups in 0 calls; lower bounds: "
            "records were dropped):\n"
            "    site    calls  workgroups     total us      mean us       max us      span us  "
            "dispatch\n"
            "       0        0           2        0.200        0.100        0.100        0.100  "
            "site 0 (not in the file's site table)\n"
            "Dropped records: 1 (the oldest, overwritten when a ring wrapped; the figures cover "
            "the 2 kept, so they are lower bounds: a call counts only if its workgroup (0,0,0) "
            "was kept; a larger kiln-compile --instrument-dispatches=SIZE keeps more)\n");
}

TEST(InstrumentStatisticsTest, NoRingsAndEmptyRings) {
  InstrumentFileContents contents;
  contents.clock = "ns";
  auto statistics = ComputeInstrumentStatistics(contents);
  ASSERT_TRUE(statistics.ok());
  EXPECT_EQ(FormatInstrumentStatistics(*statistics),
            "No instrumented dispatches: the file has no rings (the program made no "
            "instrumentation ring).\n");
  contents.rings = {{"cpu://0", hal::NewInstrumentRingImage(64)}};
  statistics = ComputeInstrumentStatistics(contents);
  ASSERT_TRUE(statistics.ok());
  EXPECT_EQ(FormatInstrumentStatistics(*statistics),
            "No instrumented dispatch was recorded (1 ring, empty).\n");
}

TEST(InstrumentStatisticsTest, BrokenRingIsAnError) {
  InstrumentFileContents contents;
  contents.rings = {{"cuda://0", std::vector<uint8_t>(64, 0)}};
  auto statistics = ComputeInstrumentStatistics(contents);
  ASSERT_FALSE(statistics.ok());
  EXPECT_EQ(statistics.status().message(),
            "ring 0 (cuda://0): not an instrumentation ring (its header's magic or record size "
            "is wrong)");
}

TEST(InstrumentStatisticsTest, ChromeTrace) {
  auto text = FormatInstrumentChromeTrace(testing::BuildTestInstrumentFile());
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  const nlohmann::json doc = nlohmann::json::parse(*text);
  std::vector<nlohmann::json> events;
  for (const auto& event : doc["traceEvents"]) {
    if (event["ph"] == "X") events.push_back(event);
  }
  ASSERT_EQ(events.size(), 9u);
  // Ring 0's records in ring order, times in us from the earliest start (1000 ns).
  EXPECT_EQ(events[0]["name"], "@ex0::@mul");
  EXPECT_EQ(events[0]["pid"], 1);
  EXPECT_EQ(events[0]["tid"], 0);
  EXPECT_EQ(events[0]["ts"], 0.5);
  EXPECT_EQ(events[0]["dur"], 1.0);
  EXPECT_EQ(events[0]["args"]["workgroup"], nlohmann::json({1, 0, 0}));
  EXPECT_EQ(events[1]["ts"], 0.0);
  EXPECT_EQ(events[3]["name"], "@ex1::@add");
  EXPECT_EQ(events[3]["tid"], 1);
  EXPECT_EQ(events[3]["ts"], 4.1);
  EXPECT_EQ(events[3]["dur"], 0.7);
  // Ring 1 (the wrapped one) is its own process, oldest record first.
  EXPECT_EQ(events[7]["pid"], 2);
  EXPECT_EQ(events[7]["tid"], 2);
  EXPECT_EQ(events[7]["ts"], 19.0);
  EXPECT_EQ(events[8]["ts"], 20.0);
  EXPECT_EQ(events[8]["args"]["location"], "prog.mlir:14:5");
}

// Rings registered as the hal module registers them, read back from a CPU
// device byte for byte.
TEST(InstrumentFileTest, ReadsRingsFromADevice) {
  hal::DriverRegistry registry;
  ASSERT_TRUE(hal::RegisterBuiltinDrivers(registry).ok());
  auto device = registry.CreateDevice("cpu");
  ASSERT_TRUE(device.ok()) << device.status().ToString();
  const InstrumentFileContents expected = testing::BuildTestInstrumentFile();
  auto rings = MakeRef<hal::InstrumentationRings>();
  for (const InstrumentRingBytes& ring : expected.rings) {
    auto buffer = hal::UploadBuffer(**device, ring.data, "ring");
    ASSERT_TRUE(buffer.ok()) << buffer.status().ToString();
    rings->Register({*device, *buffer, ring.data.size()});
  }
  auto read = ReadInstrumentRings(*rings);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_EQ(read->size(), 2u);
  EXPECT_EQ((*read)[0].data, expected.rings[0].data);
  EXPECT_EQ((*read)[1].data, expected.rings[1].data);
  EXPECT_EQ((*read)[0].device, (*device)->properties().uri);
}

}  // namespace
}  // namespace kiln::tools
