#include "compiler/codegen/instruction_selection.h"

#include <bit>
#include <map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "compiler/codegen/type_lowering.h"

namespace kiln::compiler::codegen {
namespace {

using vm::Bank;
using vm::Opcode;

MOperand R(VReg v) { return MOperand::Reg(v); }

Opcode ByBank(Bank bank, Opcode i32, Opcode i64) { return bank == Bank::kI64 ? i64 : i32; }
Opcode ByFloat(Bank bank, Opcode f32, Opcode f64) { return bank == Bank::kF64 ? f64 : f32; }

// cmpi predicate → (i32 opcode, i64 opcode).
std::pair<Opcode, Opcode> CmpIOpcodes(CmpIPredicate predicate) {
  switch (predicate) {
    case CmpIPredicate::kEq:
      return {Opcode::kCmpEqI32, Opcode::kCmpEqI64};
    case CmpIPredicate::kNe:
      return {Opcode::kCmpNeI32, Opcode::kCmpNeI64};
    case CmpIPredicate::kSlt:
      return {Opcode::kCmpLtSI32, Opcode::kCmpLtSI64};
    case CmpIPredicate::kSle:
      return {Opcode::kCmpLeSI32, Opcode::kCmpLeSI64};
    case CmpIPredicate::kSgt:
      return {Opcode::kCmpGtSI32, Opcode::kCmpGtSI64};
    case CmpIPredicate::kSge:
      return {Opcode::kCmpGeSI32, Opcode::kCmpGeSI64};
    case CmpIPredicate::kUlt:
      return {Opcode::kCmpLtUI32, Opcode::kCmpLtUI64};
    case CmpIPredicate::kUle:
      return {Opcode::kCmpLeUI32, Opcode::kCmpLeUI64};
    case CmpIPredicate::kUgt:
      return {Opcode::kCmpGtUI32, Opcode::kCmpGtUI64};
    case CmpIPredicate::kUge:
      return {Opcode::kCmpGeUI32, Opcode::kCmpGeUI64};
  }
  return {Opcode::kCount, Opcode::kCount};
}

// cmpf predicate → (f32 opcode, f64 opcode); kCount for false/true.
std::pair<Opcode, Opcode> CmpFOpcodes(CmpFPredicate predicate) {
  switch (predicate) {
    case CmpFPredicate::kOeq:
      return {Opcode::kCmpOeqF32, Opcode::kCmpOeqF64};
    case CmpFPredicate::kOgt:
      return {Opcode::kCmpOgtF32, Opcode::kCmpOgtF64};
    case CmpFPredicate::kOge:
      return {Opcode::kCmpOgeF32, Opcode::kCmpOgeF64};
    case CmpFPredicate::kOlt:
      return {Opcode::kCmpOltF32, Opcode::kCmpOltF64};
    case CmpFPredicate::kOle:
      return {Opcode::kCmpOleF32, Opcode::kCmpOleF64};
    case CmpFPredicate::kOne:
      return {Opcode::kCmpOneF32, Opcode::kCmpOneF64};
    case CmpFPredicate::kOrd:
      return {Opcode::kCmpOrdF32, Opcode::kCmpOrdF64};
    case CmpFPredicate::kUeq:
      return {Opcode::kCmpUeqF32, Opcode::kCmpUeqF64};
    case CmpFPredicate::kUgt:
      return {Opcode::kCmpUgtF32, Opcode::kCmpUgtF64};
    case CmpFPredicate::kUge:
      return {Opcode::kCmpUgeF32, Opcode::kCmpUgeF64};
    case CmpFPredicate::kUlt:
      return {Opcode::kCmpUltF32, Opcode::kCmpUltF64};
    case CmpFPredicate::kUle:
      return {Opcode::kCmpUleF32, Opcode::kCmpUleF64};
    case CmpFPredicate::kUne:
      return {Opcode::kCmpUneF32, Opcode::kCmpUneF64};
    case CmpFPredicate::kUno:
      return {Opcode::kCmpUnoF32, Opcode::kCmpUnoF64};
    case CmpFPredicate::kFalse:
    case CmpFPredicate::kTrue:
      break;
  }
  return {Opcode::kCount, Opcode::kCount};
}

// The unsigned predicate with the same relation, for i1 signed compares
// (a <s b on i1 is b <u a on the 0/1 encoding, see the header).
CmpIPredicate UnsignedOf(CmpIPredicate predicate) {
  switch (predicate) {
    case CmpIPredicate::kSlt:
      return CmpIPredicate::kUlt;
    case CmpIPredicate::kSle:
      return CmpIPredicate::kUle;
    case CmpIPredicate::kSgt:
      return CmpIPredicate::kUgt;
    case CmpIPredicate::kSge:
      return CmpIPredicate::kUge;
    default:
      return predicate;
  }
}

bool IsSignedPredicate(CmpIPredicate p) {
  return p == CmpIPredicate::kSlt || p == CmpIPredicate::kSle || p == CmpIPredicate::kSgt ||
         p == CmpIPredicate::kSge;
}
bool IsUnsignedPredicate(CmpIPredicate p) {
  return p == CmpIPredicate::kUlt || p == CmpIPredicate::kUle || p == CmpIPredicate::kUgt ||
         p == CmpIPredicate::kUge;
}

uint32_t FloatBits(float value) { return std::bit_cast<uint32_t>(value); }
uint64_t DoubleBits(double value) { return std::bit_cast<uint64_t>(value); }

// 2^32 - x for 32-bit wrapping negation without signed overflow.
int32_t WrapNegate32(int64_t value) {
  return static_cast<int32_t>(0u - static_cast<uint32_t>(value));
}

class Selector {
 public:
  Selector(Operation* func, const ModuleSymbols& symbols, DiagnosticEngine& diagnostics,
           bool canonicalize_arguments, MFunction& out)
      : func_(func),
        symbols_(symbols),
        diagnostics_(diagnostics),
        canonicalize_arguments_(canonicalize_arguments),
        mf_(out) {}

  bool Run();

 private:
  // --- Errors ---
  void Error(const Location& loc, std::string message) {
    diagnostics_.Error(loc, std::move(message));
    failed_ = true;
  }

  // --- Values ---
  // The bank of `value`'s type, reporting an unsupported type once per value.
  std::optional<Bank> BankOf(const Value* value) {
    std::optional<Bank> bank = BankOfType(value->type);
    if (!bank && reported_.insert(value).second) {
      Error(value->loc, UnsupportedTypeMessage(value->type));
    }
    return bank;
  }
  // A fresh virtual register for `value` (of a dummy bank if its type is
  // unsupported: the error is reported and nothing will be emitted).
  VReg NewVRegFor(const Value* value) { return mf_.NewVReg(BankOf(value).value_or(Bank::kI32)); }
  void Bind(const Value* value, VReg v) { values_[value] = v; }
  VReg Lookup(const Value* value) {
    auto it = values_.find(value);
    if (it != values_.end()) return it->second;
    // Only for invalid IR (the verifier checks dominance): keep going with a
    // placeholder so that one error is reported, not a crash.
    Error(loc_, "internal error: value '%" + value->name + "' is used before its definition");
    VReg v = NewVRegFor(value);
    Bind(value, v);
    return v;
  }
  std::vector<VReg> LookupAll(const std::vector<Value*>& values) {
    std::vector<VReg> out;
    out.reserve(values.size());
    for (const Value* v : values) out.push_back(Lookup(v));
    return out;
  }

