// kiln-benchmark-module: times exported functions of a .kmod with Google
// Benchmark, as iree-benchmark-module does:
//
//   kiln-benchmark-module --module=fib.kmod --function=fib --input=20
//   ------------------------------------------------------------------------
//   Benchmark                              Time             CPU   Iterations
//   ------------------------------------------------------------------------
//   BM_fib/process_time/real_time      0.328 ms        0.328 ms          847
//
// It takes kiln-run-module's flags (--module or the positional FILE,
// --function, --input in every notation of tools/common/function_io.h,
// --parameters, --device, --list_devices) plus Google Benchmark's own (--benchmark_filter,
// --benchmark_repetitions, --benchmark_min_time, --benchmark_format=json,
// --benchmark_out=FILE, ...), --time_unit (ms, us or ns; ms by default, as
// iree-benchmark-module's), --iterations=N (a fixed count of calls per
// repetition), --batch_size=N (IREE's: calls per benchmark iteration, so the
// per-iteration cost of the loop and its timer is spread over N calls; the
// reported time is still per call, and items_per_second counts calls) and the
// collective group's flags (--rank, --world_size, --rendezvous:
// tools/common/collective_flags.h). Without --function it times every exported
// function that takes no arguments, or the module's only export when --input
// values are given for it. --module may be repeated (linked in order,
// importing from each other; the functions are the last module's),
// --list_drivers lists the HAL drivers, --flagfile=FILE reads more flags from a
// file (tools/common/flagfile.h; Google Benchmark's flags too) and --version
// prints kiln's version.
//
// What is timed: inputs are parsed, checked against the signature and
// uploaded to the device once, before timing; each iteration then invokes the
// function on one reused vm::Stack (vm::InvokeWithStack), so the loop
// measures the call rather than list or arena allocation. kiln functions are
// synchronous at the boundary (compiled code awaits its own fences before it
// returns), so when a call returns its results are ready: the time includes
// the device work. Each function is invoked once before timing, so a failing
// invocation is an error rather than a benchmark that reports nothing.
//
// Benchmarks are named like IREE's: BM_<function>/process_time/real_time
// (wall-clock time per call; the CPU column is the whole process's CPU time,
// which counts the CPU driver's worker threads). Counters per call:
// host_time_us, the median over the loop's calls of the wall time less the
// time spent waiting on fences (the host's own share: VM, recording,
// submission), host_time_mean_us (their mean), submit_time_us (the median
// call's time in queue submissions: the driver's patching, graph launch and
// signaling, part of the host time), and wait_us. --evict_host_caches=BYTES
// reads that much other memory before each timed call (not counted in the
// host time), so host_time_us is what a call costs with cold caches: on the
// lent GPU machine a host that waited ~1 ms for the GPU finds its L1 and L2
// caches cold, and the host time per call follows how many cache lines the
// call touches more than how many instructions it runs
// (tests/benchmarks/README.md). --trace=FILE
// writes a Chrome trace (tools/common/trace_file.h) of the run: load,
// initialize, the call made before timing ("first call"), every timed call
// with its record, submit and wait, and the device time of each dispatch
// (with the source locations of its dispatch sites). --print_statistics
// prints, after the benchmarks, the dispatches that took the most device
// time over the whole run, first call included
// (tools/common/dispatch_statistics.h), then the memory the device's
// allocator handed out over the run (peak, allocated, freed, and live: what
// the program's context still holds; tools/common/run_statistics.h); it records the trace's spans
// even without --trace, which costs the timed loop a little. --instrument_file=FILE writes,
// after the benchmarks, what the program's instrumented dispatches (kiln-compile
// --instrument-dispatches) recorded over the whole run, with its dispatch-site table, for
// kiln-dump-instruments (tools/common/instrument_file.h): the context's ring is made once and
// every call appends to it, so the file holds each function's call made before timing and
// every timed call (with --iterations=N and --benchmark_repetitions=R, 1 + R x N calls per
// function timed; Google Benchmark's --benchmark_min_warmup_time adds its warm-up calls),
// as many as the ring keeps (kiln-compile --instrument-dispatches=SIZE). Every failure (a bad
// flag, module, function or input, a failing invocation) is one "error: ..." line on stderr
// and exit code 1.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <cxxopts.hpp>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hal/builtin_drivers.h"
#include "hal/driver_registry.h"
#include "hal/module/hal_module.h"
#include "tools/common/collective_flags.h"
#include "tools/common/device_selection.h"
#include "tools/common/dispatch_sites.h"
#include "tools/common/dispatch_statistics.h"
#include "tools/common/flags.h"
#include "tools/common/function_io.h"
#include "tools/common/instrument_file.h"
#include "tools/common/parameter_flags.h"
#include "tools/common/program_loading.h"
#include "tools/common/run_statistics.h"
#include "tools/common/trace_file.h"
#include "vm/bytecode_module.h"
#include "vm/context.h"
#include "vm/instance.h"
#include "vm/invocation.h"
#include "vm/list.h"
#include "vm/stack.h"

