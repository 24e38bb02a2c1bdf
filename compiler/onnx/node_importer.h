// NodeImporter: what an op converter sees of the ONNX node it converts.
//
// A converter (op_registry.h) reads the node's inputs (MLIR values, their
// ONNX element types and contents where known), its attributes with ONNX's
// defaults, the types ONNX's shape inference gave its outputs, and builds
// linalg/tensor/arith/math IR at the end of the graph's function with
// builder(). It then sets each output with SetOutput. Errors go through
// Fail(), which names the node, its op type and opset as users need to find
// it in their model:
//
//   model.onnx: error: node 'conv1' (Conv, opset 17): auto_pad SAME_LOWER ...
//   model.onnx: error: node #12 (NoSuchOp, opset 17): unsupported operator
// (an unnamed node by its position in the graph, from 0).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/onnx/imported_value.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/Twine.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "onnx/onnx_pb.h"

namespace kiln::onnx_import {

class GraphImporter;

class NodeImporter {
 public:
  // `index` is the node's position in the graph (its location).
  NodeImporter(GraphImporter& graph, const onnx::NodeProto& node, int64_t opset, int64_t index);

  const onnx::NodeProto& node() const { return node_; }
  const std::string& op_type() const { return node_.op_type(); }
  // The opset version of the node's domain that the model imports.
  int64_t opset() const { return opset_; }
  mlir::OpBuilder& builder();
  mlir::Location loc() const { return loc_; }
  mlir::MLIRContext& context();
  // The graph being imported: for the converters of ops with subgraphs (If,
  // Loop, Scan in ops/control_flow.cc), which import a body's nodes into it.
  GraphImporter& graph() { return graph_; }

  // Inputs. ONNX marks an omitted optional input with an empty name; inputs
  // past the end are omitted too.
  int64_t input_count() const { return node_.input_size(); }
  bool HasInput(int64_t index) const;
  // The input's value; null when omitted.
  mlir::Value Input(int64_t index) const;
  const ImportedValue* InputInfo(int64_t index) const;
  OnnxElementType InputElementType(int64_t index) const;
  // The input's contents when known at import time, else null.
  mlir::DenseElementsAttr InputConstant(int64_t index) const;
  // The input's contents as integers (any integer element type), when known.
  std::optional<std::vector<int64_t>> InputInts(int64_t index) const;

  // Attributes, with the default when absent.
  bool HasAttribute(llvm::StringRef name) const;
  const onnx::AttributeProto* Attribute(llvm::StringRef name) const;
  int64_t IntAttribute(llvm::StringRef name, int64_t default_value) const;
  float FloatAttribute(llvm::StringRef name, float default_value) const;
  std::string StringAttribute(llvm::StringRef name, llvm::StringRef default_value) const;
  std::vector<int64_t> IntsAttribute(llvm::StringRef name,
                                     std::vector<int64_t> default_value = {}) const;
  std::vector<float> FloatsAttribute(llvm::StringRef name,
                                     std::vector<float> default_value = {}) const;
  // A tensor attribute's contents; null when absent or unsupported (Fail
  // has then been called when it was present).
  mlir::DenseElementsAttr TensorAttribute(llvm::StringRef name);

  // Outputs. An omitted optional output has an empty name.
  int64_t output_count() const { return node_.output_size(); }
  bool HasOutput(int64_t index) const;
  // The type shape inference gave output `index` (ranked with static and
  // dynamic sizes, or unranked), or null when it inferred none.
  mlir::TensorType InferredOutputType(int64_t index) const;
  // The ONNX element type inferred for output `index` (0 when unknown).
  OnnxElementType InferredOutputElementType(int64_t index) const;
  // The inferred output type when it is ranked with only static sizes.
  mlir::RankedTensorType StaticOutputType(int64_t index) const;

  // Sets output `index`. Values of other element types than the ONNX one are
  // a converter bug; the graph importer checks it.
  void SetOutput(int64_t index, mlir::Value value, OnnxElementType element_type);
  // Sets output `index` to a value known at import time: materializes an
  // arith.constant and keeps the contents for folding later nodes.
  void SetConstantOutput(int64_t index, mlir::DenseElementsAttr contents,
                         OnnxElementType element_type);

  // Reports `message` for this node and returns failure().
  mlir::LogicalResult Fail(const llvm::Twine& message) const;

 private:
  GraphImporter& graph_;
  const onnx::NodeProto& node_;
  int64_t opset_;
  int64_t index_;
  mlir::Location loc_;
  llvm::StringMap<const onnx::AttributeProto*> attributes_;
};

}  // namespace kiln::onnx_import
