// Shape and data-movement ops, folded where their inputs are known.
#include "compiler/onnx/node_importer.h"
#include "compiler/onnx/op_registry.h"
#include "compiler/onnx/tensor_builders.h"

namespace kiln::onnx_import {

void RegisterShapeOps(OpRegistry& registry) {}

}  // namespace kiln::onnx_import
