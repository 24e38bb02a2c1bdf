// Dominance over the control-flow graph of one region: block A dominates block
// B when every path from the region's entry block to B passes through A.
//
// The verifier uses it for SSA dominance (a value defined in block A may be
// used in block B only if A dominates B) and SimplifyControlFlow to know which
// values a rewritten branch may still refer to. The edges are the successors
// of the ops in each block that lie in the same region; successors in another
// region (which the verifier reports) are ignored so that malformed IR never
// breaks the analysis.
//
// Built with the iterative algorithm of Cooper, Harvey and Kennedy ("A Simple,
// Fast Dominance Algorithm") over a reverse postorder, then numbered by a walk
// of the dominator tree so each query is two comparisons.
#pragma once

#include <unordered_map>
#include <vector>

#include "compiler/ir/ir.h"

namespace kiln::compiler {

class DominanceInfo {
 public:
  explicit DominanceInfo(const Region& region);

  // Whether `block` (of this region) can be reached from the entry block.
  bool IsReachable(const Block* block) const { return index_.count(block) != 0; }

  // Whether `a` dominates `b` (a block dominates itself). False when either
  // block is unreachable or not in the region.
  bool Dominates(const Block* a, const Block* b) const;

  // The immediate dominator of a reachable block; null for the entry block and
  // for unreachable blocks.
  Block* ImmediateDominator(const Block* block) const;

  // The reachable blocks in reverse postorder (the entry block first).
  const std::vector<Block*>& reverse_post_order() const { return rpo_; }

  // Distinct successors of `block` that lie in `block`'s own region, in order
  // of first appearance.
  static std::vector<Block*> Successors(const Block* block);

 private:
  std::vector<Block*> rpo_;
  std::unordered_map<const Block*, int> index_;  // Position in rpo_.
  std::vector<int> idom_;                        // Per rpo index.
  std::vector<int> tree_in_, tree_out_;          // Dominator-tree DFS interval.
};

}  // namespace kiln::compiler
