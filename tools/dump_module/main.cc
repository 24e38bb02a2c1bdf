// kiln-dump-module FILE [--output=text|json]: loads and verifies a .kmod and
// prints its metadata and the disassembly of every function (what is printed:
// module_dump.h; the instruction notation: vm/disassembler.h).
//
//   kiln-dump-module fib.kmod
//   kiln-dump-module --output=json fib.kmod | python3 -m json.tool
//
// A missing, corrupt or unverifiable module is one "error: ..." line on
// stderr and exit code 1. --flagfile=FILE reads more flags from a file
// (tools/common/flagfile.h); --version prints kiln's version.
#include <cstdio>
#include <cxxopts.hpp>
#include <exception>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "tools/common/flags.h"
#include "tools/dump_module/module_dump.h"
#include "vm/bytecode_module.h"
#include "vm/instance.h"

namespace {

using namespace kiln;

struct DumpOptions {
  std::string module_path;  // "-" reads standard input.
  bool json = false;
};

// Parses the command line into `options`; returns false after --help.
Result<bool> ParseFlags(int argc, char** argv, DumpOptions* options) {
  cxxopts::Options flags("kiln-dump-module", "Prints a kiln module's metadata and disassembly.");
  flags.custom_help("[--output=text|json] FILE");
  flags.positional_help("");
  flags.add_options()  //
      ("output", "Output format: text or json",
       cxxopts::value<std::string>()->default_value("text"))  //
      ("h,help", "Print this help")                           //
      ("positional", "", cxxopts::value<std::vector<std::string>>());
  tools::AddStandardFlags(flags);
  flags.parse_positional({"positional"});
  try {
    cxxopts::ParseResult result = flags.parse(argc, argv);
    KILN_ASSIGN_OR_RETURN(bool go_on, tools::HandleStandardFlags(flags, result, {}));
    if (!go_on) return false;
    KILN_ASSIGN_OR_RETURN(std::optional<std::string> module_path, tools::SinglePositional(result));
    if (!module_path) return InvalidArgumentError("no module file given");
    options->module_path = *module_path;
    const std::string output = result["output"].as<std::string>();
    if (output != "text" && output != "json") {
      return InvalidArgumentError("--output must be text or json, not '" + output + "'");
    }
    options->json = output == "json";
  } catch (const std::exception& error) {
    return InvalidArgumentError(tools::FlagErrorMessage(error));
  }
  return true;
}

Status Dump(const DumpOptions& options) {
  Ref<vm::Instance> instance = vm::Instance::Create();
  Ref<vm::BytecodeModule> module;
  if (options.module_path == "-") {
    KILN_ASSIGN_OR_RETURN(AlignedBuffer bytes, ReadFile("-"));
    auto loaded = vm::BytecodeModule::Load(*instance, std::move(bytes));
    if (!loaded.ok()) return loaded.status().WithContext("loading <stdin>");
    module = std::move(*loaded);
  } else {
    KILN_ASSIGN_OR_RETURN(module, vm::BytecodeModule::LoadFile(*instance, options.module_path));
  }
  KILN_ASSIGN_OR_RETURN(std::string text, options.json ? tools::DumpModuleJson(*module)
                                                       : tools::DumpModuleText(*module));
  std::fwrite(text.data(), 1, text.size(), stdout);
  return OkStatus();
}

}  // namespace

int main(int argc, char** argv) {
  return kiln::tools::ToolMain<DumpOptions>(argc, argv, ParseFlags,
                                            [](const DumpOptions& options) -> kiln::Result<int> {
                                              KILN_RETURN_IF_ERROR(Dump(options));
                                              return 0;
                                            });
}
