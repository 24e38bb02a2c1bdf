// Losses: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (opset 12
// and 13, which only added types).
//
// For input x of shape (N, C, d1, ..., dk), target t of shape (N, d1, ...,
// dk) and optional per-class weights w (C):
//
//   loss[n, d] = -x[n, t[n, d], d] * w[t[n, d]], 0 where t[n, d] == ignore_index
//
// then reduction "none" (loss), "sum" (its sum) or "mean" (its sum over the
// sum of w[t] of the elements not ignored; with no weights, their count).
// Picking x[n, t, d] is a data-dependent gather; kiln reduces along C
// instead, adding x[n, c, d] only where c == t, which reads each input
// element once (as the gather's source would) and needs no tensor.extract
// in a kernel. SoftmaxCrossEntropyLoss is the same loss of LogSoftmax(x)
// along C, which is its optional second output.
#include <string>

#include "compiler/onnx/node_importer.h"
#include "compiler/onnx/op_registry.h"
#include "compiler/onnx/ops/elementwise_common.h"
#include "compiler/onnx/ops/reduction_ops.h"
#include "compiler/onnx/tensor_builders.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"

namespace kiln::onnx_import {
namespace {

using mlir::Location;
using mlir::OpBuilder;
using mlir::Value;
using mlir::ValueRange;
namespace arith = mlir::arith;

// Checks the shapes of (x, t, w) against each other where they are static.
mlir::LogicalResult CheckLossShapes(NodeImporter& node, Value x, Value t, Value w) {
  auto x_type = llvm::dyn_cast<mlir::RankedTensorType>(x.getType());
  auto t_type = llvm::dyn_cast<mlir::RankedTensorType>(t.getType());
  if (!x_type || !t_type) return node.Fail("operands of unknown rank are not supported");
  if (x_type.getRank() < 2) return node.Fail("the input needs a rank of 2 or more (N, C, ...)");
  if (t_type.getRank() != x_type.getRank() - 1) {
    return node.Fail("the target's rank " + std::to_string(t_type.getRank()) +
                     " is not the input's less one (" + std::to_string(x_type.getRank()) + ")");
  }
  for (int64_t d = 0; d < t_type.getRank(); ++d) {
    const int64_t xd = d == 0 ? 0 : d + 1;
    if (!x_type.isDynamicDim(xd) && !t_type.isDynamicDim(d) &&
        x_type.getDimSize(xd) != t_type.getDimSize(d)) {
      return node.Fail("the target's size " + std::to_string(t_type.getDimSize(d)) + " at " +
                       std::to_string(d) + " does not match the input's " +
                       std::to_string(x_type.getDimSize(xd)) + " at " + std::to_string(xd));
    }
  }
  if (w) {
    auto w_type = llvm::dyn_cast<mlir::RankedTensorType>(w.getType());
    if (!w_type || w_type.getRank() != 1) return node.Fail("the weights need rank 1 (C)");
    if (!w_type.isDynamicDim(0) && !x_type.isDynamicDim(1) &&
        w_type.getDimSize(0) != x_type.getDimSize(1)) {
      return node.Fail("the weights' size " + std::to_string(w_type.getDimSize(0)) +
                       " is not the number of classes " + std::to_string(x_type.getDimSize(1)));
    }
  }
  return mlir::success();
}

// Sets output 0 to the loss of `log_prob` (x above), input `target_index`
// and input `weight_index` (when present).
mlir::LogicalResult SetNllLoss(NodeImporter& node, Value log_prob, int64_t target_index,
                               int64_t weight_index) {
  const std::string reduction_name = node.StringAttribute("reduction", "mean");
  if (reduction_name != "none" && reduction_name != "sum" && reduction_name != "mean") {
    return node.Fail("reduction '" + reduction_name + "' is not one of none, sum, mean");
  }
  if (mlir::failed(CheckInputType(node, target_index, kSignedTypes))) return mlir::failure();
  Value target = node.Input(target_index);
  Value weight = node.HasInput(weight_index) ? node.Input(weight_index) : Value();
  if (weight && node.InputElementType(weight_index) != node.InputElementType(0)) {
    return node.Fail("the weights' element type differs from the input's");
  }
  if (mlir::failed(CheckLossShapes(node, log_prob, target, weight))) return mlir::failure();
  const bool has_ignore = node.HasAttribute("ignore_index");
  const int64_t ignore_index = node.IntAttribute("ignore_index", 0);

  OpBuilder& b = node.builder();
  mlir::MLIRContext* context = b.getContext();
  const Location loc = node.loc();
  const OnnxElementType type = node.InputElementType(0);
  const mlir::Type element_type =
      llvm::cast<mlir::RankedTensorType>(log_prob.getType()).getElementType();
  const mlir::Type accumulator_type = AccumulatorFloatType(element_type);
  const mlir::Type target_type =
      llvm::cast<mlir::RankedTensorType>(target.getType()).getElementType();
  const int64_t rank = llvm::cast<mlir::RankedTensorType>(log_prob.getType()).getRank();
  AxisReduction classes;
  classes.rank = rank;
  classes.axes = {1};
  const mlir::AffineMap class_map =
      mlir::AffineMap::get(rank, 0, mlir::getAffineDimExpr(1, context), context);
  llvm::SmallVector<mlir::utils::IteratorType> iterators(rank, mlir::utils::IteratorType::parallel);
  iterators[1] = mlir::utils::IteratorType::reduction;
  llvm::SmallVector<mlir::OpFoldResult> kept_sizes = classes.KeptSizes(b, loc, log_prob);
  Value zero_init = FilledTensor(b, loc, kept_sizes, ScalarConstant(b, loc, accumulator_type, 0));

  // Whether class c (the loop index) is t's, and t is not ignored.
  auto selects = [&](OpBuilder& nb, Location l, Value t) -> Value {
    Value c = nb.create<arith::IndexCastOp>(l, target_type, nb.create<mlir::linalg::IndexOp>(l, 1));
    Value match = nb.create<arith::CmpIOp>(l, arith::CmpIPredicate::eq, t, c);
    if (!has_ignore) return match;
    Value ignored = nb.create<arith::CmpIOp>(l, arith::CmpIPredicate::ne, t,
                                             ScalarConstant(nb, l, target_type, ignore_index));
    return nb.create<arith::AndIOp>(l, match, ignored);
  };

  // loss[n, d] = sum over c of (c selected ? -x * w[c] : 0).
  llvm::SmallVector<Value> loss_inputs = {log_prob, target};
  llvm::SmallVector<mlir::AffineMap> loss_maps = {classes.FullMap(context),
                                                  classes.KeptMap(context)};
  if (weight) {
    loss_inputs.push_back(weight);
    loss_maps.push_back(class_map);
  }
  loss_maps.push_back(classes.KeptMap(context));
  Value loss =
      b.create<mlir::linalg::GenericOp>(
           loc, zero_init.getType(), loss_inputs, ValueRange{zero_init}, loss_maps, iterators,
           [&](OpBuilder& nb, Location l, ValueRange args) {
             Value x = ExtendFloat(nb, l, args[0], accumulator_type);
             Value term = nb.create<arith::NegFOp>(l, x);
             if (weight) {
               term =
                   nb.create<arith::MulFOp>(l, term, ExtendFloat(nb, l, args[2], accumulator_type));
             }
             Value zero = ScalarConstant(nb, l, accumulator_type, 0);
             Value picked = nb.create<arith::SelectOp>(l, selects(nb, l, args[1]), term, zero);
             nb.create<mlir::linalg::YieldOp>(
                 l, ValueRange{nb.create<arith::AddFOp>(l, args.back(), picked)});
           })
          .getResult(0);

  auto to_element_type = [&](Value tensor) -> Value {
    if (accumulator_type == element_type) return tensor;
    return ConvertTensor(node, tensor, ElementTypeOf(accumulator_type), type);
  };
  if (reduction_name == "none") {
    node.SetOutput(0, to_element_type(loss), type);
    return mlir::success();
  }

  // The sum of everything of a kept-shape (N, d...) tensor.
  auto total = [&](Value tensor) -> Value {
    AxisReduction all;
    all.rank = rank - 1;
    for (int64_t d = 0; d < all.rank; ++d) all.axes.push_back(d);
    return BuildReduction(
        b, loc, all, tensor, {}, ScalarConstant(b, loc, accumulator_type, 0),
        [&](OpBuilder& nb, Location l, ValueRange x, ValueRange, ValueRange acc) {
          return llvm::SmallVector<Value>{nb.create<arith::AddFOp>(l, acc[0], x[0])};
        })[0];
  };
  Value loss_sum = total(loss);
  if (reduction_name == "sum") {
    node.SetOutput(0, to_element_type(loss_sum), type);
    return mlir::success();
  }

  // mean: the weights of the elements not ignored, w[t] (1 without
  // weights), summed.
  Value weights;
  if (weight) {
    weights = b.create<mlir::linalg::GenericOp>(
                   loc, zero_init.getType(), ValueRange{target, weight}, ValueRange{zero_init},
                   llvm::ArrayRef<mlir::AffineMap>{classes.KeptMap(context), class_map,
                                                   classes.KeptMap(context)},
                   iterators,
                   [&](OpBuilder& nb, Location l, ValueRange args) {
                     Value w = ExtendFloat(nb, l, args[1], accumulator_type);
                     Value zero = ScalarConstant(nb, l, accumulator_type, 0);
                     Value picked = nb.create<arith::SelectOp>(l, selects(nb, l, args[0]), w, zero);
                     nb.create<mlir::linalg::YieldOp>(
                         l, ValueRange{nb.create<arith::AddFOp>(l, args[2], picked)});
                   })
                  .getResult(0);
  } else {
    mlir::FailureOr<Value> counted = BuildElementwise(
        node, target, accumulator_type, [&](OpBuilder& nb, Location l, ValueRange t) -> Value {
          Value one = ScalarConstant(nb, l, accumulator_type, 1);
          if (!has_ignore) return one;
          Value ignored = nb.create<arith::CmpIOp>(
              l, arith::CmpIPredicate::eq, t[0], ScalarConstant(nb, l, target_type, ignore_index));
          return nb.create<arith::SelectOp>(l, ignored, ScalarConstant(nb, l, accumulator_type, 0),
                                            one);
        });
    if (mlir::failed(counted)) return mlir::failure();
    weights = *counted;
  }
  Value weight_sum = total(weights);
  mlir::FailureOr<Value> mean =
      BuildElementwise(node, {loss_sum, weight_sum}, element_type,
                       [&](OpBuilder& nb, Location l, ValueRange v) -> Value {
                         Value q = nb.create<arith::DivFOp>(l, v[0], v[1]);
                         if (q.getType() == element_type) return q;
                         return nb.create<arith::TruncFOp>(l, element_type, q);
                       });
  if (mlir::failed(mean)) return mlir::failure();
  node.SetOutput(0, *mean, type);
  return mlir::success();
}

mlir::LogicalResult ConvertNegativeLogLikelihoodLoss(NodeImporter& node) {
  if (!node.HasInput(0) || !node.HasInput(1)) return node.Fail("needs an input and a target");
  if (mlir::failed(CheckInputType(node, 0, kFloatTypes))) return mlir::failure();
  return SetNllLoss(node, node.Input(0), 1, 2);
}

mlir::LogicalResult ConvertSoftmaxCrossEntropyLoss(NodeImporter& node) {
  if (!node.HasInput(0) || !node.HasInput(1)) return node.Fail("needs scores and labels");
  if (mlir::failed(CheckInputType(node, 0, kFloatTypes))) return mlir::failure();
  Value scores = node.Input(0);
  mlir::FailureOr<int64_t> rank = RankOf(node, scores);
  if (mlir::failed(rank)) return mlir::failure();
  if (*rank < 2) return node.Fail("the scores need a rank of 2 or more (N, C, ...)");
  AxisReduction classes;
  classes.rank = *rank;
  classes.axes = {1};
  Value log_prob = BuildSoftmax(node.builder(), node.loc(), classes, scores, /*log=*/true);
  if (mlir::failed(SetNllLoss(node, log_prob, 1, 2))) return mlir::failure();
  node.SetOutput(1, log_prob, node.InputElementType(0));
  return mlir::success();
}

}  // namespace

void RegisterLossOps(OpRegistry& registry) {
  registry.Register("NegativeLogLikelihoodLoss", ConvertNegativeLogLikelihoodLoss, 12);
  registry.Register("SoftmaxCrossEntropyLoss", ConvertSoftmaxCrossEntropyLoss, 12);
}

}  // namespace kiln::onnx_import
