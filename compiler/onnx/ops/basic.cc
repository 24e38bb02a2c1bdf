// Basic ops: Identity and Constant (every form of its value attribute).
#include "compiler/onnx/node_importer.h"
#include "compiler/onnx/op_registry.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace kiln::onnx_import {
namespace {

mlir::LogicalResult ConvertIdentity(NodeImporter& node) {
  const ImportedValue* input = node.InputInfo(0);
  if (!input) return node.Fail("needs an input");
  if (input->constant) {
    node.SetConstantOutput(0, input->constant, input->element_type);
  } else {
    node.SetOutput(0, input->value, input->element_type);
  }
  return mlir::success();
}

mlir::LogicalResult ConvertConstant(NodeImporter& node) {
  mlir::MLIRContext& context = node.context();
  mlir::Builder b(&context);
  if (node.HasAttribute("value")) {
    mlir::DenseElementsAttr value = node.TensorAttribute("value");
    if (!value) return mlir::failure();
    node.SetConstantOutput(0, value, node.Attribute("value")->t().data_type());
    return mlir::success();
  }
  if (node.HasAttribute("value_float")) {
    auto type = mlir::RankedTensorType::get({}, b.getF32Type());
    node.SetConstantOutput(
        0, mlir::DenseElementsAttr::get(type, node.FloatAttribute("value_float", 0.0f)),
        onnx::TensorProto::FLOAT);
    return mlir::success();
  }
  if (node.HasAttribute("value_floats")) {
    std::vector<float> values = node.FloatsAttribute("value_floats");
    auto type = mlir::RankedTensorType::get({static_cast<int64_t>(values.size())}, b.getF32Type());
    node.SetConstantOutput(0, mlir::DenseElementsAttr::get(type, llvm::ArrayRef<float>(values)),
                           onnx::TensorProto::FLOAT);
    return mlir::success();
  }
  if (node.HasAttribute("value_int")) {
    auto type = mlir::RankedTensorType::get({}, b.getI64Type());
    node.SetConstantOutput(
        0, mlir::DenseElementsAttr::get(type, node.IntAttribute("value_int", 0)),
        onnx::TensorProto::INT64);
    return mlir::success();
  }
  if (node.HasAttribute("value_ints")) {
    std::vector<int64_t> values = node.IntsAttribute("value_ints");
    auto type = mlir::RankedTensorType::get({static_cast<int64_t>(values.size())}, b.getI64Type());
    node.SetConstantOutput(0, mlir::DenseElementsAttr::get(type, llvm::ArrayRef<int64_t>(values)),
                           onnx::TensorProto::INT64);
    return mlir::success();
  }
  if (node.HasAttribute("sparse_value")) return node.Fail("sparse constants are not supported");
  return node.Fail("string constants are not supported (kiln imports tensors of numbers)");
}

}  // namespace

void RegisterBasicOps(OpRegistry& registry) {
  registry.Register("Identity", ConvertIdentity);
  registry.Register("Constant", ConvertConstant);
}

}  // namespace kiln::onnx_import
