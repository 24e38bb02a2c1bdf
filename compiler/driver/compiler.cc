#include "compiler/driver/compiler.h"

#include <filesystem>

#include "compiler/executables/executable_serialization.h"
#include "compiler/ir/diagnostics.h"
#include "compiler/ir/printer.h"
#include "compiler/parser/parser.h"
#include "compiler/passes/passes.h"

namespace kiln::compiler {

Result<CompileOutput> CompileSource(std::string path, std::string text,
                                    const CompileOptions& options) {
  KILN_RETURN_IF_ERROR(ValidateTargetNames(options.targets));
  ObjectSearch search;
  search.source_directory = path == "<stdin>" || path == "-"
                                ? std::string()
                                : std::filesystem::path(path).parent_path().string();
  search.search_paths = options.object_search_paths;
  search.selected_targets = options.targets;
  SourceManager sources;
  uint32_t file = sources.AddFile(std::move(path), std::move(text));
  DiagnosticEngine diagnostics(sources);

  auto parsed = ParseModule(sources, file, diagnostics);
  if (!parsed.ok()) {
    return diagnostics.has_errors() ? diagnostics.ToStatus() : parsed.status();
  }
  Operation* module = parsed->get();
  KILN_RETURN_IF_ERROR(VerifyModule(module, diagnostics));

  DispatchLoweringOptions lowering;
  lowering.serialize = [&search](const ExecutableSpec& spec) {
    return SerializeExecutable(spec, search);
  };
  CodegenOptions codegen = options.codegen;
  KILN_RETURN_IF_ERROR(LowerDispatches(module, diagnostics, lowering, &codegen.executables));
  FoldConstants(module);
  if (options.memoize_command_buffers) MemoizeCommandBuffers(module);
  KILN_RETURN_IF_ERROR(LowerStructuredControlFlow(module, diagnostics));
  SimplifyControlFlow(module);
  FoldConstants(module);
  SimplifyControlFlow(module);
  EliminateDeadCode(module);
  // The passes must leave valid IR; a failure here is a compiler bug, but it
  // is reported like any error rather than generating a broken module.
  if (Status status = VerifyModule(module, diagnostics); !status.ok()) {
    return InternalError("IR invalid after lowering (compiler bug):\n" + status.message());
  }

  CompileOutput output;
  if (options.print_ir_after_lowering) {
    PrintOptions print;
    print.locations = options.print_locations;
    print.sources = &sources;
    output.lowered_ir = PrintOperation(*module, print);
  }
  auto bytes = GenerateModule(module, sources, diagnostics, codegen);
  if (!bytes.ok()) return diagnostics.has_errors() ? diagnostics.ToStatus() : bytes.status();
  output.module = std::move(*bytes);
  return output;
}

}  // namespace kiln::compiler
