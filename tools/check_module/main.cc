// kiln-check-module: runs the test functions of a module compiled from an
// IREE-style check test (check.expect_eq and friends; tools/README.md), the
// counterpart of iree-check-module:
//
//   kiln-check-module --module=tests.kmod --device=cpu
//   [==========] Running 2 tests from module 'tests'.
//   [ RUN      ] tests.add
//   [       OK ] tests.add
//   [ RUN      ] tests.sub
//   tests.mlir:12:3: Failure
//   expect_eq failed: element [1]: expected 5 but got 4
//     lhs: 4xi32=1 4 3 4
//     rhs: 4xi32=1 5 3 4
//   [  FAILED  ] tests.sub
//   [==========] 2 tests ran.
//   [  PASSED  ] 1 test.
//   [  FAILED  ] 1 test, listed below:
//   [  FAILED  ] tests.sub
//
// Every exported function that takes and returns nothing is one test, run in
// export order in one context (the module's initialiser runs once). The tool
// links the hal module (serving --device and the --parameters files,
// tools/common/parameter_flags.h) and the check module
// (tools/common/check_module.h) before the program. A failed expectation
// fails its test and the function goes on (each failure is printed with the
// check's source location); an invocation that returns an error fails the
// test with that error (the VM's message names the instruction and its source
// location). The exit code is 0 when every test passed, 1 otherwise; a bad
// flag, module or device is one "error: ..." line on stderr and exit code 1.
// --module may be repeated (the modules are linked in order and import from
// each other; the tests are the last module's), --list_drivers and
// --list_devices list the HAL drivers and devices, --flagfile=FILE reads more
// flags from a file and --version prints kiln's version.
#include <cstdio>
#include <cxxopts.hpp>
#include <exception>
#include <string>
#include <vector>

#include "hal/builtin_drivers.h"
#include "hal/driver_registry.h"
#include "hal/module/hal_module.h"
#include "tools/common/check_module.h"
#include "tools/common/collective_flags.h"
#include "tools/common/device_selection.h"
#include "tools/common/flags.h"
#include "tools/common/instruction_tracer.h"
#include "tools/common/parameter_flags.h"
#include "tools/common/program_loading.h"
#include "vm/bytecode_module.h"
#include "vm/context.h"
#include "vm/instance.h"
#include "vm/invocation.h"
#include "vm/list.h"

