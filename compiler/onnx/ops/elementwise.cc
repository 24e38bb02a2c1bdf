// Elementwise ops (ONNX multidirectional broadcasting): arithmetic,
// activations, comparisons, logic, casts.
#include "compiler/onnx/node_importer.h"
#include "compiler/onnx/op_registry.h"
#include "compiler/onnx/tensor_builders.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

namespace kiln::onnx_import {
namespace {

mlir::LogicalResult ConvertAdd(NodeImporter& node) {
  const OnnxElementType type = node.InputElementType(0);
  mlir::FailureOr<mlir::Value> result = BuildElementwise(
      node, {node.Input(0), node.Input(1)}, ConvertElementType(node.context(), type),
      [&](mlir::OpBuilder& b, mlir::Location loc, mlir::ValueRange x) -> mlir::Value {
        if (IsFloat(type)) return b.create<mlir::arith::AddFOp>(loc, x[0], x[1]);
        return b.create<mlir::arith::AddIOp>(loc, x[0], x[1]);
      });
  if (mlir::failed(result)) return mlir::failure();
  node.SetOutput(0, *result, type);
  return mlir::success();
}

mlir::LogicalResult ConvertRelu(NodeImporter& node) {
  const OnnxElementType type = node.InputElementType(0);
  mlir::FailureOr<mlir::Value> result = BuildElementwise(
      node, {node.Input(0)}, ConvertElementType(node.context(), type),
      [&](mlir::OpBuilder& b, mlir::Location loc, mlir::ValueRange x) -> mlir::Value {
        mlir::Value zero = ScalarConstant(b, loc, x[0].getType(), 0);
        if (IsFloat(type)) return b.create<mlir::arith::MaximumFOp>(loc, x[0], zero);
        return b.create<mlir::arith::MaxSIOp>(loc, x[0], zero);
      });
  if (mlir::failed(result)) return mlir::failure();
  node.SetOutput(0, *result, type);
  return mlir::success();
}

}  // namespace

void RegisterElementwiseOps(OpRegistry& registry) {
  registry.Register("Add", ConvertAdd);
  registry.Register("Relu", ConvertRelu);
}

}  // namespace kiln::onnx_import
