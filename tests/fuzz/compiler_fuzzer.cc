// libFuzzer entry point for the compiler: every input is MLIR text that goes
// through the whole pipeline, stage by stage as compiler/driver/compiler.cc
// runs it: ParseModule, VerifyModule, LowerDispatches (with stand-in
// executables), the passes, VerifyModule again,
// GenerateModule. Whatever the compiler produces is then loaded by the VM
// (whose verifier checks every instruction) and run by the module fuzzer's
// harness (tests/fuzz/module_runner.h: link, invoke every export under an
// execution budget).
//
// Errors reported as diagnostics are expected: most inputs are broken MLIR.
// Findings are crashes and sanitizer reports anywhere in the compiler, and two
// checked invariants whose violation is a compiler bug, so they abort():
//   - IR that verified before the passes must still verify after them;
//   - a module GenerateModule returned must be accepted by the VM's loader.
//
// The same function is compiled into kiln_compiler_fuzz_regression_test,
// which replays tests/fuzz/compiler_corpus/ without libFuzzer.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "base/file_io.h"
#include "compiler/codegen/codegen.h"
#include "compiler/executables/executable_serialization.h"
#include "compiler/ir/diagnostics.h"
#include "compiler/ir/source.h"
#include "compiler/parser/parser.h"
#include "compiler/passes/passes.h"
#include "tests/fuzz/module_runner.h"
#include "vm/bytecode_module.h"
#include "vm/instance.h"

namespace {

using namespace kiln::compiler;

// Prints what broke and the input, then aborts so that libFuzzer saves the
// input as a crash.
[[noreturn]] void CompilerBug(const char* what, const std::string& details,
                              const std::string& input) {
  std::fprintf(stderr, "kiln_compiler_fuzzer: %s\n%s\n--- input ---\n%s\n--- end ---\n", what,
               details.c_str(), input.c_str());
  std::abort();
}

void CompileAndRun(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  SourceManager sources;
  const uint32_t file = sources.AddFile("fuzz.mlir", text);
  DiagnosticEngine diagnostics(sources);

  auto parsed = ParseModule(sources, file, diagnostics);
  if (!parsed.ok()) return;
  Operation* module = parsed->get();
  if (!VerifyModule(module, diagnostics).ok()) return;

  // Executables get a stand-in variant instead of their objects: the fuzzer
  // exercises the dispatch lowering and code generation without reading the
  // files an input names.
  DispatchLoweringOptions lowering;
  lowering.serialize =
      [](const ExecutableSpec&) -> kiln::Result<std::vector<SerializedExecutable>> {
    return std::vector<SerializedExecutable>{
        {"llvm-cpu", "system-elf-x86_64", "", std::vector<uint8_t>(64, 0)}};
  };
  CodegenOptions codegen;
  if (!LowerDispatches(module, diagnostics, lowering, &codegen.executables).ok()) return;
  FoldConstants(module);
  if (!LowerStructuredControlFlow(module, diagnostics).ok()) return;
  SimplifyControlFlow(module);
  FoldConstants(module);
  SimplifyControlFlow(module);
  EliminateDeadCode(module);
  if (kiln::Status status = VerifyModule(module, diagnostics); !status.ok()) {
    CompilerBug("IR that verified does not verify after the passes", status.ToString(), text);
  }

  auto bytes = GenerateModule(module, sources, diagnostics, codegen);
  // Code generation may reject what it cannot lower (f16, tensors, limits).
  if (!bytes.ok()) return;

  // Load once here for the verifier's message, then run it as the module
  // fuzzer does (which loads it again: cheap next to compiling it).
  kiln::Ref<kiln::vm::Instance> instance = kiln::vm::Instance::Create();
  auto loaded = kiln::vm::BytecodeModule::Load(*instance, kiln::AlignedBuffer::CopyOf(*bytes));
  if (!loaded.ok()) {
    CompilerBug("the VM rejected a module the compiler generated", loaded.status().ToString(),
                text);
  }
  (void)kiln::fuzz::RunModuleBytes(*bytes);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Long inputs only make each run slower; the interesting structure is small.
  if (size > 64 * 1024) return 0;
  CompileAndRun(data, size);
  return 0;
}
