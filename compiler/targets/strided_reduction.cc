// Strided reductions (strided_reduction.h).
#include "compiler/targets/strided_reduction.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace kiln::compiler {
namespace {

// The iteration domain of `op` (created before it), its parallel loops and
// its one reduction loop; false unless every loop starts at 0 with step 1.
bool MatchLoops(mlir::TilingInterface op, mlir::RewriterBase& rewriter,
                llvm::SmallVector<mlir::Range>& ranges, llvm::SmallVector<int64_t>& parallel_dims,
                int64_t& reduction_dim) {
  mlir::OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  ranges = op.getIterationDomain(rewriter);
  for (auto [d, iterator] : llvm::enumerate(op.getLoopIteratorTypes())) {
    const mlir::Range& range = ranges[d];
    if (!mlir::isZeroInteger(range.offset) || !mlir::isOneInteger(range.stride)) return false;
    if (iterator == mlir::utils::IteratorType::reduction) {
      reduction_dim = static_cast<int64_t>(d);
    } else {
      parallel_dims.push_back(static_cast<int64_t>(d));
    }
  }
  return true;
}

// Whether `op` has the shape both kinds of strided reductions need: on
// buffers, one reduction loop, `inits` memref outputs, tileable, not a
// convolution, and a contraction only where `contractions` says so.
bool HasReductionShape(mlir::linalg::LinalgOp op, unsigned inits, bool contractions) {
  if (!op.hasPureBufferSemantics() || op.getNumReductionLoops() != 1 ||
      op.getNumDpsInits() != static_cast<int64_t>(inits) || op->getNumRegions() != 1) {
    return false;
  }
  if ((!contractions && mlir::linalg::isaContractionOpInterface(op)) ||
      mlir::linalg::isaConvolutionOpInterface(op)) {
    return false;
  }
  if (!llvm::isa<mlir::TilingInterface>(op.getOperation())) return false;
  return llvm::all_of(op.getDpsInitsMutable(), [](mlir::OpOperand& init) {
    return llvm::isa<mlir::MemRefType>(init.get().getType());
  });
}

// The values of the loops at parallel point `point` and reduction position
// `k` (0 where `k` is null).
llvm::SmallVector<mlir::Value> LoopValues(llvm::ArrayRef<mlir::Range> ranges,
                                          llvm::ArrayRef<int64_t> parallel_dims,
                                          int64_t reduction_dim, mlir::ValueRange point,
                                          mlir::Value k, mlir::Location loc,
                                          mlir::RewriterBase& rewriter) {
  mlir::Value zero = mlir::arith::ConstantIndexOp::create(rewriter, loc, 0);
  llvm::SmallVector<mlir::Value> values(ranges.size(), zero);
  for (auto [i, d] : llvm::enumerate(parallel_dims)) values[d] = point[i];
  if (k) values[reduction_dim] = k;
  return values;
}

// The results of `map` applied to `values`.
llvm::SmallVector<mlir::Value> ApplyMap(mlir::AffineMap map, llvm::ArrayRef<mlir::Value> values,
                                        mlir::Location loc, mlir::RewriterBase& rewriter) {
  llvm::SmallVector<mlir::Value> results;
  for (unsigned r = 0; r < map.getNumResults(); ++r) {
    results.push_back(
        mlir::affine::AffineApplyOp::create(rewriter, loc, map.getSubMap({r}), values));
  }
  return results;
}

// `op` tiled to the one element (`point`, `k`) of its iteration space.
mlir::FailureOr<mlir::linalg::LinalgOp> TileToElement(mlir::linalg::LinalgOp op,
                                                      llvm::ArrayRef<mlir::Range> ranges,
                                                      llvm::ArrayRef<int64_t> parallel_dims,
                                                      int64_t reduction_dim, mlir::ValueRange point,
                                                      mlir::Value k, mlir::RewriterBase& rewriter) {
  llvm::SmallVector<mlir::OpFoldResult> offsets, sizes;
  for (const mlir::Range& range : ranges) {
    offsets.push_back(range.offset);
    sizes.push_back(range.size);
  }
  for (auto [i, d] : llvm::enumerate(parallel_dims)) {
    offsets[d] = point[i];
    sizes[d] = rewriter.getIndexAttr(1);
  }
  offsets[reduction_dim] = k;
  sizes[reduction_dim] = rewriter.getIndexAttr(1);
  auto tileable = llvm::cast<mlir::TilingInterface>(op.getOperation());
  mlir::FailureOr<mlir::TilingResult> tiled =
      tileable.getTiledImplementation(rewriter, offsets, sizes);
  if (mlir::failed(tiled) || tiled->tiledOps.size() != 1) {
    return op.emitOpError("could not be tiled to one element of its reduction");
  }
  auto element_op = llvm::dyn_cast<mlir::linalg::LinalgOp>(tiled->tiledOps.front());
  if (!element_op) return op.emitOpError("tiled into something that is not a linalg op");
  return element_op;
}

// Lowers the one-element `element_op` to loops in its place and erases it.
mlir::LogicalResult LowerElement(mlir::linalg::LinalgOp op, mlir::linalg::LinalgOp element_op,
                                 mlir::RewriterBase& rewriter) {
  rewriter.setInsertionPoint(element_op);
  if (mlir::failed(mlir::linalg::linalgOpToLoops(rewriter, element_op))) {
    return op.emitOpError("could not be lowered to loops");
  }
  rewriter.eraseOp(element_op);
  return mlir::success();
}

// Whether `value` (in `body`) is computed without reading `a` or `b`.
bool IndependentOf(mlir::Value value, mlir::Value a, mlir::Value b, mlir::Block* body) {
  llvm::SmallVector<mlir::Value> worklist = {value};
  llvm::DenseSet<mlir::Value> seen;
  while (!worklist.empty()) {
    mlir::Value v = worklist.pop_back_val();
    if (v == a || v == b) return false;
    if (!seen.insert(v).second) continue;
    mlir::Operation* def = v.getDefiningOp();
    if (!def || def->getBlock() != body) continue;
    if (def->getNumRegions() != 0) return false;
    worklist.append(def->getOperands().begin(), def->getOperands().end());
  }
  return true;
}

// Whether `value` (in `op`'s body) is computed by pure, region-free ops from
// the op's inputs, values defined outside it and linalg.index: what a
// thread can recompute for any element.
bool IsPureElement(mlir::Value value, mlir::linalg::LinalgOp op) {
  mlir::Block* body = op.getBlock();
  llvm::SmallVector<mlir::Value> worklist = {value};
  llvm::DenseSet<mlir::Value> seen;
  while (!worklist.empty()) {
    mlir::Value v = worklist.pop_back_val();
    if (!seen.insert(v).second) continue;
    if (auto arg = llvm::dyn_cast<mlir::BlockArgument>(v)) {
      if (arg.getOwner() == body && arg.getArgNumber() >= op.getNumDpsInputs()) return false;
      continue;
    }
    mlir::Operation* def = v.getDefiningOp();
    if (def->getBlock() != body) continue;
    if (def->getNumRegions() != 0 || !mlir::isPure(def)) return false;
    worklist.append(def->getOperands().begin(), def->getOperands().end());
  }
  return true;
}

// The predicate of a strict comparison with its operands swapped; nothing
// for any other predicate.
std::optional<mlir::arith::CmpFPredicate> Swapped(mlir::arith::CmpFPredicate predicate) {
  using P = mlir::arith::CmpFPredicate;
  if (predicate == P::OGT) return P::OLT;
  if (predicate == P::OLT) return P::OGT;
  return std::nullopt;
}
std::optional<mlir::arith::CmpIPredicate> Swapped(mlir::arith::CmpIPredicate predicate) {
  using P = mlir::arith::CmpIPredicate;
  switch (predicate) {
    case P::sgt:
      return P::slt;
    case P::slt:
      return P::sgt;
    case P::ugt:
      return P::ult;
    case P::ult:
      return P::ugt;
    default:
      return std::nullopt;
  }
}

}  // namespace

