// Code generation: lowered kiln IR (func/cf/arith/math/util ops; no scf)
// into a .kmod through vm::ModuleBuilder.
//
// Per function: instruction selection onto vm/opcodes.h (with the fused and
// immediate forms: br.lt.*, br.lt.imm.i32.s, add.imm.*, for.step.*), liveness
// analysis, register allocation per bank in which values whose lives do not
// overlap share registers and block-argument copies are coalesced away where
// possible (the rest become parallel copies, swaps included), and emission with
// each instruction's source location in the module's debug table.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "compiler/ir/diagnostics.h"
#include "compiler/ir/ir.h"
#include "compiler/ir/source.h"

namespace kiln::compiler {

struct CodegenOptions {
  // Module name written to the .kmod; empty: the builtin.module's sym_name, or
  // "module" when it has none.
  std::string module_name;
  // Emit the debug table (bytecode offset → file:line:col).
  bool debug_locations = true;
};

// Generates the module. Unsupported types (f16, bf16, tensors, dialect types)
// and other lowering limits are reported as errors at the value's location.
Result<std::vector<uint8_t>> GenerateModule(Operation* module, const SourceManager& sources,
                                            DiagnosticEngine& diagnostics,
                                            const CodegenOptions& options = {});

}  // namespace kiln::compiler
