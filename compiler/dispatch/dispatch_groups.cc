#include "compiler/dispatch/dispatch_groups.h"

#include <algorithm>

#include "compiler/dispatch/library_calls.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/TypeUtilities.h"

namespace kiln::compiler {

using mlir::Operation;

namespace {

// The bytes of one element of a tensor type (at least 1: i1 is stored as a
// byte).
int64_t ElementBytes(mlir::Type type) {
  mlir::Type element = mlir::getElementTypeOrSelf(type);
  if (!element.isIntOrFloat()) return 8;  // index, complex: at most 8.
  return std::max<int64_t>(1, (element.getIntOrFloatBitWidth() + 7) / 8);
}

}  // namespace

DispatchGroups::DispatchGroups(mlir::func::FuncOp func, bool library_calls)
    : library_calls_(library_calls) {
  llvm::SmallVector<mlir::linalg::LinalgOp> ops;
  func.walk([&](mlir::linalg::LinalgOp op) {
    ops.push_back(op);
    return mlir::WalkResult::skip();
  });
  // Consumers before their producers: a producer joins a dispatch whose
  // root and loops its consumers already know.
  for (mlir::linalg::LinalgOp op : llvm::reverse(ops)) {
    if (TryJoin(op)) continue;
    root_of_[op] = op;
    // A root's parallel loops are its own; its reduction loops have no
    // counterpart that tiles could cut (they are never tiled).
    llvm::SmallVector<std::optional<unsigned>>& loops = root_loop_of_[op];
    for (auto [l, iterator] : llvm::enumerate(op.getIteratorTypesArray())) {
      loops.push_back(iterator == mlir::utils::IteratorType::parallel ? std::optional<unsigned>(l)
                                                                      : std::nullopt);
    }
  }
}

bool DispatchGroups::JoinsConsumers(Operation* op) const {
  // Only linalg ops are grouped (an op made after the grouping may reuse
  // the memory of a grouped one that was erased).
  if (!llvm::isa<mlir::linalg::LinalgOp>(op)) return false;
  auto it = root_of_.find(op);
  return it != root_of_.end() && it->second != op;
}

llvm::SmallVector<bool> DispatchGroups::LoopsKeptWhole(mlir::linalg::LinalgOp root) const {
  auto it = kept_whole_.find(root);
  if (it != kept_whole_.end()) return it->second;
  return llvm::SmallVector<bool>(root.getNumLoops(), false);
}

int64_t DispatchGroups::UntiledElementsPerTileElement(mlir::linalg::LinalgOp root) const {
  auto it = joined_.find(root);
  if (it == joined_.end()) return 1;
  const llvm::SmallVector<bool> kept = LoopsKeptWhole(root);
  const llvm::SmallVector<int64_t> ranges = root.getStaticLoopRanges();
  int64_t most = 1;
  for (const JoinedOp& op : it->second) {
    int64_t elements = op.untiled_elements;
    // Kept loops are static (TryJoin checks), and each at most
    // kMaxWholeLoopBytes long: the product cannot overflow for any rank.
    for (size_t l = 0; l < ranges.size(); ++l) {
      if (kept[l] && op.reached[l]) elements = std::min<int64_t>(elements * ranges[l], 1 << 30);
    }
    most = std::max(most, elements);
  }
  return most;
}

int64_t DispatchGroups::JoinedReductionLength(mlir::linalg::LinalgOp root) const {
  auto it = joined_.find(root);
  if (it == joined_.end()) return 1;
  int64_t longest = 1;
  for (const JoinedOp& op : it->second) longest = std::max(longest, op.reduction_length);
  return longest;
}

bool DispatchGroups::TryJoin(mlir::linalg::LinalgOp producer) {
  if (!producer.hasPureTensorSemantics() || producer->getNumResults() != 1 ||
      llvm::isa<mlir::linalg::FillOp>(producer.getOperation()) || producer->use_empty()) {
    return false;
  }
  mlir::OpResult result = producer->getResult(0);
  const bool library = library_calls_ && IsLibraryContraction(producer);
  mlir::AffineMap written = producer.getIndexingMapMatchingResult(result);
  if (!written.isProjectedPermutation()) return false;

  // The root's loop each of the producer's loops runs along, as every
  // consumer sees it (none where they disagree).
  const unsigned producer_loops = producer.getNumLoops();
  llvm::SmallVector<std::optional<unsigned>> root_loops;
  Operation* root = nullptr;
  for (mlir::OpOperand& use : result.getUses()) {
    auto consumer = llvm::dyn_cast<mlir::linalg::LinalgOp>(use.getOwner());
    if (!consumer || !consumer.hasPureTensorSemantics() || consumer.isDpsInit(&use) ||
        consumer->getBlock() != producer->getBlock()) {
      return false;
    }
    if (library && !IsLibraryEpilogue(consumer, use)) return false;
    auto placed = root_of_.find(consumer);
    if (placed == root_of_.end() || (root && placed->second != root)) return false;
    root = placed->second;
    // A library call computes its contraction and epilogue only: nothing
    // else joins its dispatch, and it joins no dispatch that has more.
    if (library_roots_.contains(root) || (library && joined_.count(root))) return false;
    mlir::AffineMap read = consumer.getMatchingIndexingMap(&use);
    if (!read.isProjectedPermutation()) return false;
    // Read along every parallel loop of the consumer, or broadcast only
    // where the consumer has no reduction (a matmul reads each operand
    // broadcast along a parallel loop: fused, the operand would be computed
    // again for each tile of that loop).
    if (consumer.getNumReductionLoops() != 0) {
      for (auto [l, iterator] : llvm::enumerate(consumer.getIteratorTypesArray())) {
        if (iterator == mlir::utils::IteratorType::parallel && !read.isFunctionOfDim(l)) {
          return false;
        }
      }
    }
    const llvm::SmallVector<std::optional<unsigned>>& consumer_root_loops =
        root_loop_of_.find(consumer)->second;
    llvm::SmallVector<std::optional<unsigned>> via(producer_loops, std::nullopt);
    for (unsigned r = 0; r < written.getNumResults(); ++r) {
      unsigned producer_loop = llvm::cast<mlir::AffineDimExpr>(written.getResult(r)).getPosition();
      unsigned consumer_loop = llvm::cast<mlir::AffineDimExpr>(read.getResult(r)).getPosition();
      via[producer_loop] = consumer_root_loops[consumer_loop];
    }
    if (root_loops.empty()) {
      root_loops = via;
    } else {
      for (unsigned l = 0; l < producer_loops; ++l) {
        if (root_loops[l] != via[l]) root_loops[l] = std::nullopt;
      }
    }
  }

  // The producer's result along its loops that no loop of the root tiles
  // (a consumer reduces over them, or its consumers disagree): each tile
  // holds all of it, as an intermediate.
  llvm::SmallVector<int64_t> producer_ranges = producer.getStaticLoopRanges();
  llvm::SmallVector<mlir::utils::IteratorType> producer_iterators =
      producer.getIteratorTypesArray();
  int64_t untiled_elements = 1;
  int64_t reduction_length = 1;
  for (unsigned l = 0; l < producer_loops; ++l) {
    if (producer_iterators[l] == mlir::utils::IteratorType::reduction) {
      // A dynamic reduction counts as long: its tiles stay small.
      const int64_t range = mlir::ShapedType::isDynamic(producer_ranges[l]) ? int64_t{1} << 30
                                                                            : producer_ranges[l];
      reduction_length = std::min<int64_t>(reduction_length * range, int64_t{1} << 30);
    }
    if (producer_iterators[l] != mlir::utils::IteratorType::parallel || root_loops[l]) continue;
    if (mlir::ShapedType::isDynamic(producer_ranges[l])) return false;
    untiled_elements *= producer_ranges[l];
    if (untiled_elements * ElementBytes(result.getType()) > kMaxWholeLoopBytes) return false;
  }

  // The root's parallel loops the producer's result does not reach: every
  // workgroup takes them whole.
  auto root_op = llvm::cast<mlir::linalg::LinalgOp>(root);
  llvm::SmallVector<bool> kept = LoopsKeptWhole(root_op);
  llvm::SmallVector<bool> reached(root_op.getNumLoops(), false);
  for (std::optional<unsigned> l : root_loops) {
    if (l) reached[*l] = true;
  }
  llvm::SmallVector<int64_t> ranges = root_op.getStaticLoopRanges();
  llvm::SmallVector<mlir::utils::IteratorType> iterators = root_op.getIteratorTypesArray();
  bool any_kept = false;
  for (unsigned l = 0; l < root_op.getNumLoops(); ++l) {
    if (iterators[l] == mlir::utils::IteratorType::parallel && !reached[l]) kept[l] = true;
    any_kept |= kept[l];
  }
  if (any_kept) {
    // The widest element of what the tile holds whole: the producer's and
    // the root's results.
    int64_t element_bytes = ElementBytes(result.getType());
    for (mlir::Value root_result : root->getResults()) {
      element_bytes = std::max(element_bytes, ElementBytes(root_result.getType()));
    }
    int64_t whole_bytes = element_bytes;
    for (unsigned l = 0; l < root_op.getNumLoops(); ++l) {
      if (!kept[l] && iterators[l] == mlir::utils::IteratorType::parallel) continue;
      if (mlir::ShapedType::isDynamic(ranges[l])) return false;
      whole_bytes *= ranges[l];
      if (whole_bytes > kMaxWholeLoopBytes) return false;
    }
  }
  root_of_[producer] = root;
  if (library) library_roots_.insert(root);
  root_loop_of_[producer] = std::move(root_loops);
  kept_whole_[root] = std::move(kept);
  joined_[root].push_back(JoinedOp{untiled_elements, std::move(reached), reduction_length});
  return true;
}

}  // namespace kiln::compiler
