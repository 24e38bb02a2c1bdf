// kiln-run-module: loads a .kmod, invokes one of its exported functions with
// inputs given on the command line and prints the results, with
// iree-run-module's flags and output:
//
//   kiln-run-module --module=fib.kmod --function=fib --input=30
//   EXEC @fib
//   result[0]: i32=832040
//
//   kiln-run-module --module=example.kmod --function=mixed_invocation
//       --input=8xf32=2 --input=8xf32=4
//   EXEC @mixed_invocation
//   result[0]: hal.buffer_view
//   8xf32=96 96 96 96 96 96 96 96
//
// The tool creates the HAL device named by --device (default "cpu") from the
// driver registry, registers the hal ref types, and links the hal VM module
// (serving that device) before the program module; a program that imports
// nothing from it still runs. Tensor inputs become buffer views in
// host-visible memory of the device; tensor results are read back through
// the HAL buffer API. --output=... writes results to .npy/binary files or
// stdout; --expected_output=... (one per result) compares the results and
// exits 1 on a mismatch; --parameters=[scope=]FILE.safetensors gives the
// external parameters a program reads (tools/common/parameter_flags.h);
// --trace_execution prints every executed instruction to stderr;
// --trace=FILE.json writes a Chrome trace of the run (tools/common/
// trace_file.h: load, initialize, call, and the hal module's record, submit
// and wait spans; the device's time of each dispatch, with the source
// locations of its dispatch sites), also when the call fails;
// --instrument_file=FILE writes, after the call (also when it fails), the
// records of the program's instrumented dispatches (kiln-compile
// --instrument-dispatches) with its dispatch-site table, for
// kiln-dump-instruments (tools/common/instrument_file.h);
// --print_statistics prints, after the results, the dispatches that took
// the most device time (tools/common/dispatch_statistics.h), the memory the
// device's allocator handed out (peak, allocated, freed and still live once
// the program is released) and the host time of load, initialize and call
// (tools/common/run_statistics.h);
// --list_devices lists every registered driver's devices, --list_drivers the
// drivers. --module may be repeated: the modules are linked in order (after
// the hal module; initializers run in that order), a module's imports resolve against
// the exports of the modules before it, and the function runs in the last, as in
// iree-run-module. --flagfile=FILE reads more flags
// from a file (tools/common/flagfile.h); --version prints kiln's version.
// Value notation: tools/common/function_io.h (tensors) and
// tools/common/value_parsing.h (scalars). Every failure is one "error: ..."
// line on stderr (an invocation failure keeps the VM's backtrace lines) and
// exit code 1.
#include <chrono>
#include <cstdio>
#include <cxxopts.hpp>
#include <exception>
#include <optional>
#include <string>
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
#include "tools/common/instruction_tracer.h"
#include "tools/common/instrument_file.h"
#include "tools/common/parameter_flags.h"
#include "tools/common/program_loading.h"
#include "tools/common/run_statistics.h"
#include "tools/common/trace_file.h"
#include "tools/common/value_parsing.h"
#include "vm/bytecode_module.h"
#include "vm/context.h"
#include "vm/instance.h"
#include "vm/invocation.h"
#include "vm/list.h"

namespace {

using namespace kiln;

struct RunOptions {
  std::vector<std::string> module_paths;  // In link order; "-" reads standard input.
  std::string function;
  std::vector<std::string> inputs;
  std::vector<std::string> expected_outputs;
  std::vector<std::string> outputs;
  std::vector<tools::ParameterFile> parameters;
  tools::ComparisonOptions comparison;
  bool trace_execution = false;
  std::string trace_path;       // Empty: no --trace.
  std::string instrument_path;  // Empty: no --instrument_file.
  bool print_statistics = false;
  std::string device_uri = "cpu";
  bool list_devices = false;
  bool list_drivers = false;
  hal::BuiltinDriverOptions drivers;
  tools::CollectiveSettings collectives;
};

// Nanoseconds since `start`.
int64_t ElapsedNs(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                              start)
      .count();
}

