// Tests of hal/trace.h and tools/common/trace_file.h: the spans a run of a
// module records (the tools' --trace), the Chrome trace JSON they become
// (parsed back with nlohmann::json), and the wait time counted without
// recording spans (kiln-benchmark-module's host_time_us).
#include "hal/trace.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hal/builtin_drivers.h"
#include "hal/driver_registry.h"
#include "hal/module/hal_module.h"
#include "tests/tools/test_modules.h"
#include "tools/common/dispatch_statistics.h"
#include "tools/common/function_io.h"
#include "tools/common/program_loading.h"
#include "tools/common/trace_file.h"
#include "vm/bytecode_module.h"
#include "vm/invocation.h"

namespace kiln::tools {
namespace {

// Invokes the tensors test module's concat_self (a command buffer of two
// copies, submitted and awaited) with `trace`.
void RunConcat(Ref<hal::Trace> trace) {
  hal::DriverRegistry registry;
  ASSERT_TRUE(hal::RegisterBuiltinDrivers(registry).ok());
  auto device = registry.CreateDevice("cpu");
  ASSERT_TRUE(device.ok());
  Ref<vm::Instance> instance = vm::Instance::Create();
  ASSERT_TRUE(hal::RegisterHalTypes(*instance).ok());
  auto bytes = testing::BuildTensorsTestModule();
  ASSERT_TRUE(bytes.ok());
  auto module = vm::BytecodeModule::Load(*instance, AlignedBuffer::CopyOf(*bytes));
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  hal::HalModuleOptions hal_options;
  hal_options.trace = trace;
  auto context = CreateProgramContext(instance, *device, *module, {}, {}, hal_options);
  ASSERT_TRUE(context.ok()) << context.status().ToString();
  auto function = (*context)->LookupFunction(std::string((*module)->name()) + ".concat_self");
  ASSERT_TRUE(function.ok());
  auto input = ParseTensorLiteral("3xf32=1 2 3");
  ASSERT_TRUE(input.ok());
  HostValue value;
  value.kind = HostValue::Kind::kTensor;
  value.tensor = *input;
  const std::vector<HostValue> values = {value};
  auto arguments = MakeArguments(**device, values);
  ASSERT_TRUE(arguments.ok()) << arguments.status().ToString();
  for (int call = 0; call < 2; ++call) {
    auto results = vm::Invoke(**context, *function, **arguments);
    ASSERT_TRUE(results.ok()) << results.status().ToString();
  }
}

std::vector<std::string> SpanNames(const hal::Trace& trace) {
  std::vector<std::string> names;
  for (const hal::Trace::Span& span : trace.Spans()) names.push_back(span.name);
  return names;
}

TEST(TraceTest, HalModuleRecordsRecordSubmitAndWaitOfEachCall) {
  Ref<hal::Trace> trace = hal::Trace::Create(/*record_spans=*/true);
  RunConcat(trace);
  EXPECT_EQ(SpanNames(*trace), (std::vector<std::string>{"initialize", "record", "submit", "wait",
                                                         "record", "submit", "wait"}));
  const std::vector<hal::Trace::Span> spans = trace->Spans();
  for (const hal::Trace::Span& span : spans) {
    EXPECT_EQ(span.category, "host");
    EXPECT_EQ(span.track, 1u);  // One thread.
    EXPECT_GE(span.duration_ns, 0);
  }
  // In order, without overlap: a call records, then submits, then waits.
  for (size_t i = 2; i < spans.size(); ++i) {
    EXPECT_LE(spans[i - 1].start_ns + spans[i - 1].duration_ns, spans[i].start_ns) << i;
  }
  // The counted wait is the two wait spans.
  EXPECT_EQ(trace->WaitNanoseconds(), spans[3].duration_ns + spans[6].duration_ns);
}

TEST(TraceTest, WithoutRecordingOnlyTheWaitIsCounted) {
  Ref<hal::Trace> trace = hal::Trace::Create(/*record_spans=*/false);
  RunConcat(trace);
  EXPECT_TRUE(trace->Spans().empty());
  EXPECT_GT(trace->WaitNanoseconds(), 0);
}

TEST(TraceTest, ScopedHostSpanCoversItsScope) {
  Ref<hal::Trace> trace = hal::Trace::Create(true);
  int64_t before = 0;
  {
    hal::ScopedHostSpan span(trace.get(), "outer", "detail");
    before = trace->Now();
  }
  ASSERT_EQ(trace->Spans().size(), 1u);
  const hal::Trace::Span span = trace->Spans()[0];
  EXPECT_EQ(span.name, "outer");
  EXPECT_EQ(span.detail, "detail");
  EXPECT_LE(span.start_ns, before);
  EXPECT_GE(span.start_ns + span.duration_ns, before);
  // A null trace records nothing and does not crash.
  hal::ScopedHostSpan none(nullptr, "x");
}

TEST(TraceTest, ChromeTraceHasMetadataAndCompleteEventsInMicroseconds) {
  Ref<hal::Trace> trace = hal::Trace::Create(true);
  trace->AddSpan({.name = "call @main",
                  .category = "host",
                  .detail = "model.mlir:3:5",
                  .start_ns = 1500,
                  .duration_ns = 250,
                  .track = 1});
  trace->AddSpan({.name = "dispatch @ex::@main_dispatch_0",
                  .category = "device",
                  .detail = {},
                  .start_ns = 2000,
                  .duration_ns = 1001,
                  .track = hal::Trace::DeviceTrack(0)});
  const nlohmann::json doc = nlohmann::json::parse(FormatChromeTrace(*trace, "kiln-run-module"));
  EXPECT_EQ(doc["displayTimeUnit"], "ns");
  const nlohmann::json& events = doc["traceEvents"];
  ASSERT_EQ(events.size(), 5u);  // process name, two track names, two spans.
  EXPECT_EQ(events[0]["ph"], "M");
  EXPECT_EQ(events[0]["args"]["name"], "kiln-run-module");
  EXPECT_EQ(events[1]["args"]["name"], "host thread 1");
  EXPECT_EQ(events[2]["args"]["name"], "device queue 0");
  const nlohmann::json& call = events[3];
  EXPECT_EQ(call["name"], "call @main");
  EXPECT_EQ(call["ph"], "X");
  EXPECT_EQ(call["tid"], 1);
  EXPECT_DOUBLE_EQ(call["ts"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(call["dur"].get<double>(), 0.25);
  EXPECT_EQ(call["args"]["detail"], "model.mlir:3:5");
  const nlohmann::json& dispatch = events[4];
  EXPECT_EQ(dispatch["cat"], "device");
  EXPECT_DOUBLE_EQ(dispatch["dur"].get<double>(), 1.001);
  EXPECT_FALSE(dispatch.contains("args"));
  EXPECT_FALSE(doc.contains("kilnDroppedSpans"));
}

// --print_statistics: device dispatch spans summed per name, largest total
// first; host spans and other device spans are not dispatches.
TEST(TraceTest, DispatchStatisticsSumDeviceTimePerDispatch) {
  Ref<hal::Trace> trace = hal::Trace::Create(true);
  auto add = [&](std::string name, std::string category, int64_t duration_ns) {
    trace->AddSpan({.name = std::move(name),
                    .category = std::move(category),
                    .detail = {},
                    .start_ns = 0,
                    .duration_ns = duration_ns,
                    .track = hal::Trace::DeviceTrack(0)});
  };
  trace->SetDefaultDetail("dispatch @ex::@big", "m.mlir:9:5");
  add("dispatch @ex::@small", "device", 1000);
  add("dispatch @ex::@big", "device", 3000);
  add("dispatch @ex::@small", "device", 1000);
  add("dispatch @ex::@big", "device", 5000);
  add("dispatch @ex::@host_side", "host", 99000);
  add("copy", "device", 99000);
  const std::vector<DispatchStatistic> statistics = CollectDispatchStatistics(*trace);
  ASSERT_EQ(statistics.size(), 2u);
  EXPECT_EQ(statistics[0].name, "dispatch @ex::@big");
  EXPECT_EQ(statistics[0].detail, "m.mlir:9:5");
  EXPECT_EQ(statistics[0].calls, 2u);
  EXPECT_EQ(statistics[0].total_ns, 8000);
  EXPECT_EQ(statistics[1].name, "dispatch @ex::@small");
  EXPECT_EQ(statistics[1].total_ns, 2000);
  EXPECT_EQ(FormatDispatchStatistics(statistics),
            "Dispatches by device time (2 dispatch names, 4 calls, 0.010 ms on the device):\n"
            "      total ms      calls      mean us    share  dispatch\n"
            "         0.008          2        4.000    80.0%  dispatch @ex::@big  (m.mlir:9:5)\n"
            "         0.002          2        1.000    20.0%  dispatch @ex::@small\n");
  const std::string top_one = FormatDispatchStatistics(statistics, 1);
  EXPECT_EQ(top_one.substr(top_one.rfind("  ...")), "  ... and 1 more\n");
  EXPECT_EQ(FormatDispatchStatistics({}), "No dispatches were traced.\n");
}

TEST(TraceTest, WritingToAnUnwritablePathNamesTheFlagAndTheFile) {
  Ref<hal::Trace> trace = hal::Trace::Create(true);
  Status status = WriteTraceFile(*trace, "t", "/nonexistent-dir/trace.json");
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message().rfind("--trace: ", 0), 0u) << status.message();
  EXPECT_NE(status.message().find("/nonexistent-dir/trace.json"), std::string::npos);
}

}  // namespace
}  // namespace kiln::tools
