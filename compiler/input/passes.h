// The input passes: what kiln's pipeline does to a program before it forms
// dispatches (compiler/input). Upstream's passes do most of it
// (convert-elementwise-to-linalg and elementwise fusion's patterns; see
// pipeline.cc); these are kiln's own:
//
//   --kiln-detach-unread-inits  inits a linalg op never reads become
//       tensor.empty, so that producers fuse into their consumers
//       (detach_unread_inits.cc).
//   --kiln-decompose-aggregates  linalg.softmax (and any op with linalg's
//       AggregatedOpInterface) into the linalg ops it is made of
//       (decompose_aggregates.cc).
//   --kiln-convert-ml-program  ml_program globals, loads and stores into
//       their util forms (convert_ml_program.cc).
//   --kiln-expand-tensor-inserts  tensor.insert of a scalar into an
//       elementwise linalg.generic selecting it at the insert position
//       (expand_tensor_inserts.cc).
//   --kiln-fuse-elementwise  upstream's elementwise fusion, except into a
//       contraction's operands (fuse_elementwise.cc).
//   --kiln-tensor-input  the input pipeline (upstream's elementwise-to-linalg,
//       the detaching above, elementwise fusion) on each function that
//       computes on tensors, and on no other (tensor_input.cc).
#pragma once

#include <memory>

#include "mlir/Pass/Pass.h"

namespace kiln::compiler {

std::unique_ptr<mlir::Pass> createConvertMLProgramPass();
std::unique_ptr<mlir::Pass> createDecomposeAggregatesPass();
std::unique_ptr<mlir::Pass> createExpandTensorInsertsPass();
std::unique_ptr<mlir::Pass> createLowerTensorPadsPass();
std::unique_ptr<mlir::Pass> createDetachUnreadInitsPass();
std::unique_ptr<mlir::Pass> createFuseElementwisePass();
std::unique_ptr<mlir::Pass> createTensorInputPass();

// Registers the input passes with MLIR's pass registry (kiln-opt).
void registerInputPasses();

}  // namespace kiln::compiler
