#include "compiler/vm/register_allocation.h"

#include <algorithm>
#include <string>

namespace kiln::compiler::vm_backend {
namespace {

class Allocator {
 public:
  Allocator(const MFunction& mf, const ControlFlow& cfg, const Liveness& liveness)
      : mf_(mf), cfg_(cfg), liveness_(liveness) {}

  Result<Allocation> Run();

 private:
  int BankIndex(VReg v) const { return static_cast<int>(mf_.vregs[v].bank); }
  void Take(VReg v, uint32_t r) {
    result_.reg[v] = static_cast<uint16_t>(r);
    busy_[BankIndex(v)].Insert(r);
    uint32_t& count = result_.counts[BankIndex(v)];
    count = std::max(count, r + 1);
  }
  void Release(VReg v) {
    if (result_.reg[v] != Allocation::kNone) busy_[BankIndex(v)].Erase(result_.reg[v]);
  }
  bool IsFree(VReg v, uint32_t r) const { return !busy_[BankIndex(v)].Contains(r); }
  uint32_t LowestFree(VReg v) const { return busy_[BankIndex(v)].LowestAbsent(); }

  void AssignArguments(uint32_t b);
  Status AllocateBlock(uint32_t b);

  const MFunction& mf_;
  const ControlFlow& cfg_;
  const Liveness& liveness_;
  Allocation result_;
  std::array<RegisterSet, vm::kBankCount> busy_;
  std::vector<uint32_t> uses_;               // Per vreg, edges included.
  std::vector<std::vector<VReg>> partners_;  // Block arguments each value flows into.
  std::vector<uint32_t> live_mark_;          // Backward scan: live after this point.
  std::vector<std::pair<uint32_t, VReg>> kills_, dead_defs_;
  std::vector<VReg> dying_;
};

Result<Allocation> Allocator::Run() {
  const size_t count = mf_.vregs.size();
  result_.reg.assign(count, Allocation::kNone);
  uses_.assign(count, 0);
  partners_.resize(count);
  live_mark_.assign(count, UINT32_MAX);
  for (uint32_t b : cfg_.rpo) {
    for (const MInst& inst : mf_.blocks[b].insts) {
      ForEachUse(inst, [&](VReg v) { ++uses_[v]; });
      for (const MEdge& edge : inst.edges) {
        const std::vector<VReg>& params = mf_.blocks[edge.block].args;
        for (size_t k = 0; k < edge.args.size() && k < params.size(); ++k) {
          ++uses_[edge.args[k]];
          if (edge.args[k] != params[k]) partners_[edge.args[k]].push_back(params[k]);
        }
      }
    }
  }
  for (uint32_t b : cfg_.rpo) KILN_RETURN_IF_ERROR(AllocateBlock(b));
  uint32_t total = 0;
  for (uint32_t c : result_.counts) total += c;
  if (total > vm::kMaxFrameSlots) {
    return ResourceExhaustedError("the function needs " + std::to_string(total) +
                                  " registers; a VM frame holds at most " +
                                  std::to_string(vm::kMaxFrameSlots));
  }
  return std::move(result_);
}

void Allocator::AssignArguments(uint32_t b) {
  const MBlock& block = mf_.blocks[b];
  if (b == 0) {
    // The calling convention: the k-th argument of a bank is its register k.
    std::array<uint32_t, vm::kBankCount> next{};
    for (VReg v : block.args) {
      const uint32_t r = next[BankIndex(v)]++;
      result_.reg[v] = static_cast<uint16_t>(r);
      uint32_t& count = result_.counts[BankIndex(v)];
      count = std::max(count, r + 1);
      if (uses_[v] > 0) busy_[BankIndex(v)].Insert(r);
    }
    return;
  }
  for (size_t k = 0; k < block.args.size(); ++k) {
    const VReg v = block.args[k];
    if (uses_[v] == 0) continue;  // Dead: no register, no copies.
    // The register of an incoming value, from the deepest loop edge first.
    uint32_t best = UINT32_MAX, best_depth = 0;
    for (auto [p, e] : cfg_.predecessors[b]) {
      const MEdge& edge = mf_.blocks[p].insts.back().edges[e];
      if (k >= edge.args.size()) continue;
      const uint16_t r = result_.reg[edge.args[k]];
      if (r == Allocation::kNone || !IsFree(v, r)) continue;
      const uint32_t depth = cfg_.loop_depth[p];
      if (best == UINT32_MAX || depth > best_depth) best = r, best_depth = depth;
    }
    Take(v, best != UINT32_MAX ? best : LowestFree(v));
  }
}

Status Allocator::AllocateBlock(uint32_t b) {
  for (RegisterSet& set : busy_) set.Clear();
  Status status;
  liveness_.ForEachLiveIn(b, [&](VReg v) {
    if (result_.reg[v] == Allocation::kNone) {
      status = InternalError("register allocation: value live into a block before its definition");
      return;
    }
    busy_[BankIndex(v)].Insert(result_.reg[v]);
  });
  KILN_RETURN_IF_ERROR(status);
  AssignArguments(b);

  // Backward scan: which operands each instruction reads last, which
  // results nothing reads.
  const std::vector<MInst>& insts = mf_.blocks[b].insts;
  kills_.clear();
  dead_defs_.clear();
  liveness_.ForEachLiveOut(b, [&](VReg v) { live_mark_[v] = b; });
  for (size_t i = insts.size(); i-- > 0;) {
    const MInst& inst = insts[i];
    const uint32_t index = static_cast<uint32_t>(i);
    ForEachDef(inst, [&](VReg d) {
      if (live_mark_[d] != b) dead_defs_.push_back({index, d});
      live_mark_[d] = UINT32_MAX;
    });
    auto use = [&](VReg u) {
      if (live_mark_[u] != b) {
        kills_.push_back({index, u});
        live_mark_[u] = b;
      }
    };
    for (const MEdge& edge : inst.edges) {
      for (VReg v : edge.args) use(v);
    }
    ForEachUse(inst, use);
  }

  // Forward walk.
  size_t ki = kills_.size(), di = dead_defs_.size();
  for (size_t i = 0; i < insts.size(); ++i) {
    const MInst& inst = insts[i];
    dying_.clear();
    while (ki > 0 && kills_[ki - 1].first == i) dying_.push_back(kills_[--ki].second);
    // for.step writes its result before its edges read their arguments, and
    // compares against its bound after the increment: only the induction
    // variable may share the result's register, and only if nothing else in
    // the instruction reads it.
    const bool in_place = inst.tied != kNoVReg;
    if (!in_place) {
      for (VReg v : dying_) Release(v);
    } else {
      uint32_t reads = 0;
      ForEachUse(inst, [&](VReg v) { reads += v == inst.tied; });
      for (const MEdge& edge : inst.edges) {
        for (VReg v : edge.args) reads += v == inst.tied;
      }
      auto it = std::find(dying_.begin(), dying_.end(), inst.tied);
      if (it != dying_.end() && reads == 1) {
        Release(inst.tied);
        dying_.erase(it);
      }
    }
    ForEachDef(inst, [&](VReg d) {
      uint32_t r = UINT32_MAX;
      if (in_place && result_.reg[inst.tied] != Allocation::kNone &&
          IsFree(d, result_.reg[inst.tied])) {
        r = result_.reg[inst.tied];
      }
      for (size_t k = 0; r == UINT32_MAX && k < partners_[d].size(); ++k) {
        const uint16_t p = result_.reg[partners_[d][k]];
        if (p != Allocation::kNone && IsFree(d, p)) r = p;
      }
      Take(d, r != UINT32_MAX ? r : LowestFree(d));
    });
    while (di > 0 && dead_defs_[di - 1].first == i) Release(dead_defs_[--di].second);
    if (in_place) {
      for (VReg v : dying_) Release(v);
    }
  }
  return OkStatus();
}

}  // namespace

Result<Allocation> AllocateRegisters(const MFunction& mf, const ControlFlow& cfg,
                                     const Liveness& liveness) {
  Allocator allocator(mf, cfg, liveness);
  return allocator.Run();
}

}  // namespace kiln::compiler::vm_backend
