#include "compiler/passes/constant_eval.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace kiln::compiler {
namespace {

// An integer constant read at its type's width.
struct Int {
  int64_t s;   // Sign-extended (i1 true is -1).
  uint64_t u;  // Zero-extended.
  uint32_t w;  // Width (index: 64).
};

Int ReadInt(const Attribute& a, const Type& type) {
  uint32_t w = type.integer_width();
  return {SignExtend(a.integer_value, w), ZeroExtend(a.integer_value, w), w};
}

// Truncates `bits` to `type`'s width: the wrapped result.
Attribute MakeInt(uint64_t bits, const Type& type) {
  if (type.is_integer(1)) return Attribute::Bool(bits & 1);
  return Attribute::Integer(static_cast<int64_t>(bits), type);
}

bool IsFoldableInt(const Type& t) { return t.is_integer_or_index() && t.integer_width() <= 64; }
bool IsF32(const Type& t) { return t.kind() == TypeKind::kFloat && t.width() == 32; }
bool IsF64(const Type& t) { return t.kind() == TypeKind::kFloat && t.width() == 64; }
bool IsFoldableFloat(const Type& t) { return IsF32(t) || IsF64(t); }

int64_t SignedMin(uint32_t w) { return w >= 64 ? INT64_MIN : -(int64_t{1} << (w - 1)); }

// The VM shifts a 32-bit register (i1..i32) by the amount's register value
// modulo 32, a 64-bit one (i64, index) modulo 64; narrow amounts sit in their
// register sign-extended (i1 as 0/1).
uint32_t ShiftAmount(Int amount) {
  if (amount.w == 0) return 0;
  if (amount.w > 32) return static_cast<uint32_t>(amount.u & 63);
  const uint64_t reg = amount.w == 1 ? amount.u : static_cast<uint64_t>(amount.s);
  return static_cast<uint32_t>(reg & 31);
}

Attribute EvalIntBinary(OpKind kind, Int a, Int b, const Type& type) {
  switch (kind) {
    case OpKind::kAddI:
      return MakeInt(a.u + b.u, type);
    case OpKind::kSubI:
      return MakeInt(a.u - b.u, type);
    case OpKind::kMulI:
      return MakeInt(a.u * b.u, type);
    case OpKind::kDivSI:
      if (b.s == 0) return {};
      if (b.s == -1) return MakeInt(0 - a.u, type);  // INT_MIN / -1 wraps to INT_MIN.
      return MakeInt(static_cast<uint64_t>(a.s / b.s), type);
    case OpKind::kDivUI:
      if (b.u == 0) return {};
      return MakeInt(a.u / b.u, type);
    case OpKind::kRemSI:
      if (b.s == 0) return {};
      if (b.s == -1) return MakeInt(0, type);
      return MakeInt(static_cast<uint64_t>(a.s % b.s), type);
    case OpKind::kRemUI:
      if (b.u == 0) return {};
      return MakeInt(a.u % b.u, type);
    case OpKind::kCeilDivSI:
    case OpKind::kFloorDivSI: {
      if (b.s == 0) return {};
      if (b.s == -1) return MakeInt(0 - a.u, type);  // Exact; INT_MIN wraps to INT_MIN.
      int64_t q = a.s / b.s;
      const bool exact = a.s % b.s == 0;
      const bool same_sign = (a.s < 0) == (b.s < 0);
      if (!exact && kind == OpKind::kCeilDivSI && same_sign) ++q;
      if (!exact && kind == OpKind::kFloorDivSI && !same_sign) --q;
      return MakeInt(static_cast<uint64_t>(q), type);
    }
    case OpKind::kAndI:
      return MakeInt(a.u & b.u, type);
    case OpKind::kOrI:
      return MakeInt(a.u | b.u, type);
    case OpKind::kXOrI:
      return MakeInt(a.u ^ b.u, type);
    case OpKind::kShLI:
      return MakeInt(a.u << ShiftAmount(b), type);
    case OpKind::kShRSI:
      return MakeInt(static_cast<uint64_t>(a.s >> ShiftAmount(b)), type);
    case OpKind::kShRUI:
      return MakeInt(a.u >> ShiftAmount(b), type);
    case OpKind::kMaxSI:
      return MakeInt(a.s > b.s ? a.u : b.u, type);
    case OpKind::kMinSI:
      return MakeInt(a.s < b.s ? a.u : b.u, type);
    case OpKind::kMaxUI:
      return MakeInt(a.u > b.u ? a.u : b.u, type);
    case OpKind::kMinUI:
      return MakeInt(a.u < b.u ? a.u : b.u, type);
    default:
      return {};
  }
}

bool EvalCmpI(CmpIPredicate p, Int a, Int b) {
  switch (p) {
    case CmpIPredicate::kEq:
      return a.u == b.u;
    case CmpIPredicate::kNe:
      return a.u != b.u;
    case CmpIPredicate::kSlt:
      return a.s < b.s;
    case CmpIPredicate::kSle:
      return a.s <= b.s;
    case CmpIPredicate::kSgt:
      return a.s > b.s;
    case CmpIPredicate::kSge:
      return a.s >= b.s;
    case CmpIPredicate::kUlt:
      return a.u < b.u;
    case CmpIPredicate::kUle:
      return a.u <= b.u;
    case CmpIPredicate::kUgt:
      return a.u > b.u;
    case CmpIPredicate::kUge:
      return a.u >= b.u;
  }
  return false;
}

template <typename F>
bool EvalCmpF(CmpFPredicate p, F a, F b) {
  switch (p) {
    case CmpFPredicate::kFalse:
      return false;
    case CmpFPredicate::kOeq:
      return a == b;
    case CmpFPredicate::kOgt:
      return a > b;
    case CmpFPredicate::kOge:
      return a >= b;
    case CmpFPredicate::kOlt:
      return a < b;
    case CmpFPredicate::kOle:
      return a <= b;
    case CmpFPredicate::kOne:
      return a < b || a > b;
    case CmpFPredicate::kOrd:
      return a == a && b == b;
    case CmpFPredicate::kUeq:
      return !(a < b || a > b);
    case CmpFPredicate::kUgt:
      return !(a <= b);
    case CmpFPredicate::kUge:
      return !(a < b);
    case CmpFPredicate::kUlt:
      return !(a >= b);
    case CmpFPredicate::kUle:
      return !(a > b);
    case CmpFPredicate::kUne:
      return !(a == b);
    case CmpFPredicate::kUno:
      return a != a || b != b;
    case CmpFPredicate::kTrue:
      return true;
  }
  return false;
}

// IEEE 754-2019 minimum/maximum as the interpreter computes them.
template <typename F>
F Minimum(F a, F b) {
  if (a != a || b != b) return std::numeric_limits<F>::quiet_NaN();
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
template <typename F>
F Maximum(F a, F b) {
  if (a != a || b != b) return std::numeric_limits<F>::quiet_NaN();
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

// Float ops in precision F; false when `kind` is not one of them.
template <typename F>
bool EvalFloat(OpKind kind, const std::vector<F>& x, F* out) {
  switch (kind) {
    case OpKind::kAddF:
      *out = x[0] + x[1];
      return true;
    case OpKind::kSubF:
      *out = x[0] - x[1];
      return true;
    case OpKind::kMulF:
      *out = x[0] * x[1];
      return true;
    case OpKind::kDivF:
      *out = x[0] / x[1];
      return true;
    case OpKind::kRemF:
      *out = std::fmod(x[0], x[1]);
      return true;
    case OpKind::kMaximumF:
      *out = Maximum(x[0], x[1]);
      return true;
    case OpKind::kMinimumF:
      *out = Minimum(x[0], x[1]);
      return true;
    case OpKind::kPowF:
      *out = std::pow(x[0], x[1]);
      return true;
    case OpKind::kFma:
      *out = std::fma(x[0], x[1], x[2]);
      return true;
    case OpKind::kNegF:
      *out = -x[0];
      return true;
    case OpKind::kSqrt:
      *out = std::sqrt(x[0]);
      return true;
    case OpKind::kRSqrt:
      *out = F(1) / std::sqrt(x[0]);
      return true;
    case OpKind::kExp:
      *out = std::exp(x[0]);
      return true;
    case OpKind::kExp2:
      *out = std::pow(F(2), x[0]);
      return true;
    case OpKind::kLog:
      *out = std::log(x[0]);
      return true;
    case OpKind::kLog2:
      // ln(x) / ln(2) in double for both widths, as codegen expands it.
      *out = static_cast<F>(std::log(static_cast<double>(x[0])) / 0.69314718055994530942);
      return true;
    case OpKind::kSin:
      *out = std::sin(x[0]);
      return true;
    case OpKind::kCos:
      *out = std::cos(x[0]);
      return true;
    case OpKind::kTanh:
      *out = std::tanh(x[0]);
      return true;
    case OpKind::kAbsF:
      *out = std::fabs(x[0]);
      return true;
    case OpKind::kFloor:
      *out = std::floor(x[0]);
      return true;
    case OpKind::kCeil:
      *out = std::ceil(x[0]);
      return true;
    case OpKind::kRound:
      *out = std::round(x[0]);
      return true;
    default:
      return false;
  }
}

// Operand count of a float arith/math op (0 for other ops).
size_t FloatArity(OpKind kind) {
  const OpClass op_class = GetOpInfo(kind).op_class;
  const bool is_float = op_class == OpClass::kFloatUnary || op_class == OpClass::kFloatBinary ||
                        op_class == OpClass::kFloatTernary;
  return is_float ? static_cast<size_t>(ElementwiseArity(kind)) : 0;
}

double ReadFloat(const Attribute& a, const Type& type) {
  // An f32 constant's double may not be exactly a float (the parser keeps the
  // literal's double): the VM sees it rounded to float, so round here too.
  return IsF32(type) ? static_cast<double>(static_cast<float>(a.float_value)) : a.float_value;
}

Attribute MakeFloat(double value, const Type& type) {
  if (IsF32(type)) value = static_cast<double>(static_cast<float>(value));
  return Attribute::Float(value, type);
}

// Float→int with saturation to the width-`w` range and NaN→0 (the
// interpreter's SaturatingCast, for any width).
uint64_t SaturateToInt(double value, uint32_t w, bool is_signed) {
  if (std::isnan(value)) return 0;
  if (is_signed) {
    const double limit = std::ldexp(1.0, static_cast<int>(w) - 1);  // 2^(w-1)
    if (value >= limit) return w >= 64 ? uint64_t{INT64_MAX} : (uint64_t{1} << (w - 1)) - 1;
    if (value <= -limit) return static_cast<uint64_t>(SignedMin(w));
    return static_cast<uint64_t>(static_cast<int64_t>(value));
  }
  const double limit = std::ldexp(1.0, static_cast<int>(w));  // 2^w
  if (value >= limit) return w >= 64 ? UINT64_MAX : (uint64_t{1} << w) - 1;
  if (value <= 0) return 0;
  return static_cast<uint64_t>(value);
}

Attribute EvalCast(const Operation& op, const Attribute& in_attr) {
  const Type& in = op.operands[0]->type;
  const Type& out = op.result(0)->type;
  switch (op.kind()) {
    case OpKind::kIndexCast:
    case OpKind::kIndexCastUI:
    case OpKind::kExtSI:
    case OpKind::kExtUI:
    case OpKind::kTruncI: {
      if (!IsFoldableInt(in) || !IsFoldableInt(out)) return {};
      Int a = ReadInt(in_attr, in);
      const bool widening = out.integer_width() > in.integer_width();
      // Index casts sign-extend (index_castui zero-extends) when they widen.
      const bool zero_extend = op.kind() == OpKind::kExtUI || op.kind() == OpKind::kIndexCastUI;
      if (!widening) return MakeInt(a.u, out);
      return MakeInt(zero_extend ? a.u : static_cast<uint64_t>(a.s), out);
    }
    case OpKind::kSIToFP:
    case OpKind::kUIToFP: {
      if (!IsFoldableInt(in) || !IsFoldableFloat(out)) return {};
      Int a = ReadInt(in_attr, in);
      const bool is_signed = op.kind() == OpKind::kSIToFP;
      // One rounding, from the exact integer, in the result's precision.
      if (IsF32(out)) {
        return MakeFloat(is_signed ? static_cast<float>(a.s) : static_cast<float>(a.u), out);
      }
      return MakeFloat(is_signed ? static_cast<double>(a.s) : static_cast<double>(a.u), out);
    }
    case OpKind::kFPToSI:
    case OpKind::kFPToUI: {
      if (!IsFoldableFloat(in) || !IsFoldableInt(out)) return {};
      // Narrow results saturate at 32 bits (the register), then wrap.
      const uint32_t register_width = out.integer_width() > 32 ? 64 : 32;
      return MakeInt(
          SaturateToInt(ReadFloat(in_attr, in), register_width, op.kind() == OpKind::kFPToSI), out);
    }
    case OpKind::kExtF:
    case OpKind::kTruncF:
      if (!IsFoldableFloat(in) || !IsFoldableFloat(out)) return {};
      return MakeFloat(ReadFloat(in_attr, in), out);
    case OpKind::kBitcast: {
      if (in == out) return in_attr;
      if (in.is_integer() && IsFoldableFloat(out) && in.width() == out.width()) {
        uint64_t bits = ZeroExtend(in_attr.integer_value, in.width());
        double value;
        if (out.width() == 32) {
          uint32_t b32 = static_cast<uint32_t>(bits);
          float f;
          std::memcpy(&f, &b32, 4);
          value = f;
        } else {
          std::memcpy(&value, &bits, 8);
        }
        if (std::isnan(value)) return {};
        return MakeFloat(value, out);
      }
      if (IsFoldableFloat(in) && out.is_integer() && in.width() == out.width()) {
        double value = ReadFloat(in_attr, in);
        if (std::isnan(value)) return {};
        uint64_t bits;
        if (in.width() == 32) {
          float f = static_cast<float>(value);
          uint32_t b32;
          std::memcpy(&b32, &f, 4);
          bits = b32;
        } else {
          std::memcpy(&bits, &value, 8);
        }
        return MakeInt(bits, out);
      }
      return {};
    }
    default:
      return {};
  }
}

}  // namespace

uint32_t ConstantShiftAmount(const Attribute& amount, const Type& type) {
  return ShiftAmount(ReadInt(amount, type));
}

Attribute EvaluateConstantOp(const Operation& op, const std::vector<const Attribute*>& operands) {
  if (op.num_results() != 1 || operands.size() != op.operands.size()) return {};
  for (const Attribute* a : operands) {
    if (!a) return {};
  }
  const Type& type = op.result(0)->type;
  const OpKind kind = op.kind();

  switch (kind) {
    case OpKind::kSelect: {
      if (operands.size() != 3) return {};
      const Attribute& chosen = operands[0]->integer_value ? *operands[1] : *operands[2];
      return chosen;
    }
    case OpKind::kCmpI: {
      if (operands.size() != 2 || !IsFoldableInt(op.operands[0]->type)) return {};
      const Attribute* p = op.attribute("predicate");
      if (!p || p->kind != Attribute::Kind::kInteger || p->integer_value < 0 ||
          p->integer_value > static_cast<int64_t>(CmpIPredicate::kUge)) {
        return {};
      }
      const Type& t = op.operands[0]->type;
      return Attribute::Bool(EvalCmpI(static_cast<CmpIPredicate>(p->integer_value),
                                      ReadInt(*operands[0], t), ReadInt(*operands[1], t)));
    }
    case OpKind::kCmpF: {
      if (operands.size() != 2 || !IsFoldableFloat(op.operands[0]->type)) return {};
      const Attribute* p = op.attribute("predicate");
      if (!p || p->kind != Attribute::Kind::kInteger || p->integer_value < 0 ||
          p->integer_value > static_cast<int64_t>(CmpFPredicate::kTrue)) {
        return {};
      }
      auto pred = static_cast<CmpFPredicate>(p->integer_value);
      const Type& t = op.operands[0]->type;
      double a = ReadFloat(*operands[0], t), b = ReadFloat(*operands[1], t);
      if (IsF32(t)) {
        return Attribute::Bool(EvalCmpF<float>(pred, static_cast<float>(a), static_cast<float>(b)));
      }
      return Attribute::Bool(EvalCmpF<double>(pred, a, b));
    }
    case OpKind::kAbsI: {
      if (operands.size() != 1 || !IsFoldableInt(type)) return {};
      Int a = ReadInt(*operands[0], type);
      return MakeInt(a.s < 0 ? 0 - a.u : a.u, type);
    }
    default:
      break;
  }

  if (IsCastOp(kind)) return operands.size() == 1 ? EvalCast(op, *operands[0]) : Attribute();

  if (IsFoldableInt(type)) {
    if (operands.size() != 2) return {};
    for (const Value* v : op.operands) {
      if (v->type != type) return {};
    }
    return EvalIntBinary(kind, ReadInt(*operands[0], type), ReadInt(*operands[1], type), type);
  }

  if (IsFoldableFloat(type)) {
    if (operands.size() != FloatArity(kind)) return {};
    for (size_t i = 0; i < operands.size(); ++i) {
      if (op.operands[i]->type != type || operands[i]->kind != Attribute::Kind::kFloat) return {};
    }
    if (IsF32(type)) {
      std::vector<float> x;
      for (const Attribute* a : operands) x.push_back(static_cast<float>(ReadFloat(*a, type)));
      float result;
      if (!EvalFloat<float>(kind, x, &result)) return {};
      return MakeFloat(result, type);
    }
    std::vector<double> x;
    for (const Attribute* a : operands) x.push_back(ReadFloat(*a, type));
    double result;
    if (!EvalFloat<double>(kind, x, &result)) return {};
    return MakeFloat(result, type);
  }
  return {};
}

}  // namespace kiln::compiler
