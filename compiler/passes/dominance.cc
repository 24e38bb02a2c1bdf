#include "compiler/passes/dominance.h"

#include <algorithm>
#include <unordered_set>

namespace kiln::compiler {

std::vector<Block*> DominanceInfo::Successors(const Block* block) {
  std::vector<Block*> out;
  const Region* region = block->parent_region();
  for (const auto& op : block->operations()) {
    for (const Successor& s : op->successors) {
      if (!s.block || s.block->parent_region() != region) continue;
      if (std::find(out.begin(), out.end(), s.block) == out.end()) out.push_back(s.block);
    }
  }
  return out;
}

DominanceInfo::DominanceInfo(const Region& region) {
  if (region.empty()) return;

  // Postorder by an explicit-stack DFS (regions can hold thousands of blocks).
  std::vector<Block*> post_order;
  std::unordered_set<const Block*> visited;
  struct Frame {
    Block* block;
    std::vector<Block*> successors;
    size_t next = 0;
  };
  std::vector<Frame> stack;
  stack.push_back({region.front(), Successors(region.front())});
  visited.insert(region.front());
  while (!stack.empty()) {
    Frame& top = stack.back();
    if (top.next < top.successors.size()) {
      Block* succ = top.successors[top.next++];
      if (visited.insert(succ).second) stack.push_back({succ, Successors(succ)});
      continue;
    }
    post_order.push_back(top.block);
    stack.pop_back();
  }
  rpo_.assign(post_order.rbegin(), post_order.rend());
  for (size_t i = 0; i < rpo_.size(); ++i) index_[rpo_[i]] = static_cast<int>(i);

  // Predecessors (reachable ones only), by rpo index.
  const int n = static_cast<int>(rpo_.size());
  std::vector<std::vector<int>> preds(n);
  for (int i = 0; i < n; ++i) {
    for (Block* succ : Successors(rpo_[i])) preds[index_.at(succ)].push_back(i);
  }

  idom_.assign(n, -1);
  idom_[0] = 0;
  auto intersect = [&](int a, int b) {
    while (a != b) {
      while (a > b) a = idom_[a];
      while (b > a) b = idom_[b];
    }
    return a;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (int b = 1; b < n; ++b) {
      int new_idom = -1;
      for (int p : preds[b]) {
        if (idom_[p] == -1) continue;
        new_idom = new_idom == -1 ? p : intersect(p, new_idom);
      }
      if (new_idom != -1 && idom_[b] != new_idom) {
        idom_[b] = new_idom;
        changed = true;
      }
    }
  }

  // Number the dominator tree: a dominates b iff b's interval nests in a's.
  std::vector<std::vector<int>> children(n);
  for (int b = 1; b < n; ++b) children[idom_[b]].push_back(b);
  tree_in_.assign(n, 0);
  tree_out_.assign(n, 0);
  int counter = 0;
  std::vector<std::pair<int, size_t>> walk = {{0, 0}};
  tree_in_[0] = counter++;
  while (!walk.empty()) {
    auto& [node, next] = walk.back();
    if (next < children[node].size()) {
      int child = children[node][next++];
      tree_in_[child] = counter++;
      walk.push_back({child, 0});
      continue;
    }
    tree_out_[node] = counter++;
    walk.pop_back();
  }
}

bool DominanceInfo::Dominates(const Block* a, const Block* b) const {
  auto ia = index_.find(a);
  auto ib = index_.find(b);
  if (ia == index_.end() || ib == index_.end()) return false;
  return tree_in_[ia->second] <= tree_in_[ib->second] &&
         tree_out_[ib->second] <= tree_out_[ia->second];
}

Block* DominanceInfo::ImmediateDominator(const Block* block) const {
  auto it = index_.find(block);
  if (it == index_.end() || it->second == 0) return nullptr;
  return rpo_[idom_[it->second]];
}

}  // namespace kiln::compiler
