// GraphImporter: the state of importing one ONNX graph into one func.func.
//
// Owns the table from ONNX value names to ImportedValues, the builder that
// appends to the function's body, and the external parameters collected so
// far. Nodes are converted in the graph's order (ONNX requires topological
// order), each through its converter in the OpRegistry.
#pragma once

#include <string>

#include "compiler/onnx/imported_value.h"
#include "compiler/onnx/onnx_importer.h"
#include "llvm/ADT/StringMap.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

namespace kiln::onnx_import {

class GraphImporter {
 public:
  GraphImporter(mlir::MLIRContext& context, const onnx::ModelProto& model,
                const OnnxImportOptions& options);

  mlir::FailureOr<ImportedModel> Import();

  mlir::MLIRContext& context() { return context_; }
  mlir::OpBuilder& builder() { return builder_; }
  const OnnxImportOptions& options() const { return options_; }

  // The value named `name`, or null when none is defined.
  const ImportedValue* Lookup(const std::string& name) const;
  void Define(const std::string& name, ImportedValue value);
  // The type shape inference recorded for `name` (value_info, graph
  // outputs), or null.
  const onnx::TypeProto* InferredType(const std::string& name) const;
  // The location of a node (its name, in the model file).
  mlir::Location NodeLocation(const onnx::NodeProto& node, int64_t index) const;

 private:
  mlir::LogicalResult ImportInitializers();
  mlir::LogicalResult ImportNode(const onnx::NodeProto& node, int64_t index);
  mlir::LogicalResult ImportInitializer(const onnx::TensorProto& tensor);
  int64_t OpsetOf(const std::string& domain) const;

  mlir::MLIRContext& context_;
  const onnx::ModelProto& model_;
  const OnnxImportOptions& options_;
  mlir::OpBuilder builder_;
  mlir::OwningOpRef<mlir::ModuleOp> module_;
  mlir::func::FuncOp func_;
  llvm::StringMap<ImportedValue> values_;
  llvm::StringMap<const onnx::TypeProto*> inferred_types_;
  llvm::StringMap<int64_t> opsets_;
  std::vector<ExternalParameter> parameters_;
};

}  // namespace kiln::onnx_import