std::optional<StridedReduction> MatchStridedReduction(mlir::linalg::LinalgOp op,
                                                      mlir::RewriterBase& rewriter,
                                                      bool contractions) {
  if (!HasReductionShape(op, /*inits=*/1, contractions)) return std::nullopt;
  auto tileable = llvm::cast<mlir::TilingInterface>(op.getOperation());
  // The combiner.
  mlir::Block* body = op.getBlock();
  mlir::BlockArgument out = op.getMatchingBlockArgument(op.getDpsInitOperand(0));
  if (!out.hasOneUse()) return std::nullopt;
  mlir::Operation* combiner = *out.getUsers().begin();
  if (combiner->getBlock() != body || combiner->getNumOperands() != 2 ||
      combiner->getNumResults() != 1 || !combiner->getResult(0).hasOneUse() ||
      combiner->getOperand(0) == combiner->getOperand(1)) {
    return std::nullopt;
  }
  auto yield = llvm::dyn_cast<mlir::linalg::YieldOp>(body->getTerminator());
  if (!yield || yield.getNumOperands() != 1 || yield.getOperand(0) != combiner->getResult(0)) {
    return std::nullopt;
  }
  std::optional<mlir::TypedAttr> neutral = mlir::arith::getNeutralElement(combiner);
  if (!neutral) return std::nullopt;
  // maxnumf/minnumf ignore a NaN operand, so upstream's neutral element for
  // them is NaN; Vulkan's FMax/FMin leave NaN operands undefined, so the
  // partials start from the infinity that loses every comparison instead.
  if (auto value = llvm::dyn_cast<mlir::FloatAttr>(*neutral); value && value.getValue().isNaN()) {
    const bool is_max = llvm::isa<mlir::arith::MaxNumFOp>(combiner);
    *neutral = mlir::FloatAttr::get(value.getType(),
                                    llvm::APFloat::getInf(value.getValue().getSemantics(), is_max));
  }

  StridedReduction reduction;
  reduction.op = op;
  reduction.combiner = combiner;
  reduction.accumulator_operand = combiner->getOperand(0) == out ? 0u : 1u;
  reduction.neutral = *neutral;
  if (!MatchLoops(tileable, rewriter, reduction.ranges, reduction.parallel_dims,
                  reduction.reduction_dim)) {
    return std::nullopt;
  }
  return reduction;
}

