// Machine IR: the code generator's form of one function between instruction
// selection and emission.
//
// An MFunction is a CFG of MBlocks holding VM instructions (vm/opcodes.h)
// whose register operands are virtual registers: SSA values, each defined once
// and belonging to one bank. Blocks take arguments, and a terminator's edges
// pass values to them, exactly as in the IR; register allocation later maps
// every virtual register to a register of its bank, and the emitter turns the
// edges' argument passing into parallel copies.
//
// An MInst stores its fixed operands in opcode-table order, leaving out branch
// targets (the `targets` list picks an edge for each target operand, then for
// each switch-table entry) and the variadic lists (call arguments and return
// values in `list`, call results in `results`). The first register operand is
// the instruction's result for every value-producing opcode, and for.step's
// first register is both read (`tied`, the induction variable) and written
// (the incremented value): see FirstOperandIsDef.
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/ir/source.h"
#include "vm/opcodes.h"

namespace kiln::compiler::codegen {

using VReg = uint32_t;
inline constexpr VReg kNoVReg = UINT32_MAX;

struct MOperand {
  enum class Kind : uint8_t { kVReg, kImmI32, kImmI64, kImmF32, kImmF64, kIndex };
  Kind kind = Kind::kVReg;
  uint64_t value = 0;  // Virtual register, immediate bits or index.

  static MOperand Reg(VReg v) { return {Kind::kVReg, v}; }
  static MOperand I32(int32_t v) { return {Kind::kImmI32, static_cast<uint32_t>(v)}; }
  static MOperand I64(int64_t v) { return {Kind::kImmI64, static_cast<uint64_t>(v)}; }
  static MOperand F32Bits(uint32_t bits) { return {Kind::kImmF32, bits}; }
  static MOperand F64Bits(uint64_t bits) { return {Kind::kImmF64, bits}; }
  static MOperand Index(uint32_t index) { return {Kind::kIndex, index}; }

  bool is_vreg() const { return kind == Kind::kVReg; }
  VReg vreg() const { return static_cast<VReg>(value); }
};

// A control-flow edge: the target block and the values its arguments receive.
struct MEdge {
  uint32_t block = 0;
  std::vector<VReg> args;
};

struct MInst {
  vm::Opcode opcode = vm::Opcode::kCount;
  std::vector<MOperand> operands;  // Fixed operands, table order, no targets.
  std::vector<VReg> list;          // Call arguments or return values.
  std::vector<VReg> results;       // Call results.
  std::vector<MEdge> edges;        // Terminators: the successors.
  std::vector<uint32_t> targets;   // Edge index of each target operand/table entry.
  VReg tied = kNoVReg;             // for.step: the induction variable it increments.
  Location loc;                    // Source location (the op's debug_loc).
  // A dispatch's call.import: the site id from ModuleSymbols::dispatch_site,
  // reported with the call's bytecode offset on emission.
  uint32_t site = UINT32_MAX;

  bool is_terminator() const { return vm::GetOpcodeInfo(opcode).is_terminator(); }
};

struct MBlock {
  std::vector<VReg> args;
  std::vector<MInst> insts;  // The last one is the terminator.
};

struct VRegInfo {
  vm::Bank bank = vm::Bank::kI32;
  bool is_constant = false;  // Defined by a const.* instruction ...
  uint64_t bits = 0;         // ... of this value (i32/f32: low 32 bits).
};

struct MFunction {
  std::vector<MBlock> blocks;    // blocks[0] is the entry; its args are the arguments.
  std::vector<uint32_t> layout;  // Emission order (reachable blocks only).
  std::vector<VRegInfo> vregs;

  VReg NewVReg(vm::Bank bank) {
    vregs.push_back({bank, false, 0});
    return static_cast<VReg>(vregs.size() - 1);
  }
};

// True when the instruction's first operand is the register it writes.
inline bool FirstOperandIsDef(vm::Opcode opcode) {
  if (opcode == vm::Opcode::kForStepI32 || opcode == vm::Opcode::kForStepI64) return true;
  const vm::OpcodeInfo& info = vm::GetOpcodeInfo(opcode);
  return !info.is_terminator() && info.operand_count > 0 && vm::IsRegisterKind(info.operands[0]);
}

// Calls fn(v) for every virtual register `inst` reads (edge arguments, which
// are read on the way out of the block, are not included).
template <typename Fn>
void ForEachUse(const MInst& inst, Fn&& fn) {
  const bool first_is_def = FirstOperandIsDef(inst.opcode);
  for (size_t i = 0; i < inst.operands.size(); ++i) {
    if (!inst.operands[i].is_vreg() || (i == 0 && first_is_def)) continue;
    fn(inst.operands[i].vreg());
  }
  for (VReg v : inst.list) fn(v);
  if (inst.tied != kNoVReg) fn(inst.tied);
}

// Calls fn(v) for every virtual register `inst` writes.
template <typename Fn>
void ForEachDef(const MInst& inst, Fn&& fn) {
  if (FirstOperandIsDef(inst.opcode) && !inst.operands.empty() && inst.operands[0].is_vreg()) {
    fn(inst.operands[0].vreg());
  }
  for (VReg v : inst.results) fn(v);
}

}  // namespace kiln::compiler::codegen
