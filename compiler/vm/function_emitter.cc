#include "compiler/vm/function_emitter.h"

#include <algorithm>
#include <array>
#include <bit>
#include <string>

#include "compiler/dialects/vm/vm_dialect.h"
#include "compiler/host/instrumentation.h"
#include "compiler/vm/parallel_copy.h"

namespace kiln::compiler::vm_backend {
namespace {

using vm::Bank;
using vm::Opcode;
using vm::OperandKind;

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

// The attribute an immediate operand of `opcode` is stored in (see
// vm_opcode_ops_gen.cc).
const char* ImmediateName(Opcode opcode) {
  switch (opcode) {
    case Opcode::kConstI32:
    case Opcode::kConstI64:
    case Opcode::kConstF32:
    case Opcode::kConstF64:
      return "value";
    case Opcode::kForStepI32:
    case Opcode::kForStepI64:
      return "step";
    default:
      return "imm";
  }
}

class Emitter {
 public:
  Emitter(const MFunction& mf, const ControlFlow& cfg, const Liveness& liveness,
          const Allocation& allocation, vm::FunctionBuilder& builder, ModuleSymbols& symbols)
      : mf_(mf),
        cfg_(cfg),
        liveness_(liveness),
        alloc_(allocation),
        b_(builder),
        symbols_(symbols) {}

  mlir::LogicalResult Run();

 private:
  struct EdgeBlock {
    vm::Label label;
    uint32_t target;
    std::vector<RegisterCopy> copies;
    mlir::Location loc;
    std::array<RegisterSet, vm::kBankCount> busy;
  };

  uint16_t Reg(VReg v) {
    const uint16_t r = alloc_.reg[v];
    if (r == Allocation::kNone) failed_ = true;
    return r == Allocation::kNone ? 0 : r;
  }
  Bank BankOf(VReg v) const { return mf_.vregs[v].bank; }
  std::vector<uint16_t> Regs(const std::vector<VReg>& vs) {
    std::vector<uint16_t> out;
    out.reserve(vs.size());
    for (VReg v : vs) out.push_back(Reg(v));
    return out;
  }
  // Records a failed symbol lookup (already reported at the op).
  uint32_t Index(std::optional<uint32_t> index) {
    if (!index) failed_ = true;
    return index.value_or(0);
  }
  void Locate(mlir::Location loc) { symbols_.Locate(b_, loc); }

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
  ModuleSymbols& symbols_;
  // Whether block b holds only a vm.return (of anything), so a `br` to it can
  // return directly.
  bool IsReturnOnly(uint32_t b) const {
    return mf_.blocks[b].insts.size() == 1 && mf_.blocks[b].insts[0].opcode == Opcode::kReturn;
  }
  // Emits `return` in place of `br ^b(args)` to a return-only block: the
  // return reads the branch's arguments where it reads ^b's arguments.
  void EmitForwardedReturn(const MEdge& edge);

