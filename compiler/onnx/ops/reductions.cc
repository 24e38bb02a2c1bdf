// Reductions: ReduceSum/Mean/Max/Min/Prod/L1/L2/LogSum/LogSumExp/SumSquare,
// ArgMax/ArgMin, and the softmax family.
#include "compiler/onnx/node_importer.h"
#include "compiler/onnx/op_registry.h"
#include "compiler/onnx/tensor_builders.h"

namespace kiln::onnx_import {

void RegisterReductionOps(OpRegistry& registry) {}

}  // namespace kiln::onnx_import
