#include "compiler/codegen/emitter.h"

#include <algorithm>
#include <array>
#include <bit>
#include <string>

#include "compiler/codegen/parallel_copy.h"

namespace kiln::compiler::codegen {
namespace {

using vm::Bank;
using vm::Opcode;

Opcode MovOpcode(Bank bank) {
  switch (bank) {
    case Bank::kI32:
      return Opcode::kMovI32;
    case Bank::kI64:
      return Opcode::kMovI64;
    case Bank::kF32:
      return Opcode::kMovF32;
    case Bank::kF64:
      return Opcode::kMovF64;
    default:
      return Opcode::kMovRef;
  }
}

void EmitN(vm::FunctionBuilder& b, Opcode opcode, const std::vector<vm::Operand>& o) {
  switch (o.size()) {
    case 0:
      return b.Emit(opcode, {});
    case 1:
      return b.Emit(opcode, {o[0]});
    case 2:
      return b.Emit(opcode, {o[0], o[1]});
    case 3:
      return b.Emit(opcode, {o[0], o[1], o[2]});
    case 4:
      return b.Emit(opcode, {o[0], o[1], o[2], o[3]});
    default:
      return b.Emit(opcode, {o[0], o[1], o[2], o[3], o[4]});
  }
}

class Emitter {
 public:
  Emitter(const MFunction& mf, const ControlFlow& cfg, const Liveness& liveness,
          const Allocation& allocation, vm::FunctionBuilder& builder,
          const std::function<void(const Location&)>& locate,
          const std::function<void(uint32_t, uint32_t)>& site)
      : mf_(mf),
        cfg_(cfg),
        liveness_(liveness),
        alloc_(allocation),
        b_(builder),
        locate_(locate),
        site_(site) {}

  Status Run();

 private:
  struct EdgeBlock {
    vm::Label label;
    uint32_t target;
    std::vector<RegisterCopy> copies;
    Location loc;
    std::array<RegisterSet, vm::kBankCount> busy;
  };

  uint16_t Reg(VReg v) {
    const uint16_t r = alloc_.reg[v];
    if (r == Allocation::kNone) status_ = InternalError("emission: value without a register");
    return r == Allocation::kNone ? 0 : r;
  }
  Bank BankOf(VReg v) const { return mf_.vregs[v].bank; }
  vm::Operand Convert(const MOperand& o) {
    switch (o.kind) {
      case MOperand::Kind::kVReg:
        return vm::Reg(Reg(o.vreg()));
      case MOperand::Kind::kImmI32:
        return vm::ImmI32(static_cast<int32_t>(static_cast<uint32_t>(o.value)));
      case MOperand::Kind::kImmI64:
        return vm::ImmI64(static_cast<int64_t>(o.value));
      case MOperand::Kind::kImmF32:
        return vm::ImmF32(std::bit_cast<float>(static_cast<uint32_t>(o.value)));
      case MOperand::Kind::kImmF64:
        return vm::ImmF64(std::bit_cast<double>(o.value));
      default:
        return vm::Index(static_cast<uint32_t>(o.value));
    }
  }
  std::vector<uint16_t> Regs(const std::vector<VReg>& vs) {
    std::vector<uint16_t> out;
    out.reserve(vs.size());
    for (VReg v : vs) out.push_back(Reg(v));
    return out;
  }

  void EmitInst(const MInst& inst, const std::vector<vm::Label>& edge_labels);
  void EmitCopies(const std::vector<RegisterCopy>& copies,
                  const std::array<RegisterSet, vm::kBankCount>& busy);
  void EmitTerminator(uint32_t block, const MInst& term);
  // The copies of an edge, trivial ones (already in place) included: they
  // still say which registers the edge needs intact.
  std::vector<RegisterCopy> EdgeCopies(const MEdge& edge) {
    std::vector<RegisterCopy> copies;
    const std::vector<VReg>& params = mf_.blocks[edge.block].args;
    for (size_t k = 0; k < params.size() && k < edge.args.size(); ++k) {
      const uint16_t dst = alloc_.reg[params[k]];
      if (dst == Allocation::kNone) continue;  // Nothing reads the argument.
      const uint16_t src = Reg(edge.args[k]);
      const VRegInfo& info = mf_.vregs[edge.args[k]];
      if (info.is_constant && src != dst) {
        copies.push_back({BankOf(params[k]), dst, 0, true, info.bits});
      } else {
        copies.push_back({BankOf(params[k]), dst, src});
      }
    }
    return copies;
  }
  static bool IsTrivial(const RegisterCopy& c) { return !c.is_constant && c.dst == c.src; }

