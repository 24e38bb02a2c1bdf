// Control-flow and liveness analysis of a machine function, for register
// allocation and copy placement.
//
// ControlFlow: the reachable blocks in reverse post-order (every block after
// its dominators, so every value's definition is visited before its uses),
// each block's incoming edges, and loop depths (natural loops of the back
// edges whose target dominates their source, found with the
// Cooper-Harvey-Kennedy dominator algorithm); the allocator prefers to
// coalesce the copies on deep edges.
//
// Liveness: classic backward data flow, iterated to a fixed point in
// post-order:  live_out(B) = ∪ live_in(S) over successors S;
// live_in(B) = upward-exposed uses(B) ∪ (live_out(B) − defs(B)). Block
// arguments are defined at their block's entry and edge arguments are read at
// the end of the predecessor, as SSA φ operands are. Only "global" values —
// used in a block other than the one defining them — take part, as dense bit
// sets; values local to one block never cross a block boundary.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "compiler/vm/machine_function.h"

namespace kiln::compiler::vm_backend {

struct ControlFlow {
  std::vector<uint32_t> rpo;         // Reachable blocks, reverse post-order.
  std::vector<int32_t> rpo_index;    // Per block; -1 when unreachable.
  std::vector<uint32_t> loop_depth;  // Per block.
  // Per block: incoming edges as (predecessor block, edge index in its terminator).
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> predecessors;

  bool reachable(uint32_t block) const { return rpo_index[block] >= 0; }
};

ControlFlow AnalyzeControlFlow(const MFunction& mf);

class Liveness {
 public:
  Liveness(const MFunction& mf, const ControlFlow& cfg);

  bool is_global(VReg v) const { return global_index_[v] != kLocal; }
  bool LiveIn(uint32_t block, VReg v) const {
    const uint32_t g = global_index_[v];
    return g != kLocal && (live_in_[block * words_ + g / 64] >> (g % 64) & 1);
  }
  // Calls fn(v) for every value live on entry to `block` (arguments excluded).
  template <typename Fn>
  void ForEachLiveIn(uint32_t block, Fn&& fn) const {
    ForEachBit(live_in_.data() + block * words_, fn);
  }
  // Calls fn(v) for every value live on exit from `block` (the union of its
  // successors' live-in sets; edge arguments excluded).
  template <typename Fn>
  void ForEachLiveOut(uint32_t block, Fn&& fn) const {
    scratch_.resize(words_);
    LiveOut(block, scratch_.data());
    ForEachBit(scratch_.data(), fn);
  }

 private:
  static constexpr uint32_t kLocal = UINT32_MAX;
  void LiveOut(uint32_t block, uint64_t* out) const;
  template <typename Fn>
  void ForEachBit(const uint64_t* bits, Fn&& fn) const {
    for (size_t w = 0; w < words_; ++w) {
      for (uint64_t word = bits[w]; word; word &= word - 1) {
        fn(globals_[w * 64 + static_cast<size_t>(__builtin_ctzll(word))]);
      }
    }
  }

  const MFunction& mf_;
  std::vector<uint32_t> global_index_;  // Per vreg: dense index, or kLocal.
  std::vector<VReg> globals_;           // Dense index → vreg.
  size_t words_ = 0;
  std::vector<uint64_t> live_in_;  // blocks × words_
  mutable std::vector<uint64_t> scratch_;
};

}  // namespace kiln::compiler::vm_backend
