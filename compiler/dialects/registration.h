// Registration of kiln's dialects with an MLIR context or registry.
//
// Every tool that parses kiln's input (kiln-compile, kiln-opt, the fuzzer)
// registers the same set: kiln's own dialects (hal, flow, util, check, vm)
// and the upstream dialects a kiln program may use (func, arith, math, scf,
// cf, affine, tensor, linalg, ...).
#pragma once

namespace mlir {
class DialectRegistry;
}

namespace kiln::compiler {

// Adds kiln's dialects and the upstream dialects of its input to `registry`.
void RegisterDialects(mlir::DialectRegistry& registry);

}  // namespace kiln::compiler
