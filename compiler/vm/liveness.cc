#include "compiler/vm/liveness.h"

#include <algorithm>

namespace kiln::compiler::vm_backend {

ControlFlow AnalyzeControlFlow(const MFunction& mf) {
  const size_t n = mf.blocks.size();
  ControlFlow cfg;
  cfg.rpo_index.assign(n, -1);
  cfg.loop_depth.assign(n, 0);
  cfg.predecessors.resize(n);
  if (n == 0) return cfg;

  auto successors = [&](uint32_t b) -> const std::vector<MEdge>* {
    const MBlock& block = mf.blocks[b];
    return block.insts.empty() ? nullptr : &block.insts.back().edges;
  };

  // Iterative DFS for the post-order.
  std::vector<uint32_t> postorder;
  std::vector<uint8_t> seen(n, 0);
  std::vector<std::pair<uint32_t, size_t>> stack = {{0, 0}};
  seen[0] = 1;
  while (!stack.empty()) {
    auto& [b, next] = stack.back();
    const std::vector<MEdge>* edges = successors(b);
    if (edges && next < edges->size()) {
      uint32_t s = (*edges)[next++].block;
      if (!seen[s]) {
        seen[s] = 1;
        stack.push_back({s, 0});
      }
      continue;
    }
    postorder.push_back(b);
    stack.pop_back();
  }
  cfg.rpo.assign(postorder.rbegin(), postorder.rend());
  for (size_t i = 0; i < cfg.rpo.size(); ++i) cfg.rpo_index[cfg.rpo[i]] = static_cast<int32_t>(i);
  for (uint32_t b : cfg.rpo) {
    const std::vector<MEdge>* edges = successors(b);
    if (!edges) continue;
    for (uint32_t e = 0; e < edges->size(); ++e)
      cfg.predecessors[(*edges)[e].block].push_back({b, e});
  }

  // Dominators (Cooper, Harvey, Kennedy: "A Simple, Fast Dominance Algorithm").
  std::vector<int32_t> idom(n, -1);
  idom[0] = 0;
  auto intersect = [&](int32_t a, int32_t b) {
    while (a != b) {
      while (cfg.rpo_index[a] > cfg.rpo_index[b]) a = idom[a];
      while (cfg.rpo_index[b] > cfg.rpo_index[a]) b = idom[b];
    }
    return a;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 1; i < cfg.rpo.size(); ++i) {
      const uint32_t b = cfg.rpo[i];
      int32_t new_idom = -1;
      for (auto [p, e] : cfg.predecessors[b]) {
        if (idom[p] < 0) continue;
        new_idom =
            new_idom < 0 ? static_cast<int32_t>(p) : intersect(static_cast<int32_t>(p), new_idom);
      }
      if (new_idom != idom[b]) {
        idom[b] = new_idom;
        changed = true;
      }
    }
  }
  // Dominators have smaller RPO indices than the blocks they dominate, so
  // the walk up the dominator tree stops as soon as it passes `a`'s index.
  auto dominates = [&](uint32_t a, uint32_t b) {
    for (int32_t x = static_cast<int32_t>(b);; x = idom[x]) {
      if (x == static_cast<int32_t>(a)) return true;
      if (x == 0 || idom[x] < 0 || cfg.rpo_index[x] < cfg.rpo_index[a]) return false;
    }
  };

  // Natural loops: for each header, the blocks that reach one of its back
  // edges' sources without passing through the header.
  std::vector<uint32_t> mark(n, UINT32_MAX);
  std::vector<uint32_t> work;
  for (uint32_t h : cfg.rpo) {
    work.clear();
    bool is_header = false;
    for (auto [p, e] : cfg.predecessors[h]) {
      // Only a retreating edge (to an earlier block in RPO) can be a back edge.
      if (cfg.rpo_index[p] < cfg.rpo_index[h] || !dominates(h, p)) continue;
      is_header = true;
      if (p != h && mark[p] != h) {
        mark[p] = h;
        work.push_back(p);
      }
    }
    if (!is_header) continue;
    mark[h] = h;
    ++cfg.loop_depth[h];
    for (size_t i = 0; i < work.size(); ++i) {
      const uint32_t b = work[i];
      ++cfg.loop_depth[b];
      for (auto [p, e] : cfg.predecessors[b]) {
        if (mark[p] != h) {
          mark[p] = h;
          work.push_back(p);
        }
      }
    }
  }
  return cfg;
}

