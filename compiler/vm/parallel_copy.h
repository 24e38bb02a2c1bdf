// Parallel copies: the register moves that pass a branch's arguments to its
// target block's arguments. All copies of one edge happen at once
// semantically (`a, b = b, a`), so they are sequenced: a move is emitted only
// once no pending copy still reads its destination, and a cycle (a ← b,
// b ← a; a ← b, b ← c, c ← a) is broken by saving one register of the cycle
// in a scratch register of its bank first. A copy of a constant is
// rematerialised (`const` into the destination) instead: it reads no
// register, so it never takes part in a cycle, and is emitted after the moves.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "vm/opcodes.h"

namespace kiln::compiler::vm_backend {

struct RegisterCopy {
  vm::Bank bank = vm::Bank::kI32;
  uint16_t dst = 0;
  uint16_t src = 0;          // Unused for a constant.
  bool is_constant = false;  // dst = `bits` (the constant's value) instead of a move.
  uint64_t bits = 0;

  bool reads(uint16_t reg) const { return !is_constant && src == reg; }
  friend bool operator==(const RegisterCopy&, const RegisterCopy&) = default;
};

// Orders `copies` (distinct destinations per bank) into moves (and constant
// loads, last) with the same effect. `scratch` returns a register of the given bank that no copy
// reads or writes and that holds nothing live; it is called only for cycles.
std::vector<RegisterCopy> SequenceParallelCopy(std::vector<RegisterCopy> copies,
                                               const std::function<uint16_t(vm::Bank)>& scratch);

}  // namespace kiln::compiler::vm_backend