mlir::Value Combine(const StridedReduction& reduction, mlir::Value accumulator, mlir::Value other,
                    mlir::RewriterBase& rewriter) {
  mlir::IRMapping mapping;
  mlir::Operation* combiner = reduction.combiner;
  mapping.map(combiner->getOperand(reduction.accumulator_operand), accumulator);
  mapping.map(combiner->getOperand(1 - reduction.accumulator_operand), other);
  return rewriter.clone(*combiner, mapping)->getResult(0);
}

mlir::LogicalResult EmitElementIntoSlot(const StridedReduction& reduction, mlir::ValueRange point,
                                        mlir::Value k, mlir::Value slot,
                                        mlir::RewriterBase& rewriter) {
  mlir::linalg::LinalgOp op = reduction.op;
  mlir::FailureOr<mlir::linalg::LinalgOp> element_op = TileToElement(
      op, reduction.ranges, reduction.parallel_dims, reduction.reduction_dim, point, k, rewriter);
  if (mlir::failed(element_op)) return mlir::failure();
  rewriter.modifyOpInPlace(*element_op, [&] { element_op->getDpsInitOperand(0)->set(slot); });
  return LowerElement(op, *element_op, rewriter);
}

llvm::SmallVector<mlir::Value> OutputIndices(const StridedReduction& reduction,
                                             mlir::ValueRange point, mlir::RewriterBase& rewriter) {
  mlir::linalg::LinalgOp op = reduction.op;
  llvm::SmallVector<mlir::Value> loop_values =
      LoopValues(reduction.ranges, reduction.parallel_dims, reduction.reduction_dim, point, {},
                 op.getLoc(), rewriter);
  return ApplyMap(op.getMatchingIndexingMap(op.getDpsInitOperand(0)), loop_values, op.getLoc(),
                  rewriter);
}

mlir::MemRefType PartialsType(const StridedReduction& reduction, int64_t count,
                              mlir::Attribute memory_space) {
  auto out_type = llvm::cast<mlir::MemRefType>(reduction.op.getDpsInitOperand(0)->get().getType());
  llvm::SmallVector<int64_t> shape = {count};
  shape.append(out_type.getRank(), 1);
  return mlir::MemRefType::get(shape, out_type.getElementType(), mlir::MemRefLayoutAttrInterface(),
                               memory_space);
}

