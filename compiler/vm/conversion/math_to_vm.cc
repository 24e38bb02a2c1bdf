// math → vm. math.round is round.f*, half away from zero like MLIR; rsqrt is
// 1/sqrt(x) (two roundings); exp2 is pow(2, x); log2 is log(x)/ln(2),
// computed in f64 for both widths: exact at every power of two for f32,
// within 2 ulp for f64 (off by one ulp at some powers of two). absi of
// INT_MIN wraps to INT_MIN at every width; absi of an i1 is itself.
#include <bit>

#include "compiler/vm/conversion/patterns.h"
#include "compiler/vm/conversion/select_pattern.h"
#include "mlir/Dialect/Math/IR/Math.h"

namespace kiln::compiler {
namespace {

using kiln::vm::Bank;
using kiln::vm::Opcode;
namespace math = mlir::math;

template <typename OpTy, Opcode kF32, Opcode kF64>
mlir::Value SelectUnary(OpTy op, typename OpTy::Adaptor adaptor, SelectionBuilder& s) {
  const Bank bank = *BankOf(op.getType());
  return s.Unary(ByFloat(bank, kF32, kF64), bank, adaptor.getOperand());
}

mlir::Value FloatConstant(SelectionBuilder& s, Bank bank, double value) {
  return bank == Bank::kF64
             ? s.Constant(bank, std::bit_cast<uint64_t>(value))
             : s.Constant(bank, std::bit_cast<uint32_t>(static_cast<float>(value)));
}

mlir::Value SelectRsqrt(math::RsqrtOp op, math::RsqrtOp::Adaptor adaptor, SelectionBuilder& s) {
  const Bank bank = *BankOf(op.getType());
  mlir::Value root =
      s.Unary(ByFloat(bank, Opcode::kSqrtF32, Opcode::kSqrtF64), bank, adaptor.getOperand());
  return s.Binary(ByFloat(bank, Opcode::kDivF32, Opcode::kDivF64), bank,
                  FloatConstant(s, bank, 1.0), root);
}

mlir::Value SelectExp2(math::Exp2Op op, math::Exp2Op::Adaptor adaptor, SelectionBuilder& s) {
  const Bank bank = *BankOf(op.getType());
  return s.Binary(ByFloat(bank, Opcode::kPowF32, Opcode::kPowF64), bank,
                  FloatConstant(s, bank, 2.0), adaptor.getOperand());
}

mlir::Value SelectLog2(math::Log2Op op, math::Log2Op::Adaptor adaptor, SelectionBuilder& s) {
  const bool f64 = *BankOf(op.getType()) == Bank::kF64;
  mlir::Value x = f64 ? adaptor.getOperand()
                      : s.Unary(Opcode::kExtF32F64, Bank::kF64, adaptor.getOperand());
  mlir::Value ln = s.Unary(Opcode::kLogF64, Bank::kF64, x);
  mlir::Value ln2 = FloatConstant(s, Bank::kF64, 0.69314718055994530942);
  mlir::Value log2 = s.Binary(Opcode::kDivF64, Bank::kF64, ln, ln2);
  return f64 ? log2 : s.Unary(Opcode::kTruncF64F32, Bank::kF32, log2);
}

mlir::Value SelectPowF(math::PowFOp op, math::PowFOp::Adaptor adaptor, SelectionBuilder& s) {
  const Bank bank = *BankOf(op.getType());
  return s.Binary(ByFloat(bank, Opcode::kPowF32, Opcode::kPowF64), bank, adaptor.getLhs(),
                  adaptor.getRhs());
}

mlir::Value SelectFma(math::FmaOp op, math::FmaOp::Adaptor adaptor, SelectionBuilder& s) {
  const Bank bank = *BankOf(op.getType());
  return s.Def(ByFloat(bank, Opcode::kFmaF32, Opcode::kFmaF64), s.TypeOf(bank),
               {adaptor.getA(), adaptor.getB(), adaptor.getC()});
}

mlir::Value SelectAbsI(math::AbsIOp op, math::AbsIOp::Adaptor adaptor, SelectionBuilder& s) {
  const unsigned w = IntegerWidth(op.getType());
  // abs of an i1 is itself (|-1| = 1 wraps to -1, the same bit pattern).
  if (w == 1) return adaptor.getOperand();
  const Bank bank = *BankOf(op.getType());
  return s.Canonicalize(
      s.Unary(ByBank(bank, Opcode::kAbsI32, Opcode::kAbsI64), bank, adaptor.getOperand()), w);
}

template <typename OpTy>
void Add(const mlir::TypeConverter& converter, mlir::RewritePatternSet& patterns,
         SelectFn<OpTy> select) {
  patterns.add<SelectPattern<OpTy>>(converter, patterns.getContext(), select);
}

}  // namespace

void PopulateMathToVMPatterns(const mlir::TypeConverter& converter,
                              mlir::RewritePatternSet& patterns) {
  auto& c = converter;
  auto& p = patterns;
  Add<math::SqrtOp>(c, p, SelectUnary<math::SqrtOp, Opcode::kSqrtF32, Opcode::kSqrtF64>);
  Add<math::ExpOp>(c, p, SelectUnary<math::ExpOp, Opcode::kExpF32, Opcode::kExpF64>);
  Add<math::LogOp>(c, p, SelectUnary<math::LogOp, Opcode::kLogF32, Opcode::kLogF64>);
  Add<math::SinOp>(c, p, SelectUnary<math::SinOp, Opcode::kSinF32, Opcode::kSinF64>);
  Add<math::CosOp>(c, p, SelectUnary<math::CosOp, Opcode::kCosF32, Opcode::kCosF64>);
  Add<math::TanhOp>(c, p, SelectUnary<math::TanhOp, Opcode::kTanhF32, Opcode::kTanhF64>);
  Add<math::AbsFOp>(c, p, SelectUnary<math::AbsFOp, Opcode::kAbsF32, Opcode::kAbsF64>);
  Add<math::FloorOp>(c, p, SelectUnary<math::FloorOp, Opcode::kFloorF32, Opcode::kFloorF64>);
  Add<math::CeilOp>(c, p, SelectUnary<math::CeilOp, Opcode::kCeilF32, Opcode::kCeilF64>);
  Add<math::RoundOp>(c, p, SelectUnary<math::RoundOp, Opcode::kRoundF32, Opcode::kRoundF64>);
  Add<math::RsqrtOp>(c, p, SelectRsqrt);
  Add<math::Exp2Op>(c, p, SelectExp2);
  Add<math::Log2Op>(c, p, SelectLog2);
  Add<math::PowFOp>(c, p, SelectPowF);
  Add<math::FmaOp>(c, p, SelectFma);
  Add<math::AbsIOp>(c, p, SelectAbsI);
}

}  // namespace kiln::compiler
