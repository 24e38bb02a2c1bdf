// Neural-network layers: Conv, ConvTranspose, pooling, normalizations,
// Resize, DepthToSpace/SpaceToDepth, each family in its own file
// (layer_ops.h).
#include "compiler/onnx/op_registry.h"
#include "compiler/onnx/ops/layer_ops.h"

namespace kiln::onnx_import {

void RegisterNeuralNetworkOps(OpRegistry& registry) {
  RegisterConvolutionOps(registry);
  RegisterPoolingOps(registry);
  RegisterNormalizationOps(registry);
  RegisterResizeOps(registry);
  RegisterDepthSpaceOps(registry);
}

}  // namespace kiln::onnx_import