namespace {

using namespace kiln;

struct BenchmarkOptions {
  std::vector<std::string> module_paths;  // In link order; "-" reads standard input.
  std::optional<std::string> function;    // None: every export without arguments.
  std::vector<std::string> inputs;
  std::vector<tools::ParameterFile> parameters;
  std::string trace_path;       // Empty: no --trace.
  std::string instrument_path;  // Empty: no --instrument_file.
  bool print_statistics = false;
  std::string device_uri = "cpu";
  bool list_devices = false;
  bool list_drivers = false;
  size_t evict_host_caches = 0;  // Bytes read before each timed call; 0: none.
  hal::BuiltinDriverOptions drivers;
  tools::CollectiveSettings collectives;
  benchmark::TimeUnit time_unit = benchmark::kMillisecond;
  // Calls per repetition; 0: as many as --benchmark_min_time takes.
  int64_t iterations = 0;
  int64_t batch_size = 1;     // Calls per benchmark iteration.
  bool version_only = false;  // --version: printed while parsing; nothing to run.
};

// One function ready to time: its arguments live as long as the benchmark
// runs, and its results are overwritten by every call.
struct Target {
  std::string name;
  vm::Function function;
  std::vector<vm::Variant> arguments;
  std::vector<vm::Variant> results;
};

// Everything the registered benchmarks touch; it outlives
// benchmark::RunSpecifiedBenchmarks.
struct Session {
  // Counts the waits of every call (the host time counter) and, with
  // --trace, records the spans.
  Ref<hal::Trace> trace;
  Ref<hal::Device> device;
  Ref<vm::Context> context;
  std::unique_ptr<vm::Stack> stack;  // Shared: benchmarks run one at a time.
  std::vector<Target> targets;
  std::optional<Status> failure;  // The first invocation that failed while timed.
  // --instrument_file: the context's rings and the modules' sites.
  std::optional<tools::InstrumentRecorder> instruments;
  // The host time of each call of the running loop (RunTarget); kept
  // between loops so that its storage is allocated before timing.
  std::vector<int64_t> host_ns;
  std::vector<int64_t> submit_ns;  // The same calls' time in queue submissions.
  // --evict_host_caches: memory read before each timed call (empty: none).
  std::vector<uint64_t> eviction;
  int64_t batch_size = 1;  // --batch_size: calls per benchmark iteration.
};

// Reads every cache line of `eviction`, so that the host's caches hold it and
// little of what the previous call touched. Outside the call's host time.
void EvictHostCaches(const std::vector<uint64_t>& eviction) {
  constexpr size_t kWordsPerLine = 64 / sizeof(uint64_t);
  uint64_t sum = 0;
  for (size_t i = 0; i < eviction.size(); i += kWordsPerLine) sum += eviction[i];
  benchmark::DoNotOptimize(sum);
}

// The exports to time: the one --function names, or every export that takes
// no arguments.
Result<std::vector<const vm::ExportedFunction*>> SelectFunctions(const vm::BytecodeModule& module,
                                                                 const BenchmarkOptions& options) {
  // A named function, or a module's only export when --input values are given
  // for it (an imported model). Without inputs, the exports that need none.
  if (!options.function && !options.inputs.empty() && module.exports().size() != 1) {
    return InvalidArgumentError("--input needs --function (module '" + std::string(module.name()) +
                                "' exports " + std::to_string(module.exports().size()) +
                                " functions; without --function, only those that take no "
                                "arguments are timed)");
  }
  if (options.function || (module.exports().size() == 1 && !options.inputs.empty())) {
    KILN_ASSIGN_OR_RETURN(const vm::ExportedFunction* exported,
                          tools::FindExport(module, options.function.value_or("")));
    return std::vector<const vm::ExportedFunction*>{exported};
  }
  std::vector<const vm::ExportedFunction*> selected;
  for (const vm::ExportedFunction& exported : module.exports()) {
    KILN_ASSIGN_OR_RETURN(tools::FunctionSpec spec, tools::DescribeFunction(module, exported));
    if (spec.arguments.empty()) selected.push_back(&exported);
  }
  if (selected.empty()) {
    return InvalidArgumentError("module '" + std::string(module.name()) +
                                "' exports no function without arguments; name one with "
                                "--function=NAME and give its --input values");
  }
  return selected;
}

// Loads the module and prepares every target, inputs uploaded; each target is
// invoked once so a failure is reported before anything is timed.
Status Prepare(const BenchmarkOptions& options, hal::DriverRegistry& registry, Session& session) {
  // The device first, so a bad --device fails before anything else.
  KILN_ASSIGN_OR_RETURN(std::string device_uri,
                        tools::DeviceUriForRank(registry, options.device_uri, options.collectives));
  KILN_ASSIGN_OR_RETURN(session.device, tools::CreateDeviceFromFlag(registry, device_uri));
  Ref<vm::Instance> instance = vm::Instance::Create();
  // Before loading: a module's type table names hal types.
  KILN_RETURN_IF_ERROR(hal::RegisterHalTypes(*instance));
  std::optional<hal::ScopedHostSpan> load_span(std::in_place, session.trace.get(), "load");
  std::vector<Ref<vm::BytecodeModule>> modules;
  if (!options.instrument_path.empty()) session.instruments.emplace();
  for (const std::string& path : options.module_paths) {
    KILN_ASSIGN_OR_RETURN(Ref<vm::BytecodeModule> loaded, tools::LoadModule(*instance, path));
    tools::AddDispatchSiteDetails(*loaded, *session.trace);
    if (session.instruments) session.instruments->AddModule(*loaded);
    modules.push_back(std::move(loaded));
  }
  load_span.reset();
  // The functions are the last module's; the others serve its imports.
  Ref<vm::BytecodeModule> module = modules.back();
  KILN_ASSIGN_OR_RETURN(std::vector<const vm::ExportedFunction*> selected,
                        SelectFunctions(*module, options));
  // Everything the user typed is checked before the module's initialiser runs.
  std::vector<std::vector<tools::HostValue>> inputs;
  tools::InputFiles files;
  for (const vm::ExportedFunction* exported : selected) {
    KILN_ASSIGN_OR_RETURN(tools::FunctionSpec spec, tools::DescribeFunction(*module, *exported));
    KILN_ASSIGN_OR_RETURN(std::vector<tools::HostValue> values,
                          tools::ParseFunctionValues(options.inputs, spec.arguments, exported->name,
                                                     tools::ValueRole::kInput, files));
    inputs.push_back(std::move(values));
  }

  KILN_ASSIGN_OR_RETURN(Ref<hal::ParameterIndex> parameters,
                        tools::OpenParameters(options.parameters));

  KILN_ASSIGN_OR_RETURN(hal::CollectiveGroup group,
                        tools::OpenCollectiveGroup(options.collectives));
  KILN_ASSIGN_OR_RETURN(
      session.context,
      tools::CreateProgramContext(
          instance, session.device, std::move(modules), {}, {},
          {.parameters = parameters,
           .trace = session.trace,
           .collectives = std::move(group),
           .instrumentation = session.instruments ? session.instruments->rings() : nullptr}));
  session.stack = session.context->AcquireStack();
  for (size_t i = 0; i < selected.size(); ++i) {
    const vm::ExportedFunction& exported = *selected[i];
    Target target;
    target.name = exported.name;
    KILN_ASSIGN_OR_RETURN(target.function, session.context->LookupFunction(
                                               std::string(module->name()) + "." + exported.name));
    KILN_ASSIGN_OR_RETURN(Ref<vm::List> arguments,
                          tools::MakeArguments(*session.device, inputs[i]));
    target.arguments.assign(arguments->items().begin(), arguments->items().end());
    KILN_ASSIGN_OR_RETURN(tools::FunctionSpec spec, tools::DescribeFunction(*module, exported));
    target.results.resize(spec.results.size());
    hal::ScopedHostSpan first_call(session.trace.get(), "first call @" + exported.name);
    KILN_RETURN_IF_ERROR(
        vm::InvokeWithStack(target.function, target.arguments, target.results, *session.stack));
    session.targets.push_back(std::move(target));
  }
  return OkStatus();
}

// The timed loop of one target. Besides Google Benchmark's times it reports
// per call `host_time_us`: the median over the loop's calls of a call's wall
// time less the time it spent waiting on fences (what the host itself
// spends: the VM, recording, submission); `host_time_mean_us`, their mean
// (which a single preemption of the process during the loop can double);
// `submit_time_us`, the median of the calls' time in queue submissions; and
// `wait_us`, the mean wait.
void RunTarget(benchmark::State& state, Session* session, Target* target) {
  hal::Trace& trace = *session->trace;
  const std::string call_name = "call @" + target->name;
  const int64_t wait_before = trace.WaitNanoseconds();
  const int64_t loop_start = trace.Now();
  std::vector<int64_t>& host_ns = session->host_ns;
  std::vector<int64_t>& submit_ns = session->submit_ns;
  host_ns.clear();
  submit_ns.clear();
  // --batch_size calls make one benchmark iteration that counts as that many
  // (KeepRunningBatch), so the times reported stay per call.
  bool failed = false;
  while (!failed && state.KeepRunningBatch(session->batch_size)) {
    for (int64_t i = 0; i < session->batch_size; ++i) {
      if (!session->eviction.empty()) EvictHostCaches(session->eviction);
      const int64_t call_start = trace.Now();
      const int64_t call_wait = trace.WaitNanoseconds();
      const int64_t call_submit = trace.SubmitNanoseconds();
      Status status = vm::InvokeWithStack(target->function, target->arguments, target->results,
                                          *session->stack);
      const int64_t call_end = trace.Now();
      host_ns.push_back(call_end - call_start - (trace.WaitNanoseconds() - call_wait));
      submit_ns.push_back(trace.SubmitNanoseconds() - call_submit);
      if (trace.recording()) trace.AddHostSpan(call_name, call_start, {}, call_end);
      if (!status.ok()) {
        if (!session->failure) session->failure = status;
        state.SkipWithError(status.message().c_str());
        failed = true;
        break;
      }
    }
  }
  state.SetItemsProcessed(state.iterations());
  const double wait_us = static_cast<double>(trace.WaitNanoseconds() - wait_before) / 1000.0;
  const double wall_us = static_cast<double>(trace.Now() - loop_start) / 1000.0;
  auto median_us = [](std::vector<int64_t>& values) {
    auto middle = values.begin() + static_cast<ptrdiff_t>(values.size() / 2);
    std::nth_element(values.begin(), middle, values.end());
    return static_cast<double>(*middle) / 1000.0;
  };
  if (!host_ns.empty()) {
    state.counters["host_time_us"] = median_us(host_ns);
    state.counters["submit_time_us"] = median_us(submit_ns);
  }
  state.counters["host_time_mean_us"] =
      benchmark::Counter(wall_us - wait_us, benchmark::Counter::kAvgIterations);
  state.counters["wait_us"] = benchmark::Counter(wait_us, benchmark::Counter::kAvgIterations);
}

// Runs the whole tool.
Status Run(const BenchmarkOptions& options) {
  hal::DriverRegistry registry;
  KILN_RETURN_IF_ERROR(hal::RegisterBuiltinDrivers(registry, options.drivers));
  if (options.list_drivers) {
    tools::PrintDrivers(registry);
    return OkStatus();
  }
  if (options.list_devices) {
    tools::PrintDevices(registry);
    return OkStatus();
  }
  Session session;
  session.batch_size = options.batch_size;
  session.eviction.assign(options.evict_host_caches / sizeof(uint64_t), 1);
  session.host_ns.reserve(size_t{1} << 18);
  session.submit_ns.reserve(size_t{1} << 18);
  session.trace = hal::Trace::Create(
      /*record_spans=*/!options.trace_path.empty() || options.print_statistics);
  Status prepared = Prepare(options, registry, session);
  if (!prepared.ok()) {
    if (session.stack) session.context->ReleaseStack(std::move(session.stack));
    return prepared;
  }
  for (Target& target : session.targets) {
    benchmark::internal::Benchmark* registered =
        benchmark::RegisterBenchmark(("BM_" + target.name).c_str(), RunTarget, &session, &target)
            ->MeasureProcessCPUTime()
            ->UseRealTime()
            ->Unit(options.time_unit);
    // A fixed count: the processes of a collective group must make the same
    // calls (a collective waits for every rank), which timing by duration
    // does not ensure.
    if (options.iterations > 0) registered->Iterations(options.iterations);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  // Results hold refs into the context (buffer views); drop them first.
  session.targets.clear();
  session.context->ReleaseStack(std::move(session.stack));
  session.device->FlushTrace();  // The spans of work whose times are read late (CUDA).
  if (options.print_statistics) {
    const std::string table =
        tools::FormatTraceStatistics(*session.trace) +
        tools::FormatMemoryStatistics(session.device->allocator().statistics(), options.device_uri);
    std::fwrite(table.data(), 1, table.size(), stdout);
  }
  if (!options.trace_path.empty()) {
    KILN_RETURN_IF_ERROR(
        tools::WriteTraceFile(*session.trace, "kiln-benchmark-module", options.trace_path));
  }
  // Every call has returned, so its device work is complete (the header
  // comment says why); the context, which holds the rings, is still alive.
  if (session.instruments) {
    Status written = session.instruments->Write(options.instrument_path, "kiln-benchmark-module",
                                                *session.device);
    // A failing call's error says more than the file's: it wins.
    if (!written.ok() && !session.failure) return written;
  }
  if (session.failure) return *session.failure;
  return OkStatus();
}

cxxopts::Options DeclareFlags() {
  cxxopts::Options flags(
      "kiln-benchmark-module",
      "Times exported functions of a kiln module (.kmod) with Google Benchmark.");
  flags.custom_help(
      "(--module=FILE... | FILE) [--function=NAME [--input=VALUE]...] [--benchmark_*=...]");
  flags.positional_help("");
  flags.add_options()  //
      ("module",
       "Module file to load ('-' reads standard input); may also be given as the "
       "positional argument. Repeatable: the modules are linked in order (initializers run in "
       "that order) and a module imports from the modules before it, and the functions timed "
       "are the last module's",
       cxxopts::value<std::string>())  //
      ("function",
       "Exported function to time ('@' prefix optional); without it, every exported "
       "function that takes no arguments",
       cxxopts::value<std::string>())  //
      ("input",
       "One argument of --function, repeated once per argument in order, as "
       "kiln-run-module takes it: 5, i32=5, f32=1.5, 8xf32=2, 2x2xf32=[[1 2][3 4]], "
       "@file.npy, +file.npy, 4xf32=@file.bin, ...; parsed and uploaded once, before timing",
       cxxopts::value<std::string>())                                            //
      ("parameters", tools::kParametersFlagHelp, cxxopts::value<std::string>())  //
      ("trace",
       "Write a Chrome trace (JSON; Perfetto opens it) to this file: load, initialize, "
       "every timed call, each command buffer's record, submit and wait, and the device "
       "time of each dispatch",
       cxxopts::value<std::string>())  //
      ("instrument_file",
       "After the benchmarks, write the records of the program's instrumented dispatches "
       "(kiln-compile --instrument-dispatches) over the whole run (each function's call before "
       "timing and every timed call: 1 + R x N calls with --benchmark_repetitions=R "
       "--iterations=N) and its dispatch sites to this file, for kiln-dump-instruments",
       cxxopts::value<std::string>())  //
      ("print_statistics",
       "After the benchmarks, print the dispatches that took the most device time (top 10)",
       cxxopts::value<bool>()->default_value("false"))  //
      ("device",
       "HAL device URI: cpu (default), cpu-sync, local-task, local-sync, cpu://N, cuda, "
       "cuda://N, vulkan, vulkan://N",
       cxxopts::value<std::string>()->default_value("cpu"))  //
      ("list_devices", "List the devices of every registered driver and exit",
       cxxopts::value<bool>()->default_value("false"))  //
      ("list_drivers", "List the registered HAL drivers and exit",
       cxxopts::value<bool>()->default_value("false"))  //
      ("evict_host_caches",
       "Before each timed call, read this many bytes of other memory (outside the call's time), "
       "so that the call starts with the host's caches as cold as after a long wait for the GPU "
       "(64000000 on a 32 MiB-L3 host: from memory). host_time_us is then the cold figure; "
       "real_time includes the reading. 0: off",
       cxxopts::value<std::string>()->default_value("0"))  //
      ("time_unit",
       "Unit of the reported times: ms (the default, as iree-benchmark-module's), us, ns or s",
       cxxopts::value<std::string>()->default_value("ms"))  //
      ("batch_size",
       "Calls per benchmark iteration (IREE's flag): the loop's own cost is spread over this "
       "many calls; times stay per call and items_per_second counts calls",
       cxxopts::value<int64_t>()->default_value("1"))  //
      ("iterations",
       "Calls per repetition, instead of as many as --benchmark_min_time takes: every process "
       "of a collective group (--rank/--world_size) must make the same calls",
       cxxopts::value<int64_t>())                                 //
      ("h,help", "Print this help and Google Benchmark's flags")  //
      ("positional", "", cxxopts::value<std::vector<std::string>>());
  tools::AddStandardFlags(flags);
  tools::AddDriverFlags(flags);
  tools::AddCollectiveFlags(flags);
  flags.parse_positional({"positional"});
  return flags;
}

// Google Benchmark answers a bad --benchmark_format by printing its usage and
// exiting 0; check the value first so it is an error like any other.
Status CheckBenchmarkFormats(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view argument = argv[i];
    for (std::string_view flag : {"--benchmark_format=", "--benchmark_out_format="}) {
      if (!argument.starts_with(flag)) continue;
      const std::string_view value = argument.substr(flag.size());
      if (value != "console" && value != "json" && value != "csv") {
        return InvalidArgumentError(std::string(flag.substr(0, flag.size() - 1)) +
                                    " must be console, json or csv, not '" + std::string(value) +
                                    "'");
      }
    }
  }
  return OkStatus();
}

Result<benchmark::TimeUnit> ParseTimeUnit(const std::string& text) {
  if (text == "ns") return benchmark::kNanosecond;
  if (text == "us") return benchmark::kMicrosecond;
  if (text == "ms") return benchmark::kMillisecond;
  if (text == "s") return benchmark::kSecond;
  return InvalidArgumentError("--time_unit must be ns, us, ms or s, not '" + text + "'");
}

// Parses what Google Benchmark left of the command line into `options`.
// A non-negative decimal byte count.
Result<size_t> ParseByteCount(std::string_view flag, const std::string& text) {
  size_t value = 0;
  const char* end = text.data() + text.size();
  auto [at, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc() || at != end) {
    return InvalidArgumentError(std::string(flag) + " must be a byte count, not '" + text + "'");
  }
  return value;
}

Status ParseFlags(cxxopts::Options& flags, int argc, char** argv, BenchmarkOptions* options) {
  // Google Benchmark leaves a flag of its own in argv when it cannot parse
  // the value (it says why on stderr); "does not exist" would mislead.
  for (int i = 1; i < argc; ++i) {
    const std::string_view argument = argv[i];
    if (argument.starts_with("--benchmark_")) {
      return InvalidArgumentError(std::string(argument) +
                                  ": not a Google Benchmark flag with a valid value");
    }
  }
  try {
    cxxopts::ParseResult result = flags.parse(argc, argv);
    // --help was answered before Google Benchmark ran; --version is.
    KILN_ASSIGN_OR_RETURN(
        bool go_on, tools::HandleStandardFlags(flags, result, {"module", "input", "parameters"}));
    if (!go_on) {
      options->version_only = true;
      return OkStatus();
    }
    // The positional argument is checked even with --list_devices.
    KILN_RETURN_IF_ERROR(tools::SinglePositional(result).status());
    options->device_uri = result["device"].as<std::string>();
    options->list_devices = result["list_devices"].as<bool>();
    options->list_drivers = result["list_drivers"].as<bool>();
    KILN_RETURN_IF_ERROR(tools::ReadDriverFlags(result, &options->drivers));
    if (options->list_devices || options->list_drivers) return OkStatus();  // Needs no module.
    KILN_ASSIGN_OR_RETURN(options->collectives,
                          tools::ReadCollectiveFlags(result, tools::ProcessEnvironment()));
    KILN_ASSIGN_OR_RETURN(options->module_paths, tools::ModulePathsFlag(result));
    if (result.count("function")) options->function = result["function"].as<std::string>();
    options->inputs = tools::RepeatedFlag(result, "input");
    KILN_ASSIGN_OR_RETURN(options->parameters, tools::ParametersFlag(result));
    options->print_statistics = result["print_statistics"].as<bool>();
    KILN_ASSIGN_OR_RETURN(
        options->evict_host_caches,
        ParseByteCount("--evict_host_caches", result["evict_host_caches"].as<std::string>()));
    if (result.count("trace")) {
      options->trace_path = result["trace"].as<std::string>();
      if (options->trace_path.empty()) return InvalidArgumentError("--trace needs a file name");
    }
    if (result.count("instrument_file")) {
      options->instrument_path = result["instrument_file"].as<std::string>();
      if (options->instrument_path.empty()) {
        return InvalidArgumentError("--instrument_file needs a file name");
      }
    }
    KILN_ASSIGN_OR_RETURN(options->time_unit, ParseTimeUnit(result["time_unit"].as<std::string>()));
    options->batch_size = result["batch_size"].as<int64_t>();
    if (options->batch_size < 1 || options->batch_size > 1'000'000) {
      return InvalidArgumentError("--batch_size=" + std::to_string(options->batch_size) +
                                  ": must be between 1 and 1000000");
    }
    if (result.count("iterations")) {
      options->iterations = result["iterations"].as<int64_t>();
      if (options->iterations < 1 || options->iterations > 1'000'000'000) {
        return InvalidArgumentError("--iterations=" + std::to_string(options->iterations) +
                                    ": must be between 1 and 1000000000");
      }
      if (options->iterations % options->batch_size != 0) {
        return InvalidArgumentError(
            "--iterations=" + std::to_string(options->iterations) +
            " is not a multiple of --batch_size=" + std::to_string(options->batch_size));
      }
    }
  } catch (const std::exception& error) {
    return InvalidArgumentError(tools::FlagErrorMessage(error));
  }
  return OkStatus();
}

bool WantsHelp(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) return true;
  }
  return false;
}

}  // namespace

