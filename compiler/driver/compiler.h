// The compiler driver: MLIR text in, .kmod bytes out, through every stage.
//
//   parse → verify → lower dispatches → fold → memoize command buffers
//   → lower scf → simplify CFG → fold → DCE → verify → codegen
//
// This is the one entry point tools and tests use (kiln-compile is a thin main
// over it). Errors come back as a Status whose message is the rendered
// diagnostics: `file:line:col: error: message`, the source line and a caret.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "compiler/codegen/codegen.h"

namespace kiln::compiler {

struct CompileOptions {
  CodegenOptions codegen;
  // Fill CompileOutput::lowered_ir with the IR as it enters code generation.
  bool print_ir_after_lowering = false;
  // Print `loc(...)` trailers in lowered_ir.
  bool print_locations = false;
  // Where relative executable object paths are looked up after the .mlir
  // file's directory (--object-search-path), in order.
  std::vector<std::string> object_search_paths;
  // Which executable targets to embed: "cpu", "cuda", "vulkan" (--target);
  // empty embeds every declared target.
  std::vector<std::string> targets;
  // Record static command buffers once and replay them with each call's
  // buffers (MemoizeCommandBuffers, passes.h); false records every
  // command buffer on every call (--memoize-command-buffers=false).
  bool memoize_command_buffers = true;
};

struct CompileOutput {
  std::vector<uint8_t> module;  // The .kmod.
  std::string lowered_ir;       // When requested.
};

// Compiles `text`, named `path` in diagnostics and the debug table.
Result<CompileOutput> CompileSource(std::string path, std::string text,
                                    const CompileOptions& options = {});

}  // namespace kiln::compiler
