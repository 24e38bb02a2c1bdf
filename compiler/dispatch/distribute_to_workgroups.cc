// DistributeToWorkgroups (--kiln-distribute-to-workgroups): the generated
// kernels of each hal.executable.source, from tensors to the target-neutral
// form every target lowers (compiler/targets/*): one workgroup's tile of
// work on memrefs of the bindings.
//
//   1. Tile: the root (the op --kiln-form-dispatches marked with
//      `kiln.workgroup_tiles`) is tiled into an scf.forall over workgroup
//      tiles, its producers fused into the tile (upstream TilingInterface).
//   2. Bufferize: One-Shot Bufferize, in place into the bindings (the kernel
//      reads them through bufferization.to_tensor and writes its results with
//      bufferization.materialize_in_destination).
//   3. Distribute: the forall is replaced by its body for one tile, with the
//      induction variables taken from the workgroup id (the innermost loop is
//      x, the next y, the others delinearized from z), matching the count the
//      host computed for the dispatch.
//
//   func.func @f_dispatch_0() {
//     ...
//     %r = linalg.generic {kiln.workgroup_tiles = array<i64: 1024>} ...
//     bufferization.materialize_in_destination %r in restrict writable %out
//   }
// ->
//   func.func @f_dispatch_0() {
//     ...
//     %id = hal.interface.workgroup.id[0] : index
//     %offset = affine.apply affine_map<()[s0] -> (s0 * 1024)>()[%id]
//     %size = affine.min ...
//     %a_tile = memref.subview %a[%offset] [%size] [1] ...
//     linalg.generic ... ins(%a_tile, %b_tile ...) outs(%out_tile ...)
//   }
#include <type_traits>

#include "compiler/dialects/hal/hal_dialect.h"
#include "compiler/dispatch/passes.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/Transforms.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"
#include "mlir/Transforms/RegionUtils.h"

