// The ONNX operators kiln converts, by op type (default domain, ai.onnx).
//
// Each op family registers its converters in its own file under ops/
// (elementwise.cc, reductions.cc, shape_ops.cc, ...). A converter states the
// lowest opset whose semantics it implements; a node of an older opset is
// reported as unsupported rather than converted with newer semantics.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "llvm/ADT/StringMap.h"
#include "mlir/Support/LogicalResult.h"

namespace kiln::onnx_import {

class NodeImporter;

using OpConverter = std::function<mlir::LogicalResult(NodeImporter&)>;

struct OpConverterEntry {
  int64_t min_opset = 1;
  OpConverter convert;
};

class OpRegistry {
 public:
  // The registry with every family's converters.
  static const OpRegistry& Get();

  void Register(llvm::StringRef op_type, OpConverter convert, int64_t min_opset = 1);
  const OpConverterEntry* Lookup(llvm::StringRef op_type) const;

 private:
  llvm::StringMap<OpConverterEntry> converters_;
};

// One per op family (ops/*.cc).
void RegisterBasicOps(OpRegistry& registry);
void RegisterElementwiseOps(OpRegistry& registry);
void RegisterReductionOps(OpRegistry& registry);
void RegisterLinearOps(OpRegistry& registry);
void RegisterNeuralNetworkOps(OpRegistry& registry);
void RegisterShapeOps(OpRegistry& registry);

}  // namespace kiln::onnx_import
