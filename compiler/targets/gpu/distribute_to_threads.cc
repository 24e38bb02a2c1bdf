// --kiln-gpu-distribute-to-threads (distribute_to_threads.h).
#include "compiler/targets/gpu/distribute_to_threads.h"

#include <optional>

#include "compiler/dialects/hal/hal_dialect.h"
#include "compiler/targets/gpu/cooperative_reduction.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Pass/Pass.h"

namespace kiln::compiler::gpu {

std::array<int64_t, 3> KernelWorkgroupSize(mlir::Operation* kernel) {
  auto attr = kernel->getAttrOfType<mlir::DenseI64ArrayAttr>("kiln.workgroup_size");
  std::array<int64_t, 3> size = {128, 1, 1};
  if (!attr) return size;
  for (int64_t d = 0; d < 3 && d < attr.size(); ++d) size[d] = attr[d];
  return size;
}

namespace {

using mlir::Location;
using mlir::LogicalResult;
using mlir::OpFoldResult;
using mlir::Value;

//===----------------------------------------------------------------------===//
// Intermediate buffers
//===----------------------------------------------------------------------===//

// A static upper bound of an index value, read off the forms the contract
// produces for tile sizes: constants, affine.min with a constant result
// (the tile size clamped at the edge), and dims of allocs and subviews of
// such sizes. Upstream's value-bounds analysis is the fallback.
std::optional<int64_t> UpperBound(Value value, int depth = 0) {
  if (depth > 16) return std::nullopt;
  if (std::optional<int64_t> constant = mlir::getConstantIntValue(value)) return constant;
  mlir::Operation* op = value.getDefiningOp();
  std::optional<int64_t> bound;
  auto tighten = [&](std::optional<int64_t> candidate) {
    if (candidate && (!bound || *candidate < *bound)) bound = candidate;
  };
  if (auto min = llvm::dyn_cast_if_present<mlir::affine::AffineMinOp>(op)) {
    for (mlir::AffineExpr result : min.getAffineMap().getResults()) {
      if (auto constant = llvm::dyn_cast<mlir::AffineConstantExpr>(result)) {
        tighten(constant.getValue());
      }
    }
  } else if (auto min = llvm::dyn_cast_if_present<mlir::arith::MinUIOp>(op)) {
    tighten(UpperBound(min.getLhs(), depth + 1));
    tighten(UpperBound(min.getRhs(), depth + 1));
  } else if (auto min = llvm::dyn_cast_if_present<mlir::arith::MinSIOp>(op)) {
    tighten(UpperBound(min.getLhs(), depth + 1));
    tighten(UpperBound(min.getRhs(), depth + 1));
  } else if (auto dim = llvm::dyn_cast_if_present<mlir::memref::DimOp>(op)) {
    std::optional<int64_t> index = dim.getConstantIndex();
    Value source = dim.getSource();
    if (index) {
      if (auto subview = source.getDefiningOp<mlir::memref::SubViewOp>()) {
        // Rank-reducing subviews drop unit dims; map the result dim back.
        llvm::SmallBitVector dropped = subview.getDroppedDims();
        int64_t result_dim = -1;
        for (int64_t d = 0; d < static_cast<int64_t>(dropped.size()); ++d) {
          if (dropped[d]) continue;
          if (++result_dim == *index) {
            OpFoldResult size = subview.getMixedSizes()[d];
            if (llvm::isa<mlir::Attribute>(size)) {
              tighten(mlir::getConstantIntValue(size));
            } else {
              tighten(UpperBound(llvm::cast<Value>(size), depth + 1));
            }
            break;
          }
        }
      } else if (auto alloc = source.getDefiningOp<mlir::memref::AllocOp>()) {
        auto type = alloc.getType();
        if (!type.isDynamicDim(*index)) {
          tighten(type.getDimSize(*index));
        } else {
          tighten(UpperBound(alloc.getDynamicSizes()[type.getDynamicDimIndex(*index)], depth + 1));
        }
      }
    }
  }
  if (bound) return bound;
  mlir::FailureOr<int64_t> analyzed = mlir::ValueBoundsConstraintSet::computeConstantBound(
      mlir::presburger::BoundType::UB, mlir::ValueBoundsConstraintSet::Variable(value),
      /*stopCondition=*/nullptr, /*closedUB=*/true);
  if (mlir::succeeded(analyzed)) return *analyzed;
  return std::nullopt;
}

// Whether `op` only writes `buffer` (it is an init its payload never reads).
bool OnlyWrites(mlir::Operation* op, Value buffer) {
  auto linalg_op = llvm::dyn_cast<mlir::linalg::LinalgOp>(op);
  if (!linalg_op || linalg_op.getNumDpsInits() != 1) return false;
  for (mlir::OpOperand& input : op->getOpOperands()) {
    if (input.get() != buffer) continue;
    if (!linalg_op.isDpsInit(&input) || linalg_op.payloadUsesValueFromOperand(&input)) {
      return false;
    }
  }
  return true;
}

// An alloc nobody reads (bufferization can leave one behind, filled and then
// forgotten) is erased with its writers.
bool EraseIfDead(mlir::memref::AllocOp alloc, mlir::RewriterBase& rewriter) {
  for (mlir::Operation* user : alloc->getUsers()) {
    if (!llvm::isa<mlir::memref::DeallocOp>(user) && !OnlyWrites(user, alloc)) return false;
  }
  llvm::SetVector<mlir::Operation*> users(alloc->user_begin(), alloc->user_end());
  for (mlir::Operation* user : users) rewriter.eraseOp(user);
  rewriter.eraseOp(alloc);
  return true;
}

// Makes the users of `buffer` use `replacement` (the same elements in
// another memory space): linalg ops take it as it is, subviews are made
// again of it (their type names the memory space), deallocs go (workgroup
// memory lives as long as the workgroup).
void RetargetUses(Value buffer, Value replacement, mlir::RewriterBase& rewriter) {
  // A user may hold the buffer in several operands: collect them first.
  llvm::SetVector<mlir::Operation*> users(buffer.user_begin(), buffer.user_end());
  for (mlir::Operation* user : users) {
    if (llvm::isa<mlir::memref::DeallocOp>(user)) {
      rewriter.eraseOp(user);
      continue;
    }
    if (auto subview = llvm::dyn_cast<mlir::memref::SubViewOp>(user)) {
      rewriter.setInsertionPoint(subview);
      auto type = mlir::memref::SubViewOp::inferRankReducedResultType(
          subview.getType().getShape(), llvm::cast<mlir::MemRefType>(replacement.getType()),
          subview.getMixedOffsets(), subview.getMixedSizes(), subview.getMixedStrides());
      Value view = mlir::memref::SubViewOp::create(
          rewriter, subview.getLoc(), llvm::cast<mlir::MemRefType>(type), replacement,
          subview.getMixedOffsets(), subview.getMixedSizes(), subview.getMixedStrides());
      RetargetUses(subview.getResult(), view, rewriter);
      rewriter.eraseOp(subview);
      continue;
    }
    rewriter.modifyOpInPlace(user, [&] {
      for (mlir::OpOperand& operand : user->getOpOperands()) {
        if (operand.get() == buffer) operand.set(replacement);
      }
    });
  }
}

// Moves an intermediate buffer into workgroup memory, shared by all threads
// of the workgroup (see the header for why).
LogicalResult PromoteToWorkgroupMemory(mlir::memref::AllocOp alloc, mlir::RewriterBase& rewriter) {
  mlir::MemRefType type = alloc.getType();
  if (type.getMemorySpace()) return mlir::success();  // Placed already.
  if (!type.getLayout().isIdentity()) {
    return alloc.emitOpError() << "allocates " << type
                               << " with a layout; GPU kernels support identity layouts only";
  }
  llvm::SmallVector<int64_t> static_shape;
  llvm::SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (!type.isDynamicDim(d)) {
      static_shape.push_back(type.getDimSize(d));
      sizes.push_back(rewriter.getIndexAttr(type.getDimSize(d)));
      continue;
    }
    Value size = alloc.getDynamicSizes()[type.getDynamicDimIndex(d)];
    std::optional<int64_t> bound = UpperBound(size);
    if (!bound) {
      return alloc.emitOpError() << "allocates an intermediate buffer whose dimension " << d
                                 << " has no static upper bound; GPU kernels keep "
                                    "intermediates in workgroup memory, which needs one";
    }
    static_shape.push_back(*bound);
    sizes.push_back(size);
  }
  // Linalg ops use the buffer, directly or through subviews (the parts a
  // concat or an insert_slice writes).
  llvm::SmallVector<Value> views = {alloc.getResult()};
  for (size_t i = 0; i < views.size(); ++i) {
    for (mlir::Operation* user : views[i].getUsers()) {
      if (auto subview = llvm::dyn_cast<mlir::memref::SubViewOp>(user)) {
        views.push_back(subview.getResult());
        continue;
      }
      if (!llvm::isa<mlir::linalg::LinalgOp, mlir::memref::DeallocOp>(user)) {
        return user->emitOpError() << "uses an intermediate buffer; GPU kernels support only "
                                      "linalg ops and subviews on intermediates";
      }
    }
  }
  auto workgroup =
      mlir::gpu::AddressSpaceAttr::get(rewriter.getContext(), mlir::gpu::AddressSpace::Workgroup);
  auto shared_type = mlir::MemRefType::get(static_shape, type.getElementType(),
                                           mlir::MemRefLayoutAttrInterface(), workgroup);
  rewriter.setInsertionPoint(alloc);
  Value shared = mlir::memref::AllocOp::create(rewriter, alloc.getLoc(), shared_type,
                                               alloc.getAlignmentAttr());
  if (!type.hasStaticShape()) {
    llvm::SmallVector<OpFoldResult> offsets(type.getRank(), rewriter.getIndexAttr(0));
    llvm::SmallVector<OpFoldResult> strides(type.getRank(), rewriter.getIndexAttr(1));
    shared =
        mlir::memref::SubViewOp::create(rewriter, alloc.getLoc(), shared, offsets, sizes, strides);
  }
  RetargetUses(alloc.getResult(), shared, rewriter);
  rewriter.eraseOp(alloc);
  return mlir::success();
}

//===----------------------------------------------------------------------===//
// Barriers
//===----------------------------------------------------------------------===//

// What a buffer is, for dependences: the binding of a subspan (two subspans
// of one binding alias), or the op or block argument at the root of the view
// chain.
using BufferRoot = std::pair<mlir::Attribute, const void*>;

BufferRoot RootOf(Value buffer) {
  while (mlir::Operation* op = buffer.getDefiningOp()) {
    if (auto view = llvm::dyn_cast<mlir::ViewLikeOpInterface>(op)) {
      buffer = view.getViewSource();
      continue;
    }
    if (op->getName().getStringRef() == "hal.interface.binding.subspan") {
      return {op->getAttr("binding"), nullptr};
    }
    break;
  }
  return {nullptr, buffer.getAsOpaquePointer()};
}

struct Accesses {
  llvm::DenseSet<BufferRoot> reads;
  llvm::DenseSet<BufferRoot> writes;
};

Accesses AccessesOf(mlir::linalg::LinalgOp op) {
  Accesses accesses;
  for (mlir::OpOperand* input : op.getDpsInputOperands()) {
    if (llvm::isa<mlir::MemRefType>(input->get().getType())) {
      accesses.reads.insert(RootOf(input->get()));
    }
  }
  for (mlir::OpOperand& init : op.getDpsInitsMutable()) {
    BufferRoot root = RootOf(init.get());
    accesses.writes.insert(root);
    if (op.payloadUsesValueFromOperand(&init)) accesses.reads.insert(root);
  }
  return accesses;
}

bool Intersects(const llvm::DenseSet<BufferRoot>& a, const llvm::DenseSet<BufferRoot>& b) {
  return llvm::any_of(a, [&](const BufferRoot& root) { return b.contains(root); });
}

//===----------------------------------------------------------------------===//
// Distribution of one linalg op
//===----------------------------------------------------------------------===//

// The linear thread id and the thread count of the kernel's workgroup.
struct Threads {
  Value id;
  Value count;
  int64_t static_count;
};

Threads CreateThreads(mlir::func::FuncOp kernel, mlir::RewriterBase& rewriter) {
  const std::array<int64_t, 3> size = KernelWorkgroupSize(kernel);
  mlir::OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(&kernel.getBody().front());
  const Location loc = kernel.getLoc();
  auto id = [&](mlir::gpu::Dimension d, int64_t bound) -> Value {
    return mlir::gpu::ThreadIdOp::create(rewriter, loc, d, rewriter.getIndexAttr(bound));
  };
  Value linear = id(mlir::gpu::Dimension::x, size[0]);
  if (size[1] > 1 || size[2] > 1) {
    // x + X * (y + Y * z), the order in which Vulkan and CUDA number threads.
    auto expr =
        rewriter.getAffineSymbolExpr(0) +
        size[0] * (rewriter.getAffineSymbolExpr(1) + size[1] * rewriter.getAffineSymbolExpr(2));
    linear = mlir::affine::AffineApplyOp::create(
        rewriter, loc, mlir::AffineMap::get(0, 3, expr),
        mlir::ValueRange{linear, id(mlir::gpu::Dimension::y, size[1]),
                         id(mlir::gpu::Dimension::z, size[2])});
  }
  const int64_t static_count = size[0] * size[1] * size[2];
  Value count = mlir::arith::ConstantIndexOp::create(rewriter, loc, static_count);
  return {linear, count, static_count};
}

LogicalResult DistributeOp(mlir::linalg::LinalgOp op, const Threads& threads,
                           mlir::RewriterBase& rewriter) {
  if (!op.hasPureBufferSemantics()) {
    return op.emitOpError("still works on tensors; GPU kernels must be bufferized first");
  }
  mlir::FailureOr<bool> cooperative = DistributeReductionCooperatively(
      op, threads.id, threads.static_count, [](Value v) { return UpperBound(v); }, rewriter);
  if (mlir::failed(cooperative)) return mlir::failure();
  if (*cooperative) return mlir::success();
  auto tileable = llvm::dyn_cast<mlir::TilingInterface>(op.getOperation());
  if (!tileable) return op.emitOpError("cannot be distributed over threads (not tileable)");
  const Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  llvm::SmallVector<mlir::Range> ranges = tileable.getIterationDomain(rewriter);
  llvm::SmallVector<mlir::utils::IteratorType> iterators = tileable.getLoopIteratorTypes();

  // The parallel iteration space, linearized row-major.
  llvm::SmallVector<OpFoldResult> parallel_sizes;
  llvm::SmallVector<int64_t> parallel_dims;
  for (auto [d, iterator] : llvm::enumerate(iterators)) {
    if (iterator != mlir::utils::IteratorType::parallel) continue;
    if (!mlir::isZeroInteger(ranges[d].offset) || !mlir::isOneInteger(ranges[d].stride)) {
      return op.emitOpError("has an iteration domain that does not start at 0 with step 1");
    }
    parallel_dims.push_back(d);
    parallel_sizes.push_back(ranges[d].size);
  }
  Value total = mlir::arith::ConstantIndexOp::create(rewriter, loc, 1);
  for (OpFoldResult size : parallel_sizes) {
    Value value = mlir::getValueOrCreateConstantIndexOp(rewriter, loc, size);
    total = rewriter.createOrFold<mlir::arith::MulIOp>(loc, total, value);
  }

  auto loop = mlir::scf::ForOp::create(rewriter, loc, threads.id, total, threads.count);
  rewriter.setInsertionPointToStart(loop.getBody());
  llvm::SmallVector<Value> point;
  if (parallel_sizes.size() == 1) {
    point.push_back(loop.getInductionVar());
  } else if (parallel_sizes.size() > 1) {
    auto delinearized = mlir::affine::AffineDelinearizeIndexOp::create(
        rewriter, loc, loop.getInductionVar(), parallel_sizes, /*hasOuterBound=*/true);
    point.assign(delinearized.getResults().begin(), delinearized.getResults().end());
  }

  // The op on that point: size 1 in each parallel dim, whole in the others.
  llvm::SmallVector<OpFoldResult> offsets, sizes;
  for (auto [d, range] : llvm::enumerate(ranges)) {
    offsets.push_back(range.offset);
    sizes.push_back(range.size);
  }
  for (auto [i, d] : llvm::enumerate(parallel_dims)) {
    offsets[d] = point[i];
    sizes[d] = rewriter.getIndexAttr(1);
  }
  mlir::FailureOr<mlir::TilingResult> tiled =
      tileable.getTiledImplementation(rewriter, offsets, sizes);
  if (mlir::failed(tiled) || tiled->tiledOps.size() != 1) {
    return op.emitOpError("could not be tiled to one parallel iteration per thread");
  }
  auto point_op = llvm::dyn_cast<mlir::linalg::LinalgOp>(tiled->tiledOps.front());
  if (!point_op) return op.emitOpError("tiled into something that is not a linalg op");
  rewriter.setInsertionPoint(point_op);
  if (mlir::failed(mlir::linalg::linalgOpToLoops(rewriter, point_op))) {
    return op.emitOpError("could not be lowered to loops");
  }
  rewriter.eraseOp(point_op);
  rewriter.eraseOp(op);
  return mlir::success();
}

//===----------------------------------------------------------------------===//
// One kernel
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// Workgroup-level interface ops
//===----------------------------------------------------------------------===//

// The ops that speak of the workgroup as one (kiln-instrument-dispatches'
// records) in terms of its threads, which all run the kernel's scalar code:
// the barrier is a gpu.barrier, the leader the thread with local id
// (0, 0, 0) (only the dimensions wider than 1 need comparing).
void LowerWorkgroupOps(mlir::func::FuncOp kernel, mlir::RewriterBase& rewriter) {
  llvm::SmallVector<mlir::Operation*> ops;
  kernel.walk([&](mlir::Operation* op) {
    if (llvm::isa<HAL::InterfaceWorkgroupBarrierOp, HAL::InterfaceWorkgroupLeaderOp>(op)) {
      ops.push_back(op);
    }
  });
  const std::array<int64_t, 3> size = KernelWorkgroupSize(kernel);
  for (mlir::Operation* op : ops) {
    rewriter.setInsertionPoint(op);
    const Location loc = op->getLoc();
    if (llvm::isa<HAL::InterfaceWorkgroupBarrierOp>(op)) {
      mlir::gpu::BarrierOp::create(rewriter, loc);
      rewriter.eraseOp(op);
      continue;
    }
    Value leader = mlir::arith::ConstantIntOp::create(rewriter, loc, rewriter.getI1Type(), 1);
    Value zero = mlir::arith::ConstantIndexOp::create(rewriter, loc, 0);
    constexpr mlir::gpu::Dimension kDimensions[] = {
        mlir::gpu::Dimension::x, mlir::gpu::Dimension::y, mlir::gpu::Dimension::z};
    for (int d = 0; d < 3; ++d) {
      if (size[d] <= 1) continue;
      Value id = mlir::gpu::ThreadIdOp::create(rewriter, loc, kDimensions[d]);
      Value first =
          mlir::arith::CmpIOp::create(rewriter, loc, mlir::arith::CmpIPredicate::eq, id, zero);
      leader = mlir::arith::AndIOp::create(rewriter, loc, leader, first);
    }
    rewriter.replaceOp(op, leader);
  }
}

LogicalResult DistributeKernel(mlir::func::FuncOp kernel) {
  mlir::IRRewriter rewriter(kernel.getContext());
  LowerWorkgroupOps(kernel, rewriter);

  // memref.copy -> a linalg copy, distributed with the rest.
  llvm::SmallVector<mlir::memref::CopyOp> copies;
  kernel.walk([&](mlir::memref::CopyOp copy) { copies.push_back(copy); });
  for (mlir::memref::CopyOp copy : copies) {
    rewriter.setInsertionPoint(copy);
    mlir::linalg::makeMemRefCopyOp(rewriter, copy.getLoc(), copy.getSource(), copy.getTarget());
    rewriter.eraseOp(copy);
  }

  // Intermediates: dead ones erased, the others into workgroup memory.
  llvm::SmallVector<mlir::memref::AllocOp> allocs;
  kernel.walk([&](mlir::memref::AllocOp alloc) { allocs.push_back(alloc); });
  for (mlir::memref::AllocOp alloc : allocs) {
    if (EraseIfDead(alloc, rewriter)) continue;
    if (mlir::failed(PromoteToWorkgroupMemory(alloc, rewriter))) return mlir::failure();
  }

  llvm::SmallVector<mlir::linalg::LinalgOp> ops;
  kernel.walk<mlir::WalkOrder::PreOrder>([&](mlir::linalg::LinalgOp op) {
    ops.push_back(op);
    return mlir::WalkResult::skip();  // Its payload is not a separate op.
  });
  if (ops.empty()) return mlir::success();
  const Threads threads = CreateThreads(kernel, rewriter);

  // The accesses since the last barrier, per block (ops in different blocks
  // are ordered by their control flow, which a barrier per block covers for
  // the straight-line kernels the contract produces).
  llvm::DenseMap<mlir::Block*, Accesses> pending;
  for (mlir::linalg::LinalgOp op : ops) {
    Accesses accesses = AccessesOf(op);
    Accesses& before = pending[op->getBlock()];
    const bool depends = Intersects(before.writes, accesses.reads) ||
                         Intersects(before.writes, accesses.writes) ||
                         Intersects(before.reads, accesses.writes);
    if (depends) {
      rewriter.setInsertionPoint(op);
      mlir::gpu::BarrierOp::create(rewriter, op.getLoc());
      before = Accesses();
    }
    before.reads.insert(accesses.reads.begin(), accesses.reads.end());
    before.writes.insert(accesses.writes.begin(), accesses.writes.end());
    if (mlir::failed(DistributeOp(op, threads, rewriter))) return mlir::failure();
  }

  auto left = kernel.walk([](mlir::Operation* op) {
    if (!llvm::isa<mlir::linalg::LinalgDialect>(op->getDialect())) {
      return mlir::WalkResult::advance();
    }
    op->emitOpError("was not distributed over the workgroup's threads");
    return mlir::WalkResult::interrupt();
  });
  return mlir::failure(left.wasInterrupted());
}

class DistributeToThreadsPass
    : public mlir::PassWrapper<DistributeToThreadsPass, mlir::OperationPass<mlir::ModuleOp>> {
 public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(DistributeToThreadsPass)

  llvm::StringRef getArgument() const final { return "kiln-gpu-distribute-to-threads"; }
  llvm::StringRef getDescription() const final {
    return "GPU targets: distributes the linalg ops of each generated kernel's workgroup tile "
           "over the workgroup's threads (cyclic, coalesced), with barriers between dependent "
           "ops and intermediates in workgroup memory";
  }
  void getDependentDialects(mlir::DialectRegistry& registry) const final {
    registry.insert<mlir::affine::AffineDialect, mlir::arith::ArithDialect, mlir::gpu::GPUDialect,
                    mlir::memref::MemRefDialect, mlir::scf::SCFDialect>();
  }

  void runOnOperation() final {
    llvm::SmallVector<mlir::func::FuncOp> kernels;
    getOperation().walk([&](mlir::func::FuncOp function) {
      if (!function.isExternal()) kernels.push_back(function);
    });
    for (mlir::func::FuncOp kernel : kernels) {
      if (mlir::failed(DistributeKernel(kernel))) return signalPassFailure();
    }
  }
};

}  // namespace

std::unique_ptr<mlir::Pass> createDistributeToThreadsPass() {
  return std::make_unique<DistributeToThreadsPass>();
}

void registerDistributeToThreadsPass() { mlir::PassRegistration<DistributeToThreadsPass>(); }

}  // namespace kiln::compiler::gpu