  const MFunction& mf_;
  const ControlFlow& cfg_;
  const Liveness& liveness_;
  const Allocation& alloc_;
  vm::FunctionBuilder& b_;
  const std::function<void(const Location&)>& locate_;
  const std::function<void(uint32_t, uint32_t)>& site_;
  std::vector<vm::Label> labels_;
  std::vector<EdgeBlock> edge_blocks_;
  Status status_;
};

Status Emitter::Run() {
  labels_.resize(mf_.blocks.size());
  for (uint32_t b : mf_.layout) labels_[b] = b_.NewLabel();
  for (uint32_t b : mf_.layout) {
    if (!cfg_.reachable(b)) continue;
    b_.Bind(labels_[b]);
    const std::vector<MInst>& insts = mf_.blocks[b].insts;
    if (insts.empty() || !insts.back().is_terminator()) {
      return InternalError("emission: block without a terminator");
    }
    for (size_t i = 0; i + 1 < insts.size(); ++i) {
      locate_(insts[i].loc);
      EmitInst(insts[i], {});
    }
    EmitTerminator(b, insts.back());
  }
  for (EdgeBlock& edge : edge_blocks_) {
    b_.Bind(edge.label);
    locate_(edge.loc);
    EmitCopies(edge.copies, edge.busy);
    b_.Emit(Opcode::kBr, {vm::Target(labels_[edge.target])});
  }
  return status_;
}

void Emitter::EmitInst(const MInst& inst, const std::vector<vm::Label>& edge_labels) {
  switch (inst.opcode) {
    case Opcode::kCall:
    case Opcode::kCallImport: {
      std::vector<uint16_t> args = Regs(inst.list), results = Regs(inst.results);
      const uint32_t callee = static_cast<uint32_t>(inst.operands[0].value);
      if (inst.opcode == Opcode::kCall) {
        b_.EmitCall(callee, args, results);
      } else {
        if (inst.site != UINT32_MAX && site_) site_(inst.site, b_.offset());
        b_.EmitCallImport(callee, args, results);
      }
      return;
    }
    case Opcode::kReturn: {
      std::vector<uint16_t> values = Regs(inst.list);
      b_.EmitReturn(std::span<const uint16_t>(values));
      return;
    }
    case Opcode::kSwitch: {
      std::vector<vm::Label> cases;
      for (size_t i = 1; i < inst.targets.size(); ++i)
        cases.push_back(edge_labels[inst.targets[i]]);
      b_.EmitSwitch(Reg(inst.operands[0].vreg()), edge_labels[inst.targets[0]], cases);
      return;
    }
    default:
      break;
  }
  const vm::OpcodeInfo& info = vm::GetOpcodeInfo(inst.opcode);
  std::vector<vm::Operand> operands;
  size_t next_operand = 0, next_target = 0;
  for (int i = 0; i < info.operand_count; ++i) {
    if (info.operands[i] == vm::OperandKind::kTarget) {
      operands.push_back(vm::Target(edge_labels[inst.targets[next_target++]]));
    } else if (next_operand < inst.operands.size()) {
      operands.push_back(Convert(inst.operands[next_operand++]));
    }
  }
  EmitN(b_, inst.opcode, operands);
}

void Emitter::EmitCopies(const std::vector<RegisterCopy>& copies,
                         const std::array<RegisterSet, vm::kBankCount>& busy) {
  std::vector<RegisterCopy> moves = SequenceParallelCopy(copies, [&](Bank bank) {
    return static_cast<uint16_t>(busy[static_cast<int>(bank)].LowestAbsent());
  });
  for (const RegisterCopy& m : moves) {
    if (!m.is_constant) {
      b_.Emit(MovOpcode(m.bank), {vm::Reg(m.dst), vm::Reg(m.src)});
      continue;
    }
    switch (m.bank) {
      case Bank::kI32:
        b_.Emit(Opcode::kConstI32,
                {vm::Reg(m.dst), vm::ImmI32(static_cast<int32_t>(static_cast<uint32_t>(m.bits)))});
        break;
      case Bank::kI64:
        b_.Emit(Opcode::kConstI64, {vm::Reg(m.dst), vm::ImmI64(static_cast<int64_t>(m.bits))});
        break;
      case Bank::kF32:
        b_.Emit(Opcode::kConstF32,
                {vm::Reg(m.dst), vm::ImmF32(std::bit_cast<float>(static_cast<uint32_t>(m.bits)))});
        break;
      default:
        b_.Emit(Opcode::kConstF64, {vm::Reg(m.dst), vm::ImmF64(std::bit_cast<double>(m.bits))});
        break;
    }
  }
}

void Emitter::EmitTerminator(uint32_t block, const MInst& term) {
  const size_t k = term.edges.size();
  std::vector<std::vector<RegisterCopy>> copies(k);
  bool any_copies = false;
  for (size_t e = 0; e < k; ++e) {
    copies[e] = EdgeCopies(term.edges[e]);
    for (const RegisterCopy& c : copies[e]) any_copies |= !IsTrivial(c);
  }
  std::vector<vm::Label> edge_labels(k);
  for (size_t e = 0; e < k; ++e) edge_labels[e] = labels_[term.edges[e].block];
  const bool in_place = term.tied != kNoVReg;
  const VReg def = in_place ? term.operands[0].vreg() : kNoVReg;

  if (!any_copies) {
    locate_(term.loc);
    if (in_place && Reg(def) != Reg(term.tied)) {
      b_.Emit(MovOpcode(BankOf(def)), {vm::Reg(Reg(def)), vm::Reg(Reg(term.tied))});
    }
    EmitInst(term, edge_labels);
    return;
  }

  // Registers busy at the copy points: what the terminator reads and writes,
  // what is live into any target, and every copy's source and destination.
  std::array<RegisterSet, vm::kBankCount> busy;
  std::array<RegisterSet, vm::kBankCount> blocked;
  ForEachUse(term, [&](VReg v) { blocked[static_cast<int>(BankOf(v))].Insert(Reg(v)); });
  if (def != kNoVReg) blocked[static_cast<int>(BankOf(def))].Insert(Reg(def));
  std::vector<std::array<RegisterSet, vm::kBankCount>> live_in(k);
  for (size_t e = 0; e < k; ++e) {
    liveness_.ForEachLiveIn(term.edges[e].block, [&](VReg v) {
      live_in[e][static_cast<int>(BankOf(v))].Insert(Reg(v));
      busy[static_cast<int>(BankOf(v))].Insert(Reg(v));
    });
    for (const RegisterCopy& c : copies[e]) {
      busy[static_cast<int>(c.bank)].Insert(c.dst);
      if (!c.is_constant) busy[static_cast<int>(c.bank)].Insert(c.src);
    }
  }
  ForEachUse(term, [&](VReg v) { busy[static_cast<int>(BankOf(v))].Insert(Reg(v)); });
  if (def != kNoVReg) busy[static_cast<int>(BankOf(def))].Insert(Reg(def));

  locate_(term.loc);
  if (k == 1) {
    EmitCopies(copies[0], busy);
    EmitInst(term, edge_labels);
    return;
  }

  // Which edges' copies may run before the terminator. An edge leaving a
  // loop keeps its copies in an edge block even when hoisting would be safe:
  // hoisted, they would run on every iteration.
  std::vector<RegisterCopy> hoisted;
  for (size_t e = 0; e < k; ++e) {
    if (std::all_of(copies[e].begin(), copies[e].end(), IsTrivial)) continue;
    bool safe = cfg_.loop_depth[term.edges[e].block] >= cfg_.loop_depth[block];
    if (def != kNoVReg) {
      for (VReg v : term.edges[e].args) safe &= v != def;
    }
    for (const RegisterCopy& c : copies[e]) {
      const int bank = static_cast<int>(c.bank);
      if (!safe) break;
      if (IsTrivial(c)) continue;  // Writes nothing.
      if (blocked[bank].Contains(c.dst)) safe = false;
      for (size_t f = 0; safe && f < k; ++f) {
        if (f == e) continue;
        if (live_in[f][bank].Contains(c.dst)) safe = false;
        for (const RegisterCopy& d : copies[f]) {
          if (d.bank != c.bank) continue;
          if (d.reads(c.dst) || (d.dst == c.dst && !(d == c))) safe = false;
        }
      }
    }
    if (!safe) {
      EdgeBlock edge{b_.NewLabel(), term.edges[e].block, copies[e], term.loc, busy};
      edge_labels[e] = edge.label;
      edge_blocks_.push_back(std::move(edge));
      continue;
    }
    for (const RegisterCopy& c : copies[e]) {
      if (!IsTrivial(c) && std::find(hoisted.begin(), hoisted.end(), c) == hoisted.end()) {
        hoisted.push_back(c);
      }
    }
  }
  EmitCopies(hoisted, busy);
  if (in_place && Reg(def) != Reg(term.tied)) {
    b_.Emit(MovOpcode(BankOf(def)), {vm::Reg(Reg(def)), vm::Reg(Reg(term.tied))});
  }
  EmitInst(term, edge_labels);
}

}  // namespace

Status EmitFunction(const MFunction& mf, const ControlFlow& cfg, const Liveness& liveness,
                    const Allocation& allocation, vm::FunctionBuilder& builder,
                    const std::function<void(const Location&)>& locate,
                    const std::function<void(uint32_t site, uint32_t offset)>& site) {
  Emitter emitter(mf, cfg, liveness, allocation, builder, locate, site);
  return emitter.Run();
}

}  // namespace kiln::compiler::codegen
