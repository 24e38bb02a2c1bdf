#include "compiler/codegen/peephole.h"

#include <algorithm>
#include <optional>
#include <utility>

namespace kiln::compiler::codegen {
namespace {

using vm::Opcode;

std::vector<uint32_t> CountUses(const MFunction& mf) {
  std::vector<uint32_t> uses(mf.vregs.size(), 0);
  for (uint32_t b : mf.layout) {
    for (const MInst& inst : mf.blocks[b].insts) {
      ForEachUse(inst, [&](VReg v) { ++uses[v]; });
      for (const MEdge& edge : inst.edges) {
        for (VReg v : edge.args) ++uses[v];
      }
    }
  }
  return uses;
}

// Index of the instruction of `block` (before its terminator) defining `v`.
std::optional<size_t> FindDef(const MBlock& block, VReg v) {
  for (size_t i = block.insts.size() - 1; i-- > 0;) {
    const MInst& inst = block.insts[i];
    if (FirstOperandIsDef(inst.opcode) && inst.operands[0].is_vreg() &&
        inst.operands[0].vreg() == v) {
      return i;
    }
  }
  return std::nullopt;
}

// The constant value of `v` as a signed integer of its bank.
std::optional<int64_t> IntConstant(const MFunction& mf, VReg v) {
  const VRegInfo& info = mf.vregs[v];
  if (!info.is_constant) return std::nullopt;
  if (info.bank == vm::Bank::kI32) return static_cast<int32_t>(static_cast<uint32_t>(info.bits));
  if (info.bank == vm::Bank::kI64) return static_cast<int64_t>(info.bits);
  return std::nullopt;
}

bool FitsInt32(int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; }

int32_t WrapNegate32(int64_t v) { return static_cast<int32_t>(0u - static_cast<uint32_t>(v)); }

// 1. cmp + cond_br → br.lt.
void FuseCompareBranch(MBlock& block, const std::vector<uint32_t>& uses) {
  MInst& term = block.insts.back();
  if (term.opcode != Opcode::kCondBr) return;
  const VReg condition = term.operands[0].vreg();
  if (uses[condition] != 1) return;
  std::optional<size_t> def = FindDef(block, condition);
  if (!def) return;
  const MInst& cmp = block.insts[*def];
  bool swap_operands = false, swap_targets = false, is64 = false;
  switch (cmp.opcode) {
    case Opcode::kCmpLtSI64:
      is64 = true;
      [[fallthrough]];
    case Opcode::kCmpLtSI32:
      break;
    case Opcode::kCmpGtSI64:
      is64 = true;
      [[fallthrough]];
    case Opcode::kCmpGtSI32:
      swap_operands = true;  // a > b ⇔ b < a
      break;
    case Opcode::kCmpGeSI64:
      is64 = true;
      [[fallthrough]];
    case Opcode::kCmpGeSI32:
      swap_targets = true;  // a >= b ⇔ !(a < b)
      break;
    case Opcode::kCmpLeSI64:
      is64 = true;
      [[fallthrough]];
    case Opcode::kCmpLeSI32:
      swap_operands = swap_targets = true;  // a <= b ⇔ !(b < a)
      break;
    default:
      return;
  }
  MOperand a = cmp.operands[1], b = cmp.operands[2];
  if (swap_operands) std::swap(a, b);
  term.opcode = is64 ? Opcode::kBrLtI64S : Opcode::kBrLtI32S;
  term.operands = {a, b};
  if (swap_targets) std::swap(term.edges[0], term.edges[1]);
  block.insts.erase(block.insts.begin() + static_cast<std::ptrdiff_t>(*def));
}

// 2. add + br.lt → for.step.
void FormForStep(MFunction& mf, MBlock& block) {
  MInst& term = block.insts.back();
  if (term.opcode != Opcode::kBrLtI32S && term.opcode != Opcode::kBrLtI64S) return;
  const bool is64 = term.opcode == Opcode::kBrLtI64S;
  const VReg next = term.operands[0].vreg();
  const VReg bound = term.operands[1].vreg();
  if (next == bound) return;
  std::optional<size_t> def = FindDef(block, next);
  if (!def) return;
  const MInst& add = block.insts[*def];
  VReg induction = kNoVReg;
  int64_t step = 0;
  auto constant = [&](const MOperand& o) { return IntConstant(mf, o.vreg()); };
  switch (add.opcode) {
    case Opcode::kAddI32:
    case Opcode::kAddI64:
      if (auto c = constant(add.operands[2]); c && FitsInt32(*c)) {
        induction = add.operands[1].vreg(), step = *c;
      } else if (auto c1 = constant(add.operands[1]); c1 && FitsInt32(*c1)) {
        induction = add.operands[2].vreg(), step = *c1;
      }
      break;
    case Opcode::kSubI32:
      if (auto c = constant(add.operands[2]))
        induction = add.operands[1].vreg(), step = WrapNegate32(*c);
      break;
    case Opcode::kSubI64:
      if (auto c = constant(add.operands[2]); c && *c > INT64_MIN && FitsInt32(-*c)) {
        induction = add.operands[1].vreg(), step = -*c;
      }
      break;
    case Opcode::kAddImmI32:
    case Opcode::kAddImmI64:
      induction = add.operands[1].vreg();
      step = static_cast<int32_t>(static_cast<uint32_t>(add.operands[2].value));
      break;
    default:
      return;
  }
  if (induction == kNoVReg) return;
  const bool add64 = add.opcode == Opcode::kAddI64 || add.opcode == Opcode::kSubI64 ||
                     add.opcode == Opcode::kAddImmI64;
  if (add64 != is64) return;
  // The increment moves to the terminator: nothing in between may read it.
  for (size_t i = *def + 1; i + 1 < block.insts.size(); ++i) {
    bool reads = false;
    ForEachUse(block.insts[i], [&](VReg v) { reads |= v == next; });
    if (reads) return;
  }
  term.opcode = is64 ? Opcode::kForStepI64 : Opcode::kForStepI32;
  term.operands = {MOperand::Reg(next), MOperand::I32(static_cast<int32_t>(step)),
                   MOperand::Reg(bound)};
  term.tied = induction;
  block.insts.erase(block.insts.begin() + static_cast<std::ptrdiff_t>(*def));
}

// 3. Immediate operand forms.
void UseImmediates(MFunction& mf, MBlock& block) {
  for (MInst& inst : block.insts) {
    auto constant = [&](size_t i) { return IntConstant(mf, inst.operands[i].vreg()); };
    switch (inst.opcode) {
      case Opcode::kAddI32:
        if (auto c = constant(2)) {
          inst =
              MInst{Opcode::kAddImmI32,
                    {inst.operands[0], inst.operands[1], MOperand::I32(static_cast<int32_t>(*c))},
                    {},
                    {},
                    {},
                    {},
                    kNoVReg,
                    inst.loc};
        } else if (auto c1 = constant(1)) {
          inst =
              MInst{Opcode::kAddImmI32,
                    {inst.operands[0], inst.operands[2], MOperand::I32(static_cast<int32_t>(*c1))},
                    {},
                    {},
                    {},
                    {},
                    kNoVReg,
                    inst.loc};
        }
        break;
      case Opcode::kSubI32:
        if (auto c = constant(2)) {
          inst = MInst{Opcode::kAddImmI32,
                       {inst.operands[0], inst.operands[1], MOperand::I32(WrapNegate32(*c))},
                       {},
                       {},
                       {},
                       {},
                       kNoVReg,
                       inst.loc};
        }
        break;
      case Opcode::kAddI64:
        if (auto c = constant(2); c && FitsInt32(*c)) {
          inst =
              MInst{Opcode::kAddImmI64,
                    {inst.operands[0], inst.operands[1], MOperand::I32(static_cast<int32_t>(*c))},
                    {},
                    {},
                    {},
                    {},
                    kNoVReg,
                    inst.loc};
        } else if (auto c1 = constant(1); c1 && FitsInt32(*c1)) {
          inst =
              MInst{Opcode::kAddImmI64,
                    {inst.operands[0], inst.operands[2], MOperand::I32(static_cast<int32_t>(*c1))},
                    {},
                    {},
                    {},
                    {},
                    kNoVReg,
                    inst.loc};
        }
        break;
      case Opcode::kSubI64:
        if (auto c = constant(2); c && *c > INT64_MIN && FitsInt32(-*c)) {
          inst =
              MInst{Opcode::kAddImmI64,
                    {inst.operands[0], inst.operands[1], MOperand::I32(static_cast<int32_t>(-*c))},
                    {},
                    {},
                    {},
                    {},
                    kNoVReg,
                    inst.loc};
        }
        break;
      case Opcode::kBrLtI32S:
        if (auto c = constant(1)) {
          // a < C
          inst.opcode = Opcode::kBrLtImmI32S;
          inst.operands = {inst.operands[0], MOperand::I32(static_cast<int32_t>(*c))};
        } else if (auto c0 = constant(0); c0 && *c0 < INT32_MAX) {
          // C < b ⇔ !(b < C + 1)
          inst.opcode = Opcode::kBrLtImmI32S;
          inst.operands = {inst.operands[1], MOperand::I32(static_cast<int32_t>(*c0 + 1))};
          std::swap(inst.edges[0], inst.edges[1]);
        }
        break;
      default:
        break;
    }
  }
}

}  // namespace

void OptimizeMachineFunction(MFunction& mf) {
  {
    std::vector<uint32_t> uses = CountUses(mf);
    for (uint32_t b : mf.layout) FuseCompareBranch(mf.blocks[b], uses);
  }
  for (uint32_t b : mf.layout) FormForStep(mf, mf.blocks[b]);
  for (uint32_t b : mf.layout) UseImmediates(mf, mf.blocks[b]);
  std::vector<uint32_t> uses = CountUses(mf);
  for (uint32_t b : mf.layout) {
    std::vector<MInst>& insts = mf.blocks[b].insts;
    insts.erase(std::remove_if(insts.begin(), insts.end(),
                               [&](const MInst& inst) {
                                 switch (inst.opcode) {
                                   case Opcode::kConstI32:
                                   case Opcode::kConstI64:
                                   case Opcode::kConstF32:
                                   case Opcode::kConstF64:
                                     return uses[inst.operands[0].vreg()] == 0;
                                   default:
                                     return false;
                                 }
                               }),
                insts.end());
  }
}

}  // namespace kiln::compiler::codegen
