// arith → vm: constants, integer and float arithmetic, compares, select and
// casts, keeping narrow integers canonical (selection_builder.h).
//
// Integer division: divsi's one overflow, INT_MIN(w) / -1, wraps back to
// INT_MIN(w); ceildivsi/floordivsi are the truncating quotient adjusted by one
// when the remainder is non-zero and has the divisor's sign (ceil) or the
// opposite sign (floor). fptosi/fptoui into a narrow type convert to i32
// (saturating, as the VM does) and wrap to the width; MLIR calls
// out-of-range results poison. arith.maximumf/minimumf are max/min.f32/f64,
// which implement IEEE 754-2019 maximum/minimum as MLIR defines them
// (NaN-propagating, -0 < +0). cmpf false/true are the constants 0/1.
#include <bit>

#include "compiler/vm/conversion/patterns.h"
#include "compiler/vm/conversion/select_pattern.h"
#include "mlir/Dialect/Arith/IR/Arith.h"

namespace kiln::compiler {
namespace {

using kiln::vm::Bank;
using kiln::vm::Opcode;
namespace arith = mlir::arith;

Bank BankOfValue(mlir::Value v) { return *BankOf(v.getType()); }

// --- Constants ---

mlir::Value SelectConstant(arith::ConstantOp op, arith::ConstantOp::Adaptor, SelectionBuilder& s) {
  const Bank bank = BankOfValue(op.getResult());
  uint64_t bits = 0;
  if (auto integer = llvm::dyn_cast<mlir::IntegerAttr>(op.getValue())) {
    bits = CanonicalIntegerBits(integer.getValue().getSExtValue(), op.getType());
  } else if (auto real = llvm::dyn_cast<mlir::FloatAttr>(op.getValue())) {
    bits = real.getValue().bitcastToAPInt().getZExtValue();
  }
  return s.Constant(bank, bits);
}

// --- Integer arithmetic ---

enum class IntOp {
  kAdd,
  kSub,
  kMul,
  kDivS,
  kDivU,
  kRemS,
  kRemU,
  kAnd,
  kOr,
  kXor,
  kShl,
  kShrS,
  kShrU,
  kMaxS,
  kMinS,
  kMaxU,
  kMinU,
};

template <typename OpTy, IntOp kOp>
mlir::Value SelectIntBinary(OpTy op, typename OpTy::Adaptor adaptor, SelectionBuilder& s) {
  const Bank bank = BankOfValue(op.getResult());
  const unsigned w = IntegerWidth(op.getType());
  mlir::Value a = adaptor.getLhs(), b = adaptor.getRhs();
  auto op2 = [&](Opcode i32, Opcode i64, mlir::Value x, mlir::Value y) {
    return s.Binary(ByBank(bank, i32, i64), bank, x, y);
  };
  // An unsigned op on zero-extended views yields a value in [0, 2^w): an
  // i8/i16 result at or above 2^(w-1) must be sign-extended; an i1 is 0 or 1.
  auto unsigned_result = [&](mlir::Value v) { return w == 1 ? v : s.Canonicalize(v, w); };
  // max/min of sign views pick one of them: canonical for i8/i16, but an i1
  // view is 0 or -1.
  auto signed_choice = [&](mlir::Value v) { return w == 1 ? s.Canonicalize(v, 1) : v; };
  // The views of both operands, a's first (C++ leaves argument order open).
  auto on_signed = [&](Opcode i32, Opcode i64) {
    mlir::Value x = s.SignedView(a, w);
    mlir::Value y = s.SignedView(b, w);
    return op2(i32, i64, x, y);
  };
  auto on_unsigned = [&](Opcode i32, Opcode i64) {
    mlir::Value x = s.UnsignedView(a, w);
    mlir::Value y = s.UnsignedView(b, w);
    return op2(i32, i64, x, y);
  };
  switch (kOp) {
    case IntOp::kAdd:
      return w == 1 ? op2(Opcode::kXorI32, Opcode::kXorI64, a, b)
                    : s.Canonicalize(op2(Opcode::kAddI32, Opcode::kAddI64, a, b), w);
    case IntOp::kSub:
      return w == 1 ? op2(Opcode::kXorI32, Opcode::kXorI64, a, b)
                    : s.Canonicalize(op2(Opcode::kSubI32, Opcode::kSubI64, a, b), w);
    case IntOp::kMul:
      return w == 1 ? op2(Opcode::kAndI32, Opcode::kAndI64, a, b)
                    : s.Canonicalize(op2(Opcode::kMulI32, Opcode::kMulI64, a, b), w);
    case IntOp::kAnd:
      return op2(Opcode::kAndI32, Opcode::kAndI64, a, b);
    case IntOp::kOr:
      return op2(Opcode::kOrI32, Opcode::kOrI64, a, b);
    case IntOp::kXor:
      return op2(Opcode::kXorI32, Opcode::kXorI64, a, b);
    case IntOp::kShl:
      return s.Canonicalize(op2(Opcode::kShlI32, Opcode::kShlI64, a, b), w);
    case IntOp::kShrS:
      // Sign-extended values stay sign-extended; an i1 needs the sign view.
      return w == 1
                 ? s.Canonicalize(op2(Opcode::kShrSI32, Opcode::kShrSI64, s.SignedView(a, w), b), w)
                 : op2(Opcode::kShrSI32, Opcode::kShrSI64, a, b);
    case IntOp::kShrU:
      // A shift by 0 (mod 32) gives back the zero-extended view itself.
      return unsigned_result(op2(Opcode::kShrUI32, Opcode::kShrUI64, s.UnsignedView(a, w), b));
    case IntOp::kDivS:
      return s.Canonicalize(on_signed(Opcode::kDivSI32, Opcode::kDivSI64), w);
    case IntOp::kRemS:
      // |a rem b| < |b|: fits the width (an i1 remainder is always 0).
      return on_signed(Opcode::kRemSI32, Opcode::kRemSI64);
    case IntOp::kDivU:
      return unsigned_result(on_unsigned(Opcode::kDivUI32, Opcode::kDivUI64));
    case IntOp::kRemU:
      return unsigned_result(on_unsigned(Opcode::kRemUI32, Opcode::kRemUI64));
    case IntOp::kMaxS:
      return signed_choice(on_signed(Opcode::kMaxSI32, Opcode::kMaxSI64));
    case IntOp::kMinS:
      return signed_choice(on_signed(Opcode::kMinSI32, Opcode::kMinSI64));
    case IntOp::kMaxU:
      return unsigned_result(on_unsigned(Opcode::kMaxUI32, Opcode::kMaxUI64));
    case IntOp::kMinU:
      return unsigned_result(on_unsigned(Opcode::kMinUI32, Opcode::kMinUI64));
  }
  return {};
}

// ceildivsi/floordivsi: the truncating quotient, adjusted by one when the
// remainder is non-zero and the exact quotient is positive (ceil) or
// negative (floor), i.e. when the remainder and the divisor have the same
// (ceil) or opposite (floor) signs.
template <typename OpTy, bool kCeil>
mlir::Value SelectDivRound(OpTy op, typename OpTy::Adaptor adaptor, SelectionBuilder& s) {
  const Bank bank = BankOfValue(op.getResult());
  const unsigned w = IntegerWidth(op.getType());
  mlir::Value a = s.SignedView(adaptor.getLhs(), w);
  mlir::Value b = s.SignedView(adaptor.getRhs(), w);
  mlir::Value q = s.Binary(ByBank(bank, Opcode::kDivSI32, Opcode::kDivSI64), bank, a, b);
  mlir::Value r = s.Binary(ByBank(bank, Opcode::kRemSI32, Opcode::kRemSI64), bank, a, b);
  mlir::Value zero = s.Constant(bank, 0);
  mlir::Value nonzero =
      s.Binary(ByBank(bank, Opcode::kCmpNeI32, Opcode::kCmpNeI64), Bank::kI32, r, zero);
  mlir::Value signs = s.Binary(ByBank(bank, Opcode::kXorI32, Opcode::kXorI64), bank, r, b);
  mlir::Value same =
      kCeil
          ? s.Binary(ByBank(bank, Opcode::kCmpGeSI32, Opcode::kCmpGeSI64), Bank::kI32, signs, zero)
          : s.Binary(ByBank(bank, Opcode::kCmpLtSI32, Opcode::kCmpLtSI64), Bank::kI32, signs, zero);
  mlir::Value adjust = s.Binary(Opcode::kAndI32, Bank::kI32, nonzero, same);
  mlir::Value q1 = s.AddImm(bank, q, kCeil ? 1 : -1);
  mlir::Value selected =
      s.Def(ByBank(bank, Opcode::kSelectI32, Opcode::kSelectI64), s.TypeOf(bank), {adjust, q1, q});
  return s.Canonicalize(selected, w);
}

// --- Float arithmetic ---

template <typename OpTy, Opcode kF32, Opcode kF64>
mlir::Value SelectFloatBinary(OpTy op, typename OpTy::Adaptor adaptor, SelectionBuilder& s) {
  const Bank bank = BankOfValue(op.getResult());
  return s.Binary(ByFloat(bank, kF32, kF64), bank, adaptor.getLhs(), adaptor.getRhs());
}

mlir::Value SelectNegF(arith::NegFOp op, arith::NegFOp::Adaptor adaptor, SelectionBuilder& s) {
  const Bank bank = BankOfValue(op.getResult());
  return s.Unary(ByFloat(bank, Opcode::kNegF32, Opcode::kNegF64), bank, adaptor.getOperand());
}

// --- Compares ---

std::pair<Opcode, Opcode> CmpIOpcodes(arith::CmpIPredicate predicate) {
  using P = arith::CmpIPredicate;
  switch (predicate) {
    case P::eq:
      return {Opcode::kCmpEqI32, Opcode::kCmpEqI64};
    case P::ne:
      return {Opcode::kCmpNeI32, Opcode::kCmpNeI64};
    case P::slt:
      return {Opcode::kCmpLtSI32, Opcode::kCmpLtSI64};
    case P::sle:
      return {Opcode::kCmpLeSI32, Opcode::kCmpLeSI64};
    case P::sgt:
      return {Opcode::kCmpGtSI32, Opcode::kCmpGtSI64};
    case P::sge:
      return {Opcode::kCmpGeSI32, Opcode::kCmpGeSI64};
    case P::ult:
      return {Opcode::kCmpLtUI32, Opcode::kCmpLtUI64};
    case P::ule:
      return {Opcode::kCmpLeUI32, Opcode::kCmpLeUI64};
    case P::ugt:
      return {Opcode::kCmpGtUI32, Opcode::kCmpGtUI64};
    case P::uge:
      return {Opcode::kCmpGeUI32, Opcode::kCmpGeUI64};
  }
  return {Opcode::kCount, Opcode::kCount};
}

bool IsSigned(arith::CmpIPredicate p) {
  using P = arith::CmpIPredicate;
  return p == P::slt || p == P::sle || p == P::sgt || p == P::sge;
}
bool IsUnsigned(arith::CmpIPredicate p) {
  using P = arith::CmpIPredicate;
  return p == P::ult || p == P::ule || p == P::ugt || p == P::uge;
}

// The unsigned predicate with the same relation, for i1 signed compares
// (a <s b on i1 is b <u a on the 0/1 encoding).
arith::CmpIPredicate UnsignedOf(arith::CmpIPredicate p) {
  using P = arith::CmpIPredicate;
  switch (p) {
    case P::slt:
      return P::ult;
    case P::sle:
      return P::ule;
    case P::sgt:
      return P::ugt;
    case P::sge:
      return P::uge;
    default:
      return p;
  }
}

mlir::Value SelectCmpI(arith::CmpIOp op, arith::CmpIOp::Adaptor adaptor, SelectionBuilder& s) {
  const Bank bank = BankOfValue(op.getLhs());
  const unsigned w = IntegerWidth(op.getLhs().getType());
  arith::CmpIPredicate predicate = op.getPredicate();
  mlir::Value a = adaptor.getLhs(), b = adaptor.getRhs();
  if (w == 1 && IsSigned(predicate)) {
    predicate = UnsignedOf(predicate);
    std::swap(a, b);
  } else if (IsUnsigned(predicate)) {
    a = s.UnsignedView(a, w);
    b = s.UnsignedView(b, w);
  }
  auto [i32, i64] = CmpIOpcodes(predicate);
  return s.Binary(ByBank(bank, i32, i64), Bank::kI32, a, b);
}

std::pair<Opcode, Opcode> CmpFOpcodes(arith::CmpFPredicate predicate) {
  using P = arith::CmpFPredicate;
  switch (predicate) {
    case P::OEQ:
      return {Opcode::kCmpOeqF32, Opcode::kCmpOeqF64};
    case P::OGT:
      return {Opcode::kCmpOgtF32, Opcode::kCmpOgtF64};
    case P::OGE:
      return {Opcode::kCmpOgeF32, Opcode::kCmpOgeF64};
    case P::OLT:
      return {Opcode::kCmpOltF32, Opcode::kCmpOltF64};
    case P::OLE:
      return {Opcode::kCmpOleF32, Opcode::kCmpOleF64};
    case P::ONE:
      return {Opcode::kCmpOneF32, Opcode::kCmpOneF64};
    case P::ORD:
      return {Opcode::kCmpOrdF32, Opcode::kCmpOrdF64};
    case P::UEQ:
      return {Opcode::kCmpUeqF32, Opcode::kCmpUeqF64};
    case P::UGT:
      return {Opcode::kCmpUgtF32, Opcode::kCmpUgtF64};
    case P::UGE:
      return {Opcode::kCmpUgeF32, Opcode::kCmpUgeF64};
    case P::ULT:
      return {Opcode::kCmpUltF32, Opcode::kCmpUltF64};
    case P::ULE:
      return {Opcode::kCmpUleF32, Opcode::kCmpUleF64};
    case P::UNE:
      return {Opcode::kCmpUneF32, Opcode::kCmpUneF64};
    case P::UNO:
      return {Opcode::kCmpUnoF32, Opcode::kCmpUnoF64};
    case P::AlwaysFalse:
    case P::AlwaysTrue:
      break;
  }
  return {Opcode::kCount, Opcode::kCount};
}

mlir::Value SelectCmpF(arith::CmpFOp op, arith::CmpFOp::Adaptor adaptor, SelectionBuilder& s) {
  const arith::CmpFPredicate predicate = op.getPredicate();
  if (predicate == arith::CmpFPredicate::AlwaysFalse) return s.Constant(Bank::kI32, 0);
  if (predicate == arith::CmpFPredicate::AlwaysTrue) return s.Constant(Bank::kI32, 1);
  auto [f32, f64] = CmpFOpcodes(predicate);
  return s.Binary(ByFloat(BankOfValue(op.getLhs()), f32, f64), Bank::kI32, adaptor.getLhs(),
                  adaptor.getRhs());
}

mlir::Value SelectSelect(arith::SelectOp op, arith::SelectOp::Adaptor adaptor,
                         SelectionBuilder& s) {
  const Bank bank = BankOfValue(op.getResult());
  return s.Def(vm::OpcodeOfBank(Opcode::kSelectI32, bank), adaptor.getTrueValue().getType(),
               {adaptor.getCondition(), adaptor.getTrueValue(), adaptor.getFalseValue()});
}

// --- Casts ---

template <typename OpTy, bool kSigned>
mlir::Value SelectResize(OpTy op, typename OpTy::Adaptor adaptor, SelectionBuilder& s) {
  return s.Resize(adaptor.getIn(), IntegerWidth(op.getIn().getType()), IntegerWidth(op.getType()),
                  kSigned);
}

template <typename OpTy, bool kSigned>
mlir::Value SelectIntToFloat(OpTy op, typename OpTy::Adaptor adaptor, SelectionBuilder& s) {
  const Bank bank = BankOfValue(op.getResult());
  const unsigned in_width = IntegerWidth(op.getIn().getType());
  mlir::Value a = adaptor.getIn();
  if (in_width == 64) {
    return s.Unary(kSigned ? ByFloat(bank, Opcode::kCastSI64F32, Opcode::kCastSI64F64)
                           : ByFloat(bank, Opcode::kCastUI64F32, Opcode::kCastUI64F64),
                   bank, a);
  }
  return kSigned ? s.Unary(ByFloat(bank, Opcode::kCastSI32F32, Opcode::kCastSI32F64), bank,
                           s.SignedView(a, in_width))
                 : s.Unary(ByFloat(bank, Opcode::kCastUI32F32, Opcode::kCastUI32F64), bank,
                           s.UnsignedView(a, in_width));
}

template <typename OpTy, bool kSigned>
mlir::Value SelectFloatToInt(OpTy op, typename OpTy::Adaptor adaptor, SelectionBuilder& s) {
  const bool f64 = BankOfValue(op.getIn()) == Bank::kF64;
  const unsigned out_width = IntegerWidth(op.getType());
  mlir::Value a = adaptor.getIn();
  if (out_width == 64) {
    const Opcode opcode = kSigned ? (f64 ? Opcode::kCastF64SI64 : Opcode::kCastF32SI64)
                                  : (f64 ? Opcode::kCastF64UI64 : Opcode::kCastF32UI64);
    return s.Unary(opcode, Bank::kI64, a);
  }
  const Opcode opcode = kSigned ? (f64 ? Opcode::kCastF64SI32 : Opcode::kCastF32SI32)
                                : (f64 ? Opcode::kCastF64UI32 : Opcode::kCastF32UI32);
  return s.Canonicalize(s.Unary(opcode, Bank::kI32, a), out_width);
}

template <typename OpTy>
mlir::Value SelectFloatResize(OpTy op, typename OpTy::Adaptor adaptor, SelectionBuilder& s) {
  const Bank from = BankOfValue(op.getIn()), to = BankOfValue(op.getResult());
  if (from == to) return adaptor.getIn();
  return s.Unary(to == Bank::kF64 ? Opcode::kExtF32F64 : Opcode::kTruncF64F32, to, adaptor.getIn());
}

mlir::Value SelectBitcast(arith::BitcastOp op, arith::BitcastOp::Adaptor adaptor,
                          SelectionBuilder& s) {
  const Bank from = BankOfValue(op.getIn()), to = BankOfValue(op.getResult());
  mlir::Value a = adaptor.getIn();
  if (from == to) return a;
  switch (to) {
    case Bank::kF32:
      return s.Unary(Opcode::kBitcastI32F32, to, a);
    case Bank::kI32:
      return s.Unary(Opcode::kBitcastF32I32, to, a);
    case Bank::kF64:
      return s.Unary(Opcode::kBitcastI64F64, to, a);
    default:
      return s.Unary(Opcode::kBitcastF64I64, to, a);
  }
}

template <typename OpTy>
void Add(const mlir::TypeConverter& converter, mlir::RewritePatternSet& patterns,
         SelectFn<OpTy> select) {
  patterns.add<SelectPattern<OpTy>>(converter, patterns.getContext(), select);
}

}  // namespace

void PopulateArithToVMPatterns(const mlir::TypeConverter& converter,
                               mlir::RewritePatternSet& patterns) {
  auto& c = converter;
  auto& p = patterns;
  Add<arith::ConstantOp>(c, p, SelectConstant);
  Add<arith::AddIOp>(c, p, SelectIntBinary<arith::AddIOp, IntOp::kAdd>);
  Add<arith::SubIOp>(c, p, SelectIntBinary<arith::SubIOp, IntOp::kSub>);
  Add<arith::MulIOp>(c, p, SelectIntBinary<arith::MulIOp, IntOp::kMul>);
  Add<arith::DivSIOp>(c, p, SelectIntBinary<arith::DivSIOp, IntOp::kDivS>);
  Add<arith::DivUIOp>(c, p, SelectIntBinary<arith::DivUIOp, IntOp::kDivU>);
  Add<arith::RemSIOp>(c, p, SelectIntBinary<arith::RemSIOp, IntOp::kRemS>);
  Add<arith::RemUIOp>(c, p, SelectIntBinary<arith::RemUIOp, IntOp::kRemU>);
  Add<arith::AndIOp>(c, p, SelectIntBinary<arith::AndIOp, IntOp::kAnd>);
  Add<arith::OrIOp>(c, p, SelectIntBinary<arith::OrIOp, IntOp::kOr>);
  Add<arith::XOrIOp>(c, p, SelectIntBinary<arith::XOrIOp, IntOp::kXor>);
  Add<arith::ShLIOp>(c, p, SelectIntBinary<arith::ShLIOp, IntOp::kShl>);
  Add<arith::ShRSIOp>(c, p, SelectIntBinary<arith::ShRSIOp, IntOp::kShrS>);
  Add<arith::ShRUIOp>(c, p, SelectIntBinary<arith::ShRUIOp, IntOp::kShrU>);
  Add<arith::MaxSIOp>(c, p, SelectIntBinary<arith::MaxSIOp, IntOp::kMaxS>);
  Add<arith::MinSIOp>(c, p, SelectIntBinary<arith::MinSIOp, IntOp::kMinS>);
  Add<arith::MaxUIOp>(c, p, SelectIntBinary<arith::MaxUIOp, IntOp::kMaxU>);
  Add<arith::MinUIOp>(c, p, SelectIntBinary<arith::MinUIOp, IntOp::kMinU>);
  Add<arith::CeilDivSIOp>(c, p, SelectDivRound<arith::CeilDivSIOp, true>);
  Add<arith::FloorDivSIOp>(c, p, SelectDivRound<arith::FloorDivSIOp, false>);
  Add<arith::AddFOp>(c, p, SelectFloatBinary<arith::AddFOp, Opcode::kAddF32, Opcode::kAddF64>);
  Add<arith::SubFOp>(c, p, SelectFloatBinary<arith::SubFOp, Opcode::kSubF32, Opcode::kSubF64>);
  Add<arith::MulFOp>(c, p, SelectFloatBinary<arith::MulFOp, Opcode::kMulF32, Opcode::kMulF64>);
  Add<arith::DivFOp>(c, p, SelectFloatBinary<arith::DivFOp, Opcode::kDivF32, Opcode::kDivF64>);
  Add<arith::RemFOp>(c, p, SelectFloatBinary<arith::RemFOp, Opcode::kRemF32, Opcode::kRemF64>);
  Add<arith::MaximumFOp>(c, p,
                         SelectFloatBinary<arith::MaximumFOp, Opcode::kMaxF32, Opcode::kMaxF64>);
  Add<arith::MinimumFOp>(c, p,
                         SelectFloatBinary<arith::MinimumFOp, Opcode::kMinF32, Opcode::kMinF64>);
  Add<arith::NegFOp>(c, p, SelectNegF);
  Add<arith::CmpIOp>(c, p, SelectCmpI);
  Add<arith::CmpFOp>(c, p, SelectCmpF);
  Add<arith::SelectOp>(c, p, SelectSelect);
  Add<arith::IndexCastOp>(c, p, SelectResize<arith::IndexCastOp, true>);
  Add<arith::ExtSIOp>(c, p, SelectResize<arith::ExtSIOp, true>);
  Add<arith::TruncIOp>(c, p, SelectResize<arith::TruncIOp, true>);
  Add<arith::IndexCastUIOp>(c, p, SelectResize<arith::IndexCastUIOp, false>);
  Add<arith::ExtUIOp>(c, p, SelectResize<arith::ExtUIOp, false>);
  Add<arith::SIToFPOp>(c, p, SelectIntToFloat<arith::SIToFPOp, true>);
  Add<arith::UIToFPOp>(c, p, SelectIntToFloat<arith::UIToFPOp, false>);
  Add<arith::FPToSIOp>(c, p, SelectFloatToInt<arith::FPToSIOp, true>);
  Add<arith::FPToUIOp>(c, p, SelectFloatToInt<arith::FPToUIOp, false>);
  Add<arith::ExtFOp>(c, p, SelectFloatResize<arith::ExtFOp>);
  Add<arith::TruncFOp>(c, p, SelectFloatResize<arith::TruncFOp>);
  Add<arith::BitcastOp>(c, p, SelectBitcast);
}

}  // namespace kiln::compiler
