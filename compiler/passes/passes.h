// The IR-to-IR stages between parsing and code generation, in pipeline order:
//
//   VerifyModule                  semantic checks; every later stage trusts them
//   FoldConstants                 constant folding and algebraic identities
//   LowerStructuredControlFlow    scf.if/for/while → cf branches between blocks
//   SimplifyControlFlow           constant branches, trivial blocks, unreachable code
//   EliminateDeadCode             unused pure ops, unused private functions
//
// Each takes the builtin.module op. Stages that can find user errors report
// them to the DiagnosticEngine (`file:line:col: error: ...`) and return a
// failed Status.
#pragma once

#include "base/status.h"
#include "compiler/ir/diagnostics.h"
#include "compiler/ir/ir.h"

namespace kiln::compiler {

// Checks every op against its shape and typing rules (ir/ops.h), terminators,
// successor argument types against block arguments, SSA dominance, symbol
// uniqueness, callees and call signatures, returns against the function type,
// region terminators (scf.yield/condition) against their parents, globals.
Status VerifyModule(Operation* module, DiagnosticEngine& diagnostics);

// Folds ops whose operands are constants (with exactly the VM's semantics:
// wrapping integers, no folding of a division by zero, saturating float→int),
// and simple identities (x + 0, x * 1, select with a constant condition, ...).
// Hoists constants to the entry block of their function so they are
// materialised once. Never fails.
void FoldConstants(Operation* module);

// Rewrites scf.if, scf.for and scf.while into blocks and cf branches (shapes in
// lower_scf.cc). Afterwards no scf op remains.
Status LowerStructuredControlFlow(Operation* module, DiagnosticEngine& diagnostics);

// Branches on constant conditions become unconditional; blocks reached by a
// single unconditional branch are merged into their predecessor; a branch to a
// block that only returns its arguments becomes that return; unreachable blocks
// are removed.
void SimplifyControlFlow(Operation* module);

// Removes pure ops whose results are unused (transitively) and private
// functions nothing calls.
void EliminateDeadCode(Operation* module);

}  // namespace kiln::compiler
