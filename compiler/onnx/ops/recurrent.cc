// Recurrent ops: RNN, GRU, LSTM (opset 7 and later: forward, reverse and
// bidirectional; optional B, sequence_lens, initial_h/initial_c, P; custom
// activations with their alpha/beta, clip, input_forget, linear_before_reset,
// layout).
//
// The sequence length must be static: the recurrence is unrolled at import
// time, each time step one matrix product of the step's input with W (plus
// Wb), one of the hidden state with R (plus Rb), and one elementwise
// linalg.generic for the gates; GRU without linear_before_reset needs a
// third product, (r * H) R_h. Every operand (W, R, B, P, the step's slice of
// X) is read through indexing maps with the direction and time step as
// constants, so the unrolled IR has no slicing copies.
//
// sequence_lens (known only at run time) masks the steps at or past each
// batch entry's length: the state stays, Y is 0 there. A reverse pass with
// lengths below the sequence length runs each sequence backwards from its
// own end, which the unrolling does not express: it is supported only when
// the lengths are known at import time to be all the full length.
#include "compiler/onnx/node_importer.h"
#include "compiler/onnx/op_registry.h"
#include "compiler/onnx/ops/misc_helpers.h"
#include "compiler/onnx/ops/misc_registration.h"
#include "compiler/onnx/tensor_builders.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace kiln::onnx_import {
namespace {

using mlir::Value;

enum class CellKind { kRnn, kGru, kLstm };

// One activation function of the op's activations attribute.
struct Activation {
  std::string name;
  float alpha = 0, beta = 0;
};

// The default alpha/beta of an activation (those of the ONNX operator of the
// same name).
std::pair<float, float> ActivationDefaults(llvm::StringRef name) {
  if (name == "LeakyRelu") return {0.01f, 0};
  if (name == "ThresholdedRelu") return {1.0f, 0};
  if (name == "ScaledTanh") return {1.0f, 1.0f};
  if (name == "HardSigmoid") return {0.2f, 0.5f};
  if (name == "Elu") return {1.0f, 0};
  if (name == "Affine") return {1.0f, 0};
  return {0, 0};
}

bool IsKnownActivation(llvm::StringRef name) {
  return llvm::is_contained({"Relu", "Tanh", "Sigmoid", "Affine", "LeakyRelu", "ThresholdedRelu",
                             "ScaledTanh", "HardSigmoid", "Elu", "Softsign", "Softplus"},
                            name);
}

Value ApplyActivation(mlir::OpBuilder& b, mlir::Location l, const Activation& f, Value x) {
  mlir::Type t = x.getType();
  auto c = [&](double v) { return ScalarConstant(b, l, t, v); };
  using P = mlir::arith::CmpFPredicate;
  if (f.name == "Relu") return b.create<mlir::arith::MaximumFOp>(l, x, c(0));
  if (f.name == "Tanh") return b.create<mlir::math::TanhOp>(l, x);
  if (f.name == "Sigmoid") {
    Value e = b.create<mlir::math::ExpOp>(l, b.create<mlir::arith::NegFOp>(l, x));
    return b.create<mlir::arith::DivFOp>(l, c(1), b.create<mlir::arith::AddFOp>(l, c(1), e));
  }
  if (f.name == "Affine") {
    return b.create<mlir::arith::AddFOp>(l, b.create<mlir::arith::MulFOp>(l, c(f.alpha), x),
                                         c(f.beta));
  }
  if (f.name == "LeakyRelu") {
    Value neg = b.create<mlir::arith::MulFOp>(l, c(f.alpha), x);
    Value pos = b.create<mlir::arith::CmpFOp>(l, P::OGE, x, c(0));
    return b.create<mlir::arith::SelectOp>(l, pos, x, neg);
  }
  if (f.name == "ThresholdedRelu") {
    Value above = b.create<mlir::arith::CmpFOp>(l, P::OGT, x, c(f.alpha));
    return b.create<mlir::arith::SelectOp>(l, above, x, c(0));
  }
  if (f.name == "ScaledTanh") {
    Value inner = b.create<mlir::arith::MulFOp>(l, c(f.beta), x);
    return b.create<mlir::arith::MulFOp>(l, c(f.alpha), b.create<mlir::math::TanhOp>(l, inner));
  }
  if (f.name == "HardSigmoid") {
    Value y = b.create<mlir::arith::AddFOp>(l, b.create<mlir::arith::MulFOp>(l, c(f.alpha), x),
                                            c(f.beta));
    y = b.create<mlir::arith::MaximumFOp>(l, y, c(0));
    return b.create<mlir::arith::MinimumFOp>(l, y, c(1));
  }
  if (f.name == "Elu") {
    Value em1 = b.create<mlir::arith::SubFOp>(l, b.create<mlir::math::ExpOp>(l, x), c(1));
    Value neg = b.create<mlir::arith::MulFOp>(l, c(f.alpha), em1);
    Value pos = b.create<mlir::arith::CmpFOp>(l, P::OGE, x, c(0));
    return b.create<mlir::arith::SelectOp>(l, pos, x, neg);
  }
  if (f.name == "Softsign") {
    Value denominator = b.create<mlir::arith::AddFOp>(l, c(1), b.create<mlir::math::AbsFOp>(l, x));
    return b.create<mlir::arith::DivFOp>(l, x, denominator);
  }
  // Softplus.
  return b.create<mlir::math::Log1pOp>(l, b.create<mlir::math::ExpOp>(l, x));
}

// What every cell kind shares: the node's operands and attributes.
struct Recurrence {
  CellKind kind;
  int64_t gates;  // 1, 3, 4
  int64_t hidden;
  int64_t directions;
  bool reverse_only;
  int64_t layout;
  int64_t steps;
  mlir::Type element_type;
  OnnxElementType onnx_type;
  Value x, w, r, bias, lengths, initial_h, initial_c, peepholes;
  OnnxElementType lengths_type;
  std::optional<float> clip;
  bool input_forget = false;
  bool linear_before_reset = false;
  // Per direction: the activations (f, g[, h]).
  std::vector<std::vector<Activation>> activations;
};

mlir::AffineExpr Dim(mlir::MLIRContext* context, int64_t d) {
  return mlir::getAffineDimExpr(d, context);
}
mlir::AffineExpr Const(mlir::MLIRContext* context, int64_t v) {
  return mlir::getAffineConstantExpr(v, context);
}

class Unroller {
 public:
  Unroller(NodeImporter& node, Recurrence& rec)
      : node_(node), rec_(rec), b_(node.builder()), loc_(node.loc()), ctx_(&node.context()) {}