  // --- Emission into the current block ---
  MInst& Emit(Opcode opcode, std::vector<MOperand> operands) {
    MInst inst;
    inst.opcode = opcode;
    inst.operands = std::move(operands);
    inst.loc = loc_;
    std::vector<MInst>& insts = mf_.blocks[current_].insts;
    insts.push_back(std::move(inst));
    return insts.back();
  }
  VReg Def(Opcode opcode, Bank bank, std::vector<MOperand> rest) {
    VReg d = mf_.NewVReg(bank);
    rest.insert(rest.begin(), R(d));
    Emit(opcode, std::move(rest));
    return d;
  }
  VReg Unary(Opcode opcode, Bank bank, VReg a) { return Def(opcode, bank, {R(a)}); }
  VReg Binary(Opcode opcode, Bank bank, VReg a, VReg b) { return Def(opcode, bank, {R(a), R(b)}); }
  void Terminate(Opcode opcode, std::vector<MOperand> operands, std::vector<MEdge> edges) {
    MInst& inst = Emit(opcode, std::move(operands));
    for (uint32_t i = 0; i < edges.size(); ++i) inst.targets.push_back(i);
    inst.edges = std::move(edges);
  }

  // --- Constants ---
  static MInst ConstInst(VReg v, Bank bank, uint64_t bits, Location loc) {
    MInst inst;
    inst.loc = loc;
    switch (bank) {
      case Bank::kI32:
        inst.opcode = Opcode::kConstI32;
        inst.operands = {R(v), MOperand::I32(static_cast<int32_t>(static_cast<uint32_t>(bits)))};
        break;
      case Bank::kI64:
        inst.opcode = Opcode::kConstI64;
        inst.operands = {R(v), MOperand::I64(static_cast<int64_t>(bits))};
        break;
      case Bank::kF32:
        inst.opcode = Opcode::kConstF32;
        inst.operands = {R(v), MOperand::F32Bits(static_cast<uint32_t>(bits))};
        break;
      default:
        inst.opcode = Opcode::kConstF64;
        inst.operands = {R(v), MOperand::F64Bits(bits)};
        break;
    }
    return inst;
  }
  // A pooled constant, defined at the top of the entry block.
  VReg Constant(Bank bank, uint64_t bits) { return PooledConstant(bank, bits, func_->loc); }
  VReg PooledConstant(Bank bank, uint64_t bits, Location loc) {
    if (bank == Bank::kI32 || bank == Bank::kF32) bits &= 0xFFFFFFFFu;
    auto key = std::make_pair(static_cast<int>(bank), bits);
    auto it = pool_.find(key);
    if (it != pool_.end()) return it->second;
    VReg v = mf_.NewVReg(bank);
    mf_.vregs[v].is_constant = true;
    mf_.vregs[v].bits = bits;
    pool_insts_.push_back(ConstInst(v, bank, bits, loc));
    pool_.emplace(key, v);
    return v;
  }
  // A constant materialised at the current point.
  VReg LocalConstant(Bank bank, uint64_t bits) {
    if (bank == Bank::kI32 || bank == Bank::kF32) bits &= 0xFFFFFFFFu;
    VReg v = mf_.NewVReg(bank);
    mf_.vregs[v].is_constant = true;
    mf_.vregs[v].bits = bits;
    mf_.blocks[current_].insts.push_back(ConstInst(v, bank, bits, loc_));
    return v;
  }

  // --- Narrow integers (see the header) ---
  VReg SignedView(VReg v, uint32_t width) {
    return width == 1 ? Unary(Opcode::kNegI32, Bank::kI32, v) : v;
  }
  VReg UnsignedView(VReg v, uint32_t width) {
    if (width == 8) return Unary(Opcode::kTruncI32I8, Bank::kI32, v);
    if (width == 16) return Unary(Opcode::kTruncI32I16, Bank::kI32, v);
    return v;
  }
  VReg Canonicalize(VReg v, uint32_t width) {
    if (width == 8) return Unary(Opcode::kExtI8I32S, Bank::kI32, v);
    if (width == 16) return Unary(Opcode::kExtI16I32S, Bank::kI32, v);
    if (width == 1) return Binary(Opcode::kAndI32, Bank::kI32, v, Constant(Bank::kI32, 1));
    return v;
  }
  // Integer width change (extsi/extui/trunci/index_cast[ui]).
  VReg Resize(VReg a, uint32_t from, uint32_t to, bool is_signed) {
    if (from == to) return a;
    if (to < from) {
      VReg t = from == 64 ? Unary(Opcode::kTruncI64I32, Bank::kI32, a) : a;
      return Canonicalize(t, to);
    }
    if (to == 64) {
      VReg v = is_signed ? SignedView(a, from) : UnsignedView(a, from);
      return Unary(is_signed ? Opcode::kExtI32I64S : Opcode::kExtI32I64U, Bank::kI64, v);
    }
    // Wider type within the i32 bank: a sign-extended narrow value already is
    // canonical for the wider type, a zero-extended one too (it is positive).
    return is_signed ? SignedView(a, from) : UnsignedView(a, from);
  }

  // --- Blocks ---
  uint32_t NewBlockAfterCurrent() {
    uint32_t id = static_cast<uint32_t>(mf_.blocks.size());
    mf_.blocks.emplace_back();
    chains_[current_chain_].push_back(id);
    return id;
  }
  uint32_t NewColdBlock() {
    uint32_t id = static_cast<uint32_t>(mf_.blocks.size());
    mf_.blocks.emplace_back();
    cold_.push_back(id);
    return id;
  }
  MEdge EdgeTo(const Successor& successor) {
    MEdge edge;
    auto it = block_ids_.find(successor.block);
    if (it == block_ids_.end()) {
      Error(loc_, "internal error: branch to a block of another region");
      return edge;
    }
    if (it->second == 0) {
      Error(loc_, "the entry block of a function cannot be a branch target");
    }
    edge.block = it->second;
    edge.args = LookupAll(successor.arguments);
    return edge;
  }

  // --- Ops ---
  void SelectOp(Operation* op);
  void SelectConstant(Operation* op);
  void SelectIntBinary(Operation* op);
  void SelectDivRound(Operation* op, bool ceil);
  void SelectFloatBinary(Operation* op);
  void SelectCmpI(Operation* op);
  void SelectCmpF(Operation* op);
  void SelectCast(Operation* op);
  void SelectMath(Operation* op);
  void SelectCall(Operation* op);
  void SelectSwitch(Operation* op);
  void SelectAssert(Operation* op);
  void SelectGlobal(Operation* op);

