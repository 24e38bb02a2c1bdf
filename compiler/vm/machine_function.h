// The register allocator's and emitter's view of one vm.func: a CFG of blocks
// whose instructions read and write virtual registers (one per SSA value of
// the function, each in one bank).
//
// Blocks take arguments and a terminator's edges pass values to them, as in
// the IR; each MInst points back at its op (emission reads the opcode's
// immediates and symbols from it). for.step is the one op that defines a value
// the IR has no result for: the incremented induction variable, which its body
// edge passes as a produced first operand (SuccessorOperands(1, ...)); here it
// is the instruction's def, `tied` to the induction variable it increments in
// place, and the body edge's first argument.
//
// Constants (vm.const.{i32,i64,f32,f64}) are marked, so an edge can
// rematerialise a constant into its target's register instead of moving it.
#pragma once

#include <cstdint>
#include <vector>

#include "llvm/ADT/DenseMap.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "vm/opcodes.h"

namespace kiln::compiler::VM {
class FuncOp;
}  // namespace kiln::compiler::VM

namespace kiln::compiler::vm_backend {

using VReg = uint32_t;
inline constexpr VReg kNoVReg = UINT32_MAX;

// A control-flow edge: the target block and the values its arguments receive.
struct MEdge {
  uint32_t block = 0;
  std::vector<VReg> args;
};

struct MInst {
  mlir::Operation* op = nullptr;
  vm::Opcode opcode = vm::Opcode::kCount;
  std::vector<VReg> uses;   // Registers read (not edge arguments), operand order.
  std::vector<VReg> defs;   // Registers written: results, or for.step's increment.
  std::vector<MEdge> edges; // Terminators: the successors, in successor order.
  VReg tied = kNoVReg;      // for.step: the induction variable it increments.

  bool is_terminator() const { return vm::GetOpcodeInfo(opcode).is_terminator(); }
};

struct MBlock {
  mlir::Block* block = nullptr;
  std::vector<VReg> args;
  std::vector<MInst> insts;  // The last one is the terminator.
};

struct VRegInfo {
  vm::Bank bank = vm::Bank::kI32;
  bool is_constant = false;  // Defined by a vm.const.* op ...
  uint64_t bits = 0;         // ... of this value (i32/f32: low 32 bits).
};

struct MFunction {
  std::vector<MBlock> blocks;  // blocks[0] is the entry; its args are the arguments.
  std::vector<VRegInfo> vregs;
  llvm::DenseMap<mlir::Value, VReg> vreg_of;

  VReg NewVReg(vm::Bank bank) {
    vregs.push_back({bank, false, 0});
    return static_cast<VReg>(vregs.size() - 1);
  }
};

// Builds the machine view of `func`; reports (emitError) and fails on ops
// that are not opcode ops or values without a bank (the dialect's verifier
// rejects those, so this only happens on unverified IR).
mlir::LogicalResult BuildMachineFunction(VM::FuncOp func, MFunction* out);

template <typename Fn>
void ForEachUse(const MInst& inst, Fn&& fn) {
  for (VReg v : inst.uses) fn(v);
}
template <typename Fn>
void ForEachDef(const MInst& inst, Fn&& fn) {
  for (VReg v : inst.defs) fn(v);
}

}  // namespace kiln::compiler::vm_backend