  mlir::LogicalResult Run();

 private:
  // [batch, n] = lhs [batch, k] (read through `lhs_map` from a 2-D loop
  // space (batch, k)) times `rhs` rows n..: rhs[d, row_offset + n, k], plus
  // bias[d, bias_offset + n] when `bias` is set.
  Value Product(Value lhs, mlir::AffineMap lhs_map, int64_t k_size, Value rhs, int64_t d,
                int64_t row_offset, int64_t n, int64_t bias_offset);
  // A slice of `value` at `offsets` of `sizes`, the dimensions of size 1 at
  // `dropped` left out. Operands are sliced to exactly what a generic reads:
  // linalg infers loop sizes from operands read through plain dimensions.
  Value Slice(Value value, llvm::ArrayRef<mlir::OpFoldResult> offsets,
              llvm::ArrayRef<mlir::OpFoldResult> sizes, int64_t result_rank) {
    auto type = llvm::cast<mlir::RankedTensorType>(value.getType());
    llvm::SmallVector<mlir::OpFoldResult> strides(type.getRank(), b_.getIndexAttr(1));
    auto result_type =
        mlir::tensor::ExtractSliceOp::inferCanonicalRankReducedResultType(result_rank, type, sizes);
    return b_.create<mlir::tensor::ExtractSliceOp>(loc_, result_type, value, offsets, sizes,
                                                   strides);
  }
  // The hidden-size columns of a [batch, gates * hidden] tensor for gate `g`.
  Value Gate(Value value, int64_t g) {
    return Slice(value, {b_.getIndexAttr(0), b_.getIndexAttr(g * rec_.hidden)},
                 {batch_, b_.getIndexAttr(rec_.hidden)}, 2);
  }
  // Row `d` of a [directions, n] tensor from column `offset`, `size` long.
  Value Row(Value value, int64_t d, int64_t offset, int64_t size) {
    return Slice(value, {b_.getIndexAttr(d), b_.getIndexAttr(offset)},
                 {b_.getIndexAttr(1), b_.getIndexAttr(size)}, 1);
  }
  mlir::AffineMap Identity2() const { return misc::IdentityMap(ctx_, 2); }
  // The initial state ([D, B, H] or [B, D, H]) of direction d, or zeros.
  Value InitialState(Value initial, int64_t d);
  Value Clip(mlir::OpBuilder& b, mlir::Location l, Value x) const {
    if (!rec_.clip) return x;
    Value t = ScalarConstant(b, l, x.getType(), *rec_.clip);
    Value nt = ScalarConstant(b, l, x.getType(), -*rec_.clip);
    return b.create<mlir::arith::MinimumFOp>(l, b.create<mlir::arith::MaximumFOp>(l, x, nt), t);
  }
  // Whether step `t` is live for the batch entry (lengths known at run time).
  Value Live(mlir::OpBuilder& b, mlir::Location l, Value length, int64_t t) const {
    Value len = ConvertScalar(b, l, length, rec_.lengths_type, onnx::TensorProto::INT64);
    return b.create<mlir::arith::CmpIOp>(l, mlir::arith::CmpIPredicate::sgt, len,
                                         ScalarConstant(b, l, b.getI64Type(), t));
  }

