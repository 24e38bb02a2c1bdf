// Register allocation: every virtual register of a machine function gets a
// register of its bank.
//
// The machine IR is in SSA form, so values interfere exactly when one is live
// at the other's definition, and colouring the values greedily in an order
// where each definition comes after its dominators' (reverse post-order)
// never needs more colours than values live at once (the interference graph
// of an SSA program is chordal). The walk keeps the set of busy registers: at
// a block's entry, the registers of its live-in values; then each
// instruction frees the registers of the operands it reads last (every VM
// instruction reads its operands before writing its result, so the result
// may reuse one) and takes the lowest free register for its result. No
// interference graph is built: the cost is linear in the code plus the
// live-in sets, and the register count per bank is the maximal number of
// values of that bank live at once (plus what preferences cost, see below).
//
// Coalescing is by preference (biased colouring): a block argument takes the
// register of one of its incoming values when that register is free at the
// block's entry, preferring values arriving on the edges of the deepest
// loops; a value that flows into an already coloured block argument (a loop
// back edge) takes that argument's register when it is free at its
// definition; for.step's result takes its induction variable's register. In
// a counted loop the induction variable, the incremented value and the
// accumulators thus share registers and the loop carries no copies. Block
// arguments nothing reads get no register and their copies disappear.
//
// Function arguments are pre-coloured: the k-th argument of a bank is that
// bank's register k, as the VM's calling convention puts it there.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "base/result.h"
#include "compiler/vm/liveness.h"
#include "compiler/vm/machine_function.h"

namespace kiln::compiler::vm_backend {

struct Allocation {
  static constexpr uint16_t kNone = UINT16_MAX;   // Dead block argument, unreachable value.
  std::vector<uint16_t> reg;                      // Per vreg.
  std::array<uint32_t, vm::kBankCount> counts{};  // Registers used per bank.
};

// Fails (with the reason) only when the function needs more registers than a
// VM frame can hold, or on malformed machine IR.
Result<Allocation> AllocateRegisters(const MFunction& mf, const ControlFlow& cfg,
                                     const Liveness& liveness);

// A set of registers of one bank, for the allocator and the copy placement.
class RegisterSet {
 public:
  bool Contains(uint32_t r) const {
    return r / 64 < bits_.size() && (bits_[r / 64] >> (r % 64) & 1);
  }
  void Insert(uint32_t r) {
    if (r / 64 >= bits_.size()) bits_.resize(r / 64 + 1, 0);
    bits_[r / 64] |= uint64_t{1} << (r % 64);
  }
  void Erase(uint32_t r) {
    if (r / 64 < bits_.size()) bits_[r / 64] &= ~(uint64_t{1} << (r % 64));
  }
  void Clear() { std::fill(bits_.begin(), bits_.end(), 0); }
  // The lowest register not in the set.
  uint32_t LowestAbsent() const {
    for (size_t w = 0; w < bits_.size(); ++w) {
      if (~bits_[w]) return static_cast<uint32_t>(w * 64 + __builtin_ctzll(~bits_[w]));
    }
    return static_cast<uint32_t>(bits_.size() * 64);
  }

 private:
  std::vector<uint64_t> bits_;
};

}  // namespace kiln::compiler::vm_backend
