// LowerTensorPads (--kiln-lower-tensor-pads): tensor.pad with a pad value
// that does not depend on the position, as a linalg.generic that computes
// each element of the padded tensor: the source's element where the
// position minus the low padding lies inside the source, else the pad
// value.
//
//   %p = tensor.pad %x low[0, 2] high[0, 1] { tensor.yield %cst : f32 }
//       : tensor<4x5xf32> to tensor<4x8xf32>
// ->
//   %e = tensor.empty() : tensor<4x8xf32>
//   %p = linalg.generic {indexing_maps = [identity], iterator_types = [parallel x2]}
//       outs(%e : tensor<4x8xf32>) {
//   ^bb0(%out: f32):
//     %j = linalg.index 1 : index
//     %s = arith.subi %j, %c2 : index               (the source column)
//     %in = (0 <= %s < 5), %sc = select(%in, %s, 0) (never read outside)
//     %v = tensor.extract %x[%i, %sc] : tensor<4x5xf32>
//     linalg.yield select(%in, %v, %cst)
//   } -> tensor<4x8xf32>
//
// Why: a tensor.pad joined the dispatch of the linalg op reading it and was
// fused into that op's tiles, and the fused pad was wrong or unlowerable for
// some tilings (a padded max pooling read uninitialized elements on the
// CPU; Vulkan refused the pad's tile buffer). As a generic the pad is an op
// like any other: where its reader takes it through a window (a pooling or
// convolution) it is a dispatch of its own writing the whole padded tensor,
// and where it is read elementwise it fuses like an elementwise producer.
#include "compiler/input/passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Pass/Pass.h"

namespace kiln::compiler {
namespace {

mlir::LogicalResult Lower(mlir::tensor::PadOp pad) {
  // The pad value when it is the same for every position, else null.
  mlir::Value pad_value = pad.getConstantPaddingValue();
  if (!pad_value) return mlir::failure();
  mlir::OpBuilder b(pad);
  // A constant inside the pad's body goes with it: the body is erased.
  if (pad_value.getParentRegion() == &pad.getRegion()) {
    pad_value = b.clone(*pad_value.getDefiningOp())->getResult(0);
  }
  const mlir::Location loc = pad.getLoc();
  auto type = llvm::cast<mlir::RankedTensorType>(pad.getResultType());
  const int64_t rank = type.getRank();
  mlir::ReifiedRankedShapedTypeDims reified;
  if (mlir::failed(mlir::reifyResultShapes(b, pad, reified))) return mlir::failure();
  mlir::Value empty = mlir::tensor::EmptyOp::create(b, loc, reified[0], type.getElementType());
  mlir::Value source = pad.getSource();
  llvm::SmallVector<mlir::OpFoldResult> source_sizes = mlir::tensor::getMixedSizes(b, loc, source);
  llvm::SmallVector<mlir::OpFoldResult> low = pad.getMixedLowPad();
  llvm::SmallVector<mlir::utils::IteratorType> iterators(rank, mlir::utils::IteratorType::parallel);
  auto generic = mlir::linalg::GenericOp::create(
      b, loc, type, mlir::ValueRange{}, mlir::ValueRange{empty},
      llvm::ArrayRef<mlir::AffineMap>{b.getMultiDimIdentityMap(rank)}, iterators,
      [&](mlir::OpBuilder& nested, mlir::Location nested_loc, mlir::ValueRange) {
        mlir::Value zero = mlir::arith::ConstantIndexOp::create(nested, nested_loc, 0);
        mlir::Value inside;
        llvm::SmallVector<mlir::Value> indices;
        for (int64_t d = 0; d < rank; ++d) {
          mlir::Value index = mlir::linalg::IndexOp::create(nested, nested_loc, d);
          std::optional<int64_t> static_low = mlir::getConstantIntValue(low[d]);
          std::optional<int64_t> static_high = mlir::getConstantIntValue(pad.getMixedHighPad()[d]);
          if (static_low == 0 && static_high == 0) {
            indices.push_back(index);  // Not padded along d.
            continue;
          }
          mlir::Value low_value = mlir::getValueOrCreateConstantIndexOp(nested, nested_loc, low[d]);
          mlir::Value size =
              mlir::getValueOrCreateConstantIndexOp(nested, nested_loc, source_sizes[d]);
          mlir::Value at = mlir::arith::SubIOp::create(nested, nested_loc, index, low_value);
          mlir::Value above = mlir::arith::CmpIOp::create(
              nested, nested_loc, mlir::arith::CmpIPredicate::sge, at, zero);
          mlir::Value below = mlir::arith::CmpIOp::create(
              nested, nested_loc, mlir::arith::CmpIPredicate::slt, at, size);
          mlir::Value in_d = mlir::arith::AndIOp::create(nested, nested_loc, above, below);
          inside = inside ? mlir::arith::AndIOp::create(nested, nested_loc, inside, in_d).getResult()
                          : in_d;
          // Outside the source the read goes to element 0 (never used), so no
          // position reads out of bounds.
          indices.push_back(mlir::arith::SelectOp::create(nested, nested_loc, in_d, at, zero));
        }
        mlir::Value element = mlir::tensor::ExtractOp::create(nested, nested_loc, source, indices);
        if (inside) {
          element = mlir::arith::SelectOp::create(nested, nested_loc, inside, element, pad_value);
        }
        mlir::linalg::YieldOp::create(nested, nested_loc, element);
      });
  pad.getResult().replaceAllUsesWith(generic.getResult(0));
  pad.erase();
  return mlir::success();
}

struct LowerTensorPadsPass
    : mlir::PassWrapper<LowerTensorPadsPass, mlir::OperationPass<mlir::func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(LowerTensorPadsPass)
  llvm::StringRef getArgument() const override { return "kiln-lower-tensor-pads"; }
  llvm::StringRef getDescription() const override {
    return "tensor.pad with a position-independent pad value into a linalg.generic that reads "
           "the source in bounds and yields the pad value outside";
  }
  void getDependentDialects(mlir::DialectRegistry& registry) const override {
    registry.insert<mlir::linalg::LinalgDialect, mlir::arith::ArithDialect,
                    mlir::tensor::TensorDialect>();
  }
  void runOnOperation() override {
    llvm::SmallVector<mlir::tensor::PadOp> pads;
    getOperation().walk([&](mlir::tensor::PadOp pad) {
      // Inside a linalg op's body (or a kernel) a pad is the kernel's.
      if (!pad->getParentOfType<mlir::linalg::LinalgOp>()) pads.push_back(pad);
    });
    // A pad whose value depends on the position stays as it is.
    for (mlir::tensor::PadOp pad : pads) (void)Lower(pad);
  }
};

}  // namespace

std::unique_ptr<mlir::Pass> createLowerTensorPadsPass() {
  return std::make_unique<LowerTensorPadsPass>();
}

}  // namespace kiln::compiler
