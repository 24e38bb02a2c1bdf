// What the host passes share: tensor element types as the runtime encodes
// them (hal/element_type.h), and the module-level symbols they add.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

namespace kiln::compiler::host {

// The hal::ElementType encoding of a tensor element type ((kind << 24) |
// bit width; index as i64), or nullopt when the runtime has none.
std::optional<uint32_t> ElementTypeCode(mlir::Type type);

// Bytes per element (i1 and other sub-byte widths take a whole byte).
int64_t ElementByteSize(mlir::Type type);

// A symbol name not yet in `table`: `base`, else `base_1`, `base_2`, ...
std::string UniqueSymbolName(mlir::SymbolTable& table, llvm::StringRef base);

// An `index` arith.constant at the builder's insertion point.
mlir::Value IndexConstant(mlir::OpBuilder& b, mlir::Location loc, int64_t value);
mlir::Value I32Constant(mlir::OpBuilder& b, mlir::Location loc, int64_t value);

// The integer an arith.constant defining `value` holds.
std::optional<int64_t> ConstantIntOf(mlir::Value value);

}  // namespace kiln::compiler::host
