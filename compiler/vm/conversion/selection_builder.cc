#include "compiler/vm/conversion/selection_builder.h"

#include <bit>

namespace kiln::compiler {

using kiln::vm::Bank;
using kiln::vm::Opcode;

mlir::Type SelectionBuilder::TypeOf(Bank bank) {
  mlir::MLIRContext* context = b_.getContext();
  switch (bank) {
    case Bank::kI32:
      return b_.getI32Type();
    case Bank::kI64:
      return b_.getI64Type();
    case Bank::kF32:
      return b_.getF32Type();
    case Bank::kF64:
      return b_.getF64Type();
    case Bank::kRef:
      return VM::RefType::get(context, mlir::NoneType::get(context));
  }
  return {};
}

mlir::Operation* SelectionBuilder::Create(Opcode opcode, mlir::Type type,
                                          mlir::ValueRange operands,
                                          llvm::ArrayRef<mlir::NamedAttribute> attributes) {
  mlir::OperationState state(loc_, VM::OpNameOfOpcode(opcode));
  state.addOperands(operands);
  if (type) state.addTypes(type);
  state.addAttributes(attributes);
  return b_.create(state);
}

mlir::Value SelectionBuilder::AddImm(Bank bank, mlir::Value a, int32_t imm) {
  return Def(ByBank(bank, Opcode::kAddImmI32, Opcode::kAddImmI64), TypeOf(bank), a,
             {b_.getNamedAttr("imm", b_.getI32IntegerAttr(imm))});
}

mlir::Value SelectionBuilder::Constant(Bank bank, uint64_t bits) {
  mlir::Attribute value;
  Opcode opcode;
  switch (bank) {
    case Bank::kI32:
      opcode = Opcode::kConstI32;
      value = b_.getI32IntegerAttr(static_cast<int32_t>(static_cast<uint32_t>(bits)));
      break;
    case Bank::kI64:
      opcode = Opcode::kConstI64;
      value = b_.getI64IntegerAttr(static_cast<int64_t>(bits));
      break;
    case Bank::kF32:
      opcode = Opcode::kConstF32;
      value = b_.getF32FloatAttr(std::bit_cast<float>(static_cast<uint32_t>(bits)));
      break;
    default:
      opcode = Opcode::kConstF64;
      value = b_.getF64FloatAttr(std::bit_cast<double>(bits));
      break;
  }
  return Def(opcode, TypeOf(bank), {}, {b_.getNamedAttr("value", value)});
}

mlir::Value SelectionBuilder::UnsignedView(mlir::Value v, unsigned width) {
  if (width == 8) return Unary(Opcode::kTruncI32I8, Bank::kI32, v);
  if (width == 16) return Unary(Opcode::kTruncI32I16, Bank::kI32, v);
  return v;
}

mlir::Value SelectionBuilder::Canonicalize(mlir::Value v, unsigned width) {
  if (width == 8) return Unary(Opcode::kExtI8I32S, Bank::kI32, v);
  if (width == 16) return Unary(Opcode::kExtI16I32S, Bank::kI32, v);
  if (width == 1) return Binary(Opcode::kAndI32, Bank::kI32, v, Constant(Bank::kI32, 1));
  return v;
}

mlir::Value SelectionBuilder::Resize(mlir::Value a, unsigned from, unsigned to, bool is_signed) {
  if (from == to) return a;
  if (to < from) {
    mlir::Value t = from == 64 ? Unary(Opcode::kTruncI64I32, Bank::kI32, a) : a;
    return Canonicalize(t, to);
  }
  if (to == 64) {
    mlir::Value v = is_signed ? SignedView(a, from) : UnsignedView(a, from);
    return Unary(is_signed ? Opcode::kExtI32I64S : Opcode::kExtI32I64U, Bank::kI64, v);
  }
  // Wider type within the i32 bank: a sign-extended narrow value already is
  // canonical for the wider type, a zero-extended one too (it is positive).
  return is_signed ? SignedView(a, from) : UnsignedView(a, from);
}

}  // namespace kiln::compiler