// Runs the whole tool; the exit code is 1 when results do not match.
Result<int> Run(const RunOptions& options) {
  hal::DriverRegistry registry;
  KILN_RETURN_IF_ERROR(hal::RegisterBuiltinDrivers(registry, options.drivers));
  if (options.list_drivers) {
    tools::PrintDrivers(registry);
    return 0;
  }
  if (options.list_devices) {
    tools::PrintDevices(registry);
    return 0;
  }
  // The device is created up front, so a bad --device fails before anything
  // runs.
  KILN_ASSIGN_OR_RETURN(std::string device_uri,
                        tools::DeviceUriForRank(registry, options.device_uri, options.collectives));
  KILN_ASSIGN_OR_RETURN(Ref<hal::Device> device, tools::CreateDeviceFromFlag(registry, device_uri));

  // --print_statistics reads the device spans of a trace: recorded for it
  // even without --trace.
  Ref<hal::Trace> trace = options.trace_path.empty() && !options.print_statistics
                              ? nullptr
                              : hal::Trace::Create(/*record_spans=*/true);
  Ref<vm::Instance> instance = vm::Instance::Create();
  // Before loading: a module's type table names hal types.
  KILN_RETURN_IF_ERROR(hal::RegisterHalTypes(*instance));
  // Host time of each phase, for --print_statistics.
  std::vector<tools::PhaseTime> phases;
  auto phase_start = std::chrono::steady_clock::now();
  std::optional<hal::ScopedHostSpan> load_span(std::in_place, trace.get(), "load");
  std::vector<Ref<vm::BytecodeModule>> modules;
  // --instrument_file: the rings the hal module makes, and the sites that
  // name their records.
  std::optional<tools::InstrumentRecorder> instruments;
  if (!options.instrument_path.empty()) instruments.emplace();
  for (const std::string& path : options.module_paths) {
    KILN_ASSIGN_OR_RETURN(Ref<vm::BytecodeModule> loaded, tools::LoadModule(*instance, path));
    if (trace) tools::AddDispatchSiteDetails(*loaded, *trace);
    if (instruments) instruments->AddModule(*loaded);
    modules.push_back(std::move(loaded));
  }
  load_span.reset();
  phases.push_back({"load", ElapsedNs(phase_start)});
  // The function runs in the last module; the others serve its imports.
  Ref<vm::BytecodeModule> module = modules.back();
  KILN_ASSIGN_OR_RETURN(const vm::ExportedFunction* exported,
                        tools::FindExport(*module, options.function));
  KILN_ASSIGN_OR_RETURN(tools::FunctionSpec spec, tools::DescribeFunction(*module, *exported));
  // Everything the user typed is checked before anything runs.
  tools::InputFiles files;
  KILN_ASSIGN_OR_RETURN(std::vector<tools::HostValue> inputs,
                        tools::ParseFunctionValues(options.inputs, spec.arguments, exported->name,
                                                   tools::ValueRole::kInput, files));
  std::vector<tools::HostValue> expected;
  const bool check_outputs = !options.expected_outputs.empty();
  if (check_outputs) {
    KILN_ASSIGN_OR_RETURN(
        expected, tools::ParseFunctionValues(options.expected_outputs, spec.results, exported->name,
                                             tools::ValueRole::kExpectedOutput, files));
  }
  if (!options.outputs.empty() && options.outputs.size() != spec.results.size()) {
    return InvalidArgumentError("function '" + exported->name + "' returns " +
                                std::to_string(spec.results.size()) + " result(s), got " +
                                std::to_string(options.outputs.size()) + " --output flag(s)");
  }

  KILN_ASSIGN_OR_RETURN(Ref<hal::ParameterIndex> parameters,
                        tools::OpenParameters(options.parameters));

  // Traced lines go to stderr; they outlive the context (initialisers run
  // traced too).
  tools::InstructionTracer tracer([](std::string_view line) {
    std::string text(line);
    text += '\n';
    std::fwrite(text.data(), 1, text.size(), stderr);
  });
  vm::ContextOptions context_options;
  if (options.trace_execution) context_options.stack.instruction_trace = tracer.Callback();
  // Joins the group's other processes (when there are any) before the
  // program's initializer makes its channels.
  KILN_ASSIGN_OR_RETURN(hal::CollectiveGroup group,
                        tools::OpenCollectiveGroup(options.collectives));
  phase_start = std::chrono::steady_clock::now();
  KILN_ASSIGN_OR_RETURN(Ref<vm::Context> context,
                        tools::CreateProgramContext(
                            instance, device, std::move(modules), context_options, {},
                            {.parameters = parameters,
                             .trace = trace,
                             .collectives = std::move(group),
                             .instrumentation = instruments ? instruments->rings() : nullptr}));
  phases.push_back({"initialize", ElapsedNs(phase_start)});
  KILN_ASSIGN_OR_RETURN(vm::Function function, context->LookupFunction(std::string(module->name()) +
                                                                       "." + exported->name));

  KILN_ASSIGN_OR_RETURN(Ref<vm::List> arguments, tools::MakeArguments(*device, inputs));
  std::printf("EXEC @%s\n", exported->name.c_str());
  std::fflush(stdout);
  phase_start = std::chrono::steady_clock::now();
  Result<Ref<vm::List>> invoked = [&] {
    hal::ScopedHostSpan call_span(trace.get(), "call @" + exported->name);
    return vm::Invoke(*context, function, *arguments);
  }();
  phases.push_back({"call @" + exported->name, ElapsedNs(phase_start)});
  if (trace) device->FlushTrace();  // The spans of work whose times are read late (CUDA).
  if (!options.trace_path.empty()) {
    Status written = tools::WriteTraceFile(*trace, "kiln-run-module", options.trace_path);
    // A failing call's error says more than the trace's: it wins.
    if (!written.ok() && invoked.ok()) return written;
  }
  if (instruments) {
    Status written = instruments->Write(options.instrument_path, "kiln-run-module", *device);
    if (!written.ok() && invoked.ok()) return written;
  }
  KILN_ASSIGN_OR_RETURN(Ref<vm::List> results, std::move(invoked));
  KILN_ASSIGN_OR_RETURN(std::vector<tools::HostValue> actual,
                        tools::ReadResults(*device, *results, spec.results));
  auto print = [](std::string_view text) { std::fwrite(text.data(), 1, text.size(), stdout); };
  if (options.outputs.empty()) {
    for (size_t i = 0; i < actual.size(); ++i) {
      print("result[" + std::to_string(i) +
            "]: " + tools::FormatHostValue(actual[i], options.comparison.format) + "\n");
    }
  } else {
    KILN_RETURN_IF_ERROR(
        tools::WriteOutputs(options.outputs, actual, options.comparison.format, print));
  }
  if (options.print_statistics) {
    print(tools::FormatTraceStatistics(*trace));
    // The program's buffers go with its context and values: what is live
    // after this was kept past the program.
    results = nullptr;
    arguments = nullptr;
    context = nullptr;
    print(tools::FormatMemoryStatistics(device->allocator().statistics(), device_uri));
    print(tools::FormatPhaseTimes(phases));
  }
  if (!check_outputs) return 0;
  std::vector<std::string> mismatches =
      tools::CompareHostValues(expected, actual, options.comparison);
  for (const std::string& mismatch : mismatches) std::printf("[FAILED] %s\n", mismatch.c_str());
  if (!mismatches.empty()) return 1;
  std::printf("[SUCCESS] all function outputs matched their expected values.\n");
  return 0;
}

