// The compiler as a library: MLIR text or a parsed module in, .kmod bytes
// out, through BuildPipeline's passes and the vm dialect's bytecode emission.
// kiln-compile, the compiler fuzzer and tests share these entry points.
//
//   Result<std::vector<uint8_t>> kmod = CompileSource("in.mlir", text, options);
//
// CompileSource renders diagnostics as MLIR does on a terminal
// (`file:line:col: error: message`, the source line and a caret) into the
// error's message; CompileModule and EmitBytecode report them through the
// module's context (its diagnostic handler), as passes do.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "compiler/pipeline/pipeline.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

namespace kiln::compiler {

struct CompileOptions {
  PipelineOptions pipeline;
  // The module's name in the .kmod; empty: the builtin.module's @name, else
  // "module".
  std::string module_name;
  // Emit the debug table (bytecode offset -> file:line:col).
  bool debug_locations = true;
};

// Emits the bytecode of `module`, which BuildPipeline's passes have lowered
// to the vm dialect.
mlir::FailureOr<std::vector<uint8_t>> EmitBytecode(mlir::ModuleOp module,
                                                    const CompileOptions& options);

// Runs BuildPipeline's passes on `module` (verifying after each), then emits.
mlir::FailureOr<std::vector<uint8_t>> CompileModule(mlir::ModuleOp module,
                                                     const CompileOptions& options);

// Parses `text` (named `path` in diagnostics, in the debug table, and as the
// directory relative object paths start from), compiles and emits it. Every
// error is InvalidArgument with the rendered diagnostics as its message.
Result<std::vector<uint8_t>> CompileSource(std::string path, std::string text,
                                           const CompileOptions& options = {});

}  // namespace kiln::compiler
