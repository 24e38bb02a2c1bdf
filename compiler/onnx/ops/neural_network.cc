// Neural-network layers: Conv, ConvTranspose, pooling, normalizations.
#include "compiler/onnx/node_importer.h"
#include "compiler/onnx/op_registry.h"
#include "compiler/onnx/tensor_builders.h"

namespace kiln::onnx_import {

void RegisterNeuralNetworkOps(OpRegistry& registry) {}

}  // namespace kiln::onnx_import
