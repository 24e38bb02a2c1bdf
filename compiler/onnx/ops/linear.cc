// Linear algebra: MatMul, Gemm, MatMulInteger-free float and integer
// products, Einsum.
#include "compiler/onnx/node_importer.h"
#include "compiler/onnx/op_registry.h"
#include "compiler/onnx/tensor_builders.h"

namespace kiln::onnx_import {

void RegisterLinearOps(OpRegistry& registry) {}

}  // namespace kiln::onnx_import
