// kiln-compile: MLIR text → .kmod.
//
//   kiln-compile in.mlir -o out.kmod
//   cat in.mlir | kiln-compile - -o - > out.kmod
//   kiln-compile in.mlir --print-ir-after-lowering -o /dev/null
//   kiln-compile kernels.mlir --target=cuda,vulkan --object-search-path=build/ -o k.kmod
//   kiln-compile in.mlir --memoize-command-buffers=false -o out.kmod   (record every call)
//
// Diagnostics go to stderr as `file:line:col: error: ...` with the source line
// and a caret; any error exits with status 1.
#include <cstdio>
#include <cxxopts.hpp>
#include <exception>
#include <iostream>
#include <string>

#include "base/file_io.h"
#include "compiler/driver/compiler.h"
#include "compiler/executables/executable_serialization.h"

namespace {

int Fail(const std::string& message) {
  std::fputs(message.c_str(), stderr);
  if (message.empty() || message.back() != '\n') std::fputc('\n', stderr);
  return 1;
}

int Run(int argc, char** argv) {
  cxxopts::Options options("kiln-compile", "Compiles an MLIR program into a kiln module (.kmod).");
  options.positional_help("INPUT.mlir");
  options.add_options()
      ("o,output", "Output .kmod path ('-' for stdout)", cxxopts::value<std::string>())
      ("input", "Input .mlir path ('-' for stdin)", cxxopts::value<std::string>())
      ("print-ir-after-lowering", "Print the IR as it enters code generation to stdout "
                                  "(or stderr when the module goes to stdout)")
      ("print-locations", "With --print-ir-after-lowering, print loc(...) on each op")
      ("module-name", "Module name (default: the module's @name, else 'module')",
       cxxopts::value<std::string>())
      ("strip-debug-info", "Do not write source locations into the module")
      ("target", "Executable targets to embed: cpu, cuda, vulkan (comma list or repeated; "
                 "default: every declared target)",
       cxxopts::value<std::vector<std::string>>())
      ("memoize-command-buffers",
       "Record each static block's command buffer once (on its first call) and replay it with "
       "each call's buffers; false records it on every call",
       cxxopts::value<bool>()->default_value("true"))
      ("object-search-path", "Directory searched for relative executable object paths after "
                             "the input's directory (repeatable)",
       cxxopts::value<std::vector<std::string>>())
      ("h,help", "Show this help");
  options.parse_positional({"input"});

  cxxopts::ParseResult args;
  try {
    args = options.parse(argc, argv);
  } catch (const cxxopts::exceptions::exception& e) {
    return Fail(std::string("error: ") + e.what() + " (see --help)");
  }
  if (args.count("help")) {
    std::cout << options.help() << "\n";
    return 0;
  }
  if (!args.count("input")) return Fail("error: no input file (see --help)");
  if (!args.count("output")) return Fail("error: no output file: pass -o FILE (or -o -)");
  std::string input = args["input"].as<std::string>();
  std::string output = args["output"].as<std::string>();

  auto text = kiln::ReadFile(input);
  if (!text.ok()) return Fail("error: " + text.status().message());

  kiln::compiler::CompileOptions compile;
  compile.print_ir_after_lowering = args.count("print-ir-after-lowering") > 0;
  compile.print_locations = args.count("print-locations") > 0;
  compile.codegen.debug_locations = args.count("strip-debug-info") == 0;
  compile.memoize_command_buffers = args["memoize-command-buffers"].as<bool>();
  if (args.count("module-name")) compile.codegen.module_name = args["module-name"].as<std::string>();
  if (args.count("object-search-path")) {
    compile.object_search_paths = args["object-search-path"].as<std::vector<std::string>>();
  }
  if (args.count("target")) {
    // cxxopts splits each value at commas; empty pieces (`--target=cpu,`) are dropped.
    for (const std::string& target : args["target"].as<std::vector<std::string>>()) {
      if (!target.empty()) compile.targets.push_back(target);
    }
    if (kiln::Status valid = kiln::compiler::ValidateTargetNames(compile.targets); !valid.ok()) {
      return Fail("error: " + valid.message());
    }
  }

  std::string path = input == "-" ? "<stdin>" : input;
  auto compiled = kiln::compiler::CompileSource(
      path, std::string(reinterpret_cast<const char*>(text->data()), text->size()), compile);
  if (!compiled.ok()) {
    const kiln::Status& status = compiled.status();
    // Diagnostics are already complete `file:line:col: error:` lines.
    if (status.code() == kiln::StatusCode::kInvalidArgument) return Fail(status.message());
    return Fail("error: " + status.message());
  }
  if (compile.print_ir_after_lowering) {
    std::FILE* ir_stream = output == "-" ? stderr : stdout;
    std::fputs(compiled->lowered_ir.c_str(), ir_stream);
  }
  kiln::Status written = kiln::WriteFile(output, compiled->module);
  if (!written.ok()) return Fail("error: " + written.message());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const std::exception& error) {  // Out of memory, at worst: an error, not an abort.
    return Fail(std::string("error: ") + error.what());
  }
}
