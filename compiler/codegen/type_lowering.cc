#include "compiler/codegen/type_lowering.h"

#include "compiler/ir/attributes.h"

namespace kiln::compiler::codegen {

std::optional<vm::Bank> BankOfType(const Type& type) {
  switch (type.kind()) {
    case TypeKind::kInteger:
      switch (type.width()) {
        case 1:
        case 8:
        case 16:
        case 32:
          return vm::Bank::kI32;
        case 64:
          return vm::Bank::kI64;
        default:
          return std::nullopt;
      }
    case TypeKind::kIndex:
      return vm::Bank::kI64;
    case TypeKind::kFloat:
      if (type.width() == 32) return vm::Bank::kF32;
      if (type.width() == 64) return vm::Bank::kF64;
      return std::nullopt;
    case TypeKind::kDialect:
      if (IsRefType(type)) return vm::Bank::kRef;
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

bool IsRefType(const Type& type) {
  if (!type.is_dialect() || !type.dialect_body().empty()) return false;
  const std::string& name = type.dialect_name();
  return name == "vm.buffer" || name == "hal.device" || name == "hal.allocator" ||
         name == "hal.buffer" || name == "hal.buffer_view" || name == "hal.executable" ||
         name == "hal.command_buffer" || name == "hal.fence";
}

std::string UnsupportedTypeMessage(const Type& type) {
  return "type '" + type.ToString() + "' is not supported by the VM (yet)";
}

uint32_t IntegerWidth(const Type& type) {
  return type.is_integer_or_index() ? type.integer_width() : 0;
}

std::optional<std::string> SignatureOf(const std::vector<Type>& inputs,
                                       const std::vector<Type>& results) {
  std::string signature;
  for (const Type& type : inputs) {
    std::optional<vm::Bank> bank = BankOfType(type);
    if (!bank) return std::nullopt;
    signature += vm::TypeCharOfBank(*bank);
  }
  signature += '_';
  for (const Type& type : results) {
    std::optional<vm::Bank> bank = BankOfType(type);
    if (!bank) return std::nullopt;
    signature += vm::TypeCharOfBank(*bank);
  }
  return signature;
}

uint64_t CanonicalIntegerBits(int64_t value, const Type& type) {
  const uint32_t width = IntegerWidth(type);
  if (width == 1) return static_cast<uint64_t>(value & 1);
  if (width == 64) return static_cast<uint64_t>(value);
  return static_cast<uint32_t>(static_cast<int32_t>(SignExtend(value, width)));
}

}  // namespace kiln::compiler::codegen