Liveness::Liveness(const MFunction& mf, const ControlFlow& cfg) : mf_(mf) {
  const size_t blocks = mf.blocks.size();
  // Defining block of every value, then which values cross blocks.
  std::vector<uint32_t> def_block(mf.vregs.size(), UINT32_MAX);
  for (uint32_t b : cfg.rpo) {
    for (VReg v : mf.blocks[b].args) def_block[v] = b;
    for (const MInst& inst : mf.blocks[b].insts)
      ForEachDef(inst, [&](VReg v) { def_block[v] = b; });
  }
  global_index_.assign(mf.vregs.size(), kLocal);
  auto note_use = [&](VReg v, uint32_t b) {
    if (def_block[v] != b && global_index_[v] == kLocal) {
      global_index_[v] = static_cast<uint32_t>(globals_.size());
      globals_.push_back(v);
    }
  };
  for (uint32_t b : cfg.rpo) {
    for (const MInst& inst : mf.blocks[b].insts) {
      ForEachUse(inst, [&](VReg v) { note_use(v, b); });
      for (const MEdge& edge : inst.edges) {
        for (VReg v : edge.args) note_use(v, b);
      }
    }
  }
  words_ = (globals_.size() + 63) / 64;
  live_in_.assign(blocks * words_, 0);
  if (words_ == 0) return;

  // Upward-exposed uses and definitions of globals, per block.
  std::vector<std::vector<uint32_t>> uses(blocks), defs(blocks);
  std::vector<uint32_t> defined_at(globals_.size(), UINT32_MAX);
  for (uint32_t b : cfg.rpo) {
    auto use = [&](VReg v) {
      const uint32_t g = global_index_[v];
      if (g != kLocal && defined_at[g] != b) uses[b].push_back(g);
    };
    auto def = [&](VReg v) {
      const uint32_t g = global_index_[v];
      if (g != kLocal) {
        defined_at[g] = b;
        defs[b].push_back(g);
      }
    };
    for (VReg v : mf.blocks[b].args) def(v);
    for (const MInst& inst : mf.blocks[b].insts) {
      ForEachUse(inst, use);
      for (const MEdge& edge : inst.edges) {
        for (VReg v : edge.args) use(v);
      }
      ForEachDef(inst, def);
    }
  }

  std::vector<uint64_t> scratch(words_);
  for (bool changed = true; changed;) {
    changed = false;
    for (auto it = cfg.rpo.rbegin(); it != cfg.rpo.rend(); ++it) {
      const uint32_t b = *it;
      LiveOut(b, scratch.data());
      for (uint32_t g : defs[b]) scratch[g / 64] &= ~(uint64_t{1} << (g % 64));
      for (uint32_t g : uses[b]) scratch[g / 64] |= uint64_t{1} << (g % 64);
      uint64_t* in = live_in_.data() + b * words_;
      if (!std::equal(scratch.begin(), scratch.end(), in)) {
        std::copy(scratch.begin(), scratch.end(), in);
        changed = true;
      }
    }
  }
}

void Liveness::LiveOut(uint32_t block, uint64_t* out) const {
  std::fill(out, out + words_, 0);
  const MBlock& b = mf_.blocks[block];
  if (b.insts.empty()) return;
  for (const MEdge& edge : b.insts.back().edges) {
    const uint64_t* in = live_in_.data() + edge.block * words_;
    for (size_t w = 0; w < words_; ++w) out[w] |= in[w];
  }
}

}  // namespace kiln::compiler::vm_backend
