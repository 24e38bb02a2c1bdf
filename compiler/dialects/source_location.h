// The "file:line:col" of a location, as runtime messages quote the source
// (the size checks of dispatch operands, the check module's failures).
#pragma once

#include <string>

#include "mlir/IR/Location.h"

namespace kiln::compiler {

// The first file location inside `loc` (through fused, name and call-site
// locations) as "file:line:col"; empty when it has none.
std::string SourceLocationText(mlir::Location loc);

}  // namespace kiln::compiler