// Parses the command line into `options`; returns false after --help.
Result<bool> ParseFlags(int argc, char** argv, RunOptions* options) {
  cxxopts::Options flags("kiln-run-module",
                         "Invokes a function of a kiln module (.kmod) and prints its results.");
  flags.custom_help(
      "(--module=FILE... | FILE) [--function=NAME] [--input=VALUE]... [--output=SPEC]...");
  flags.positional_help("");
  flags.add_options()  //
      ("module",
       "Module file to load ('-' reads standard input); may also be given as the "
       "positional argument. Repeatable: the modules are linked in order (initializers run in "
       "that order) and a module imports from the modules before it, and --function runs in "
       "the last",
       cxxopts::value<std::string>())  //
      ("function", "Exported function to invoke ('@' prefix optional; default: the only export)",
       cxxopts::value<std::string>())  //
      ("input",
       "One argument, repeated once per argument in order: 5 (typed by the signature), "
       "i32=5, i64=-3, f32=1.5, f64=2.25, i1=/i8=/i16= (i32), index= (i64); tensors: "
       "8xf32=2 (splat), 2x3xi32=1 2 3 4 5 6, 2x2xf32=[[1 2][3 4]], f32=1.5 (0-d), "
       "@file.npy (first array), +file.npy (next array), 4xf32=@file.bin (raw)",
       cxxopts::value<std::string>())  //
      ("output",
       "What to do with one result, repeated once per result in order: '' (ignore), "
       "'-' (print), @file.npy (write), +file.npy (append), @file.bin / +file.bin (raw bytes)",
       cxxopts::value<std::string>())                                            //
      ("parameters", tools::kParametersFlagHelp, cxxopts::value<std::string>())  //
      ("expected_output",
       "One expected result, repeated once per result, in --input's notation or "
       "(ignored); on a mismatch the tool exits 1 (floats compare within 1e-5 (f32) / "
       "1e-12 (f64) relative unless a threshold is given)",
       cxxopts::value<std::string>())  //
      ("expected_f16_threshold", "Absolute difference under which two f16 values match",
       cxxopts::value<double>())  //
      ("expected_bf16_threshold", "Absolute difference under which two bf16 values match",
       cxxopts::value<double>())  //
      ("expected_f32_threshold", "Absolute difference under which two f32 values match",
       cxxopts::value<double>())  //
      ("expected_f64_threshold", "Absolute difference under which two f64 values match",
       cxxopts::value<double>())  //
      ("output_max_element_count",
       "Print at most this many elements of each tensor ('...' marks the rest)",
       cxxopts::value<int64_t>()->default_value("1024"))  //
      ("trace_execution", "Print every executed instruction to stderr",
       cxxopts::value<bool>()->default_value("false"))  //
      ("trace",
       "Write a Chrome trace (JSON; Perfetto opens it) of the run to this file: load, "
       "initialize, call, each command buffer's record, submit and wait, and the device "
       "time of each dispatch",
       cxxopts::value<std::string>())  //
      ("instrument_file",
       "After the call, write the records of the program's instrumented dispatches "
       "(kiln-compile --instrument-dispatches) and its dispatch sites to this file, for "
       "kiln-dump-instruments",
       cxxopts::value<std::string>())  //
      ("print_statistics",
       "After the results, print the dispatches that took the most device time (top 10)",
       cxxopts::value<bool>()->default_value("false"))  //
      ("device",
       "HAL device URI: cpu (default), cpu-sync, local-task, local-sync, cpu://N, cuda, "
       "cuda://N, vulkan, vulkan://N",
       cxxopts::value<std::string>()->default_value("cpu"))  //
      ("list_devices", "List the devices of every registered driver and exit",
       cxxopts::value<bool>()->default_value("false"))  //
      ("list_drivers", "List the registered HAL drivers and exit",
       cxxopts::value<bool>()->default_value("false"))  //
      ("h,help", "Print this help")                     //
      ("positional", "", cxxopts::value<std::vector<std::string>>());
  tools::AddStandardFlags(flags);
  tools::AddDriverFlags(flags);
  tools::AddCollectiveFlags(flags);
  flags.parse_positional({"positional"});
  try {
    cxxopts::ParseResult result = flags.parse(argc, argv);
    KILN_ASSIGN_OR_RETURN(
        bool go_on,
        tools::HandleStandardFlags(flags, result,
                                   {"module", "input", "output", "expected_output", "parameters"}));
    if (!go_on) return false;
    // The positional argument is checked even with --list_devices.
    KILN_RETURN_IF_ERROR(tools::SinglePositional(result).status());
    options->device_uri = result["device"].as<std::string>();
    options->list_devices = result["list_devices"].as<bool>();
    options->list_drivers = result["list_drivers"].as<bool>();
    KILN_RETURN_IF_ERROR(tools::ReadDriverFlags(result, &options->drivers));
    if (options->list_devices || options->list_drivers) return true;  // Needs no module.
    KILN_ASSIGN_OR_RETURN(options->collectives,
                          tools::ReadCollectiveFlags(result, tools::ProcessEnvironment()));
    KILN_ASSIGN_OR_RETURN(options->module_paths, tools::ModulePathsFlag(result));
    // Without --function: the module's only export (tools::FindExport).
    if (result.count("function")) options->function = result["function"].as<std::string>();
    options->inputs = tools::RepeatedFlag(result, "input");
    options->expected_outputs = tools::RepeatedFlag(result, "expected_output");
    options->outputs = tools::RepeatedFlag(result, "output");
    KILN_ASSIGN_OR_RETURN(options->parameters, tools::ParametersFlag(result));
    auto threshold = [&](const char* name, std::optional<double>* out) -> Status {
      if (!result.count(name)) return OkStatus();
      const double value = result[name].as<double>();
      if (!(value >= 0)) {
        return InvalidArgumentError("--" + std::string(name) + " must be >= 0, got " +
                                    std::to_string(value));
      }
      *out = value;
      return OkStatus();
    };
    tools::ComparisonOptions& comparison = options->comparison;
    KILN_RETURN_IF_ERROR(threshold("expected_f16_threshold", &comparison.f16_threshold));
    KILN_RETURN_IF_ERROR(threshold("expected_bf16_threshold", &comparison.bf16_threshold));
    KILN_RETURN_IF_ERROR(threshold("expected_f32_threshold", &comparison.f32_threshold));
    KILN_RETURN_IF_ERROR(threshold("expected_f64_threshold", &comparison.f64_threshold));
    comparison.format.max_element_count = result["output_max_element_count"].as<int64_t>();
    if (comparison.format.max_element_count < 0) {
      return InvalidArgumentError("--output_max_element_count must be >= 0");
    }
    options->trace_execution = result["trace_execution"].as<bool>();
    options->print_statistics = result["print_statistics"].as<bool>();
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
  } catch (const std::exception& error) {
    return InvalidArgumentError(tools::FlagErrorMessage(error));
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  return kiln::tools::ToolMain<RunOptions>(argc, argv, ParseFlags, Run);
}
