// Code generation: lowered kiln IR (func/cf/arith/math/util ops; no scf)
// into a .kmod through vm::ModuleBuilder.
//
// The module stage (codegen.cc) lays out util.globals in the module's global
// bytes (8-byte values first, then 4-byte ones; non-zero initial values are
// stored by a generated `__init` initializer) and ref globals in ref slots,
// embeds vm.rodata ops as rodata, turns called declarations
// `func.func private @mod.fn` into imports (named by an `import_name` string
// attribute when present, so one import may have declarations of several
// concrete signatures), makes functions marked `kiln.initializer` part of the
// module initializer, exports public functions with their MLIR types as
// reflection, and runs the per-function pipeline:
//
//   instruction_selection.h  IR ops → machine IR over virtual registers
//                            (narrow-integer canonical forms, op expansions)
//   peephole.h               br.lt.* / br.lt.imm.i32.s fusion, for.step,
//                            add.imm.*, unmaterialised constants
//   liveness.h               CFG order, loop depths, live-in sets
//   register_allocation.h    SSA greedy colouring per bank with coalescing
//                            preferences (loops carry no copies)
//   emitter.h                bytecode, with block-argument parallel copies
//                            (parallel_copy.h) and source locations
//
// Every function's bytecode passes the VM verifier: blocks are entered only by
// branches, every function ends in a terminator.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "compiler/ir/diagnostics.h"
#include "compiler/ir/ir.h"
#include "compiler/ir/source.h"
#include "vm/module_builder.h"

namespace kiln::compiler {

struct CodegenOptions {
  // Module name written to the .kmod; empty: the builtin.module's sym_name, or
  // "module" when it has none.
  std::string module_name;
  // Emit the debug table (bytecode offset → file:line:col).
  bool debug_locations = true;
  // Executables embedded by the dispatch lowering (LowerDispatches), for the
  // module's `executables` debug table: each description without rodata
  // ordinals and dispatch sites, which code generation fills in (the variants'
  // vm.rodata symbols name the data; calls tagged `dispatch = @ex::@export`
  // are the sites).
  struct Executable {
    vm::ExecutableDescription description;
    std::vector<std::string> variant_rodata;  // Per variant: its vm.rodata symbol.
  };
  std::vector<Executable> executables;
};

// Generates the module. Unsupported types (f16, bf16, tensors, dialect types)
// and other lowering limits are reported as errors at the value's location.
Result<std::vector<uint8_t>> GenerateModule(Operation* module, const SourceManager& sources,
                                            DiagnosticEngine& diagnostics,
                                            const CodegenOptions& options = {});

}  // namespace kiln::compiler