namespace {

using namespace kiln;

struct CheckOptions {
  std::vector<std::string> module_paths;  // In link order; "-" reads standard input.
  std::string device_uri = "cpu";
  std::vector<tools::ParameterFile> parameters;
  bool list_devices = false;
  bool list_drivers = false;
  bool trace_execution = false;
  hal::BuiltinDriverOptions drivers;
  tools::CollectiveSettings collectives;
};

void Print(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

std::string Plural(size_t count, const char* noun) {
  return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

// Runs one test; returns whether it passed. Failures are printed as they are
// found, googletest's way: "<location>: Failure", then the message.
bool RunTest(vm::Context& context, const vm::Module& check_module, const vm::Function& function) {
  Ref<vm::List> arguments = vm::List::Create();
  Status status = vm::Invoke(context, function, *arguments).status();
  std::vector<tools::CheckFailure> failures = tools::TakeCheckFailures(context, check_module);
  for (const tools::CheckFailure& failure : failures) {
    Print((failure.location.empty() ? "unknown location" : failure.location) + ": Failure\n" +
          failure.message + "\n");
  }
  if (!status.ok()) Print("error: " + status.message() + "\n");
  return status.ok() && failures.empty();
}

Result<int> Run(const CheckOptions& options) {
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
  KILN_ASSIGN_OR_RETURN(std::string device_uri,
                        tools::DeviceUriForRank(registry, options.device_uri, options.collectives));
  KILN_ASSIGN_OR_RETURN(Ref<hal::Device> device, tools::CreateDeviceFromFlag(registry, device_uri));
  Ref<vm::Instance> instance = vm::Instance::Create();
  KILN_RETURN_IF_ERROR(hal::RegisterHalTypes(*instance));
  std::vector<Ref<vm::BytecodeModule>> modules;
  for (const std::string& path : options.module_paths) {
    KILN_ASSIGN_OR_RETURN(Ref<vm::BytecodeModule> loaded, tools::LoadModule(*instance, path));
    modules.push_back(std::move(loaded));
  }
  // The tests are the last module's; the others serve its imports.
  Ref<vm::BytecodeModule> module = modules.back();
  KILN_ASSIGN_OR_RETURN(Ref<vm::Module> check_module, tools::CreateCheckModule(*instance));
  KILN_ASSIGN_OR_RETURN(Ref<hal::ParameterIndex> parameters,
                        tools::OpenParameters(options.parameters));

  tools::InstructionTracer tracer([](std::string_view line) {
    std::string text(line);
    text += '\n';
    std::fwrite(text.data(), 1, text.size(), stderr);
  });
  vm::ContextOptions context_options;
  if (options.trace_execution) context_options.stack.instruction_trace = tracer.Callback();
  KILN_ASSIGN_OR_RETURN(hal::CollectiveGroup group,
                        tools::OpenCollectiveGroup(options.collectives));
  KILN_ASSIGN_OR_RETURN(Ref<vm::Context> context,
                        tools::CreateProgramContext(instance, device, std::move(modules),
                                                    context_options, {check_module},
                                                    {.parameters = parameters,
                                                     .trace = nullptr,
                                                     .collectives = std::move(group),
                                                     .instrumentation = nullptr}));

  const std::string module_name(module->name());
  std::vector<const vm::ExportedFunction*> tests;
  for (const vm::ExportedFunction& exported : module->exports()) {
    if (exported.signature == "_") tests.push_back(&exported);
  }
  Print("[==========] Running " + Plural(tests.size(), "test") + " from module '" + module_name +
        "'.\n");
  std::vector<std::string> failed;
  for (const vm::ExportedFunction* test : tests) {
    const std::string name = module_name + "." + test->name;
    Print("[ RUN      ] " + name + "\n");
    KILN_ASSIGN_OR_RETURN(vm::Function function, context->LookupFunction(name));
    if (RunTest(*context, *check_module, function)) {
      Print("[       OK ] " + name + "\n");
    } else {
      Print("[  FAILED  ] " + name + "\n");
      failed.push_back(name);
    }
  }
  Print("[==========] " + Plural(tests.size(), "test") + " ran.\n");
  Print("[  PASSED  ] " + Plural(tests.size() - failed.size(), "test") + ".\n");
  if (failed.empty()) return 0;
  Print("[  FAILED  ] " + Plural(failed.size(), "test") + ", listed below:\n");
  for (const std::string& name : failed) Print("[  FAILED  ] " + name + "\n");
  return 1;
}

// Parses the command line into `options`; returns false after --help.
Result<bool> ParseFlags(int argc, char** argv, CheckOptions* options) {
  cxxopts::Options flags("kiln-check-module",
                         "Runs every test function (no arguments, no results) of a kiln module "
                         "compiled from a check test, googletest style.");
  flags.custom_help("(--module=FILE... | FILE) [--device=URI]");
  flags.positional_help("");
  flags.add_options()  //
      ("module",
       "Module file to load ('-' reads standard input); may also be given as the "
       "positional argument. Repeatable: the modules are linked in order (initializers run in "
       "that order) and a module imports from the modules before it, and the tests are the "
       "last module's",
       cxxopts::value<std::string>())  //
      ("device",
       "HAL device URI: cpu (default), cpu-sync, local-task, local-sync, cpu://N, cuda, "
       "cuda://N, vulkan, vulkan://N",
       cxxopts::value<std::string>()->default_value("cpu"))                      //
      ("parameters", tools::kParametersFlagHelp, cxxopts::value<std::string>())  //
      ("list_devices", "List the devices of every registered driver and exit",
       cxxopts::value<bool>()->default_value("false"))  //
      ("list_drivers", "List the registered HAL drivers and exit",
       cxxopts::value<bool>()->default_value("false"))  //
      ("trace_execution", "Print every executed instruction to stderr",
       cxxopts::value<bool>()->default_value("false"))  //
      ("h,help", "Print this help")                     //
      ("positional", "", cxxopts::value<std::vector<std::string>>());
  tools::AddStandardFlags(flags);
  tools::AddDriverFlags(flags);
  tools::AddCollectiveFlags(flags);
  flags.parse_positional({"positional"});
  try {
    cxxopts::ParseResult result = flags.parse(argc, argv);
    KILN_ASSIGN_OR_RETURN(bool go_on,
                          tools::HandleStandardFlags(flags, result, {"module", "parameters"}));
    if (!go_on) return false;
    KILN_RETURN_IF_ERROR(tools::SinglePositional(result).status());
    options->device_uri = result["device"].as<std::string>();
    options->list_devices = result["list_devices"].as<bool>();
    options->list_drivers = result["list_drivers"].as<bool>();
    options->trace_execution = result["trace_execution"].as<bool>();
    KILN_RETURN_IF_ERROR(tools::ReadDriverFlags(result, &options->drivers));
    if (options->list_devices || options->list_drivers) return true;  // Needs no module.
    KILN_ASSIGN_OR_RETURN(options->collectives,
                          tools::ReadCollectiveFlags(result, tools::ProcessEnvironment()));
    KILN_ASSIGN_OR_RETURN(options->module_paths, tools::ModulePathsFlag(result));
    KILN_ASSIGN_OR_RETURN(options->parameters, tools::ParametersFlag(result));
  } catch (const std::exception& error) {
    return InvalidArgumentError(tools::FlagErrorMessage(error));
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  return kiln::tools::ToolMain<CheckOptions>(argc, argv, ParseFlags, Run);
}
