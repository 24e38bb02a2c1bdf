// The IR-to-IR stages between parsing and code generation, in pipeline order:
//
//   VerifyModule                  semantic checks; every later stage trusts them
//   LowerDispatches               executables, flow.dispatch, tensors → hal module calls
//   FoldConstants                 constant folding and algebraic identities
//   MemoizeCommandBuffers         static command buffers recorded once, replayed per call
//   LowerStructuredControlFlow    scf.if/for/while → cf branches between blocks
//   SimplifyControlFlow           constant branches, trivial blocks, unreachable code
//   EliminateDeadCode             unused pure ops, unused private functions
//
// Each takes the builtin.module op. Stages that can find user errors report
// them to the DiagnosticEngine (`file:line:col: error: ...`) and return a
// failed Status. The transforming stages expect verified IR and keep it valid
// (tests/compiler/passes/robustness_test.cc checks that after each stage), so
// they may run again in any order: running FoldConstants and
// SimplifyControlFlow once more after the lowering folds the guards of loops
// with constant bounds.
//
// Files: verifier.cc, fold_constants.cc (+ constant_eval.h, the VM-exact
// evaluation of one op), lower_scf.cc (the block shapes codegen relies on),
// simplify_control_flow.cc, dead_code.cc, dominance.h (shared by the verifier
// and SimplifyControlFlow), memoize_command_buffers.cc.
#pragma once

#include <functional>
#include <vector>

#include "base/status.h"
#include "compiler/codegen/codegen.h"
#include "compiler/executables/executable_serialization.h"
#include "compiler/ir/diagnostics.h"
#include "compiler/ir/ir.h"

namespace kiln::compiler {

// Checks every op against its shape and typing rules (ir/ops.h), placement
// (module-level ops, terminators at block ends and in the right regions),
// successor argument types against block arguments, SSA dominance (uses in
// unreachable blocks excepted, as MLIR does), symbol uniqueness, callees and
// call signatures, returns against the function type, region terminators
// (scf.yield/condition) against their parents, globals. Reports the first
// problem of each op and keeps going, so one run shows many errors. Never
// crashes, whatever the (parsed or built) IR.
Status VerifyModule(Operation* module, DiagnosticEngine& diagnostics);

struct DispatchLoweringOptions {
  // Turns one hal.executable.source into its embedded variants (normally
  // SerializeExecutable with the driver's ObjectSearch); an empty list means
  // no target of the executable was selected.
  std::function<Result<std::vector<SerializedExecutable>>(const ExecutableSpec&)> serialize;
};

// The debug description of an embedded executable, for code generation.
using LoweredExecutable = CodegenOptions::Executable;

// Lowers hal.executable.source, flow.dispatch, tensor.dim, tensor.empty,
// affine.apply and tensor-typed function signatures into calls of the `hal`
// VM module (declarations of its imports), vm.rodata embedding the
// serialized executables, and ref globals loaded by a `kiln.initializer`
// function; the exact calls are documented in lower_dispatches.cc and
// hal/module/hal_module.h. Expects verified IR. Reports (at the op) objects
// that cannot be serialized, dispatches to an executable left without a
// variant, and tensors used where kiln cannot lower them. Appends each
// executable's description to `executables` when given.
Status LowerDispatches(Operation* module, DiagnosticEngine& diagnostics,
                       const DispatchLoweringOptions& options,
                       std::vector<LoweredExecutable>* executables = nullptr);

// Folds ops whose operands are constants with exactly the semantics of the
// code codegen emits on the VM (constant_eval.h: wrapping integers, shift
// amounts modulo the register width, no folding of a division by zero,
// saturating float→int), and simple integer identities (x + 0, x * 1,
// x * 0, select with a constant condition, cmpi x, x, ...). Hoists every
// constant to the top of its function's entry block, merging equal ones
// (the first keeps its location), and drops constants left unused. Never
// fails.
void FoldConstants(Operation* module);

// Record once, replay many: each one-shot command-buffer segment that
// LowerDispatches emitted (create ... end, queue.execute) whose dispatches
// are static (executables and device from initializer-set globals, every
// ordinal, count, constant, binding offset and length an arith.constant)
// is recorded once per VM context, lazily on its first submission, by a new
// private function into a reusable command buffer kept in a private ref
// global; its bindings become binding-table slots, and each call submits
// it with that call's buffers (hal.device.queue.execute.indirect). Segments
// with dynamic shapes stay one-shot. The exact shapes are documented in
// memoize_command_buffers.cc. Runs after FoldConstants (it needs the
// folded constants) and before LowerStructuredControlFlow (it emits
// scf.if). Expects verified IR and keeps it valid; never fails.
void MemoizeCommandBuffers(Operation* module);

// Rewrites scf.if, scf.for (into a rotated loop: guard, body, latch) and
// scf.while into blocks and cf branches, with the exact shapes documented in
// lower_scf.cc. Afterwards no scf op remains. Fails (reporting at the op) only
// on malformed scf ops, which the verifier rejects first.
Status LowerStructuredControlFlow(Operation* module, DiagnosticEngine& diagnostics);

// Branches on constant conditions (and switches on constant flags) become
// unconditional; a block reached only by a cf.br from one predecessor is
// merged into it; a cf.br to a block that only returns (its arguments or
// values dominating the branch) becomes that return; unreachable blocks are
// removed. Repeats until nothing changes. Applies to function bodies and,
// before lowering, to scf regions.
void SimplifyControlFlow(Operation* module);

// Removes pure ops whose results are unused (transitively) and private
// functions that no live function or other module-level op refers to.
// Globals and declarations that are called stay.
void EliminateDeadCode(Operation* module);

}  // namespace kiln::compiler
