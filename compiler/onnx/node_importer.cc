#include "compiler/onnx/node_importer.h"

#include "compiler/onnx/graph_importer.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"

namespace kiln::onnx_import {

NodeImporter::NodeImporter(GraphImporter& graph, const onnx::NodeProto& node, int64_t opset,
                           int64_t index)
    : graph_(graph),
      node_(node),
      opset_(opset),
      index_(index),
      loc_(graph.NodeLocation(node, index)) {
  for (const onnx::AttributeProto& attribute : node.attribute()) {
    attributes_[attribute.name()] = &attribute;
  }
}

mlir::OpBuilder& NodeImporter::builder() { return graph_.builder(); }
mlir::MLIRContext& NodeImporter::context() { return graph_.context(); }

bool NodeImporter::HasInput(int64_t index) const {
  return index >= 0 && index < node_.input_size() && !node_.input(index).empty();
}

const ImportedValue* NodeImporter::InputInfo(int64_t index) const {
  return HasInput(index) ? graph_.Lookup(node_.input(index)) : nullptr;
}

mlir::Value NodeImporter::Input(int64_t index) const {
  const ImportedValue* info = InputInfo(index);
  return info ? info->value : mlir::Value();
}

OnnxElementType NodeImporter::InputElementType(int64_t index) const {
  const ImportedValue* info = InputInfo(index);
  return info ? info->element_type : onnx::TensorProto::UNDEFINED;
}

mlir::DenseElementsAttr NodeImporter::InputConstant(int64_t index) const {
  const ImportedValue* info = InputInfo(index);
  return info ? info->constant : mlir::DenseElementsAttr();
}

std::optional<std::vector<int64_t>> NodeImporter::InputInts(int64_t index) const {
  mlir::DenseElementsAttr constant = InputConstant(index);
  if (!constant || !llvm::isa<mlir::IntegerType>(constant.getElementType())) return std::nullopt;
  std::vector<int64_t> values;
  values.reserve(constant.getNumElements());
  const bool is_unsigned = IsUnsigned(InputElementType(index));
  for (const llvm::APInt& value : constant.getValues<llvm::APInt>()) {
    values.push_back(is_unsigned ? static_cast<int64_t>(value.getZExtValue()) : value.getSExtValue());
  }
  return values;
}

bool NodeImporter::HasAttribute(llvm::StringRef name) const { return attributes_.contains(name); }

const onnx::AttributeProto* NodeImporter::Attribute(llvm::StringRef name) const {
  auto it = attributes_.find(name);
  return it == attributes_.end() ? nullptr : it->second;
}

int64_t NodeImporter::IntAttribute(llvm::StringRef name, int64_t default_value) const {
  const onnx::AttributeProto* attribute = Attribute(name);
  return attribute ? attribute->i() : default_value;
}

float NodeImporter::FloatAttribute(llvm::StringRef name, float default_value) const {
  const onnx::AttributeProto* attribute = Attribute(name);
  return attribute ? attribute->f() : default_value;
}

std::string NodeImporter::StringAttribute(llvm::StringRef name,
                                          llvm::StringRef default_value) const {
  const onnx::AttributeProto* attribute = Attribute(name);
  return attribute ? attribute->s() : default_value.str();
}

std::vector<int64_t> NodeImporter::IntsAttribute(llvm::StringRef name,
                                                 std::vector<int64_t> default_value) const {
  const onnx::AttributeProto* attribute = Attribute(name);
  if (!attribute) return default_value;
  return std::vector<int64_t>(attribute->ints().begin(), attribute->ints().end());
}

std::vector<float> NodeImporter::FloatsAttribute(llvm::StringRef name,
                                                 std::vector<float> default_value) const {
  const onnx::AttributeProto* attribute = Attribute(name);
  if (!attribute) return default_value;
  return std::vector<float>(attribute->floats().begin(), attribute->floats().end());
}

mlir::DenseElementsAttr NodeImporter::TensorAttribute(llvm::StringRef name) {
  const onnx::AttributeProto* attribute = Attribute(name);
  if (!attribute) return {};
  std::string error;
  mlir::FailureOr<mlir::DenseElementsAttr> contents =
      ConvertTensorProto(context(), attribute->t(), &error);
  if (mlir::failed(contents)) {
    (void)Fail("attribute '" + name + "': " + error);
    return {};
  }
  return *contents;
}

bool NodeImporter::HasOutput(int64_t index) const {
  return index >= 0 && index < node_.output_size() && !node_.output(index).empty();
}

mlir::TensorType NodeImporter::InferredOutputType(int64_t index) const {
  if (!HasOutput(index)) return {};
  const onnx::TypeProto* type = graph_.InferredType(node_.output(index));
  return type ? ConvertTensorType(graph_.context(), *type) : mlir::TensorType();
}

OnnxElementType NodeImporter::InferredOutputElementType(int64_t index) const {
  if (!HasOutput(index)) return onnx::TensorProto::UNDEFINED;
  const onnx::TypeProto* type = graph_.InferredType(node_.output(index));
  return type && type->has_tensor_type() ? type->tensor_type().elem_type()
                                         : onnx::TensorProto::UNDEFINED;
}

mlir::RankedTensorType NodeImporter::StaticOutputType(int64_t index) const {
  auto type = llvm::dyn_cast_or_null<mlir::RankedTensorType>(InferredOutputType(index));
  return type && type.hasStaticShape() ? type : mlir::RankedTensorType();
}

void NodeImporter::SetOutput(int64_t index, mlir::Value value, OnnxElementType element_type) {
  if (!HasOutput(index)) return;
  // Where shape inference knows more static sizes than the converter's IR,
  // say so with a cast: later nodes (and the compiler) see static shapes.
  auto ranked = llvm::dyn_cast<mlir::RankedTensorType>(value.getType());
  auto inferred = llvm::dyn_cast_or_null<mlir::RankedTensorType>(InferredOutputType(index));
  if (ranked && inferred && !ranked.hasStaticShape() && ranked.getRank() == inferred.getRank() &&
      ranked.getElementType() == inferred.getElementType()) {
    llvm::SmallVector<int64_t> shape(ranked.getShape());
    bool refined = false;
    for (int64_t i = 0; i < ranked.getRank(); ++i) {
      if (ranked.isDynamicDim(i) && !inferred.isDynamicDim(i)) {
        shape[i] = inferred.getDimSize(i);
        refined = true;
      }
    }
    if (refined) {
      value = builder().create<mlir::tensor::CastOp>(
          loc_, mlir::RankedTensorType::get(shape, ranked.getElementType()), value);
    }
  }
  ImportedValue imported;
  imported.value = value;
  imported.element_type = element_type;
  graph_.Define(node_.output(index), imported);
}

void NodeImporter::SetConstantOutput(int64_t index, mlir::DenseElementsAttr contents,
                                     OnnxElementType element_type) {
  if (!HasOutput(index)) return;
  ImportedValue imported;
  imported.value = builder().create<mlir::arith::ConstantOp>(loc_, contents);
  imported.element_type = element_type;
  imported.constant = contents;
  graph_.Define(node_.output(index), imported);
}

mlir::LogicalResult NodeImporter::Fail(const llvm::Twine& message) const {
  const std::string name =
      node_.name().empty() ? "#" + std::to_string(index_) : "'" + node_.name() + "'";
  mlir::emitError(loc_) << "node " << name << " (" << node_.op_type() << ", opset " << opset_
                        << "): " << message;
  return mlir::failure();
}

}  // namespace kiln::onnx_import
