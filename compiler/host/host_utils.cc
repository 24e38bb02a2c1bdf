#include "compiler/host/host_utils.h"

#include "compiler/dialects/hal/hal_dialect.h"
#include "compiler/dialects/util/util_dialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"

namespace kiln::compiler::host {

std::optional<uint32_t> ElementTypeCode(mlir::Type type) {
  if (type.isIndex()) return 0x10000040u;
  if (auto integer = llvm::dyn_cast<mlir::IntegerType>(type)) {
    const unsigned width = integer.getWidth();
    if (width == 1) return 0x13000001u;
    if (width == 8 || width == 16 || width == 32 || width == 64) return 0x10000000u | width;
    return std::nullopt;
  }
  if (type.isBF16()) return 0x21000010u;
  if (type.isF16() || type.isF32() || type.isF64()) {
    return 0x20000000u | type.getIntOrFloatBitWidth();
  }
  return std::nullopt;
}

int64_t ElementByteSize(mlir::Type type) {
  const int64_t bits = type.isIndex() ? 64 : type.getIntOrFloatBitWidth();
  return (bits + 7) / 8;
}

std::string UniqueSymbolName(mlir::SymbolTable& table, llvm::StringRef base) {
  std::string name = base.str();
  for (int n = 1; table.lookup(name); ++n) name = (base + "_" + llvm::Twine(n)).str();
  return name;
}

mlir::Value IndexConstant(mlir::OpBuilder& b, mlir::Location loc, int64_t value) {
  return b.create<mlir::arith::ConstantIndexOp>(loc, value);
}

mlir::Value I32Constant(mlir::OpBuilder& b, mlir::Location loc, int64_t value) {
  return b.create<mlir::arith::ConstantIntOp>(loc, b.getI32Type(), value);
}

std::optional<int64_t> ConstantIntOf(mlir::Value value) {
  llvm::APInt constant;
  if (!value || !mlir::matchPattern(value, mlir::m_ConstantInt(&constant))) return std::nullopt;
  return constant.getSExtValue();
}

std::optional<ArenaRange> ArenaRangeOf(mlir::Value buffer) {
  auto subspan = buffer.getDefiningOp<HAL::BufferSubspanOp>();
  if (!subspan) return std::nullopt;
  auto load = subspan.getSourceBuffer().getDefiningOp<Util::GlobalLoadOp>();
  if (!load) return std::nullopt;
  auto global =
      mlir::SymbolTable::lookupNearestSymbolFrom<Util::GlobalOp>(load, load.getGlobalAttr());
  if (!global || !global->hasAttr(kArenaAttrName)) return std::nullopt;
  std::optional<int64_t> offset = ConstantIntOf(subspan.getSourceOffset());
  std::optional<int64_t> length = ConstantIntOf(subspan.getLength());
  if (!offset || !length) return std::nullopt;
  return ArenaRange{global.getSymNameAttr(), *offset, *length};
}

}  // namespace kiln::compiler::host