  std::vector<vm::Label> labels_;
  std::vector<EdgeBlock> edge_blocks_;
  bool failed_ = false;
};

mlir::LogicalResult Emitter::Run() {
  labels_.resize(mf_.blocks.size());
  for (uint32_t b = 0; b < mf_.blocks.size(); ++b) {
    if (cfg_.reachable(b)) labels_[b] = b_.NewLabel();
  }
  // A return-only block whose every predecessor is a `br` (each returning
  // directly instead) is not emitted at all.
  std::vector<bool> skip(mf_.blocks.size(), false);
  for (uint32_t b = 1; b < mf_.blocks.size(); ++b) {
    if (!cfg_.reachable(b) || !IsReturnOnly(b) || cfg_.predecessors[b].empty()) continue;
    skip[b] = std::all_of(cfg_.predecessors[b].begin(), cfg_.predecessors[b].end(),
                          [&](const std::pair<uint32_t, uint32_t>& p) {
                            return mf_.blocks[p.first].insts.back().opcode == Opcode::kBr;
                          });
  }
  for (uint32_t b = 0; b < mf_.blocks.size(); ++b) {
    if (!cfg_.reachable(b) || skip[b]) continue;
    b_.Bind(labels_[b]);
    const std::vector<MInst>& insts = mf_.blocks[b].insts;
    for (size_t i = 0; i + 1 < insts.size(); ++i) {
      Locate(insts[i].op->getLoc());
      EmitInst(insts[i], {});
    }
    EmitTerminator(b, insts.back());
  }
  for (EdgeBlock& edge : edge_blocks_) {
    b_.Bind(edge.label);
    Locate(edge.loc);
    EmitCopies(edge.copies, edge.busy);
    b_.Emit(Opcode::kBr, {vm::Target(labels_[edge.target])});
  }
  if (failed_) {
    return mlir::emitError(mf_.blocks[0].block->getParent()->getLoc())
           << "bytecode emission failed (see the errors above, or a value without a register)";
  }
  return mlir::success();
}

void Emitter::EmitInst(const MInst& inst, const std::vector<vm::Label>& edge_labels) {
  mlir::Operation* op = inst.op;
  auto symbol = [&](llvm::StringRef name) {
    return op->getAttrOfType<mlir::FlatSymbolRefAttr>(name);
  };
  switch (inst.opcode) {
    case Opcode::kCall: {
      std::vector<uint16_t> args = Regs(inst.uses), results = Regs(inst.defs);
      b_.EmitCall(Index(symbols_.Function(op, symbol("callee"))), args, results);
      return;
    }
    case Opcode::kCallImport: {
      std::vector<uint16_t> args = Regs(inst.uses), results = Regs(inst.defs);
      const uint32_t import =
          Index(symbols_.Import(op, symbol("callee"), op->getOperandTypes(), op->getResultTypes()));
      if (auto dispatch = op->getAttrOfType<mlir::SymbolRefAttr>("dispatch")) {
        auto site_id = op->getAttrOfType<mlir::IntegerAttr>(host::kDispatchSiteIdAttrName);
        symbols_.DispatchSite(dispatch, b_.offset(),
                              site_id ? static_cast<uint32_t>(site_id.getInt())
                                      : vm::ExecutableDescription::DispatchSite::kNoSiteId);
      }
      b_.EmitCallImport(import, args, results);
      return;
    }
    case Opcode::kReturn: {
      std::vector<uint16_t> values = Regs(inst.uses);
      b_.EmitReturn(std::span<const uint16_t>(values));
      return;
    }
    case Opcode::kSwitch: {
      // Successor 0 is the default, then the cases.
      std::vector<vm::Label> cases(edge_labels.begin() + 1, edge_labels.end());
      b_.EmitSwitch(Reg(inst.uses[0]), edge_labels[0], cases);
      return;
    }
    case Opcode::kTrace: {
      const uint32_t message =
          symbols_.String(op->getAttrOfType<mlir::StringAttr>("message").getValue().str());
      std::vector<std::pair<Bank, uint16_t>> operands;
      for (VReg v : inst.uses) operands.push_back({BankOf(v), Reg(v)});
      b_.EmitTrace(message, operands);
      return;
    }
    default:
      break;
  }
  // Register operands in table order: the destination, then what the op
  // reads (for.step's induction variable is its destination's source, moved
  // there by EmitTerminator when the registers differ).
  std::vector<VReg> registers = inst.defs;
  registers.insert(registers.end(), inst.uses.begin() + (inst.tied != kNoVReg ? 1 : 0),
                   inst.uses.end());
  const vm::OpcodeInfo& info = vm::GetOpcodeInfo(inst.opcode);
  std::vector<vm::Operand> operands;
  size_t next_register = 0, next_target = 0;
  for (int i = 0; i < info.operand_count; ++i) {
    const OperandKind kind = info.operands[i];
    if (vm::IsRegisterKind(kind)) {
      operands.push_back(
          vm::Reg(next_register < registers.size() ? Reg(registers[next_register]) : 0));
      ++next_register;
      continue;
    }
    switch (kind) {
      case OperandKind::kImmI32:
      case OperandKind::kImmI64: {
        auto attr = op->getAttrOfType<mlir::IntegerAttr>(ImmediateName(inst.opcode));
        const int64_t value = attr ? attr.getValue().getSExtValue() : 0;
        operands.push_back(kind == OperandKind::kImmI32 ? vm::ImmI32(static_cast<int32_t>(value))
                                                        : vm::ImmI64(value));
        break;
      }
      case OperandKind::kImmF32:
      case OperandKind::kImmF64: {
        auto attr = op->getAttrOfType<mlir::FloatAttr>(ImmediateName(inst.opcode));
        if (kind == OperandKind::kImmF32) {
          operands.push_back(vm::ImmF32(attr ? attr.getValue().convertToFloat() : 0.0f));
        } else {
          operands.push_back(vm::ImmF64(attr ? attr.getValue().convertToDouble() : 0.0));
        }
        break;
      }
      case OperandKind::kTarget:
        operands.push_back(vm::Target(edge_labels[next_target++]));
        break;
      case OperandKind::kFunction:
        operands.push_back(vm::Index(Index(symbols_.Function(op, symbol("callee")))));
        break;
      case OperandKind::kImport:
        operands.push_back(
            vm::Index(Index(symbols_.Import(op, symbol("callee"), std::nullopt, std::nullopt))));
        break;
      case OperandKind::kRodata:
        operands.push_back(vm::Index(Index(symbols_.Rodata(op, symbol("rodata")))));
        break;
      case OperandKind::kGlobal32:
      case OperandKind::kGlobal64:
      case OperandKind::kGlobalRef:
        operands.push_back(vm::Index(Index(symbols_.Global(op, symbol("global")))));
        break;
      case OperandKind::kString:
        operands.push_back(vm::Index(
            symbols_.String(op->getAttrOfType<mlir::StringAttr>("message").getValue().str())));
        break;
      case OperandKind::kType:
        operands.push_back(
            vm::Index(symbols_.Type(op->getAttrOfType<mlir::TypeAttr>("object_type").getValue())));
        break;
      default:
        op->emitOpError("has an operand kind emission does not handle");
        failed_ = true;
        return;
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
      b_.Emit(vm::OpcodeOfBank(Opcode::kMovI32, m.bank), {vm::Reg(m.dst), vm::Reg(m.src)});
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

void Emitter::EmitForwardedReturn(const MEdge& edge) {
  const MBlock& target = mf_.blocks[edge.block];
  const MInst& ret = target.insts[0];
  std::vector<uint16_t> values;
  for (VReg v : ret.uses) {
    VReg source = v;
    for (size_t k = 0; k < target.args.size() && k < edge.args.size(); ++k) {
      if (target.args[k] == v) source = edge.args[k];
    }
    values.push_back(Reg(source));
  }
  // The return's location, as the IR's return would have reported.
  Locate(ret.op->getLoc());
  b_.EmitReturn(std::span<const uint16_t>(values));
}

void Emitter::EmitTerminator(uint32_t block, const MInst& term) {
  if (term.opcode == Opcode::kBr && IsReturnOnly(term.edges[0].block)) {
    return EmitForwardedReturn(term.edges[0]);
  }
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
  const VReg def = in_place ? term.defs[0] : kNoVReg;
  const mlir::Location loc = term.op->getLoc();

  if (!any_copies) {
    Locate(loc);
    if (in_place && Reg(def) != Reg(term.tied)) {
      b_.Emit(vm::OpcodeOfBank(Opcode::kMovI32, BankOf(def)),
              {vm::Reg(Reg(def)), vm::Reg(Reg(term.tied))});
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

  Locate(loc);
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
      EdgeBlock edge{b_.NewLabel(), term.edges[e].block, copies[e], loc, busy};
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
    b_.Emit(vm::OpcodeOfBank(Opcode::kMovI32, BankOf(def)),
            {vm::Reg(Reg(def)), vm::Reg(Reg(term.tied))});
  }
  EmitInst(term, edge_labels);
}

}  // namespace

mlir::LogicalResult EmitFunction(const MFunction& mf, const ControlFlow& cfg,
                                 const Liveness& liveness, const Allocation& allocation,
                                 vm::FunctionBuilder& builder, ModuleSymbols& symbols) {
  Emitter emitter(mf, cfg, liveness, allocation, builder, symbols);
  return emitter.Run();
}

}  // namespace kiln::compiler::vm_backend
