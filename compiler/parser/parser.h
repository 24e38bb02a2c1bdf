// The parser: MLIR textual syntax (the subset in ir/ops.h) into kiln's IR.
//
// Accepts a `module`/`builtin.module` (named or not, with `attributes {...}`)
// or bare top-level operations (wrapped in an implicit module, as MLIR does);
// type aliases (`!t = i32`) and attribute aliases (`#a = ...`, also location
// aliases `#loc = loc(...)` defined after their use); `//` comments; `loc(...)`
// trailers; the custom (pretty) form of every op in ir/ops.h and MLIR's generic
// form (`%0 = "arith.addi"(%a, %b) : (i32, i32) -> i32`), both producing the
// same Operation shape (documented in ir/ops.h).
//
// Errors go to the DiagnosticEngine as `file:line:col: error: ...` at the
// offending token; the parser never crashes, whatever the input (it is
// fuzzed), and bounds its recursion depth.
#pragma once

#include <memory>

#include "base/result.h"
#include "compiler/ir/diagnostics.h"
#include "compiler/ir/ir.h"
#include "compiler/ir/source.h"

namespace kiln::compiler {

// Parses the text of `file` (added to `sources` with AddFile). Returns the
// builtin.module op, or an error Status after reporting into `diagnostics`.
// Files named by loc() trailers are added to `sources` by name.
Result<std::unique_ptr<Operation>> ParseModule(SourceManager& sources, uint32_t file,
                                               DiagnosticEngine& diagnostics);

}  // namespace kiln::compiler
