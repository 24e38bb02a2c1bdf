// libFuzzer entry point for the compiler: every input is MLIR text that goes
// through the whole MLIR-based pipeline as kiln-compile runs it: parse (with
// kiln's and upstream's dialects registered), verify, every pass of
// BuildPipeline (compiler/pipeline/pipeline.h), bytecode emission. Whatever
// the compiler produces is then loaded by the VM (whose verifier checks every
// instruction) and run by the module fuzzer's harness
// (tests/fuzz/module_runner.h: link, invoke every export under an execution
// budget).
//
// Errors reported as diagnostics are expected: most inputs are broken MLIR.
// Invalid IR must be stopped by verification before any pass sees it.
// Findings are crashes and sanitizer reports anywhere in the compiler, and two
// checked invariants whose violation is a compiler bug, so they abort():
//   - IR that verified before the pipeline must still verify after it (the
//     pipeline runs without per-pass verification so this is checked here);
//   - a module the emission returned must be accepted by the VM's loader.
//
// Executable objects are never read from disk: the pipeline's read_object
// hook hands every object path the same stand-in bytes, so dispatch programs
// exercise serialization, the host passes and the HAL->VM conversion.
//
// The same function is compiled into kiln_compiler_fuzz_regression_test,
// which replays tests/fuzz/compiler_corpus/ without libFuzzer.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "base/file_io.h"
#include "compiler/dialects/registration.h"
#include "compiler/pipeline/compile.h"
#include "compiler/pipeline/pipeline.h"
#include "llvm/Support/SourceMgr.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "tests/fuzz/module_runner.h"
#include "vm/bytecode_module.h"
#include "vm/instance.h"
#include "vm/module_checksum.h"

namespace {

// Prints what broke and the input, then aborts so that libFuzzer saves the
// input as a crash.
[[noreturn]] void CompilerBug(const char* what, const std::string& details,
                              const std::string& input) {
  std::fprintf(stderr, "kiln_compiler_fuzzer: %s\n%s\n--- input ---\n%s\n--- end ---\n", what,
               details.c_str(), input.c_str());
  std::abort();
}

// One context for the whole run: creating one (and loading every dialect) per
// input would dominate the time per input.
mlir::MLIRContext& Context() {
  static mlir::MLIRContext* context = [] {
    mlir::DialectRegistry registry;
    kiln::compiler::RegisterDialects(registry);
    auto* created = new mlir::MLIRContext(registry, mlir::MLIRContext::Threading::DISABLED);
    created->loadAllAvailableDialects();
    // Diagnostics are expected (broken input); keep them off stderr.
    created->printOpOnDiagnostic(false);
    return created;
  }();
  return *context;
}

void CompileAndRun(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  mlir::MLIRContext& context = Context();
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic& diagnostic) {
    diagnostics += diagnostic.str();
    diagnostics += '\n';
    return mlir::success();
  });

  llvm::SourceMgr sources;
  sources.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, "fuzz.mlir"),
                             llvm::SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sources, &context);
  if (!module) return;  // Parsing verifies: invalid IR stops here.

  kiln::compiler::CompileOptions options;
  options.pipeline.read_object =
      [](const std::string&) -> kiln::Result<std::vector<uint8_t>> {
    return std::vector<uint8_t>(64, 0);
  };
  mlir::PassManager pm(&context);
  pm.enableVerifier(false);
  kiln::compiler::BuildPipeline(pm, options.pipeline);
  if (mlir::failed(pm.run(*module))) return;  // Reported errors are expected.
  if (mlir::failed(mlir::verify(*module))) {
    CompilerBug("IR that verified does not verify after the pipeline", diagnostics, text);
  }
  mlir::FailureOr<std::vector<uint8_t>> bytes = kiln::compiler::EmitBytecode(*module, options);
  // Emission may reject what it cannot encode (register or size limits).
  if (mlir::failed(bytes)) return;

  // Load once here for the verifier's message, then run it as the module
  // fuzzer does (which loads it again: cheap next to compiling it).
  kiln::Ref<kiln::vm::Instance> instance = kiln::vm::Instance::Create();
  auto loaded = kiln::vm::BytecodeModule::Load(*instance, kiln::AlignedBuffer::CopyOf(*bytes));
  if (!loaded.ok()) {
    CompilerBug("the VM rejected a module the compiler generated", loaded.status().ToString(),
                text);
  }
  // The module fuzzer's inputs are FlatBuffer bytes, without the trailer.
  (void)kiln::fuzz::RunModuleBytes(
      std::span<const uint8_t>(*bytes).first(bytes->size() - kiln::vm::kModuleTrailerBytes));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Long inputs only make each run slower; the interesting structure is small.
  if (size > 64 * 1024) return 0;
  CompileAndRun(data, size);
  return 0;
}
