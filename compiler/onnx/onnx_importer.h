// ImportOnnxModel: an ONNX ModelProto → kiln's input MLIR.
//
// The graph becomes one func.func named after it, its inputs and outputs in
// ONNX's order with their ONNX names as the argument and result attribute
// `onnx.name`; the body is linalg/tensor/arith/math (kiln-compile's input).
// Initializers of at most `parameter_threshold_bytes` become constants;
// larger ones become util.globals initialized from the named external
// parameter `#flow.parameter.named<"scope"::"name">` (IREE's spelling), and
// their bytes are returned for a safetensors file (safetensors_writer.h).
//
// Every unsupported construct is an error naming the node, its op type and
// opset; nothing is silently dropped.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "onnx/onnx_pb.h"

namespace kiln::onnx_import {

struct OnnxImportOptions {
  // The model's path, for locations and messages.
  std::string model_path = "model.onnx";
  // Initializers larger than this many bytes become external parameters;
  // negative keeps every initializer inline.
  int64_t parameter_threshold_bytes = 1024;
  // The parameter scope of the external parameters.
  std::string parameter_scope = "model";
  // The function's name; empty uses the graph's name.
  std::string function_name;
};

// One initializer that became an external parameter.
struct ExternalParameter {
  std::string key;
  // The safetensors dtype ("F32", "I64", "U8", "BOOL", ...).
  std::string dtype;
  std::vector<int64_t> shape;
  // Raw little-endian bytes (bool: one byte per element).
  std::string bytes;
};

struct ImportedModel {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::vector<ExternalParameter> parameters;
};

// Imports `model` (external data loaded, shapes inferred: model_loading.h).
// Errors are emitted as MLIR diagnostics on `context`.
mlir::FailureOr<ImportedModel> ImportOnnxModel(mlir::MLIRContext& context,
                                               const onnx::ModelProto& model,
                                               const OnnxImportOptions& options);

// Loads the dialects the importer creates into `context`.
void LoadOnnxImportDialects(mlir::MLIRContext& context);

}  // namespace kiln::onnx_import
