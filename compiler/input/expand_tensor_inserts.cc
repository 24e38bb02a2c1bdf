// ExpandTensorInserts (--kiln-expand-tensor-inserts): tensor.insert of a
// scalar into a tensor, which the host cannot run (it has no kernels of its
// own), as an elementwise linalg.generic that dispatch formation treats like
// any other: each element is the scalar where its indices are the insert
// position, else the destination's element.
//
//   %r = tensor.insert %v into %t[%i] : tensor<131072xf32>
// ->
//   %e = tensor.empty() : tensor<131072xf32>
//   %r = linalg.generic {indexing_maps = [identity, identity],
//                        iterator_types = ["parallel"]}
//       ins(%t : tensor<131072xf32>) outs(%e : tensor<131072xf32>) {
//   ^bb0(%in: f32, %out: f32):
//     %d0 = linalg.index 0 : index
//     %at = arith.cmpi eq, %d0, %i : index
//     %x = arith.select %at, %v, %in : f32
//     linalg.yield %x : f32
//   } -> tensor<131072xf32>
//
// (IREE's argmax_1d plants its maximum into a filled tensor this way.)
// Why not tensor.insert_slice of a one-element tensor.from_elements, which
// would join its consumer's dispatch: inside that kernel it bufferizes into
// a copy of the whole destination, which a GPU workgroup keeps in workgroup
// memory (512 KiB for argmax_1d, over every target's limit). The generic is
// tiled like any elementwise op, and fuses with elementwise neighbours.
#include "compiler/input/passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace kiln::compiler {
namespace {

void Expand(mlir::tensor::InsertOp insert) {
  mlir::OpBuilder b(insert);
  const mlir::Location loc = insert.getLoc();
  auto type = llvm::cast<mlir::RankedTensorType>(insert.getType());
  llvm::SmallVector<mlir::OpFoldResult> sizes =
      mlir::tensor::getMixedSizes(b, loc, insert.getDest());
  mlir::Value empty = mlir::tensor::EmptyOp::create(b, loc, sizes, type.getElementType());
  const int64_t rank = type.getRank();
  mlir::AffineMap identity = b.getMultiDimIdentityMap(rank);
  llvm::SmallVector<mlir::utils::IteratorType> iterators(rank, mlir::utils::IteratorType::parallel);
  mlir::Value scalar = insert.getScalar();
  mlir::ValueRange indices = insert.getIndices();
  auto generic = mlir::linalg::GenericOp::create(
      b, loc, type, mlir::ValueRange{insert.getDest()}, mlir::ValueRange{empty},
      llvm::ArrayRef<mlir::AffineMap>{identity, identity}, iterators,
      [&](mlir::OpBuilder& nested, mlir::Location nested_loc, mlir::ValueRange args) {
        // A rank-0 destination is the scalar itself.
        mlir::Value at;
        for (int64_t d = 0; d < rank; ++d) {
          mlir::Value index = mlir::linalg::IndexOp::create(nested, nested_loc, d);
          mlir::Value same = mlir::arith::CmpIOp::create(
              nested, nested_loc, mlir::arith::CmpIPredicate::eq, index, indices[d]);
          at = at ? mlir::arith::AndIOp::create(nested, nested_loc, at, same).getResult() : same;
        }
        mlir::Value element =
            at ? mlir::arith::SelectOp::create(nested, nested_loc, at, scalar, args[0]).getResult()
               : scalar;
        mlir::linalg::YieldOp::create(nested, nested_loc, element);
      });
  insert.getResult().replaceAllUsesWith(generic.getResult(0));
  insert.erase();
}

struct ExpandTensorInsertsPass
    : mlir::PassWrapper<ExpandTensorInsertsPass, mlir::OperationPass<mlir::func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ExpandTensorInsertsPass)
  llvm::StringRef getArgument() const override { return "kiln-expand-tensor-inserts"; }
  llvm::StringRef getDescription() const override {
    return "tensor.insert of a scalar into an elementwise linalg.generic that selects the scalar "
           "at the insert position";
  }
  void getDependentDialects(mlir::DialectRegistry& registry) const override {
    registry.insert<mlir::linalg::LinalgDialect, mlir::arith::ArithDialect,
                    mlir::tensor::TensorDialect>();
  }
  void runOnOperation() override {
    llvm::SmallVector<mlir::tensor::InsertOp> inserts;
    getOperation().walk([&](mlir::tensor::InsertOp insert) {
      // Inside a linalg op's body (or a kernel) an insert is the kernel's.
      if (!insert->getParentOfType<mlir::linalg::LinalgOp>()) inserts.push_back(insert);
    });
    for (mlir::tensor::InsertOp insert : inserts) Expand(insert);
  }
};

}  // namespace

std::unique_ptr<mlir::Pass> createExpandTensorInsertsPass() {
  return std::make_unique<ExpandTensorInsertsPass>();
}

}  // namespace kiln::compiler
