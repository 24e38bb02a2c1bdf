// The converters of the linear-algebra and neural-network families, one
// registration per file: ops/linear.cc and ops/neural_network.cc (the
// families op_registry.h names) register these.
#pragma once

#include "compiler/onnx/op_registry.h"

namespace kiln::onnx_import {

void RegisterEinsumOp(OpRegistry& registry);           // einsum.cc
void RegisterConvolutionOps(OpRegistry& registry);     // convolution.cc
void RegisterPoolingOps(OpRegistry& registry);         // pooling.cc
void RegisterNormalizationOps(OpRegistry& registry);   // normalization.cc
void RegisterResizeOps(OpRegistry& registry);          // resize.cc
void RegisterDepthSpaceOps(OpRegistry& registry);      // depth_space.cc

}  // namespace kiln::onnx_import