llvm::SmallVector<mlir::Value> PartialIndices(const StridedReduction& reduction, mlir::Value index,
                                              mlir::RewriterBase& rewriter) {
  const int64_t rank =
      llvm::cast<mlir::MemRefType>(reduction.op.getDpsInitOperand(0)->get().getType()).getRank();
  llvm::SmallVector<mlir::Value> indices = {index};
  if (rank > 0) {
    mlir::Value zero = mlir::arith::ConstantIndexOp::create(rewriter, reduction.op.getLoc(), 0);
    indices.append(rank, zero);
  }
  return indices;
}

mlir::Value SlotOf(const StridedReduction& reduction, mlir::Value partials, mlir::Value index,
                   mlir::RewriterBase& rewriter) {
  auto type = llvm::cast<mlir::MemRefType>(partials.getType());
  const int64_t rank = type.getRank() - 1;
  llvm::SmallVector<mlir::OpFoldResult> offsets = {index};
  offsets.append(rank, rewriter.getIndexAttr(0));
  llvm::SmallVector<mlir::OpFoldResult> ones(rank + 1, rewriter.getIndexAttr(1));
  auto slot_type = mlir::memref::SubViewOp::inferRankReducedResultType(
      llvm::SmallVector<int64_t>(rank, 1), type, offsets, ones, ones);
  return mlir::memref::SubViewOp::create(rewriter, reduction.op.getLoc(),
                                         llvm::cast<mlir::MemRefType>(slot_type), partials, offsets,
                                         ones, ones);
}