  Operation* func_;
  const ModuleSymbols& symbols_;
  DiagnosticEngine& diagnostics_;
  bool canonicalize_arguments_;
  MFunction& mf_;
  bool failed_ = false;
  std::unordered_set<const Value*> reported_;
  std::unordered_map<const Value*, VReg> values_;
  std::unordered_map<const Block*, uint32_t> block_ids_;
  std::vector<std::vector<uint32_t>> chains_;  // Per IR block: its MIR blocks in order.
  std::vector<uint32_t> cold_;                 // Blocks laid out last (assert failures).
  size_t current_chain_ = 0;
  uint32_t current_ = 0;
  Location loc_;
  std::map<std::pair<int, uint64_t>, VReg> pool_;
  std::vector<MInst> pool_insts_;
};

bool Selector::Run() {
  Region* body = func_->region(0);
  const size_t n = body->num_blocks();
  size_t values = 0;
  for (size_t i = 0; i < n; ++i) {
    values += body->block(i)->num_arguments() + body->block(i)->operations().size();
  }
  values_.reserve(values);
  block_ids_.reserve(n);
  chains_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    block_ids_[body->block(i)] = static_cast<uint32_t>(i);
    mf_.blocks.emplace_back();
    chains_[i].push_back(static_cast<uint32_t>(i));
  }
  for (size_t i = 0; i < n; ++i) {
    Block* block = body->block(i);
    for (size_t a = 0; a < block->num_arguments(); ++a) {
      Value* arg = block->argument(a);
      VReg v = NewVRegFor(arg);
      Bind(arg, v);
      mf_.blocks[i].args.push_back(v);
    }
  }

  // Reverse post-order of the reachable blocks (iterative DFS).
  std::vector<uint32_t> postorder;
  {
    std::vector<uint8_t> state(n, 0);  // 0 new, 1 on stack, 2 done
    std::vector<std::pair<uint32_t, size_t>> stack = {{0, 0}};
    state[0] = 1;
    while (!stack.empty()) {
      auto& [b, next] = stack.back();
      Operation* term = body->block(b)->terminator();
      if (term && next < term->successors.size()) {
        Block* succ = term->successors[next++].block;
        auto it = block_ids_.find(succ);
        if (it != block_ids_.end() && state[it->second] == 0) {
          state[it->second] = 1;
          stack.push_back({it->second, 0});
        }
        continue;
      }
      state[b] = 2;
      postorder.push_back(b);
      stack.pop_back();
    }
  }

  for (auto it = postorder.rbegin(); it != postorder.rend(); ++it) {
    const uint32_t b = *it;
    Block* block = body->block(b);
    current_chain_ = b;
    current_ = b;
    if (b == 0 && canonicalize_arguments_) {
      loc_ = func_->loc;
      for (size_t a = 0; a < block->num_arguments(); ++a) {
        Value* arg = block->argument(a);
        if (IsNarrowInteger(arg->type)) {
          Bind(arg, Canonicalize(mf_.blocks[0].args[a], IntegerWidth(arg->type)));
        }
      }
    }
    if (!block->terminator()) {
      Error(block->empty() ? block->loc : block->operations().back()->loc,
            "block does not end with a terminator");
      continue;
    }
    for (const auto& op : block->operations()) SelectOp(op.get());
  }

  // Pooled constants go first in the entry block.
  std::vector<MInst>& entry = mf_.blocks[0].insts;
  entry.insert(entry.begin(), std::make_move_iterator(pool_insts_.begin()),
               std::make_move_iterator(pool_insts_.end()));