  NodeImporter& node_;
  Recurrence& rec_;
  mlir::OpBuilder& b_;
  mlir::Location loc_;
  mlir::MLIRContext* ctx_;
  mlir::OpFoldResult batch_;
};

Value Unroller::Product(Value lhs, mlir::AffineMap lhs_map, int64_t k_size, Value rhs, int64_t d,
                        int64_t row_offset, int64_t n, int64_t bias_offset) {
  llvm::SmallVector<mlir::OpFoldResult> sizes{batch_, b_.getIndexAttr(n)};
  Value init;
  if (rec_.bias && bias_offset >= 0) {
    init = misc::BuildIndexed(
        b_, loc_, sizes, rec_.element_type, Row(rec_.bias, d, bias_offset, n),
        {mlir::AffineMap::get(2, 0, {Dim(ctx_, 1)}, ctx_)},
        [](mlir::OpBuilder&, mlir::Location, mlir::ValueRange args) { return args[0]; });
  } else {
    init = FilledTensor(b_, loc_, sizes, ScalarConstant(b_, loc_, rec_.element_type, 0));
  }
  // Loops (batch, n, k).
  mlir::AffineMap lhs3 =
      lhs_map.compose(mlir::AffineMap::get(3, 0, {Dim(ctx_, 0), Dim(ctx_, 2)}, ctx_));
  Value rhs_rows = Slice(rhs, {b_.getIndexAttr(d), b_.getIndexAttr(row_offset), b_.getIndexAttr(0)},
                         {b_.getIndexAttr(1), b_.getIndexAttr(n), b_.getIndexAttr(k_size)}, 2);
  mlir::AffineMap rhs3 = mlir::AffineMap::get(3, 0, {Dim(ctx_, 1), Dim(ctx_, 2)}, ctx_);
  mlir::AffineMap out3 = mlir::AffineMap::get(3, 0, {Dim(ctx_, 0), Dim(ctx_, 1)}, ctx_);
  llvm::SmallVector<mlir::utils::IteratorType> iterators = misc::Parallel(3);
  iterators[2] = mlir::utils::IteratorType::reduction;
  return misc::Generic(
      b_, loc_, {lhs, rhs_rows}, init, {lhs3, rhs3, out3}, iterators,
      [](mlir::OpBuilder& b, mlir::Location l, mlir::ValueRange args) {
        Value p = b.create<mlir::arith::MulFOp>(l, args[0], args[1]);
        return llvm::SmallVector<Value>{b.create<mlir::arith::AddFOp>(l, args[2], p).getResult()};
      })[0];
}

Value Unroller::InitialState(Value initial, int64_t d) {
  llvm::SmallVector<mlir::OpFoldResult> sizes{batch_, b_.getIndexAttr(rec_.hidden)};
  if (!initial)
    return FilledTensor(b_, loc_, sizes, ScalarConstant(b_, loc_, rec_.element_type, 0));
  mlir::AffineMap map =
      rec_.layout == 0
          ? mlir::AffineMap::get(2, 0, {Const(ctx_, d), Dim(ctx_, 0), Dim(ctx_, 1)}, ctx_)
          : mlir::AffineMap::get(2, 0, {Dim(ctx_, 0), Const(ctx_, d), Dim(ctx_, 1)}, ctx_);
  return misc::BuildIndexed(
      b_, loc_, sizes, rec_.element_type, initial, {map},
      [](mlir::OpBuilder&, mlir::Location, mlir::ValueRange args) { return args[0]; });
}

mlir::LogicalResult Unroller::Run() {
  const int64_t H = rec_.hidden;
  const int64_t G = rec_.gates;
  const int64_t T = rec_.steps;
  const int64_t D = rec_.directions;
  auto x_type = llvm::cast<mlir::RankedTensorType>(rec_.x.getType());
  const int64_t input_size = x_type.getDimSize(2);
  batch_ = TensorSizes(b_, loc_, rec_.x)[rec_.layout == 0 ? 1 : 0];
  llvm::SmallVector<mlir::OpFoldResult> state_sizes{batch_, b_.getIndexAttr(H)};

  // Y: [T, D, B, H] (layout 0) or [B, T, D, H].
  llvm::SmallVector<mlir::OpFoldResult> y_sizes =
      rec_.layout == 0
          ? llvm::SmallVector<mlir::OpFoldResult>{b_.getIndexAttr(T), b_.getIndexAttr(D), batch_,
                                                  b_.getIndexAttr(H)}
          : llvm::SmallVector<mlir::OpFoldResult>{batch_, b_.getIndexAttr(T), b_.getIndexAttr(D),
                                                  b_.getIndexAttr(H)};
  const bool want_y = node_.HasOutput(0);
  Value y = want_y ? EmptyTensor(b_, loc_, y_sizes, rec_.element_type) : Value();
  llvm::SmallVector<mlir::OpFoldResult> final_sizes =
      rec_.layout == 0
          ? llvm::SmallVector<mlir::OpFoldResult>{b_.getIndexAttr(D), batch_, b_.getIndexAttr(H)}
          : llvm::SmallVector<mlir::OpFoldResult>{batch_, b_.getIndexAttr(D), b_.getIndexAttr(H)};
  Value y_h = EmptyTensor(b_, loc_, final_sizes, rec_.element_type);
  Value y_c = EmptyTensor(b_, loc_, final_sizes, rec_.element_type);
  auto insert_state = [&](Value into, Value state, llvm::ArrayRef<int64_t> position) {
    // `position` holds the constant offsets of the leading dimensions in
    // the destination's order, with -1 where the batch goes.
    llvm::SmallVector<mlir::OpFoldResult> offsets, sizes, strides;
    for (int64_t p : position) {
      offsets.push_back(b_.getIndexAttr(p < 0 ? 0 : p));
      sizes.push_back(p < 0 ? batch_ : b_.getIndexAttr(1));
      strides.push_back(b_.getIndexAttr(1));
    }
    offsets.push_back(b_.getIndexAttr(0));
    sizes.push_back(b_.getIndexAttr(H));
    strides.push_back(b_.getIndexAttr(1));
    auto into_type = llvm::cast<mlir::RankedTensorType>(into.getType());
    auto slice_type =
        mlir::tensor::ExtractSliceOp::inferCanonicalRankReducedResultType(2, into_type, sizes);
    Value cast = state;
    if (cast.getType() != slice_type) {
      cast = b_.create<mlir::tensor::CastOp>(loc_, slice_type, state);
    }
    return b_.create<mlir::tensor::InsertSliceOp>(loc_, cast, into, offsets, sizes, strides)
        .getResult();
  };

  for (int64_t d = 0; d < D; ++d) {
    const bool reverse = rec_.reverse_only || d == 1;
    const std::vector<Activation>& acts = rec_.activations[d];
    Value h = InitialState(rec_.initial_h, d);
    Value c = rec_.kind == CellKind::kLstm ? InitialState(rec_.initial_c, d) : Value();
    for (int64_t s = 0; s < T; ++s) {
      const int64_t t = reverse ? T - 1 - s : s;
      // x_t: X[t, b, k] or X[b, t, k] from the loop space (b, k).
      mlir::AffineMap x_map =
          rec_.layout == 0
              ? mlir::AffineMap::get(2, 0, {Const(ctx_, t), Dim(ctx_, 0), Dim(ctx_, 1)}, ctx_)
              : mlir::AffineMap::get(2, 0, {Dim(ctx_, 0), Const(ctx_, t), Dim(ctx_, 1)}, ctx_);
      Value xw = Product(rec_.x, x_map, input_size, rec_.w, d, 0, G * H, d >= 0 ? 0 : -1);
      Value hr = Product(h, Identity2(), H, rec_.r, d, 0, G * H, G * H);
      llvm::SmallVector<Value> inputs;
      llvm::SmallVector<mlir::AffineMap> maps;
      auto add_input = [&](Value v, mlir::AffineMap m) {
        inputs.push_back(v);
        maps.push_back(m);
        return static_cast<int64_t>(inputs.size() - 1);
      };
      const int64_t lengths_at =
          rec_.lengths ? add_input(rec_.lengths, mlir::AffineMap::get(2, 0, {Dim(ctx_, 0)}, ctx_))
                       : -1;
      Value new_h, new_c;
      if (rec_.kind == CellKind::kRnn) {
        const int64_t xi = add_input(Gate(xw, 0), Identity2());
        const int64_t hi = add_input(Gate(hr, 0), Identity2());
        const int64_t prev = add_input(h, Identity2());
        new_h = misc::BuildIndexed(
            b_, loc_, state_sizes, rec_.element_type, inputs, maps,
            [&](mlir::OpBuilder& b, mlir::Location l, mlir::ValueRange a) {
              Value pre = Clip(b, l, b.create<mlir::arith::AddFOp>(l, a[xi], a[hi]));
              Value next = ApplyActivation(b, l, acts[0], pre);
              if (lengths_at < 0) return next;
              return b.create<mlir::arith::SelectOp>(l, Live(b, l, a[lengths_at], t), next, a[prev])
                  .getResult();
            });
      } else if (rec_.kind == CellKind::kGru) {
        // Gates z, r, h.
        const int64_t xz = add_input(Gate(xw, 0), Identity2()),
                      hz = add_input(Gate(hr, 0), Identity2());
        const int64_t xr = add_input(Gate(xw, 1), Identity2()),
                      hrr = add_input(Gate(hr, 1), Identity2());
        const int64_t xh = add_input(Gate(xw, 2), Identity2());
        const int64_t prev = add_input(h, Identity2());
        auto gate = [&](mlir::OpBuilder& b, mlir::Location l, mlir::ValueRange a, int64_t xg,
                        int64_t hg) {
          return ApplyActivation(b, l, acts[0],
                                 Clip(b, l, b.create<mlir::arith::AddFOp>(l, a[xg], a[hg])));
        };
        int64_t hh = -1;
        if (rec_.linear_before_reset) {
          hh = add_input(Gate(hr, 2), Identity2());
        } else {
          // (r * H) R_h^T + Rb_h.
          Value rh = misc::BuildIndexed(
              b_, loc_, state_sizes, rec_.element_type, {Gate(xw, 1), Gate(hr, 1), h},
              {Identity2(), Identity2(), Identity2()},
              [&](mlir::OpBuilder& b, mlir::Location l, mlir::ValueRange a) -> Value {
                Value r = gate(b, l, a, 0, 1);
                return b.create<mlir::arith::MulFOp>(l, r, a[2]);
              });
          Value rhr = Product(rh, Identity2(), H, rec_.r, d, 2 * H, H, G * H + 2 * H);
          hh = add_input(rhr, Identity2());
        }
        new_h = misc::BuildIndexed(
            b_, loc_, state_sizes, rec_.element_type, inputs, maps,
            [&](mlir::OpBuilder& b, mlir::Location l, mlir::ValueRange a) {
              Value z = gate(b, l, a, xz, hz);
              Value candidate_in = a[hh];
              if (rec_.linear_before_reset) {
                Value r = gate(b, l, a, xr, hrr);
                candidate_in = b.create<mlir::arith::MulFOp>(l, r, a[hh]);
              }
              Value candidate = ApplyActivation(
                  b, l, acts[1], Clip(b, l, b.create<mlir::arith::AddFOp>(l, a[xh], candidate_in)));
              // (1 - z) * candidate + z * H.
              Value one = ScalarConstant(b, l, z.getType(), 1);
              Value next = b.create<mlir::arith::AddFOp>(
                  l,
                  b.create<mlir::arith::MulFOp>(l, b.create<mlir::arith::SubFOp>(l, one, z),
                                                candidate),
                  b.create<mlir::arith::MulFOp>(l, z, a[prev]));
              if (lengths_at < 0) return next;
              return b.create<mlir::arith::SelectOp>(l, Live(b, l, a[lengths_at], t), next, a[prev])
                  .getResult();
            });
      } else {
        // Gates i, o, f, c; peepholes i, o, f.
        const int64_t xi = add_input(Gate(xw, 0), Identity2()),
                      hi = add_input(Gate(hr, 0), Identity2());
        const int64_t xo = add_input(Gate(xw, 1), Identity2()),
                      ho = add_input(Gate(hr, 1), Identity2());
        const int64_t xf = add_input(Gate(xw, 2), Identity2()),
                      hf = add_input(Gate(hr, 2), Identity2());
        const int64_t xc = add_input(Gate(xw, 3), Identity2()),
                      hc = add_input(Gate(hr, 3), Identity2());
        const int64_t prev_h = add_input(h, Identity2());
        const int64_t prev_c = add_input(c, Identity2());
        auto peephole = [&](int64_t g) {
          return add_input(Row(rec_.peepholes, d, g * H, H),
                           mlir::AffineMap::get(2, 0, {Dim(ctx_, 1)}, ctx_));
        };
        const int64_t pi = rec_.peepholes ? peephole(0) : -1;
        const int64_t po = rec_.peepholes ? peephole(1) : -1;
        const int64_t pf = rec_.peepholes ? peephole(2) : -1;
        mlir::Value init_h = EmptyTensor(b_, loc_, state_sizes, rec_.element_type);
        mlir::Value init_c = EmptyTensor(b_, loc_, state_sizes, rec_.element_type);
        llvm::SmallVector<mlir::AffineMap> all_maps(maps);
        all_maps.push_back(Identity2());
        all_maps.push_back(Identity2());
        llvm::SmallVector<Value> results = misc::Generic(
            b_, loc_, inputs, {init_h, init_c}, all_maps, misc::Parallel(2),
            [&](mlir::OpBuilder& b, mlir::Location l, mlir::ValueRange a) {
              auto pre = [&](int64_t xg, int64_t hg, int64_t pg, Value cell) {
                Value v = b.create<mlir::arith::AddFOp>(l, a[xg], a[hg]);
                if (pg >= 0) {
                  v = b.create<mlir::arith::AddFOp>(l, v,
                                                    b.create<mlir::arith::MulFOp>(l, a[pg], cell));
                }
                return Clip(b, l, v);
              };
              Value i = ApplyActivation(b, l, acts[0], pre(xi, hi, pi, a[prev_c]));
              Value f;
              if (rec_.input_forget) {
                f = b.create<mlir::arith::SubFOp>(l, ScalarConstant(b, l, i.getType(), 1), i);
              } else {
                f = ApplyActivation(b, l, acts[0], pre(xf, hf, pf, a[prev_c]));
              }
              Value candidate = ApplyActivation(b, l, acts[1], pre(xc, hc, -1, Value()));
              Value cell =
                  b.create<mlir::arith::AddFOp>(l, b.create<mlir::arith::MulFOp>(l, f, a[prev_c]),
                                                b.create<mlir::arith::MulFOp>(l, i, candidate));
              Value o = ApplyActivation(b, l, acts[0], pre(xo, ho, po, cell));
              Value next =
                  b.create<mlir::arith::MulFOp>(l, o, ApplyActivation(b, l, acts[2], cell));
              if (lengths_at >= 0) {
                Value live = Live(b, l, a[lengths_at], t);
                next = b.create<mlir::arith::SelectOp>(l, live, next, a[prev_h]);
                cell = b.create<mlir::arith::SelectOp>(l, live, cell, a[prev_c]);
              }
              return llvm::SmallVector<Value>{next, cell};
            });
        new_h = results[0];
        new_c = results[1];
      }
      if (want_y) {
        Value out = new_h;
        if (rec_.lengths) {
          // Y is 0 past each sequence's length.
          out = misc::BuildIndexed(b_, loc_, state_sizes, rec_.element_type, {rec_.lengths, new_h},
                                   {mlir::AffineMap::get(2, 0, {Dim(ctx_, 0)}, ctx_), Identity2()},
                                   [&](mlir::OpBuilder& b, mlir::Location l, mlir::ValueRange a) {
                                     return b
                                         .create<mlir::arith::SelectOp>(
                                             l, Live(b, l, a[0], t), a[1],
                                             ScalarConstant(b, l, a[1].getType(), 0))
                                         .getResult();
                                   });
        }
        y = rec_.layout == 0 ? insert_state(y, out, {t, d, -1}) : insert_state(y, out, {-1, t, d});
      }
      h = new_h;
      c = new_c;
    }
    y_h = rec_.layout == 0 ? insert_state(y_h, h, {d, -1}) : insert_state(y_h, h, {-1, d});
    if (c) y_c = rec_.layout == 0 ? insert_state(y_c, c, {d, -1}) : insert_state(y_c, c, {-1, d});
  }
  if (want_y) node_.SetOutput(0, y, rec_.onnx_type);
  node_.SetOutput(1, y_h, rec_.onnx_type);
  if (rec_.kind == CellKind::kLstm) node_.SetOutput(2, y_c, rec_.onnx_type);
  return mlir::success();
}

mlir::LogicalResult ConvertRecurrent(NodeImporter& node, CellKind kind) {
  Recurrence rec;
  rec.kind = kind;
  rec.gates = kind == CellKind::kRnn ? 1 : kind == CellKind::kGru ? 3 : 4;
  rec.onnx_type = node.InputElementType(0);
  if (!IsFloat(rec.onnx_type)) return node.Fail("X must be a float tensor");
  rec.element_type = ConvertElementType(node.context(), rec.onnx_type);
  rec.x = node.Input(0);
  rec.w = node.Input(1);
  rec.r = node.Input(2);
  if (!rec.x || !rec.w || !rec.r) return node.Fail("X, W and R are required");
  rec.bias = node.Input(3);
  rec.lengths = node.Input(4);
  rec.lengths_type = node.InputElementType(4);
  rec.initial_h = node.Input(5);
  if (kind == CellKind::kLstm) {
    rec.initial_c = node.Input(6);
    rec.peepholes = node.Input(7);
  }
  rec.layout = node.IntAttribute("layout", 0);
  if (rec.layout != 0 && rec.layout != 1) return node.Fail("layout must be 0 or 1");
  const std::string direction = node.StringAttribute("direction", "forward");
  if (direction != "forward" && direction != "reverse" && direction != "bidirectional") {
    return node.Fail("direction '" + direction + "' is not supported");
  }
  rec.directions = direction == "bidirectional" ? 2 : 1;
  rec.reverse_only = direction == "reverse";
  auto x_type = llvm::dyn_cast<mlir::RankedTensorType>(rec.x.getType());
  auto w_type = llvm::dyn_cast<mlir::RankedTensorType>(rec.w.getType());
  auto r_type = llvm::dyn_cast<mlir::RankedTensorType>(rec.r.getType());
  if (!x_type || x_type.getRank() != 3 || !w_type || w_type.getRank() != 3 || !r_type ||
      r_type.getRank() != 3) {
    return node.Fail("X, W and R must be 3-D");
  }
  rec.steps = x_type.getDimSize(rec.layout == 0 ? 0 : 1);
  if (mlir::ShapedType::isDynamic(rec.steps)) {
    return node.Fail(
        "a sequence length unknown at import time is not supported (the "
        "recurrence is unrolled)");
  }
  if (rec.steps > 4096) return node.Fail("sequences longer than 4096 steps are not unrolled");
  if (x_type.isDynamicDim(2)) return node.Fail("a dynamic input size is not supported");
  rec.hidden = node.IntAttribute("hidden_size", -1);
  if (rec.hidden < 0) {
    if (r_type.isDynamicDim(2)) return node.Fail("hidden_size is needed");
    rec.hidden = r_type.getDimSize(2);
  }
  const int64_t gh = rec.gates * rec.hidden;
  auto check_shape = [&](mlir::Value v, llvm::ArrayRef<int64_t> shape,
                         llvm::StringRef what) -> mlir::LogicalResult {
    if (!v) return mlir::success();
    auto type = llvm::dyn_cast<mlir::RankedTensorType>(v.getType());
    if (!type || type.getRank() != static_cast<int64_t>(shape.size())) {
      return node.Fail(what + " has the wrong rank");
    }
    for (size_t i = 0; i < shape.size(); ++i) {
      if (shape[i] >= 0 && !type.isDynamicDim(i) && type.getDimSize(i) != shape[i]) {
        return node.Fail(what + " has the wrong shape");
      }
    }
    if (type.getElementType() != rec.element_type && what != "sequence_lens") {
      return node.Fail(what + " must have X's element type");
    }
    return mlir::success();
  };
  const int64_t D = rec.directions, H = rec.hidden;
  const int64_t I = x_type.getDimSize(2);
  std::vector<int64_t> state_shape =
      rec.layout == 0 ? std::vector<int64_t>{D, -1, H} : std::vector<int64_t>{-1, D, H};
  if (mlir::failed(check_shape(rec.w, {D, gh, I}, "W")) ||
      mlir::failed(check_shape(rec.r, {D, gh, H}, "R")) ||
      mlir::failed(check_shape(rec.bias, {D, 2 * gh}, "B")) ||
      mlir::failed(check_shape(rec.lengths, {-1}, "sequence_lens")) ||
      mlir::failed(check_shape(rec.initial_h, state_shape, "initial_h")) ||
      mlir::failed(check_shape(rec.initial_c, state_shape, "initial_c")) ||
      mlir::failed(check_shape(rec.peepholes, {D, 3 * H}, "P"))) {
    return mlir::failure();
  }
  if (w_type.isDynamicDim(0) || w_type.isDynamicDim(1) || r_type.isDynamicDim(1)) {
    return node.Fail("W and R must have static leading sizes");
  }
  if (rec.lengths) {
    if (auto lengths = node.InputInts(4)) {
      // Full lengths everywhere: no masking needed.
      if (llvm::all_of(*lengths, [&](int64_t v) { return v == rec.steps; })) {
        rec.lengths = nullptr;
      }
    }
  }
  if (rec.lengths && (rec.reverse_only || D == 2)) {
    return node.Fail(
        "sequence_lens with a reverse or bidirectional pass is supported only "
        "when known at import time to be the full sequence length");
  }
  if (node.HasAttribute("clip")) rec.clip = node.FloatAttribute("clip", 0);
  rec.input_forget = node.IntAttribute("input_forget", 0) != 0;
  rec.linear_before_reset = node.IntAttribute("linear_before_reset", 0) != 0;
  // Activations: the defaults per cell, one list per direction.
  std::vector<std::string> defaults = kind == CellKind::kRnn ? std::vector<std::string>{"Tanh"}
                                      : kind == CellKind::kGru
                                          ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                          : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
  const int64_t per_direction = defaults.size();
  std::vector<std::string> names;
  if (const onnx::AttributeProto* attribute = node.Attribute("activations")) {
    names.assign(attribute->strings().begin(), attribute->strings().end());
    if (static_cast<int64_t>(names.size()) != per_direction * D) {
      return node.Fail("activations must list " + std::to_string(per_direction * D) + " functions");
    }
  } else {
    for (int64_t d = 0; d < D; ++d) names.insert(names.end(), defaults.begin(), defaults.end());
  }
  std::vector<float> alphas = node.FloatsAttribute("activation_alpha");
  std::vector<float> betas = node.FloatsAttribute("activation_beta");
  rec.activations.resize(D);
  for (int64_t i = 0; i < static_cast<int64_t>(names.size()); ++i) {
    // ONNX's names; older exporters wrote them in lower case.
    std::string name = names[i];
    for (llvm::StringRef known :
         {"Relu", "Tanh", "Sigmoid", "Affine", "LeakyRelu", "ThresholdedRelu", "ScaledTanh",
          "HardSigmoid", "Elu", "Softsign", "Softplus"}) {
      if (llvm::StringRef(name).equals_insensitive(known)) name = known.str();
    }
    if (!IsKnownActivation(name))
      return node.Fail("activation '" + names[i] + "' is not supported");
    Activation activation{name};
    std::tie(activation.alpha, activation.beta) = ActivationDefaults(name);
    if (i < static_cast<int64_t>(alphas.size())) activation.alpha = alphas[i];
    if (i < static_cast<int64_t>(betas.size())) activation.beta = betas[i];
    rec.activations[i / per_direction].push_back(activation);
  }
  Unroller unroller(node, rec);
  return unroller.Run();
}

}  // namespace

void RegisterRecurrentOps(OpRegistry& registry) {
  registry.Register(
      "RNN", [](NodeImporter& node) { return ConvertRecurrent(node, CellKind::kRnn); }, 7);
  registry.Register(
      "GRU", [](NodeImporter& node) { return ConvertRecurrent(node, CellKind::kGru); }, 7);
  registry.Register(
      "LSTM", [](NodeImporter& node) { return ConvertRecurrent(node, CellKind::kLstm); }, 7);
}

}  // namespace kiln::onnx_import