std::optional<StridedArgReduction> MatchStridedArgReduction(mlir::linalg::LinalgOp op,
                                                            mlir::RewriterBase& rewriter) {
  if (!HasReductionShape(op, /*inits=*/2, /*contractions=*/false)) return std::nullopt;
  mlir::Block* body = op.getBlock();
  auto yield = llvm::dyn_cast<mlir::linalg::YieldOp>(body->getTerminator());
  if (!yield || yield.getNumOperands() != 2) return std::nullopt;
  for (unsigned value_output : {0u, 1u}) {
    const unsigned index_output = 1 - value_output;
    mlir::BlockArgument best = op.getMatchingBlockArgument(op.getDpsInitOperand(value_output));
    mlir::BlockArgument best_index =
        op.getMatchingBlockArgument(op.getDpsInitOperand(index_output));
    // %n = select %win, %i, %best_index, %i independent of the outputs.
    auto index_select = yield.getOperand(index_output).getDefiningOp<mlir::arith::SelectOp>();
    if (!index_select || index_select->getBlock() != body ||
        index_select.getFalseValue() != best_index || !best_index.hasOneUse() ||
        !IndependentOf(index_select.getTrueValue(), best, best_index, body)) {
      continue;
    }
    // %win = a strict comparison of the element %x with %best; %x is
    // computed from the inputs and the loop indices alone (an input's
    // element, or what a fused producer makes of it) by pure ops.
    mlir::Operation* comparison = index_select.getCondition().getDefiningOp();
    if (!comparison || comparison->getBlock() != body ||
        !llvm::isa<mlir::arith::CmpFOp, mlir::arith::CmpIOp>(comparison)) {
      continue;
    }
    const unsigned element_operand = comparison->getOperand(0) == best ? 1u : 0u;
    if (comparison->getOperand(1 - element_operand) != best) continue;
    mlir::Value x = comparison->getOperand(element_operand);
    if (!IndependentOf(x, best, best_index, body) || !IsPureElement(x, op)) continue;
    // The sentinel: the value of x that beats nothing.
    mlir::Type type = x.getType();
    mlir::TypedAttr sentinel;
    bool greater = false;
    if (auto cmpf = llvm::dyn_cast<mlir::arith::CmpFOp>(comparison)) {
      std::optional<mlir::arith::CmpFPredicate> predicate = cmpf.getPredicate();
      if (element_operand == 1) predicate = Swapped(*predicate);
      if (!predicate || !Swapped(*predicate)) continue;  // Strict ones only.
      greater = *predicate == mlir::arith::CmpFPredicate::OGT;
      auto float_type = llvm::cast<mlir::FloatType>(type);
      sentinel = mlir::FloatAttr::get(
          float_type, llvm::APFloat::getInf(float_type.getFloatSemantics(), greater));
    } else {
      auto cmpi = llvm::cast<mlir::arith::CmpIOp>(comparison);
      std::optional<mlir::arith::CmpIPredicate> predicate = cmpi.getPredicate();
      if (element_operand == 1) predicate = Swapped(*predicate);
      // Strict ones only.
      if (!predicate || !Swapped(*predicate) || !type.isSignlessInteger()) continue;
      const unsigned width = type.getIntOrFloatBitWidth();
      llvm::APInt worst;
      switch (*predicate) {
        case mlir::arith::CmpIPredicate::sgt:
          worst = llvm::APInt::getSignedMinValue(width);
          greater = true;
          break;
        case mlir::arith::CmpIPredicate::slt:
          worst = llvm::APInt::getSignedMaxValue(width);
          break;
        case mlir::arith::CmpIPredicate::ugt:
          worst = llvm::APInt::getMinValue(width);
          greater = true;
          break;
        default:  // ult
          worst = llvm::APInt::getMaxValue(width);
          break;
      }
      sentinel = mlir::IntegerAttr::get(type, worst);
    }
    // %v: the select on the same comparison, or the max/min that agrees
    // with it.
    mlir::Operation* value_op = yield.getOperand(value_output).getDefiningOp();
    if (!value_op || value_op->getBlock() != body) continue;
    bool fold_value = false;
    if (auto select = llvm::dyn_cast<mlir::arith::SelectOp>(value_op)) {
      if (select.getCondition() != index_select.getCondition() || select.getTrueValue() != x ||
          select.getFalseValue() != best) {
        continue;
      }
    } else {
      if (value_op->getNumOperands() != 2 ||
          !((value_op->getOperand(0) == x && value_op->getOperand(1) == best) ||
            (value_op->getOperand(0) == best && value_op->getOperand(1) == x))) {
        continue;
      }
      auto is_cmpi = [&](mlir::arith::CmpIPredicate predicate) {
        auto cmpi = llvm::dyn_cast<mlir::arith::CmpIOp>(comparison);
        if (!cmpi) return false;
        return element_operand == 0 ? cmpi.getPredicate() == predicate
                                    : Swapped(cmpi.getPredicate()) == predicate;
      };
      using IP = mlir::arith::CmpIPredicate;
      const bool agrees = (llvm::isa<mlir::arith::MaximumFOp>(value_op) && greater &&
                           llvm::isa<mlir::arith::CmpFOp>(comparison)) ||
                          (llvm::isa<mlir::arith::MinimumFOp>(value_op) && !greater &&
                           llvm::isa<mlir::arith::CmpFOp>(comparison)) ||
                          (llvm::isa<mlir::arith::MaxSIOp>(value_op) && is_cmpi(IP::sgt)) ||
                          (llvm::isa<mlir::arith::MinSIOp>(value_op) && is_cmpi(IP::slt)) ||
                          (llvm::isa<mlir::arith::MaxUIOp>(value_op) && is_cmpi(IP::ugt)) ||
                          (llvm::isa<mlir::arith::MinUIOp>(value_op) && is_cmpi(IP::ult));
      if (!agrees) continue;
      // An integer max/min is the select exactly; maximumf/minimumf differ
      // on NaN and signed zeros (see the header).
      fold_value = llvm::isa<mlir::arith::MaximumFOp, mlir::arith::MinimumFOp>(value_op);
    }
    // %best feeds only the comparison and the value.
    if (!llvm::all_of(best.getUsers(), [&](mlir::Operation* user) {
          return user == comparison || user == value_op;
        })) {
      continue;
    }
    StridedArgReduction reduction;
    reduction.op = op;
    reduction.value_output = value_output;
    reduction.element = x;
    reduction.comparison = comparison;
    reduction.element_operand = element_operand;
    reduction.value_op = value_op;
    reduction.fold_value = fold_value;
    reduction.sentinel = sentinel;
    if (!MatchLoops(llvm::cast<mlir::TilingInterface>(op.getOperation()), rewriter,
                    reduction.ranges, reduction.parallel_dims, reduction.reduction_dim)) {
      return std::nullopt;
    }
    return reduction;
  }
  return std::nullopt;
}

