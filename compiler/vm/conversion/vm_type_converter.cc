#include "compiler/vm/conversion/vm_type_converter.h"

#include "compiler/dialects/vm/vm_dialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"

namespace kiln::compiler {

mlir::Type ConvertToVMType(mlir::Type type) {
  mlir::MLIRContext* context = type.getContext();
  if (auto integer = llvm::dyn_cast<mlir::IntegerType>(type)) {
    if (!integer.isSignless()) return {};
    switch (integer.getWidth()) {
      case 1:
      case 8:
      case 16:
      case 32:
        return mlir::IntegerType::get(context, 32);
      case 64:
        return type;
      default:
        return {};
    }
  }
  if (llvm::isa<mlir::IndexType>(type)) return mlir::IntegerType::get(context, 64);
  if (type.isF32() || type.isF64()) return type;
  if (llvm::isa<VM::RefType>(type)) return type;
  if (llvm::isa<VM::BufferType, VM::ListType>(type)) return VM::RefType::get(context, type);
  if (type.getDialect().getNamespace() == "hal") return VM::RefType::get(context, type);
  return {};
}

VMTypeConverter::VMTypeConverter() {
  addConversion([](mlir::Type type) -> std::optional<mlir::Type> {
    mlir::Type converted = ConvertToVMType(type);
    if (!converted) return std::nullopt;  // Not convertible: other converters may try.
    return converted;
  });
}

std::string UnsupportedTypeMessage(mlir::Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "type '" << type << "' is not supported by the VM (yet)";
  return text;
}

unsigned IntegerWidth(mlir::Type type) {
  if (llvm::isa<mlir::IndexType>(type)) return 64;
  if (auto integer = llvm::dyn_cast<mlir::IntegerType>(type)) return integer.getWidth();
  return 0;
}

uint64_t CanonicalIntegerBits(int64_t value, mlir::Type type) {
  const unsigned width = IntegerWidth(type);
  if (width == 1) return static_cast<uint64_t>(value & 1);
  if (width >= 64 || width == 0) return static_cast<uint64_t>(value);
  // Sign-extend from `width` bits, then keep 32 bits of storage.
  const uint64_t mask = (uint64_t{1} << width) - 1;
  uint64_t bits = static_cast<uint64_t>(value) & mask;
  if (bits >> (width - 1)) bits |= ~mask;
  return static_cast<uint32_t>(bits);
}

}  // namespace kiln::compiler
