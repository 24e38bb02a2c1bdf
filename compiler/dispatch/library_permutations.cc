#include "compiler/dispatch/library_permutations.h"

#include "compiler/dispatch/library_calls.h"
#include "compiler/dispatch/strided_matmul.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace kiln::compiler {
namespace {

using mlir::AffineMap;
using mlir::Operation;
using mlir::RankedTensorType;
using mlir::Value;

// Which dimension of the permuted tensor a dimension stands for: the index
// of a dimension of more than one element (of the permutation's input, or
// of the contraction's result), or kUnit for a dimension of one element.
constexpr int64_t kUnit = -1;
using DimIds = llvm::SmallVector<int64_t>;

// Whether `op` only permutes its input (linalg.transpose, or a generic whose
// body yields its input element under permutation maps).
bool IsPermutation(Operation* op) {
  auto linalg = llvm::dyn_cast_if_present<mlir::linalg::LinalgOp>(op);
  if (!linalg || !linalg.hasPureTensorSemantics() || linalg.getNumDpsInputs() != 1 ||
      linalg.getNumDpsInits() != 1 || op->getNumResults() != 1 ||
      linalg.getNumReductionLoops() != 0 || op->getNumRegions() != 1) {
    return false;
  }
  llvm::SmallVector<AffineMap> maps = linalg.getIndexingMapsArray();
  if (!maps[0].isPermutation() || !maps[1].isPermutation()) return false;
  auto in = llvm::dyn_cast<RankedTensorType>(linalg.getDpsInputs()[0].getType());
  auto out = llvm::dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!in || !out || !in.hasStaticShape() || in.getElementType() != out.getElementType()) {
    return false;
  }
  mlir::Block& body = op->getRegion(0).front();
  auto yield = llvm::dyn_cast<mlir::linalg::YieldOp>(body.getTerminator());
  return yield && body.getOperations().size() == 1 && yield->getNumOperands() == 1 &&
         yield->getOperand(0) == body.getArgument(0);
}

// For each dimension of a permutation's result, the dimension of its input
// it is.
llvm::SmallVector<int64_t> ResultToInput(mlir::linalg::LinalgOp permutation) {
  llvm::SmallVector<AffineMap> maps = permutation.getIndexingMapsArray();
  llvm::SmallVector<int64_t> input_dim_of_loop(maps[0].getNumDims());
  for (unsigned d = 0; d < maps[0].getNumResults(); ++d) {
    input_dim_of_loop[maps[0].getDimPosition(d)] = d;
  }
  llvm::SmallVector<int64_t> result_to_input(maps[1].getNumResults());
  for (unsigned d = 0; d < maps[1].getNumResults(); ++d) {
    result_to_input[d] = input_dim_of_loop[maps[1].getDimPosition(d)];
  }
  return result_to_input;
}

DimIds IdsOf(Value value) {
  DimIds ids;
  for (auto [d, size] : llvm::enumerate(llvm::cast<RankedTensorType>(value.getType()).getShape())) {
    ids.push_back(size == 1 ? kUnit : static_cast<int64_t>(d));
  }
  return ids;
}

// `ids` (of a reshape's source) as the reshape's result has them, where it
// only adds or drops dimensions of one element.
std::optional<DimIds> ThroughReshape(Operation* reshape, const DimIds& ids) {
  auto result_type = llvm::cast<RankedTensorType>(reshape->getResult(0).getType());
  if (!result_type.hasStaticShape()) return std::nullopt;
  llvm::ArrayRef<int64_t> shape = result_type.getShape();
  DimIds out(shape.size(), kUnit);
  if (auto expand = llvm::dyn_cast<mlir::tensor::ExpandShapeOp>(reshape)) {
    for (auto [source, group] : llvm::enumerate(expand.getReassociationIndices())) {
      const int64_t long_dims = llvm::count_if(group, [&](int64_t d) { return shape[d] != 1; });
      if (ids[source] == kUnit) continue;  // Every dimension of its group is one element.
      if (long_dims != 1) return std::nullopt;
      for (int64_t d : group) {
        if (shape[d] != 1) out[d] = ids[source];
      }
    }
    return out;
  }
  auto collapse = llvm::cast<mlir::tensor::CollapseShapeOp>(reshape);
  for (auto [result, group] : llvm::enumerate(collapse.getReassociationIndices())) {
    for (int64_t d : group) {
      if (ids[d] == kUnit) continue;
      if (out[result] != kUnit) return std::nullopt;  // Two long dimensions merge.
      out[result] = ids[d];
    }
  }
  return out;
}