mlir::Value Beats(const StridedArgReduction& reduction, mlir::Value candidate, mlir::Value best,
                  mlir::RewriterBase& rewriter) {
  mlir::Operation* comparison = reduction.comparison;
  mlir::IRMapping mapping;
  mapping.map(comparison->getOperand(reduction.element_operand), candidate);
  mapping.map(comparison->getOperand(1 - reduction.element_operand), best);
  return rewriter.clone(*comparison, mapping)->getResult(0);
}

mlir::Value FoldValue(const StridedArgReduction& reduction, mlir::Value accumulator,
                      mlir::Value element, mlir::RewriterBase& rewriter) {
  mlir::Operation* comparison = reduction.comparison;
  mlir::IRMapping mapping;
  mapping.map(comparison->getOperand(reduction.element_operand), element);
  mapping.map(comparison->getOperand(1 - reduction.element_operand), accumulator);
  return rewriter.clone(*reduction.value_op, mapping)->getResult(0);
}

mlir::Value ComputeElement(const StridedArgReduction& reduction, mlir::ValueRange point,
                           mlir::Value k, mlir::RewriterBase& rewriter) {
  mlir::linalg::LinalgOp op = reduction.op;
  const mlir::Location loc = op.getLoc();
  mlir::Block* body = op.getBlock();
  llvm::SmallVector<mlir::Value> loop_values = LoopValues(
      reduction.ranges, reduction.parallel_dims, reduction.reduction_dim, point, k, loc, rewriter);
  // The ops %x needs (IsPureElement checked they are pure and in the body).
  llvm::DenseSet<mlir::Value> needed;
  llvm::SmallVector<mlir::Value> worklist = {reduction.element};
  while (!worklist.empty()) {
    mlir::Value v = worklist.pop_back_val();
    if (!needed.insert(v).second) continue;
    if (mlir::Operation* def = v.getDefiningOp(); def && def->getBlock() == body) {
      worklist.append(def->getOperands().begin(), def->getOperands().end());
    }
  }
  mlir::IRMapping mapping;
  for (mlir::OpOperand* input : op.getDpsInputOperands()) {
    mlir::BlockArgument arg = op.getMatchingBlockArgument(input);
    if (!needed.contains(arg)) continue;
    if (!llvm::isa<mlir::MemRefType>(input->get().getType())) {
      mapping.map(arg, input->get());  // A scalar operand.
      continue;
    }
    mapping.map(arg, mlir::memref::LoadOp::create(
                         rewriter, loc, input->get(),
                         ApplyMap(op.getMatchingIndexingMap(input), loop_values, loc, rewriter)));
  }
  for (mlir::Operation& inner : body->without_terminator()) {
    if (!llvm::any_of(inner.getResults(), [&](mlir::Value r) { return needed.contains(r); })) {
      continue;
    }
    if (auto index = llvm::dyn_cast<mlir::linalg::IndexOp>(inner)) {
      mapping.map(index.getResult(), loop_values[index.getDim()]);
    } else {
      rewriter.clone(inner, mapping);
    }
  }
  return mapping.lookupOrDefault(reduction.element);
}

mlir::LogicalResult EmitElementIntoOutputs(const StridedArgReduction& reduction,
                                           mlir::ValueRange point, mlir::Value k,
                                           mlir::RewriterBase& rewriter) {
  mlir::linalg::LinalgOp op = reduction.op;
  mlir::FailureOr<mlir::linalg::LinalgOp> element_op = TileToElement(
      op, reduction.ranges, reduction.parallel_dims, reduction.reduction_dim, point, k, rewriter);
  if (mlir::failed(element_op)) return mlir::failure();
  return LowerElement(op, *element_op, rewriter);
}

llvm::SmallVector<mlir::Value> ValueOutputIndices(const StridedArgReduction& reduction,
                                                  mlir::ValueRange point,
                                                  mlir::RewriterBase& rewriter) {
  mlir::linalg::LinalgOp op = reduction.op;
  llvm::SmallVector<mlir::Value> loop_values =
      LoopValues(reduction.ranges, reduction.parallel_dims, reduction.reduction_dim, point, {},
                 op.getLoc(), rewriter);
  return ApplyMap(op.getMatchingIndexingMap(op.getDpsInitOperand(reduction.value_output)),
                  loop_values, op.getLoc(), rewriter);
}

}  // namespace kiln::compiler
