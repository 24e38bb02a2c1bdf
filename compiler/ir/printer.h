// The printer: kiln IR as MLIR text, in the ops' custom (pretty) forms, so
// `kiln-compile --print-ir-after-lowering` output reads like MLIR and parses
// back (the printer and parser round-trip).
#pragma once

#include <string>

#include "compiler/ir/ir.h"
#include "compiler/ir/source.h"

namespace kiln::compiler {

struct PrintOptions {
  // Print MLIR's generic form for every op instead of the custom forms.
  bool generic = false;
  // Append `loc("file":line:col)` to every op (needs `sources`).
  bool locations = false;
  const SourceManager* sources = nullptr;
};

// Prints `op` (usually a builtin.module) and everything nested in it. Values
// keep their source names where unique, others are numbered (%0, %1, ...).
std::string PrintOperation(const Operation& op, const PrintOptions& options = {});

}  // namespace kiln::compiler