  std::vector<bool> reachable(n, false);
  for (uint32_t b : postorder) reachable[b] = true;
  for (size_t i = 0; i < n; ++i) {
    if (!reachable[i]) continue;
    for (uint32_t id : chains_[i]) mf_.layout.push_back(id);
  }
  for (uint32_t id : cold_) mf_.layout.push_back(id);
  return !failed_;
}

// The operand and result counts of ops with a fixed shape (ir/ops.h); -1
// where the count varies. The verifier checks shapes; this keeps selection
// from indexing past the operands of IR that skipped it.
std::pair<int, int> FixedShape(OpKind kind) {
  if (int arity = ElementwiseArity(kind)) return {arity, 1};
  if (IsCastOp(kind)) return {1, 1};
  switch (kind) {
    case OpKind::kConstant:
    case OpKind::kGlobalLoad:
    case OpKind::kConstRefNull:
    case OpKind::kConstRefRodata:
      return {0, 1};
    case OpKind::kSelect:
      return {3, 1};
    case OpKind::kRefIsNull:
      return {1, 1};
    case OpKind::kGlobalStore:
    case OpKind::kAssert:
    case OpKind::kCondBr:
    case OpKind::kSwitch:
      return {1, 0};
    case OpKind::kCall:
    case OpKind::kReturn:
    case OpKind::kBr:
    case OpKind::kIf:
    case OpKind::kFor:
    case OpKind::kWhile:
    case OpKind::kCondition:
    case OpKind::kYield:
    case OpKind::kModule:
    case OpKind::kFunc:
    case OpKind::kGlobal:
    case OpKind::kCount:
      return {-1, -1};
    default:  // Binary arith/math ops and compares.
      return {2, 1};
  }
}

void Selector::SelectOp(Operation* op) {
  loc_ = op->debug_loc;
  const auto [operands, results] = FixedShape(op->kind());
  if ((operands >= 0 && op->operands.size() != static_cast<size_t>(operands)) ||
      (results >= 0 && op->num_results() != static_cast<size_t>(results))) {
    Error(op->loc, "internal error: '" + std::string(op->name()) + "' has " +
                       std::to_string(op->operands.size()) + " operands and " +
                       std::to_string(op->num_results()) + " results");
    for (size_t i = 0; i < op->num_results(); ++i) Bind(op->result(i), NewVRegFor(op->result(i)));
    return;
  }
  switch (op->kind()) {
    case OpKind::kConstant:
      return SelectConstant(op);
    case OpKind::kAddI:
    case OpKind::kSubI:
    case OpKind::kMulI:
    case OpKind::kDivSI:
    case OpKind::kDivUI:
    case OpKind::kRemSI:
    case OpKind::kRemUI:
    case OpKind::kAndI:
    case OpKind::kOrI:
    case OpKind::kXOrI:
    case OpKind::kShLI:
    case OpKind::kShRSI:
    case OpKind::kShRUI:
    case OpKind::kMaxSI:
    case OpKind::kMinSI:
    case OpKind::kMaxUI:
    case OpKind::kMinUI:
      return SelectIntBinary(op);
    case OpKind::kCeilDivSI:
      return SelectDivRound(op, /*ceil=*/true);
    case OpKind::kFloorDivSI:
      return SelectDivRound(op, /*ceil=*/false);
    case OpKind::kAddF:
    case OpKind::kSubF:
    case OpKind::kMulF:
    case OpKind::kDivF:
    case OpKind::kRemF:
    case OpKind::kMaximumF:
    case OpKind::kMinimumF:
    case OpKind::kPowF:
      return SelectFloatBinary(op);
    case OpKind::kCmpI:
      return SelectCmpI(op);
    case OpKind::kCmpF:
      return SelectCmpF(op);
    case OpKind::kSelect: {
      std::optional<Bank> bank = BankOf(op->result(0));
      VReg c = Lookup(op->operands[0]), a = Lookup(op->operands[1]), b = Lookup(op->operands[2]);
      if (!bank) return Bind(op->result(0), NewVRegFor(op->result(0)));
      Opcode opcode = *bank == Bank::kI32   ? Opcode::kSelectI32
                      : *bank == Bank::kI64 ? Opcode::kSelectI64
                      : *bank == Bank::kF32 ? Opcode::kSelectF32
                      : *bank == Bank::kF64 ? Opcode::kSelectF64
                                            : Opcode::kSelectRef;
      return Bind(op->result(0), Def(opcode, *bank, {R(c), R(a), R(b)}));
    }
    case OpKind::kIndexCast:
    case OpKind::kIndexCastUI:
    case OpKind::kExtSI:
    case OpKind::kExtUI:
    case OpKind::kTruncI:
    case OpKind::kSIToFP:
    case OpKind::kUIToFP:
    case OpKind::kFPToSI:
    case OpKind::kFPToUI:
    case OpKind::kExtF:
    case OpKind::kTruncF:
    case OpKind::kBitcast:
      return SelectCast(op);
    case OpKind::kNegF:
    case OpKind::kSqrt:
    case OpKind::kRSqrt:
    case OpKind::kExp:
    case OpKind::kExp2:
    case OpKind::kLog:
    case OpKind::kLog2:
    case OpKind::kSin:
    case OpKind::kCos:
    case OpKind::kTanh:
    case OpKind::kAbsF:
    case OpKind::kAbsI:
    case OpKind::kFma:
    case OpKind::kFloor:
    case OpKind::kCeil:
    case OpKind::kRound:
      return SelectMath(op);
    case OpKind::kCall:
      return SelectCall(op);
    case OpKind::kReturn: {
      if (op->operands.size() > 255) {
        return Error(op->loc, "a function may return at most 255 values");
      }
      MInst& inst = Emit(Opcode::kReturn, {});
      inst.list = LookupAll(op->operands);
      return;
    }
    case OpKind::kBr:
      if (op->successors.size() != 1) return Error(op->loc, "internal error: malformed cf.br");
      return Terminate(Opcode::kBr, {}, {EdgeTo(op->successors[0])});
    case OpKind::kCondBr: {
      if (op->successors.size() != 2 || op->operands.size() != 1) {
        return Error(op->loc, "internal error: malformed cf.cond_br");
      }
      VReg c = Lookup(op->operands[0]);
      return Terminate(Opcode::kCondBr, {R(c)},
                       {EdgeTo(op->successors[0]), EdgeTo(op->successors[1])});
    }
    case OpKind::kSwitch:
      return SelectSwitch(op);
    case OpKind::kAssert:
      return SelectAssert(op);
    case OpKind::kGlobalLoad:
    case OpKind::kGlobalStore:
      return SelectGlobal(op);
    case OpKind::kConstRefNull:
      if (BankOf(op->result(0)) != Bank::kRef) {
        Error(op->loc, "internal error: vm.const.ref.null of a non-ref type");
        return Bind(op->result(0), NewVRegFor(op->result(0)));
      }
      return Bind(op->result(0), Def(Opcode::kConstRefNull, Bank::kRef, {}));
    case OpKind::kRefIsNull:
      if (BankOf(op->operands[0]) != Bank::kRef) {
        Error(op->loc, "internal error: vm.ref.is_null of a non-ref value");
        return Bind(op->result(0), NewVRegFor(op->result(0)));
      }
      // ref.is_null writes 0 or 1: already a canonical i1.
      return Bind(op->result(0), Def(Opcode::kRefIsNull, Bank::kI32, {R(Lookup(op->operands[0]))}));
    case OpKind::kConstRefRodata: {
      const Attribute* ref = op->attribute("rodata");
      auto it = ref && ref->kind == Attribute::Kind::kSymbolRef && ref->symbols.size() == 1
                    ? symbols_.rodata.find(ref->symbols[0])
                    : symbols_.rodata.end();
      if (it == symbols_.rodata.end() || BankOf(op->result(0)) != Bank::kRef) {
        Error(op->loc, "internal error: vm.const.ref.rodata of an unknown rodata");
        return Bind(op->result(0), NewVRegFor(op->result(0)));
      }
      return Bind(op->result(0),
                  Def(Opcode::kConstRefRodata, Bank::kRef, {MOperand::Index(it->second)}));
    }
    case OpKind::kIf:
    case OpKind::kFor:
    case OpKind::kWhile:
    case OpKind::kCondition:
    case OpKind::kYield:
      return Error(op->loc, "internal error: '" + std::string(op->name()) +
                                "' must be lowered to cf branches before code generation");
    default:
      return Error(op->loc, "internal error: '" + std::string(op->name()) +
                                "' is not expected inside a function body");
  }
}

void Selector::SelectConstant(Operation* op) {
  Value* result = op->result(0);
  std::optional<Bank> bank = BankOf(result);
  if (!bank) return Bind(result, NewVRegFor(result));
  const Attribute* value = op->attribute("value");
  uint64_t bits = 0;
  if (value &&
      (value->kind == Attribute::Kind::kInteger || value->kind == Attribute::Kind::kBool) &&
      result->type.is_integer_or_index()) {
    bits = CanonicalIntegerBits(value->integer_value, result->type);
  } else if (value && value->kind == Attribute::Kind::kFloat && result->type.is_float()) {
    bits = *bank == Bank::kF32 ? FloatBits(static_cast<float>(value->float_value))
                               : DoubleBits(value->float_value);
  } else {
    Error(op->loc, "internal error: arith.constant value does not match its type");
    return Bind(result, NewVRegFor(result));
  }
  // Entry-block constants are pooled (and so deduplicated); others are
  // materialised where they stand.
  if (op->parent_block() == func_->region(0)->front()) {
    return Bind(result, PooledConstant(*bank, bits, loc_));
  }
  Bind(result, LocalConstant(*bank, bits));
}

void Selector::SelectIntBinary(Operation* op) {
  Value* result = op->result(0);
  std::optional<Bank> bank_or = BankOf(result);
  VReg a = Lookup(op->operands[0]), b = Lookup(op->operands[1]);
  if (!bank_or) return Bind(result, NewVRegFor(result));
  const Bank bank = *bank_or;
  const uint32_t w = IntegerWidth(result->type);
  auto op2 = [&](Opcode i32, Opcode i64, VReg x, VReg y) {
    return Binary(ByBank(bank, i32, i64), bank, x, y);
  };
  // An unsigned op on zero-extended views yields a value in [0, 2^w): an
  // i8/i16 result at or above 2^(w-1) must be sign-extended; an i1 is 0 or 1.
  auto unsigned_result = [&](VReg v) { return w == 1 ? v : Canonicalize(v, w); };
  // max/min of sign views pick one of them: canonical for i8/i16, but an i1
  // view is 0 or -1.
  auto signed_choice = [&](VReg v) { return w == 1 ? Canonicalize(v, 1) : v; };
  VReg r = kNoVReg;
  switch (op->kind()) {
    case OpKind::kAddI:
      r = w == 1 ? op2(Opcode::kXorI32, Opcode::kXorI64, a, b)
                 : Canonicalize(op2(Opcode::kAddI32, Opcode::kAddI64, a, b), w);
      break;
    case OpKind::kSubI:
      r = w == 1 ? op2(Opcode::kXorI32, Opcode::kXorI64, a, b)
                 : Canonicalize(op2(Opcode::kSubI32, Opcode::kSubI64, a, b), w);
      break;
    case OpKind::kMulI:
      r = w == 1 ? op2(Opcode::kAndI32, Opcode::kAndI64, a, b)
                 : Canonicalize(op2(Opcode::kMulI32, Opcode::kMulI64, a, b), w);
      break;
    case OpKind::kAndI:
      r = op2(Opcode::kAndI32, Opcode::kAndI64, a, b);
      break;
    case OpKind::kOrI:
      r = op2(Opcode::kOrI32, Opcode::kOrI64, a, b);
      break;
    case OpKind::kXOrI:
      r = op2(Opcode::kXorI32, Opcode::kXorI64, a, b);
      break;
    case OpKind::kShLI:
      r = Canonicalize(op2(Opcode::kShlI32, Opcode::kShlI64, a, b), w);
      break;
    case OpKind::kShRSI:
      // Sign-extended values stay sign-extended; an i1 needs the sign view.
      r = w == 1 ? Canonicalize(op2(Opcode::kShrSI32, Opcode::kShrSI64, SignedView(a, w), b), w)
                 : op2(Opcode::kShrSI32, Opcode::kShrSI64, a, b);
      break;
    case OpKind::kShRUI:
      // A shift by 0 (mod 32) gives back the zero-extended view itself.
      r = unsigned_result(op2(Opcode::kShrUI32, Opcode::kShrUI64, UnsignedView(a, w), b));
      break;
    case OpKind::kDivSI:
      // The one overflow, INT_MIN(w) / -1, wraps back to INT_MIN(w).
      r = Canonicalize(op2(Opcode::kDivSI32, Opcode::kDivSI64, SignedView(a, w), SignedView(b, w)),
                       w);
      break;
    case OpKind::kRemSI:
      // |a rem b| < |b|: fits the width (an i1 remainder is always 0).
      r = op2(Opcode::kRemSI32, Opcode::kRemSI64, SignedView(a, w), SignedView(b, w));
      break;
    case OpKind::kDivUI:
      r = unsigned_result(
          op2(Opcode::kDivUI32, Opcode::kDivUI64, UnsignedView(a, w), UnsignedView(b, w)));
      break;
    case OpKind::kRemUI:
      r = unsigned_result(
          op2(Opcode::kRemUI32, Opcode::kRemUI64, UnsignedView(a, w), UnsignedView(b, w)));
      break;
    case OpKind::kMaxSI:
      r = signed_choice(
          op2(Opcode::kMaxSI32, Opcode::kMaxSI64, SignedView(a, w), SignedView(b, w)));
      break;
    case OpKind::kMinSI:
      r = signed_choice(
          op2(Opcode::kMinSI32, Opcode::kMinSI64, SignedView(a, w), SignedView(b, w)));
      break;
    case OpKind::kMaxUI:
      r = unsigned_result(
          op2(Opcode::kMaxUI32, Opcode::kMaxUI64, UnsignedView(a, w), UnsignedView(b, w)));
      break;
    case OpKind::kMinUI:
      r = unsigned_result(
          op2(Opcode::kMinUI32, Opcode::kMinUI64, UnsignedView(a, w), UnsignedView(b, w)));
      break;
    default:
      break;
  }
  Bind(result, r);
}

// ceildivsi/floordivsi: the truncating quotient, adjusted by one when the
// remainder is non-zero and the exact quotient is positive (ceil) or
// negative (floor), i.e. when the remainder and the divisor have the same
// (ceil) or opposite (floor) signs.
void Selector::SelectDivRound(Operation* op, bool ceil) {
  Value* result = op->result(0);
  std::optional<Bank> bank_or = BankOf(result);
  VReg a = Lookup(op->operands[0]), b = Lookup(op->operands[1]);
  if (!bank_or) return Bind(result, NewVRegFor(result));
  const Bank bank = *bank_or;
  const uint32_t w = IntegerWidth(result->type);
  a = SignedView(a, w);
  b = SignedView(b, w);
  VReg q = Binary(ByBank(bank, Opcode::kDivSI32, Opcode::kDivSI64), bank, a, b);
  VReg r = Binary(ByBank(bank, Opcode::kRemSI32, Opcode::kRemSI64), bank, a, b);
  VReg zero = Constant(bank, 0);
  VReg nonzero = Binary(ByBank(bank, Opcode::kCmpNeI32, Opcode::kCmpNeI64), Bank::kI32, r, zero);
  VReg signs = Binary(ByBank(bank, Opcode::kXorI32, Opcode::kXorI64), bank, r, b);
  VReg same =
      ceil ? Binary(ByBank(bank, Opcode::kCmpGeSI32, Opcode::kCmpGeSI64), Bank::kI32, signs, zero)
           : Binary(ByBank(bank, Opcode::kCmpLtSI32, Opcode::kCmpLtSI64), Bank::kI32, signs, zero);
  VReg adjust = Binary(Opcode::kAndI32, Bank::kI32, nonzero, same);
  VReg q1 = Def(ByBank(bank, Opcode::kAddImmI32, Opcode::kAddImmI64), bank,
                {R(q), MOperand::I32(ceil ? 1 : -1)});
  VReg selected =
      Def(ByBank(bank, Opcode::kSelectI32, Opcode::kSelectI64), bank, {R(adjust), R(q1), R(q)});
  Bind(result, Canonicalize(selected, w));
}

void Selector::SelectFloatBinary(Operation* op) {
  Value* result = op->result(0);
  std::optional<Bank> bank_or = BankOf(result);
  VReg a = Lookup(op->operands[0]), b = Lookup(op->operands[1]);
  if (!bank_or) return Bind(result, NewVRegFor(result));
  const Bank bank = *bank_or;
  Opcode opcode = Opcode::kCount;
  switch (op->kind()) {
    case OpKind::kAddF:
      opcode = ByFloat(bank, Opcode::kAddF32, Opcode::kAddF64);
      break;
    case OpKind::kSubF:
      opcode = ByFloat(bank, Opcode::kSubF32, Opcode::kSubF64);
      break;
    case OpKind::kMulF:
      opcode = ByFloat(bank, Opcode::kMulF32, Opcode::kMulF64);
      break;
    case OpKind::kDivF:
      opcode = ByFloat(bank, Opcode::kDivF32, Opcode::kDivF64);
      break;
    case OpKind::kRemF:
      opcode = ByFloat(bank, Opcode::kRemF32, Opcode::kRemF64);
      break;
    case OpKind::kMaximumF:
      opcode = ByFloat(bank, Opcode::kMaxF32, Opcode::kMaxF64);
      break;
    case OpKind::kMinimumF:
      opcode = ByFloat(bank, Opcode::kMinF32, Opcode::kMinF64);
      break;
    default:  // kPowF
      opcode = ByFloat(bank, Opcode::kPowF32, Opcode::kPowF64);
      break;
  }
  Bind(result, Binary(opcode, bank, a, b));
}

void Selector::SelectCmpI(Operation* op) {
  Value* result = op->result(0);
  VReg a = Lookup(op->operands[0]), b = Lookup(op->operands[1]);
  std::optional<Bank> bank_or = BankOf(op->operands[0]);
  const Attribute* attr = op->attribute("predicate");
  if (!attr || attr->kind != Attribute::Kind::kInteger || attr->integer_value < 0 ||
      attr->integer_value > static_cast<int64_t>(CmpIPredicate::kUge)) {
    Error(op->loc, "internal error: arith.cmpi has no valid predicate");
    return Bind(result, NewVRegFor(result));
  }
  if (!bank_or) return Bind(result, NewVRegFor(result));
  auto predicate = static_cast<CmpIPredicate>(attr->integer_value);
  const uint32_t w = IntegerWidth(op->operands[0]->type);
  if (w == 1 && IsSignedPredicate(predicate)) {
    predicate = UnsignedOf(predicate);
    std::swap(a, b);
  } else if (IsUnsignedPredicate(predicate)) {
    a = UnsignedView(a, w);
    b = UnsignedView(b, w);
  }
  auto [i32, i64] = CmpIOpcodes(predicate);
  Bind(result, Binary(ByBank(*bank_or, i32, i64), Bank::kI32, a, b));
}

void Selector::SelectCmpF(Operation* op) {
  Value* result = op->result(0);
  VReg a = Lookup(op->operands[0]), b = Lookup(op->operands[1]);
  std::optional<Bank> bank_or = BankOf(op->operands[0]);
  const Attribute* attr = op->attribute("predicate");
  if (!attr || attr->kind != Attribute::Kind::kInteger || attr->integer_value < 0 ||
      attr->integer_value > static_cast<int64_t>(CmpFPredicate::kTrue)) {
    Error(op->loc, "internal error: arith.cmpf has no valid predicate");
    return Bind(result, NewVRegFor(result));
  }
  if (!bank_or) return Bind(result, NewVRegFor(result));
  auto predicate = static_cast<CmpFPredicate>(attr->integer_value);
  if (predicate == CmpFPredicate::kFalse) return Bind(result, Constant(Bank::kI32, 0));
  if (predicate == CmpFPredicate::kTrue) return Bind(result, Constant(Bank::kI32, 1));
  auto [f32, f64] = CmpFOpcodes(predicate);
  Bind(result, Binary(ByFloat(*bank_or, f32, f64), Bank::kI32, a, b));
}

void Selector::SelectCast(Operation* op) {
  Value* in = op->operands[0];
  Value* result = op->result(0);
  VReg a = Lookup(in);
  std::optional<Bank> from = BankOf(in);
  std::optional<Bank> to = BankOf(result);
  if (!from || !to) return Bind(result, NewVRegFor(result));
  const uint32_t in_width = IntegerWidth(in->type), out_width = IntegerWidth(result->type);
  const Bank bank = *to;
  switch (op->kind()) {
    case OpKind::kIndexCast:
    case OpKind::kExtSI:
    case OpKind::kTruncI:
      return Bind(result, Resize(a, in_width, out_width, /*is_signed=*/true));
    case OpKind::kIndexCastUI:
    case OpKind::kExtUI:
      return Bind(result, Resize(a, in_width, out_width, /*is_signed=*/false));
    case OpKind::kSIToFP:
      if (in_width == 64) {
        return Bind(result,
                    Unary(ByFloat(bank, Opcode::kCastSI64F32, Opcode::kCastSI64F64), bank, a));
      }
      return Bind(result, Unary(ByFloat(bank, Opcode::kCastSI32F32, Opcode::kCastSI32F64), bank,
                                SignedView(a, in_width)));
    case OpKind::kUIToFP:
      if (in_width == 64) {
        return Bind(result,
                    Unary(ByFloat(bank, Opcode::kCastUI64F32, Opcode::kCastUI64F64), bank, a));
      }
      return Bind(result, Unary(ByFloat(bank, Opcode::kCastUI32F32, Opcode::kCastUI32F64), bank,
                                UnsignedView(a, in_width)));
    case OpKind::kFPToSI: {
      const bool f64 = *from == Bank::kF64;
      if (out_width == 64) {
        return Bind(result,
                    Unary(f64 ? Opcode::kCastF64SI64 : Opcode::kCastF32SI64, Bank::kI64, a));
      }
      VReg raw = Unary(f64 ? Opcode::kCastF64SI32 : Opcode::kCastF32SI32, Bank::kI32, a);
      return Bind(result, Canonicalize(raw, out_width));
    }
    case OpKind::kFPToUI: {
      const bool f64 = *from == Bank::kF64;
      if (out_width == 64) {
        return Bind(result,
                    Unary(f64 ? Opcode::kCastF64UI64 : Opcode::kCastF32UI64, Bank::kI64, a));
      }
      VReg raw = Unary(f64 ? Opcode::kCastF64UI32 : Opcode::kCastF32UI32, Bank::kI32, a);
      return Bind(result, Canonicalize(raw, out_width));
    }
    case OpKind::kExtF:
    case OpKind::kTruncF:
      if (*from == bank) return Bind(result, a);
      return Bind(result,
                  Unary(bank == Bank::kF64 ? Opcode::kExtF32F64 : Opcode::kTruncF64F32, bank, a));
    case OpKind::kBitcast:
      if (*from == bank) return Bind(result, a);
      switch (bank) {
        case Bank::kF32:
          return Bind(result, Unary(Opcode::kBitcastI32F32, bank, a));
        case Bank::kI32:
          return Bind(result, Unary(Opcode::kBitcastF32I32, bank, a));
        case Bank::kF64:
          return Bind(result, Unary(Opcode::kBitcastI64F64, bank, a));
        default:
          return Bind(result, Unary(Opcode::kBitcastF64I64, bank, a));
      }
    default:
      return;
  }
}

void Selector::SelectMath(Operation* op) {
  Value* result = op->result(0);
  std::vector<VReg> args = LookupAll(op->operands);
  std::optional<Bank> bank_or = BankOf(result);
  if (!bank_or) return Bind(result, NewVRegFor(result));
  const Bank bank = *bank_or;
  const bool f64 = bank == Bank::kF64;
  auto unary = [&](Opcode f32_op, Opcode f64_op) {
    return Unary(f64 ? f64_op : f32_op, bank, args[0]);
  };
  auto fconst = [&](double value) {
    return f64 ? Constant(bank, DoubleBits(value))
               : Constant(bank, FloatBits(static_cast<float>(value)));
  };
  switch (op->kind()) {
    case OpKind::kNegF:
      return Bind(result, unary(Opcode::kNegF32, Opcode::kNegF64));
    case OpKind::kSqrt:
      return Bind(result, unary(Opcode::kSqrtF32, Opcode::kSqrtF64));
    case OpKind::kRSqrt: {
      VReg root = unary(Opcode::kSqrtF32, Opcode::kSqrtF64);
      return Bind(result, Binary(f64 ? Opcode::kDivF64 : Opcode::kDivF32, bank, fconst(1.0), root));
    }
    case OpKind::kExp:
      return Bind(result, unary(Opcode::kExpF32, Opcode::kExpF64));
    case OpKind::kExp2:
      return Bind(result,
                  Binary(f64 ? Opcode::kPowF64 : Opcode::kPowF32, bank, fconst(2.0), args[0]));
    case OpKind::kLog:
      return Bind(result, unary(Opcode::kLogF32, Opcode::kLogF64));
    case OpKind::kLog2: {
      VReg x = f64 ? args[0] : Unary(Opcode::kExtF32F64, Bank::kF64, args[0]);
      VReg ln = Unary(Opcode::kLogF64, Bank::kF64, x);
      VReg ln2 = Constant(Bank::kF64, DoubleBits(0.69314718055994530942));
      VReg log2 = Binary(Opcode::kDivF64, Bank::kF64, ln, ln2);
      return Bind(result, f64 ? log2 : Unary(Opcode::kTruncF64F32, Bank::kF32, log2));
    }
    case OpKind::kSin:
      return Bind(result, unary(Opcode::kSinF32, Opcode::kSinF64));
    case OpKind::kCos:
      return Bind(result, unary(Opcode::kCosF32, Opcode::kCosF64));
    case OpKind::kTanh:
      return Bind(result, unary(Opcode::kTanhF32, Opcode::kTanhF64));
    case OpKind::kAbsF:
      return Bind(result, unary(Opcode::kAbsF32, Opcode::kAbsF64));
    case OpKind::kFloor:
      return Bind(result, unary(Opcode::kFloorF32, Opcode::kFloorF64));
    case OpKind::kCeil:
      return Bind(result, unary(Opcode::kCeilF32, Opcode::kCeilF64));
    case OpKind::kRound:
      return Bind(result, unary(Opcode::kRoundF32, Opcode::kRoundF64));
    case OpKind::kFma:
      return Bind(result, Def(f64 ? Opcode::kFmaF64 : Opcode::kFmaF32, bank,
                              {R(args[0]), R(args[1]), R(args[2])}));
    case OpKind::kAbsI: {
      const uint32_t w = IntegerWidth(result->type);
      // abs of an i1 is itself (|-1| = 1 wraps to -1, the same bit pattern).
      if (w == 1) return Bind(result, args[0]);
      // |INT_MIN| wraps to INT_MIN at every width.
      return Bind(
          result,
          Canonicalize(Unary(ByBank(bank, Opcode::kAbsI32, Opcode::kAbsI64), bank, args[0]), w));
    }
    default:
      return;
  }
}

void Selector::SelectCall(Operation* op) {
  std::vector<VReg> args = LookupAll(op->operands);
  std::vector<VReg> results;
  bool ok = true;
  for (size_t i = 0; i < op->num_results(); ++i) {
    ok &= BankOf(op->result(i)).has_value();
    results.push_back(NewVRegFor(op->result(i)));
  }
  auto bind_results = [&] {
    for (size_t i = 0; i < op->num_results(); ++i) Bind(op->result(i), results[i]);
  };
  const Attribute* callee = op->attribute("callee");
  if (!callee || callee->kind != Attribute::Kind::kSymbolRef || callee->symbols.size() != 1) {
    Error(op->loc, "internal error: func.call needs a flat callee symbol");
    return bind_results();
  }
  if (args.size() > 255 || results.size() > 255) {
    Error(op->loc, "a call may pass at most 255 arguments and return at most 255 results");
    return bind_results();
  }
  if (!ok) return bind_results();
  const std::string& name = callee->symbols[0];
  auto it = symbols_.functions.find(name);
  if (it != symbols_.functions.end()) {
    MInst& inst = Emit(Opcode::kCall, {MOperand::Index(it->second)});
    inst.list = std::move(args);
    inst.results = results;
    return bind_results();
  }
  std::optional<uint32_t> import = symbols_.import(name, op->loc);
  if (!import) {
    failed_ = true;
    return bind_results();
  }
  // Native code may return any i32 for a narrow type: canonicalise.
  std::vector<VReg> raw = results;
  for (size_t i = 0; i < results.size(); ++i) {
    if (IsNarrowInteger(op->result(i)->type)) raw[i] = mf_.NewVReg(Bank::kI32);
  }
  MInst& inst = Emit(Opcode::kCallImport, {MOperand::Index(*import)});
  inst.list = std::move(args);
  inst.results = raw;
  if (const Attribute* dispatch = op->attribute("dispatch");
      dispatch && dispatch->kind == Attribute::Kind::kSymbolRef && symbols_.dispatch_site) {
    inst.site = symbols_.dispatch_site(*dispatch);
  }
  for (size_t i = 0; i < results.size(); ++i) {
    if (raw[i] != results[i]) results[i] = Canonicalize(raw[i], IntegerWidth(op->result(i)->type));
  }
  bind_results();
}

void Selector::SelectSwitch(Operation* op) {
  if (op->operands.size() != 1 || op->successors.empty()) {
    return Error(op->loc, "internal error: malformed cf.switch");
  }
  Value* flag_value = op->operands[0];
  VReg flag = Lookup(flag_value);
  std::optional<Bank> bank_or = BankOf(flag_value);
  if (!bank_or) return;
  const Bank bank = *bank_or;
  std::vector<int64_t> cases;
  if (const Attribute* attr = op->attribute("case_values")) {
    if (attr->kind == Attribute::Kind::kArray || attr->kind == Attribute::Kind::kDenseArray) {
      for (const Attribute& e : attr->elements) {
        if (e.kind != Attribute::Kind::kInteger) break;
        cases.push_back(
            static_cast<int64_t>(CanonicalIntegerBits(e.integer_value, flag_value->type)));
        if (bank == Bank::kI32) cases.back() = static_cast<int32_t>(cases.back());
      }
    }
  }
  if (cases.size() + 1 != op->successors.size()) {
    return Error(op->loc, "internal error: cf.switch case values do not match its successors");
  }
  MEdge default_edge = EdgeTo(op->successors[0]);
  const size_t n = cases.size();
  if (n == 0) return Terminate(Opcode::kBr, {}, {default_edge});

  int64_t min = cases[0], max = cases[0];
  for (int64_t c : cases) min = std::min(min, c), max = std::max(max, c);
  const uint64_t span = static_cast<uint64_t>(max) - static_cast<uint64_t>(min);  // range - 1
  const bool dense = n >= 3 && span < 4096 && span + 1 <= 2 * n + 8;

  if (dense) {
    const uint32_t range = static_cast<uint32_t>(span + 1);
    std::vector<MEdge> edges = {default_edge};
    std::map<std::pair<uint32_t, std::vector<VReg>>, uint32_t> unique;
    unique[{default_edge.block, default_edge.args}] = 0;
    std::vector<uint32_t> table(range, 0);
    std::vector<bool> filled(range, false);
    for (size_t k = 0; k < n; ++k) {
      const uint64_t slot = static_cast<uint64_t>(cases[k]) - static_cast<uint64_t>(min);
      if (filled[slot]) continue;  // A duplicate case value: the first one wins.
      filled[slot] = true;
      MEdge edge = EdgeTo(op->successors[k + 1]);
      auto [it, inserted] =
          unique.try_emplace({edge.block, edge.args}, static_cast<uint32_t>(edges.size()));
      if (inserted) edges.push_back(std::move(edge));
      table[slot] = it->second;
    }
    VReg index;
    if (bank == Bank::kI32) {
      index = min == 0 ? flag
                       : Def(Opcode::kAddImmI32, Bank::kI32,
                             {R(flag), MOperand::I32(WrapNegate32(min))});
    } else {
      // Bring the flag into [0, range) in 64 bits, check it, then truncate.
      VReg offset = flag;
      // -min fits an i32 immediate for min in [-(2^31 - 1), 2^31].
      const bool negation_fits = min >= -int64_t{INT32_MAX} && min <= int64_t{INT32_MAX} + 1;
      if (min != 0 && negation_fits) {
        offset = Def(Opcode::kAddImmI64, Bank::kI64,
                     {R(flag), MOperand::I32(static_cast<int32_t>(-min))});
      } else if (min != 0) {
        offset = Binary(Opcode::kSubI64, Bank::kI64, flag,
                        Constant(Bank::kI64, static_cast<uint64_t>(min)));
      }
      VReg in_range = Binary(Opcode::kCmpLtUI64, Bank::kI32, offset, Constant(Bank::kI64, range));
      uint32_t table_block = NewBlockAfterCurrent();
      Terminate(Opcode::kCondBr, {R(in_range)}, {MEdge{table_block, {}}, default_edge});
      current_ = table_block;
      index = Unary(Opcode::kTruncI64I32, Bank::kI32, offset);
    }
    MInst& inst = Emit(Opcode::kSwitch, {R(index)});
    inst.edges = std::move(edges);
    inst.targets.push_back(0);  // The default target.
    inst.targets.insert(inst.targets.end(), table.begin(), table.end());
    return;
  }

  // A compare chain: each case tests one value and falls to the next test.
  for (size_t k = 0; k < n; ++k) {
    MEdge case_edge = EdgeTo(op->successors[k + 1]);
    const bool last = k + 1 == n;
    const uint32_t next = last ? 0 : NewBlockAfterCurrent();
    MEdge next_edge = last ? default_edge : MEdge{next, {}};
    if (bank == Bank::kI32) {
      // flag - c is zero exactly on a match: no constant register needed.
      VReg diff = cases[k] == 0 ? flag
                                : Def(Opcode::kAddImmI32, Bank::kI32,
                                      {R(flag), MOperand::I32(WrapNegate32(cases[k]))});
      Terminate(Opcode::kCondBr, {R(diff)}, {std::move(next_edge), std::move(case_edge)});
    } else {
      VReg value = LocalConstant(Bank::kI64, static_cast<uint64_t>(cases[k]));
      VReg hit = Binary(Opcode::kCmpEqI64, Bank::kI32, flag, value);
      Terminate(Opcode::kCondBr, {R(hit)}, {std::move(case_edge), std::move(next_edge)});
    }
    if (!last) current_ = next;
  }
}

void Selector::SelectAssert(Operation* op) {
  if (op->operands.size() != 1) return Error(op->loc, "internal error: malformed cf.assert");
  VReg condition = Lookup(op->operands[0]);
  std::string message;
  if (const Attribute* msg = op->attribute("msg"); msg && msg->kind == Attribute::Kind::kString) {
    message = msg->text;
  }
  if (message.empty()) message = "assertion failed";
  const uint32_t cont = NewBlockAfterCurrent();
  const uint32_t fail = NewColdBlock();
  Terminate(Opcode::kCondBr, {R(condition)}, {MEdge{cont, {}}, MEdge{fail, {}}});
  current_ = fail;
  Emit(Opcode::kFail, {MOperand::Index(symbols_.add_string(std::move(message)))});
  current_ = cont;
}

void Selector::SelectGlobal(Operation* op) {
  const Attribute* attr = op->attribute("global");
  const GlobalSlot* slot = nullptr;
  if (attr && attr->kind == Attribute::Kind::kSymbolRef && attr->symbols.size() == 1) {
    auto it = symbols_.globals.find(attr->symbols[0]);
    if (it != symbols_.globals.end()) slot = &it->second;
  }
  if (op->kind() == OpKind::kGlobalLoad) {
    Value* result = op->result(0);
    std::optional<Bank> bank = BankOf(result);
    if (!slot || !bank || *bank != slot->bank) {
      if (bank) Error(op->loc, "internal error: util.global.load of an unknown or mistyped global");
      return Bind(result, NewVRegFor(result));
    }
    Opcode opcode = *bank == Bank::kI32   ? Opcode::kGlobalLoadI32
                    : *bank == Bank::kI64 ? Opcode::kGlobalLoadI64
                    : *bank == Bank::kF32 ? Opcode::kGlobalLoadF32
                    : *bank == Bank::kF64 ? Opcode::kGlobalLoadF64
                                          : Opcode::kGlobalLoadRef;
    return Bind(result, Def(opcode, *bank, {MOperand::Index(slot->offset)}));
  }
  if (op->operands.size() != 1)
    return Error(op->loc, "internal error: malformed util.global.store");
  VReg value = Lookup(op->operands[0]);
  std::optional<Bank> bank = BankOf(op->operands[0]);
  if (!slot || !bank || *bank != slot->bank) {
    if (bank) Error(op->loc, "internal error: util.global.store to an unknown or mistyped global");
    return;
  }
  Opcode opcode = *bank == Bank::kI32   ? Opcode::kGlobalStoreI32
                  : *bank == Bank::kI64 ? Opcode::kGlobalStoreI64
                  : *bank == Bank::kF32 ? Opcode::kGlobalStoreF32
                  : *bank == Bank::kF64 ? Opcode::kGlobalStoreF64
                                        : Opcode::kGlobalStoreRef;
  Emit(opcode, {MOperand::Index(slot->offset), R(value)});
}

}  // namespace

bool SelectInstructions(Operation* func, const ModuleSymbols& symbols,
                        DiagnosticEngine& diagnostics, bool canonicalize_arguments,
                        MFunction* out) {
  *out = MFunction();
  if (func->num_regions() != 1 || func->region(0)->empty()) {
    diagnostics.Error(func->loc, "internal error: function has no body");
    return false;
  }
  Selector selector(func, symbols, diagnostics, canonicalize_arguments, *out);
  return selector.Run();
}

}  // namespace kiln::compiler::codegen