int main(int raw_argc, char** raw_argv) {
  try {
    // --flagfile first: its lines may hold Google Benchmark's flags as well.
    Result<std::vector<std::string>> expanded = tools::ExpandFlagfiles(raw_argc, raw_argv);
    if (!expanded.ok()) {
      std::fprintf(stderr, "error: %s (see --help)\n", expanded.status().message().c_str());
      return 1;
    }
    tools::ArgvStorage arguments(std::move(*expanded));
    int& argc = arguments.argc();
    char** argv = arguments.argv();
    cxxopts::Options flags = DeclareFlags();
    if (WantsHelp(argc, argv)) {
      std::printf("%s\nGoogle Benchmark's flags:\n", flags.help().c_str());
      std::fflush(stdout);
      benchmark::PrintDefaultHelp();
      return 0;
    }
    Status status = CheckBenchmarkFormats(argc, argv);
    BenchmarkOptions options;
    if (status.ok()) {
      // Takes its own --benchmark_* flags out of argv; ours are what is left.
      benchmark::Initialize(&argc, argv);
      status = ParseFlags(flags, argc, argv, &options);
    }
    if (!status.ok()) {
      std::fprintf(stderr, "error: %s (see --help)\n", status.message().c_str());
      return 1;
    }
    if (options.version_only) return 0;
    status = Run(options);
    std::fflush(stdout);
    if (!status.ok()) {
      std::fprintf(stderr, "error: %s\n", status.message().c_str());
      return 1;
    }
    return 0;
  } catch (const std::exception& error) {  // Out of memory, at worst.
    std::fflush(stdout);
    std::fprintf(stderr, "error: %s\n", error.what());
    return 1;
  }
}
