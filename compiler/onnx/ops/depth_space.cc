// DepthToSpace and SpaceToDepth: a reshape that splits dimensions, a
// linalg.transpose, a reshape that merges them (ONNX's own definition).
#include "compiler/onnx/layer_builders.h"
#include "compiler/onnx/node_importer.h"
#include "compiler/onnx/ops/layer_ops.h"
#include "compiler/onnx/tensor_builders.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace kiln::onnx_import {
namespace {

// `value` reshaped to `split` (6-D), transposed by `permutation`, merged by
// `merge` into 4-D.
mlir::Value Rearrange(mlir::OpBuilder& b, mlir::Location loc, mlir::Value value,
                      llvm::ArrayRef<mlir::ReassociationIndices> split_groups,
                      llvm::ArrayRef<mlir::OpFoldResult> split,
                      llvm::ArrayRef<int64_t> permutation,
                      llvm::ArrayRef<mlir::ReassociationIndices> merge) {
  mlir::Value expanded = ExpandDims(b, loc, value, split_groups, split);
  llvm::SmallVector<mlir::OpFoldResult> permuted;
  for (int64_t p : permutation) permuted.push_back(split[p]);
  mlir::Type element_type = llvm::cast<mlir::RankedTensorType>(value.getType()).getElementType();
  mlir::Value init = EmptyTensor(b, loc, permuted, element_type);
  mlir::Value transposed =
      b.create<mlir::linalg::TransposeOp>(loc, expanded, init, permutation).getResult()[0];
  return CollapseDims(b, loc, transposed, merge);
}

struct Block {
  mlir::Value x;
  llvm::SmallVector<mlir::OpFoldResult> sizes;
  int64_t blocksize;
};

mlir::FailureOr<Block> ReadBlock(NodeImporter& node) {
  Block block;
  block.x = node.Input(0);
  auto type = llvm::dyn_cast<mlir::RankedTensorType>(block.x.getType());
  if (!type || type.getRank() != 4) return node.Fail("the input must be [N, C, H, W]");
  block.blocksize = node.IntAttribute("blocksize", 0);
  if (block.blocksize < 1) return node.Fail("blocksize must be positive");
  block.sizes = TensorSizes(node.builder(), node.loc(), block.x);
  return block;
}

mlir::LogicalResult ConvertDepthToSpace(NodeImporter& node) {
  mlir::OpBuilder& b = node.builder();
  mlir::Location loc = node.loc();
  mlir::FailureOr<Block> block = ReadBlock(node);
  if (mlir::failed(block)) return mlir::failure();
  const int64_t bs = block->blocksize;
  const std::string mode = node.StringAttribute("mode", "DCR");
  std::optional<int64_t> channels = mlir::getConstantIntValue(block->sizes[1]);
  if (channels && *channels % (bs * bs) != 0) {
    return node.Fail("the " + std::to_string(*channels) + " channels are not a multiple of " +
                     std::to_string(bs * bs));
  }
  auto& s = block->sizes;
  mlir::OpFoldResult depth = FloorDivSizes(b, loc, s[1], b.getIndexAttr(bs * bs));
  mlir::OpFoldResult block_size = b.getIndexAttr(bs);
  mlir::Value result;
  if (mode == "DCR") {
    // [N, bs, bs, C', H, W] -> [N, C', H, bs, W, bs]
    result = Rearrange(b, loc, block->x, {{0}, {1, 2, 3}, {4}, {5}},
                       {s[0], block_size, block_size, depth, s[2], s[3]}, {0, 3, 4, 1, 5, 2},
                       {{0}, {1}, {2, 3}, {4, 5}});
  } else if (mode == "CRD") {
    // [N, C', bs, bs, H, W] -> [N, C', H, bs, W, bs]
    result = Rearrange(b, loc, block->x, {{0}, {1, 2, 3}, {4}, {5}},
                       {s[0], depth, block_size, block_size, s[2], s[3]}, {0, 1, 4, 2, 5, 3},
                       {{0}, {1}, {2, 3}, {4, 5}});
  } else {
    return node.Fail("unknown mode '" + mode + "'");
  }
  node.SetOutput(0, result, node.InputElementType(0));
  return mlir::success();
}

mlir::LogicalResult ConvertSpaceToDepth(NodeImporter& node) {
  mlir::OpBuilder& b = node.builder();
  mlir::Location loc = node.loc();
  mlir::FailureOr<Block> block = ReadBlock(node);
  if (mlir::failed(block)) return mlir::failure();
  const int64_t bs = block->blocksize;
  auto& s = block->sizes;
  for (int64_t i : {2, 3}) {
    std::optional<int64_t> size = mlir::getConstantIntValue(s[i]);
    if (size && *size % bs != 0) {
      return node.Fail("spatial size " + std::to_string(*size) + " is not a multiple of " +
                       std::to_string(bs));
    }
  }
  mlir::OpFoldResult block_size = b.getIndexAttr(bs);
  // [N, C, H', bs, W', bs] -> [N, bs, bs, C, H', W']
  mlir::Value result = Rearrange(
      b, loc, block->x, {{0}, {1}, {2, 3}, {4, 5}},
      {s[0], s[1], FloorDivSizes(b, loc, s[2], block_size), block_size,
       FloorDivSizes(b, loc, s[3], block_size), block_size},
      {0, 3, 5, 1, 2, 4}, {{0}, {1, 2, 3}, {4}, {5}});
  node.SetOutput(0, result, node.InputElementType(0));
  return mlir::success();
}

}  // namespace

void RegisterDepthSpaceOps(OpRegistry& registry) {
  registry.Register("DepthToSpace", ConvertDepthToSpace, 1);
  registry.Register("SpaceToDepth", ConvertSpaceToDepth, 1);
}

}  // namespace kiln::onnx_import
