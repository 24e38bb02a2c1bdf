// Registration of kiln's passes (and the upstream ones its pipeline uses)
// with MLIR's global pass registry, so kiln-opt and
// `kiln-compile --pass-pipeline` can name them.
#pragma once

namespace kiln::compiler {

void RegisterPasses();

}  // namespace kiln::compiler
