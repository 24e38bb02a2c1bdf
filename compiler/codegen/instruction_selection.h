// Instruction selection: one func.func of lowered IR (func/cf/arith/math/util
// ops, no scf) into machine IR (machine_ir.h) over virtual registers.
//
// Narrow integers. i1, i8 and i16 values live in i32 registers in canonical
// form: i8/i16 sign-extended, i1 as 0 or 1. Operations keep that invariant:
//   * results that may leave the range (addi, subi, muli, shli, divsi,
//     ceildivsi/floordivsi, absi, the unsigned divisions/min/max, trunci,
//     fptosi/fptoui) are re-canonicalised with ext.i8.i32.s/ext.i16.i32.s or,
//     for i1, an `and` with 1;
//   * bitwise and/or/xor, shrsi, remsi, maxsi/minsi of canonical values are
//     canonical already (the bits above the width agree with the sign bit);
//   * operations whose result depends on bits above the width see a
//     zero-extended copy (trunc.i32.i8/i16, i.e. and 0xFF/0xFFFF) when they are
//     unsigned (divui, remui, shrui, cmpi ult/ule/ugt/uge, maxui/minui,
//     uitofp, extui, index_castui) and a sign-extended copy when signed; an i1
//     is sign-extended by negation (true is -1 as a signed i1), which is also
//     why signed compares of i1 are unsigned compares with swapped operands;
//   * i1 addi/subi are xor and i1 muli is and (arithmetic modulo 2).
// Shift amounts at or above the width (poison in MLIR) follow the VM's rule:
// the amount is taken modulo 32 (64 for i64), then the result re-canonicalised.
// fptosi/fptoui into a narrow type convert to i32 (saturating, as the VM
// does) and wrap to the width; MLIR calls out-of-range results poison.
//
// Floats. arith.maximumf/minimumf map to max/min.f32/f64, which implement
// IEEE 754-2019 maximum/minimum exactly as MLIR defines them (NaN-propagating,
// -0 < +0). math.round is round.f*, half away from zero like MLIR. rsqrt is
// 1/sqrt(x) (two roundings); exp2 is pow(2, x); log2 is log(x)/ln(2), computed
// in f64 for both widths: exact at every power of two for f32, within 2 ulp
// for f64 (off by one ulp at some powers of two). cmpf false/true are the
// constants 0/1.
//
// Constants. Constants of the entry block (FoldConstants hoists every constant
// there) and the constants selection itself needs (1.0 for rsqrt, the mask 1
// for i1, ...) are pooled: one virtual register per (bank, bits), defined at
// the top of the entry block. Whether one is materialised at all is decided
// later (peephole.h): constants used only as immediates are not.
//
// Control flow. cf.br/cond_br become br/cond_br with edges; cf.switch becomes
// the VM's switch table when the case values are dense (offset by the
// smallest, with a range check for i64 flags), else a compare chain;
// cf.assert becomes a cond_br to a cold block holding `fail "<message>"`,
// located at the assert so the runtime error names the .mlir line. Blocks are
// selected in reverse post-order (values before uses) and laid out in the
// source order; unreachable blocks are dropped.
//
// Functions. func.call of a defined function is `call` by ordinal; of a
// declaration, `call.import` (imports are created by the module stage, see
// codegen.cc); narrow import results are canonicalised, and so are narrow
// arguments of public functions on entry (the host may pass any i32).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "compiler/codegen/machine_ir.h"
#include "compiler/ir/diagnostics.h"
#include "compiler/ir/ir.h"

namespace kiln::compiler::codegen {

// A util.global's place: a byte offset in the module's primitive global
// bytes, or (ref bank) a ref slot index.
struct GlobalSlot {
  uint32_t offset = 0;
  vm::Bank bank = vm::Bank::kI32;
};

// What selection needs to know about the rest of the module.
struct ModuleSymbols {
  // Functions with a body, by name: their ordinals.
  std::unordered_map<std::string, uint32_t> functions;
  // util.globals by name.
  std::unordered_map<std::string, GlobalSlot> globals;
  // The import ordinal for a call to the declaration `name`; reports an error
  // and returns nullopt when it cannot be imported (or does not exist).
  std::function<std::optional<uint32_t>(std::string_view name, const Location& call)> import;
  // Adds a string to the module's string table; returns its ordinal.
  std::function<uint32_t(std::string text)> add_string;
  // vm.rodata symbols: their rodata ordinals (vm.const.ref.rodata).
  std::unordered_map<std::string, uint32_t> rodata;
  // For a call.import tagged `dispatch = @executable::@export` (the dispatch
  // lowering's hal.command_buffer.dispatch): a site id for MInst::site.
  std::function<uint32_t(const Attribute& entry_point)> dispatch_site;
};

// Selects instructions for `func` (a func.func with a body) into `out`.
// `canonicalize_arguments`: re-canonicalise narrow integer arguments on entry
// (public functions). Returns false after reporting errors to `diagnostics`.
bool SelectInstructions(Operation* func, const ModuleSymbols& symbols,
                        DiagnosticEngine& diagnostics, bool canonicalize_arguments, MFunction* out);

}  // namespace kiln::compiler::codegen