namespace kiln::compiler {
namespace {

using mlir::Location;
using mlir::Operation;
using mlir::Value;

// Step 1: the root and its producers into an scf.forall over tiles.
mlir::LogicalResult TileRoot(mlir::func::FuncOp kernel) {
  Operation* root = nullptr;
  kernel.walk([&](Operation* op) {
    if (op->hasAttr("kiln.workgroup_tiles")) root = op;
  });
  // The host counts a workgroup dimension per tiled loop
  // (`kiln.workgroup_loops`, set with the tiles by --kiln-form-dispatches);
  // the kernel must take the same number from the workgroup id (checked in
  // step 3). A root lost to a rewrite would have every workgroup do all the
  // work.
  auto expected = kernel->getAttrOfType<mlir::IntegerAttr>("kiln.workgroup_loops");
  if (!root) {
    if (expected && expected.getInt() != 0) {
      return kernel.emitOpError("lost the root its ")
             << expected.getInt() << " workgroup loops tile";
    }
    return mlir::success();  // Nothing to distribute: one workgroup.
  }
  auto tiles = root->getAttrOfType<mlir::DenseI64ArrayAttr>("kiln.workgroup_tiles");
  root->removeAttr("kiln.workgroup_tiles");
  const int64_t tiled_loops = llvm::count_if(tiles.asArrayRef(), [](int64_t t) { return t != 0; });
  kernel->setAttr("kiln.workgroup_loops",
                  mlir::IntegerAttr::get(mlir::IndexType::get(kernel.getContext()), tiled_loops));
  if (tiled_loops == 0) return mlir::success();
  auto tileable = llvm::dyn_cast<mlir::TilingInterface>(root);
  if (!tileable) return root->emitOpError("cannot be tiled into workgroups");

  mlir::IRRewriter rewriter(root->getContext());
  rewriter.setInsertionPoint(root);
  mlir::scf::SCFTilingOptions tiling;
  tiling.setTileSizes(mlir::getAsIndexOpFoldResult(root->getContext(), tiles.asArrayRef()));
  tiling.setLoopType(mlir::scf::SCFTilingOptions::LoopType::ForallOp);
  mlir::scf::SCFTileAndFuseOptions options;
  options.setTilingOptions(tiling);
  mlir::FailureOr<mlir::scf::SCFTileAndFuseResult> tiled =
      mlir::scf::tileConsumerAndFuseProducersUsingSCF(rewriter, tileable, options);
  if (mlir::failed(tiled)) return root->emitOpError("could not be tiled into workgroups");
  for (mlir::OpResult result : root->getResults()) {
    auto it = tiled->replacements.find(result);
    if (it != tiled->replacements.end()) rewriter.replaceAllUsesWith(result, it->second);
  }
  if (root->use_empty()) rewriter.eraseOp(root);
  // A fused producer that only initializes the outputs (a linalg.fill of the
  // accumulator) now runs per tile inside the loop; the loop's shared outputs
  // can start from that producer's destination instead, or the whole output
  // would be initialized once more before the loop (and bufferized apart).
  for (mlir::LoopLikeOpInterface loop : tiled->loops) {
    auto forall = llvm::dyn_cast<mlir::scf::ForallOp>(loop.getOperation());
    if (!forall) continue;
    for (mlir::OpOperand& shared : forall.getOutputsMutable()) {
      auto producer = shared.get().getDefiningOp<mlir::linalg::LinalgOp>();
      if (!producer || !tiled->fusedProducers.contains(producer)) continue;
      // Besides the loop, only the dims of the loop bounds may read it (its
      // destination has the same).
      auto result = llvm::cast<mlir::OpResult>(shared.get());
      auto dims_or_loop = [&](mlir::OpOperand& use) {
        return use.getOwner() == forall.getOperation() ||
               llvm::isa<mlir::tensor::DimOp>(use.getOwner());
      };
      if (!llvm::all_of(result.getUses(), dims_or_loop)) continue;
      mlir::OpOperand* init = producer.getDpsInitOperand(result.getResultNumber());
      if (producer.payloadUsesValueFromOperand(init)) continue;
      rewriter.replaceUsesWithIf(result, init->get(), dims_or_loop);
      if (producer->use_empty()) rewriter.eraseOp(producer);
    }
  }
  return mlir::success();
}

// Step 3: the forall over workgroup tiles becomes the code of one tile.
mlir::LogicalResult DistributeForall(mlir::scf::ForallOp forall) {
  if (forall.getNumResults() != 0) {
    return forall.emitOpError("still has tensor results after bufferization");
  }
  mlir::IRRewriter rewriter(forall.getContext());
  rewriter.setInsertionPoint(forall);
  const Location loc = forall.getLoc();
  const int64_t rank = forall.getRank();
  llvm::SmallVector<Value> lower =
      mlir::getValueOrCreateConstantIndexOp(rewriter, loc, forall.getMixedLowerBound());
  llvm::SmallVector<Value> upper =
      mlir::getValueOrCreateConstantIndexOp(rewriter, loc, forall.getMixedUpperBound());
  llvm::SmallVector<Value> steps =
      mlir::getValueOrCreateConstantIndexOp(rewriter, loc, forall.getMixedStep());
  // The tile index along each loop: x for the innermost, y for the next,
  // and the outer ones delinearized from z (row-major over their counts).
  llvm::SmallVector<Value> tile_index(rank);
  auto id = [&](int64_t d) {
    return HAL::InterfaceWorkgroupIDOp::create(rewriter, loc, rewriter.getIndexType(),
                                               rewriter.getIndexAttr(d), nullptr)
        .getResult();
  };
  tile_index[rank - 1] = id(0);
  if (rank >= 2) tile_index[rank - 2] = id(1);
  if (rank == 3) tile_index[0] = id(2);
  if (rank > 3) {
    llvm::SmallVector<Value> counts;
    for (int64_t l = 0; l < rank - 2; ++l) {
      Value extent = mlir::arith::SubIOp::create(rewriter, loc, upper[l], lower[l]);
      counts.push_back(mlir::arith::CeilDivUIOp::create(rewriter, loc, extent, steps[l]));
    }
    auto delinearized =
        mlir::affine::AffineDelinearizeIndexOp::create(rewriter, loc, id(2), counts);
    for (int64_t l = 0; l < rank - 2; ++l) tile_index[l] = delinearized.getResult(l);
  }
  llvm::SmallVector<Value> ivs;
  for (int64_t l = 0; l < rank; ++l) {
    Value scaled = mlir::arith::MulIOp::create(rewriter, loc, tile_index[l], steps[l]);
    ivs.push_back(mlir::arith::AddIOp::create(rewriter, loc, lower[l], scaled));
  }
  mlir::Block* body = forall.getBody();
  rewriter.eraseOp(body->getTerminator());
  rewriter.inlineBlockBefore(body, forall, ivs);
  rewriter.eraseOp(forall);
  return mlir::success();
}

// Splat tensor constants (a bias of one value, the zeros a copy starts
// from) become fills of empty tensors: tiling fuses them into each tile like
// any producer, and bufferization writes the value instead of reading a
// global array (which SPIR-V kernels cannot have in device memory).
void SplatConstantsToFills(mlir::ModuleOp kernels) {
  llvm::SmallVector<mlir::arith::ConstantOp> splats;
  kernels.walk([&](mlir::arith::ConstantOp constant) {
    auto type = llvm::dyn_cast<mlir::RankedTensorType>(constant.getType());
    auto elements = llvm::dyn_cast<mlir::DenseElementsAttr>(constant.getValue());
    if (type && type.hasStaticShape() && elements && elements.isSplat()) splats.push_back(constant);
  });
  mlir::IRRewriter rewriter(kernels.getContext());
  for (mlir::arith::ConstantOp constant : splats) {
    auto type = llvm::cast<mlir::RankedTensorType>(constant.getType());
    auto elements = llvm::cast<mlir::DenseElementsAttr>(constant.getValue());
    rewriter.setInsertionPoint(constant);
    const mlir::Location loc = constant.getLoc();
    mlir::Value value = mlir::arith::ConstantOp::create(
        rewriter, loc, llvm::cast<mlir::TypedAttr>(elements.getSplatValue<mlir::Attribute>()));
    mlir::Value empty =
        mlir::tensor::EmptyOp::create(rewriter, loc, type.getShape(), type.getElementType());
    rewriter.replaceOpWithNewOp<mlir::linalg::FillOp>(constant, value, empty);
  }
}

// reshape(fill(v, d)) -> fill(v, reshape(d)), for expand_shape and
// collapse_shape. (linalg.fill's canonicalization patterns have this one,
// but also fold a copy of a fill into a new fill, which would drop the
// root's `kiln.workgroup_tiles` when the root is that copy.)
template <typename Reshape>
struct ReshapeFillDestination : mlir::OpRewritePattern<Reshape> {
  using mlir::OpRewritePattern<Reshape>::OpRewritePattern;
  mlir::LogicalResult matchAndRewrite(Reshape reshape,
                                      mlir::PatternRewriter& rewriter) const override {
    auto fill = reshape.getSrc().template getDefiningOp<mlir::linalg::FillOp>();
    if (!fill || !fill.hasPureTensorSemantics()) return mlir::failure();
    Value destination;
    if constexpr (std::is_same_v<Reshape, mlir::tensor::ExpandShapeOp>) {
      destination =
          Reshape::create(rewriter, reshape.getLoc(), reshape.getResultType(), fill.getOutputs()[0],
                          reshape.getReassociationIndices(), reshape.getMixedOutputShape());
    } else {
      destination = Reshape::create(rewriter, reshape.getLoc(), reshape.getResultType(),
                                    fill.getOutputs()[0], reshape.getReassociationIndices());
    }
    rewriter.replaceOpWithNewOp<mlir::linalg::FillOp>(reshape, fill.getInputs(), destination);
    return mlir::success();
  }
};

// A reshaped fill of an empty tensor (fusion leaves expand_shape(fill) as
// a reduction's init) becomes a fill of an empty tensor of the new shape:
// otherwise bufferization gives the reshape a private buffer that every
// workgroup copies whole into the output.
mlir::LogicalResult FoldReshapedFills(mlir::ModuleOp kernels) {
  mlir::MLIRContext* context = kernels.getContext();
  mlir::RewritePatternSet patterns(context);
  mlir::tensor::populateFoldTensorEmptyPatterns(patterns);
  patterns.add<ReshapeFillDestination<mlir::tensor::ExpandShapeOp>,
               ReshapeFillDestination<mlir::tensor::CollapseShapeOp>>(context);
  return mlir::applyPatternsGreedily(kernels, std::move(patterns));
}

mlir::LogicalResult TileKernels(mlir::ModuleOp kernels) {
  SplatConstantsToFills(kernels);
  if (mlir::failed(FoldReshapedFills(kernels))) return mlir::failure();
  for (auto kernel : kernels.getOps<mlir::func::FuncOp>()) {
    if (mlir::failed(TileRoot(kernel))) return mlir::failure();
  }
  // What tiling left unused (the clones of binding loads it made, the dims
  // of untiled inits) goes before bufferization sees it.
  mlir::IRRewriter rewriter(kernels.getContext());
  (void)mlir::runRegionDCE(rewriter, kernels->getRegions());
  return mlir::success();
}

// Step 2. The kernels take no tensors: their bindings come in as memrefs.
mlir::LogicalResult BufferizeKernels(mlir::ModuleOp kernels) {
  mlir::IRRewriter rewriter(kernels.getContext());
  if (mlir::failed(mlir::bufferization::eliminateEmptyTensors(rewriter, kernels))) {
    return kernels.emitError("empty tensor elimination failed");
  }
  mlir::bufferization::OneShotBufferizationOptions options;
  options.bufferizeFunctionBoundaries = false;
  options.allowReturnAllocsFromLoops = true;
  mlir::bufferization::BufferizationState state;
  return mlir::bufferization::runOneShotBufferize(kernels, options, state);
}

mlir::LogicalResult DistributeKernels(mlir::ModuleOp kernels) {
  for (auto kernel : kernels.getOps<mlir::func::FuncOp>()) {
    llvm::SmallVector<mlir::scf::ForallOp> foralls(kernel.getBody().getOps<mlir::scf::ForallOp>());
    if (foralls.size() > 1) {
      return kernel.emitOpError("has ") << foralls.size() << " workgroup loops; expected one";
    }
    auto expected = kernel->getAttrOfType<mlir::IntegerAttr>("kiln.workgroup_loops");
    kernel->removeAttr("kiln.workgroup_loops");
    const int64_t rank = foralls.empty() ? 0 : foralls.front().getRank();
    if (expected && expected.getInt() != rank) {
      return kernel.emitOpError("was tiled into ")
             << rank << " workgroup dimensions where the dispatch counts " << expected.getInt();
    }
    for (mlir::scf::ForallOp forall : foralls) {
      if (mlir::failed(DistributeForall(forall))) return mlir::failure();
    }
  }
  return mlir::success();
}

struct DistributeToWorkgroupsPass
    : mlir::PassWrapper<DistributeToWorkgroupsPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(DistributeToWorkgroupsPass)
  llvm::StringRef getArgument() const override { return "kiln-distribute-to-workgroups"; }
  llvm::StringRef getDescription() const override {
    return "Generated kernels: tile the root into workgroup tiles (producers fused), "
           "bufferize into the bindings, take the tile from the workgroup id";
  }
  void getDependentDialects(mlir::DialectRegistry& registry) const override {
    registry.insert<mlir::affine::AffineDialect, mlir::arith::ArithDialect,
                    mlir::bufferization::BufferizationDialect, mlir::memref::MemRefDialect,
                    mlir::scf::SCFDialect, mlir::linalg::LinalgDialect, mlir::tensor::TensorDialect,
                    HAL::HALDialect>();
    // The interfaces' external models come with kiln's dialect registry
    // (compiler/dialects/registration.cc).
  }
  void runOnOperation() override {
    llvm::SmallVector<mlir::ModuleOp> all_kernels;
    getOperation().walk([&](HAL::ExecutableSourceOp executable) {
      for (auto kernels : executable.getBlock().getOps<mlir::ModuleOp>()) {
        all_kernels.push_back(kernels);
      }
    });
    // Tiles simplified before bufferization (the GPU targets need static
    // bounds of tile sizes). The canonicalizer folds workgroup loops of one
    // trip, which the host must then not count: DistributeKernels checks it.
    mlir::OpPassManager cleanup(mlir::ModuleOp::getOperationName());
    cleanup.addPass(mlir::createCanonicalizerPass());
    cleanup.addPass(mlir::createCSEPass());
    // And after distribution: the identical subviews that bufferization made
    // of the tile (and the copy between them) go.
    mlir::OpPassManager tidy(mlir::ModuleOp::getOperationName());
    tidy.addPass(mlir::createCSEPass());
    tidy.addPass(mlir::createCanonicalizerPass());
    for (mlir::ModuleOp kernels : all_kernels) {
      if (mlir::failed(TileKernels(kernels)) || mlir::failed(runPipeline(cleanup, kernels)) ||
          mlir::failed(BufferizeKernels(kernels)) || mlir::failed(DistributeKernels(kernels)) ||
          mlir::failed(runPipeline(tidy, kernels))) {
        return signalPassFailure();
      }
      // The copies bufferization leaves (a pad into its destination, a
      // slice that had to be materialized) become linalg copies, which every
      // target lowers like any other op (a memref.copy of strided memrefs
      // would need a runtime library on the CPU).
      llvm::SmallVector<mlir::memref::CopyOp> copies;
      kernels.walk([&](mlir::memref::CopyOp copy) { copies.push_back(copy); });
      mlir::IRRewriter rewriter(kernels.getContext());
      for (mlir::memref::CopyOp copy : copies) {
        rewriter.setInsertionPoint(copy);
        mlir::linalg::makeMemRefCopyOp(rewriter, copy.getLoc(), copy.getSource(), copy.getTarget());
        rewriter.eraseOp(copy);
      }
    }
  }
};

}  // namespace

std::unique_ptr<mlir::Pass> createDistributeToWorkgroupsPass() {
  return std::make_unique<DistributeToWorkgroupsPass>();
}

}  // namespace kiln::compiler