bool IsReshape(Operation* op) {
  return llvm::isa_and_present<mlir::tensor::ExpandShapeOp, mlir::tensor::CollapseShapeOp>(op);
}

// `value` with its dimensions of one element dropped (a rank-reducing
// slice: a view), or itself where it has none.
Value DropUnitDims(mlir::OpBuilder& b, Value value) {
  auto type = llvm::cast<RankedTensorType>(value.getType());
  llvm::SmallVector<int64_t> shape;
  for (int64_t size : type.getShape()) {
    if (size != 1) shape.push_back(size);
  }
  if (shape.size() == static_cast<size_t>(type.getRank())) return value;
  llvm::SmallVector<mlir::OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0)), sizes,
      strides(type.getRank(), b.getIndexAttr(1));
  for (int64_t size : type.getShape()) sizes.push_back(b.getIndexAttr(size));
  return mlir::tensor::ExtractSliceOp::create(b, value.getLoc(),
                                              RankedTensorType::get(shape, type.getElementType()),
                                              value, offsets, sizes, strides);
}

// Whether the tensor `value`'s views start from will be a binding of the
// contraction's dispatch: not one that the dispatch makes itself (an empty
// tensor, a splat, a pad or concatenation: form_dispatches.cc clones those
// in), which no library reads.
bool BecomesABinding(Value value) {
  std::optional<StridedLayout> layout = StridedLayoutOf(value);
  if (!layout) return false;
  Operation* op = layout->base.getDefiningOp();
  if (!op) return true;
  if (auto constant = llvm::dyn_cast<mlir::arith::ConstantOp>(op)) {
    auto elements = llvm::dyn_cast<mlir::DenseElementsAttr>(constant.getValue());
    return !elements || !elements.isSplat();
  }
  return !llvm::isa<mlir::tensor::EmptyOp, mlir::tensor::PadOp, mlir::tensor::ConcatOp,
                    mlir::tensor::InsertSliceOp, mlir::tensor::SplatOp,
                    mlir::tensor::FromElementsOp, mlir::tensor::ReshapeOp>(op);
}

// An input of the contraction read through reshapes from a permutation:
// the contraction can read the permutation's input (unit dimensions
// dropped) with `map` instead.
struct FoldedInput {
  Value source;  // The permutation's input.
  AffineMap map;
};

std::optional<FoldedInput> FoldInput(mlir::linalg::LinalgOp contraction, mlir::OpOperand& operand) {
  Value v = operand.get();
  llvm::SmallVector<Operation*> reshapes;  // From the contraction outward.
  while (IsReshape(v.getDefiningOp())) {
    reshapes.push_back(v.getDefiningOp());
    v = v.getDefiningOp()->getOperand(0);
  }
  Operation* permutation = v.getDefiningOp();
  if (!IsPermutation(permutation)) return std::nullopt;
  auto linalg = llvm::cast<mlir::linalg::LinalgOp>(permutation);
  Value source = linalg.getDpsInputs()[0];
  if (!BecomesABinding(source)) return std::nullopt;
  const DimIds source_ids = IdsOf(source);
  DimIds ids;
  for (int64_t input_dim : ResultToInput(linalg)) ids.push_back(source_ids[input_dim]);
  for (Operation* reshape : llvm::reverse(reshapes)) {
    std::optional<DimIds> next = ThroughReshape(reshape, ids);
    if (!next) return std::nullopt;
    ids = std::move(*next);
  }
  // Each long dimension of the source is the one dimension of the operand
  // that stands for it, read along that dimension's loop.
  const AffineMap read = contraction.getMatchingIndexingMap(&operand);
  llvm::SmallVector<mlir::AffineExpr> exprs;
  for (int64_t d : source_ids) {
    if (d == kUnit) continue;
    auto at = llvm::find(ids, d);
    if (at == ids.end() || llvm::count(ids, d) != 1) return std::nullopt;
    exprs.push_back(read.getResult(at - ids.begin()));
  }
  if (exprs.empty()) return std::nullopt;
  return FoldedInput{source, AffineMap::get(read.getNumDims(), 0, exprs, read.getContext())};
}

