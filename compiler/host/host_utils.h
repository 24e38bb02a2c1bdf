// What the host passes share: tensor element types as the runtime encodes
// them (hal/element_type.h), the module-level symbols they add, and the
// buffers of a function's memory arena (--kiln-hal-plan-memory).
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

// The unit attribute --kiln-hal-plan-memory puts on the util.global of a
// function's arena: a !hal.buffer that only that function's planned buffers
// (hal.buffer.subspan of it at constant offsets) use, and that nothing else
// can reach.
inline constexpr llvm::StringLiteral kArenaAttrName = "kiln.memory_arena";

// A planned buffer: bytes [offset, offset + length) of an arena.
struct ArenaRange {
  mlir::StringAttr arena;  // The arena global's name.
  int64_t offset = 0;
  int64_t length = 0;
  bool Overlaps(const ArenaRange& other) const {
    return arena == other.arena && offset < other.offset + other.length &&
           other.offset < offset + length;
  }
};

// The arena range `buffer` is (a hal.buffer.subspan at constant offset and
// length of a load of an arena global), or nullopt.
std::optional<ArenaRange> ArenaRangeOf(mlir::Value buffer);

}  // namespace kiln::compiler::host
