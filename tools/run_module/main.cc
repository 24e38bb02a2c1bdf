// kiln-run-module: loads a .kmod, invokes one of its exported functions with
// inputs given on the command line and prints the results, with
// iree-run-module's flags and output:
//
//   kiln-run-module --module=fib.kmod --function=fib --input=30
//   EXEC @fib
//   result[0]: i32=832040
//
// --expected_output=... (one per result) compares the results and exits 1 on
// a mismatch; --trace_execution prints every executed instruction to stderr.
// --device=URI (default "cpu") selects the HAL device the invocation may
// dispatch to; --list_devices lists every registered driver's devices.
// Value notation and comparison tolerances: tools/common/value_parsing.h.
// Every failure is one "error: ..." line on stderr (an invocation failure
// keeps the VM's backtrace lines) and exit code 1.
#include <cstdio>
#include <cxxopts.hpp>
#include <exception>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "hal/builtin_drivers.h"
#include "hal/driver_registry.h"
#include "tools/common/flags.h"
#include "tools/common/instruction_tracer.h"
#include "tools/common/value_parsing.h"
#include "vm/bytecode_module.h"
#include "vm/context.h"
#include "vm/instance.h"
#include "vm/invocation.h"
#include "vm/list.h"
#include "vm/signature.h"

namespace {

using namespace kiln;

struct RunOptions {
  std::string module_path;  // "-" reads standard input.
  std::string function;
  std::vector<std::string> inputs;
  std::vector<std::string> expected_outputs;
  bool trace_execution = false;
  std::string device_uri = "cpu";
  bool list_devices = false;
};

// Prints one line per device: "cpu://0  CPU, 2 threads" or, for a driver that
// cannot run here, "cuda  unavailable: <reason>".
Status ListDevices(const hal::DriverRegistry& registry) {
  for (const hal::DeviceInfo& device : registry.ListDevices()) {
    std::string line = device.uri + "  " + device.name;
    if (!device.available) line += "  unavailable: " + device.reason;
    std::printf("%s\n", line.c_str());
  }
  return OkStatus();
}

Result<Ref<vm::BytecodeModule>> LoadModule(const vm::Instance& instance, const std::string& path) {
  if (path != "-") return vm::BytecodeModule::LoadFile(instance, path);
  KILN_ASSIGN_OR_RETURN(AlignedBuffer bytes, ReadFile(path));
  auto module = vm::BytecodeModule::Load(instance, std::move(bytes));
  if (!module.ok()) return module.status().WithContext("loading <stdin>");
  return module;
}

// The export `name` names: "fib", "@fib" or "module.fib".
Result<const vm::ExportedFunction*> FindExport(const vm::BytecodeModule& module,
                                               std::string_view name) {
  if (!name.empty() && name.front() == '@') name.remove_prefix(1);
  if (const vm::ExportedFunction* function = module.LookupExport(name)) return function;
  const std::string prefix = std::string(module.name()) + ".";
  if (name.starts_with(prefix)) {
    if (const vm::ExportedFunction* function = module.LookupExport(name.substr(prefix.size()))) {
      return function;
    }
  }
  std::string message = "function '" + std::string(name) + "' not found in module '" +
                        std::string(module.name()) + "'";
  // A short hint; a module with many exports is for kiln-dump-module to list.
  constexpr size_t kMaxListed = 8;
  const auto exports = module.exports();
  if (exports.empty()) {
    message += " (it exports no functions)";
  } else if (exports.size() <= kMaxListed) {
    message += " (exports:";
    for (size_t i = 0; i < exports.size(); ++i) message += (i ? ", @" : " @") + exports[i].name;
    message += ")";
  }
  return NotFoundError(message);
}

// Runs the whole tool; the exit code is 1 when results do not match.
Result<int> Run(const RunOptions& options) {
  hal::DriverRegistry registry;
  KILN_RETURN_IF_ERROR(hal::RegisterBuiltinDrivers(registry));
  if (options.list_devices) {
    KILN_RETURN_IF_ERROR(ListDevices(registry));
    return 0;
  }
  // The device is created up front, so a bad --device fails before anything
  // runs. Programs of scalars never dispatch to it; the hal VM module (which
  // compiled dispatches import) will receive it.
  auto device = registry.CreateDevice(options.device_uri);
  if (!device.ok()) return device.status().WithContext("--device=" + options.device_uri);

  Ref<vm::Instance> instance = vm::Instance::Create();
  KILN_ASSIGN_OR_RETURN(Ref<vm::BytecodeModule> module, LoadModule(*instance, options.module_path));
  KILN_ASSIGN_OR_RETURN(const vm::ExportedFunction* exported,
                        FindExport(*module, options.function));
  vm::SignatureParts signature;
  KILN_RETURN_IF_ERROR(vm::ParseSignature(exported->signature, &signature));
  // Everything the user typed is checked before anything runs.
  KILN_ASSIGN_OR_RETURN(std::vector<vm::Variant> inputs,
                        tools::ParseValueList(options.inputs, signature.arguments, exported->name,
                                              tools::ValueRole::kInput));
  std::vector<vm::Variant> expected;
  const bool check_outputs = !options.expected_outputs.empty();
  if (check_outputs) {
    KILN_ASSIGN_OR_RETURN(
        expected, tools::ParseValueList(options.expected_outputs, signature.results, exported->name,
                                        tools::ValueRole::kExpectedOutput));
  }

  // Traced lines go to stderr; they outlive the context (initialisers run
  // traced too).
  tools::InstructionTracer tracer([](std::string_view line) {
    std::string text(line);
    text += '\n';
    std::fwrite(text.data(), 1, text.size(), stderr);
  });
  vm::ContextOptions context_options;
  if (options.trace_execution) context_options.stack.instruction_trace = tracer.Callback();
  KILN_ASSIGN_OR_RETURN(Ref<vm::Context> context,
                        vm::Context::Create(instance, {Ref<vm::Module>(module)}, context_options));
  KILN_ASSIGN_OR_RETURN(vm::Function function, context->LookupFunction(std::string(module->name()) +
                                                                       "." + exported->name));

  Ref<vm::List> arguments = vm::List::Create(inputs.size());
  for (vm::Variant& input : inputs) arguments->Push(std::move(input));
  std::printf("EXEC @%s\n", exported->name.c_str());
  std::fflush(stdout);
  KILN_ASSIGN_OR_RETURN(Ref<vm::List> results, vm::Invoke(*context, function, *arguments));
  for (size_t i = 0; i < results->size(); ++i) {
    std::printf("result[%zu]: %s\n", i, tools::FormatValue(results->items()[i]).c_str());
  }
  if (!check_outputs) return 0;
  std::vector<std::string> mismatches = tools::CompareResults(expected, results->items());
  for (const std::string& mismatch : mismatches) std::printf("[FAILED] %s\n", mismatch.c_str());
  if (!mismatches.empty()) return 1;
  std::printf("[SUCCESS] all function outputs matched their expected values.\n");
  return 0;
}

// Parses the command line into `options`; returns false after --help.
Result<bool> ParseFlags(int argc, char** argv, RunOptions* options) {
  cxxopts::Options flags("kiln-run-module",
                         "Invokes a function of a kiln module (.kmod) and prints its results.");
  flags.custom_help("[--module=]FILE --function=NAME [--input=VALUE]...");
  flags.positional_help("");
  flags.add_options()  //
      ("module",
       "Module file to load ('-' reads standard input); may also be given as the "
       "positional argument",
       cxxopts::value<std::string>())  //
      ("function", "Exported function to invoke ('@' prefix optional)",
       cxxopts::value<std::string>())  //
      ("input",
       "One argument, repeated once per argument in order: 5 (typed by the signature), "
       "i32=5, i64=-3, f32=1.5, f64=2.25, i1=/i8=/i16= (i32), index= (i64)",
       cxxopts::value<std::string>())  //
      ("expected_output",
       "One expected result, repeated once per result, in --input's notation; on a "
       "mismatch the tool exits 1 (floats compare within 1e-5 (f32) / 1e-12 (f64) relative)",
       cxxopts::value<std::string>())  //
      ("trace_execution", "Print every executed instruction to stderr",
       cxxopts::value<bool>()->default_value("false"))  //
      ("device", "HAL device URI: cpu (default), cpu-sync, local-task, local-sync, cpu://N",
       cxxopts::value<std::string>()->default_value("cpu"))  //
      ("list_devices", "List the devices of every registered driver and exit",
       cxxopts::value<bool>()->default_value("false"))  //
      ("h,help", "Print this help")                     //
      ("positional", "", cxxopts::value<std::vector<std::string>>());
  flags.parse_positional({"positional"});
  try {
    cxxopts::ParseResult result = flags.parse(argc, argv);
    if (result.count("help")) {
      std::printf("%s", flags.help().c_str());
      return false;
    }
    KILN_ASSIGN_OR_RETURN(std::optional<std::string> positional, tools::SinglePositional(result));
    options->device_uri = result["device"].as<std::string>();
    options->list_devices = result["list_devices"].as<bool>();
    if (options->list_devices) return true;  // Needs no module.
    if (result.count("module") > 1) return InvalidArgumentError("--module given more than once");
    if (result.count("module") && positional) {
      return InvalidArgumentError("module given twice: --module=" +
                                  result["module"].as<std::string>() + " and '" + *positional +
                                  "'");
    }
    if (result.count("module")) {
      options->module_path = result["module"].as<std::string>();
    } else if (positional) {
      options->module_path = *positional;
    } else {
      return InvalidArgumentError("no module given (--module=FILE or a positional FILE)");
    }
    if (options->module_path.empty()) return InvalidArgumentError("empty module path");
    if (!result.count("function")) return InvalidArgumentError("no --function given");
    if (result.count("function") > 1) {
      return InvalidArgumentError("--function given more than once");
    }
    options->function = result["function"].as<std::string>();
    options->inputs = tools::RepeatedFlag(result, "input");
    options->expected_outputs = tools::RepeatedFlag(result, "expected_output");
    options->trace_execution = result["trace_execution"].as<bool>();
  } catch (const std::exception& error) {
    return InvalidArgumentError(tools::FlagErrorMessage(error));
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    RunOptions options;
    Result<bool> parsed = ParseFlags(argc, argv, &options);
    if (!parsed.ok()) {
      std::fprintf(stderr, "error: %s (see --help)\n", parsed.status().message().c_str());
      return 1;
    }
    if (!*parsed) return 0;
    Result<int> exit_code = Run(options);
    std::fflush(stdout);
    if (!exit_code.ok()) {
      std::fprintf(stderr, "error: %s\n", exit_code.status().message().c_str());
      return 1;
    }
    return *exit_code;
  } catch (const std::exception& error) {  // Out of memory, at worst.
    std::fflush(stdout);
    std::fprintf(stderr, "error: %s\n", error.what());
    return 1;
  }
}