// The contraction's result read through reshapes by one permutation: the
// contraction can write the permutation's result (unit dimensions dropped)
// with `map` instead.
struct FoldedOutput {
  Operation* permutation;
  llvm::SmallVector<Operation*> reshapes;  // From the contraction outward.
  AffineMap map;
};

std::optional<FoldedOutput> FoldOutput(mlir::linalg::LinalgOp contraction) {
  Value u = contraction->getResult(0);
  FoldedOutput folded;
  while (u.hasOneUse() && IsReshape(*u.getUsers().begin())) {
    folded.reshapes.push_back(*u.getUsers().begin());
    u = folded.reshapes.back()->getResult(0);
  }
  if (!u.hasOneUse()) return std::nullopt;
  mlir::OpOperand& use = *u.getUses().begin();
  if (!IsPermutation(use.getOwner())) return std::nullopt;
  auto linalg = llvm::cast<mlir::linalg::LinalgOp>(use.getOwner());
  if (linalg.isDpsInit(&use)) return std::nullopt;
  folded.permutation = linalg;
  DimIds ids = IdsOf(contraction->getResult(0));
  for (Operation* reshape : folded.reshapes) {
    std::optional<DimIds> next = ThroughReshape(reshape, ids);
    if (!next) return std::nullopt;
    ids = std::move(*next);
  }
  const AffineMap write = contraction.getIndexingMapMatchingResult(contraction->getResult(0));
  llvm::SmallVector<mlir::AffineExpr> exprs;
  for (int64_t input_dim : ResultToInput(linalg)) {
    if (ids[input_dim] != kUnit) exprs.push_back(write.getResult(ids[input_dim]));
  }
  if (exprs.empty()) return std::nullopt;
  folded.map = AffineMap::get(write.getNumDims(), 0, exprs, write.getContext());
  return folded;
}

// The zero a library contraction's init is filled with (IsLibraryContraction
// checked it is one), through the reshapes fusion leaves.
Value InitFillValue(mlir::linalg::LinalgOp contraction) {
  Value init = contraction.getDpsInits()[0];
  while (IsReshape(init.getDefiningOp())) init = init.getDefiningOp()->getOperand(0);
  auto fill = init.getDefiningOp<mlir::linalg::FillOp>();
  return fill ? fill.getInputs()[0] : Value();
}

// Erases `op` if nothing uses it, then what made its operands, likewise.
void EraseIfDead(Operation* op) {
  if (!op || !op->use_empty() || !mlir::isPure(op)) return;
  llvm::SmallVector<Value> operands(op->getOperands());
  op->erase();
  for (Value operand : operands) EraseIfDead(operand.getDefiningOp());
}

void Fold(mlir::linalg::LinalgOp contraction) {
  llvm::SmallVector<std::optional<FoldedInput>> inputs;
  for (mlir::OpOperand* input : contraction.getDpsInputOperands()) {
    inputs.push_back(FoldInput(contraction, *input));
  }
  std::optional<FoldedOutput> output = FoldOutput(contraction);
  if (llvm::none_of(inputs, [](const auto& in) { return in.has_value(); }) && !output) return;
  Value zero = InitFillValue(contraction);
  if (output && !zero) output.reset();

  llvm::SmallVector<AffineMap> maps = contraction.getIndexingMapsArray();
  for (auto [i, input] : llvm::enumerate(inputs)) {
    if (input) maps[i] = input->map;
  }
  if (output) maps.back() = output->map;
  // Every loop must still be read (its range comes from an operand).
  const unsigned loops = contraction.getNumLoops();
  llvm::SmallVector<bool> read(loops, false);
  for (AffineMap map : maps) {
    for (unsigned d = 0; d < map.getNumResults(); ++d) read[map.getDimPosition(d)] = true;
  }
  if (llvm::is_contained(read, false)) return;

  const mlir::Location loc = contraction.getLoc();
  mlir::OpBuilder b(contraction);
  llvm::SmallVector<Operation*> made;  // Erased again where the fold is not kept.
  auto track = [&](Value value) {
    if (Operation* op = value.getDefiningOp(); op && !llvm::is_contained(made, op)) {
      made.push_back(op);
    }
    return value;
  };
  llvm::SmallVector<Value> operands;
  for (auto [i, input] : llvm::enumerate(inputs)) {
    Value original = contraction.getDpsInputs()[i];
    operands.push_back(input ? DropUnitDims(b, input->source) : original);
    if (input && operands.back() != input->source) track(operands.back());
  }
  Value init = contraction.getDpsInits()[0];
  RankedTensorType written;
  if (output) {
    auto permuted = llvm::cast<RankedTensorType>(output->permutation->getResult(0).getType());
    llvm::SmallVector<int64_t> shape;
    for (int64_t size : permuted.getShape()) {
      if (size != 1) shape.push_back(size);
    }
    written = RankedTensorType::get(shape, permuted.getElementType());
    Value empty = track(mlir::tensor::EmptyOp::create(b, loc, shape, written.getElementType()));
    init = track(mlir::linalg::FillOp::create(b, loc, zero, empty).getResult(0));
  }
  auto generic = mlir::linalg::GenericOp::create(b, loc, mlir::TypeRange{init.getType()}, operands,
                                                 mlir::ValueRange{init}, maps,
                                                 contraction.getIteratorTypesArray());
  mlir::IRMapping mapping;
  contraction->getRegion(0).cloneInto(&generic.getRegion(), mapping);
  for (mlir::NamedAttribute attr : contraction->getDiscardableAttrs()) {
    if (attr.getName().getValue().starts_with("kiln."))
      generic->setAttr(attr.getName(), attr.getValue());
  }
  if (!IsLibraryContraction(generic)) {
    generic->erase();
    for (Operation* op : llvm::reverse(made)) EraseIfDead(op);
    return;
  }

  if (output) {
    Operation* permutation = output->permutation;
    auto type = llvm::cast<RankedTensorType>(permutation->getResult(0).getType());
    Value result = generic->getResult(0);
    if (type != written) {
      b.setInsertionPoint(permutation);
      std::optional<llvm::SmallVector<mlir::ReassociationIndices>> groups =
          mlir::getReassociationIndicesForReshape(written, type);
      // Only unit dimensions are added: some grouping always exists.
      result = mlir::tensor::ExpandShapeOp::create(b, loc, type, result, *groups);
    }
    permutation->getResult(0).replaceAllUsesWith(result);
    // The permutation and the reshapes before it read nothing else now.
    llvm::SmallVector<Value> inits(permutation->getOperands().drop_front());
    permutation->erase();
    for (Operation* reshape : llvm::reverse(output->reshapes)) reshape->erase();
    for (Value value : inits) EraseIfDead(value.getDefiningOp());
  } else {
    contraction->getResult(0).replaceAllUsesWith(generic->getResult(0));
  }
  llvm::SmallVector<Value> replaced(contraction->getOperands());
  contraction->erase();
  for (Value operand : replaced) EraseIfDead(operand.getDefiningOp());
}

}  // namespace

void FoldPermutationsIntoLibraryContractions(mlir::func::FuncOp func) {
  llvm::SmallVector<mlir::linalg::LinalgOp> contractions;
  func.walk([&](mlir::linalg::LinalgOp op) {
    if (op.getNumDpsInputs() == 2 && mlir::linalg::isaContractionOpInterface(op) &&
        IsLibraryContraction(op)) {
      contractions.push_back(op);
    }
  });
  for (mlir::linalg::LinalgOp contraction : contractions) Fold(contraction);
}

}  // namespace kiln::compiler
