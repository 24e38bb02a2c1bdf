// SelectionBuilder: creates vm opcode ops by opcode (vm/opcodes.h) for the
// instruction selection patterns, and keeps narrow integers canonical.
//
// Narrow integers. i1, i8 and i16 values live in i32 registers in canonical
// form: i8/i16 sign-extended, i1 as 0 or 1. Operations keep that invariant:
//   * results that may leave the range (addi, subi, muli, shli, divsi,
//     ceildivsi/floordivsi, absi, the unsigned divisions/min/max, trunci,
//     fptosi/fptoui) are re-canonicalised with ext.i8.i32.s/ext.i16.i32.s or,
//     for i1, an `and` with 1;
//   * bitwise and/or/xor, shrsi, remsi, maxsi/minsi of canonical values are
//     canonical already (the bits above the width agree with the sign bit);
//   * operations whose result depends on bits above the width see a
//     zero-extended copy (trunc.i32.i8/i16, i.e. and 0xFF/0xFFFF) when they are
//     unsigned (divui, remui, shrui, cmpi ult/ule/ugt/uge, maxui/minui,
//     uitofp, extui, index_castui) and a sign-extended copy when signed; an i1
//     is sign-extended by negation (true is -1 as a signed i1), which is also
//     why signed compares of i1 are unsigned compares with swapped operands;
//   * i1 addi/subi are xor and i1 muli is and (arithmetic modulo 2).
// Shift amounts at or above the width (poison in MLIR) follow the VM's rule:
// the amount is taken modulo 32 (64 for i64), then the result re-canonicalised.
//
// Constants the selection itself needs (the mask 1 of an i1, 1.0 of rsqrt,
// ...) are created where they are needed; the conversion pass pools every
// constant at the top of the entry block afterwards (one per bank and value).
#pragma once

#include <cstdint>

#include "compiler/dialects/vm/vm_dialect.h"
#include "mlir/IR/Builders.h"
#include "vm/opcodes.h"

namespace kiln::compiler {

class SelectionBuilder {
 public:
  using Bank = kiln::vm::Bank;
  using Opcode = kiln::vm::Opcode;

  SelectionBuilder(mlir::OpBuilder& builder, mlir::Location loc) : b_(builder), loc_(loc) {}

  mlir::OpBuilder& builder() { return b_; }
  mlir::Location loc() const { return loc_; }

  // The register type of a bank (ref: !vm.ref<?>).
  mlir::Type TypeOf(Bank bank);

  // An opcode op with one result of `type` (or none when `type` is null), the
  // register operands in table order and the named attributes (immediates:
  // "value" for const.*, "imm" otherwise).
  mlir::Operation* Create(Opcode opcode, mlir::Type type, mlir::ValueRange operands,
                          llvm::ArrayRef<mlir::NamedAttribute> attributes = {});
  mlir::Value Def(Opcode opcode, mlir::Type type, mlir::ValueRange operands,
                  llvm::ArrayRef<mlir::NamedAttribute> attributes = {}) {
    return Create(opcode, type, operands, attributes)->getResult(0);
  }
  mlir::Value Unary(Opcode opcode, Bank bank, mlir::Value a) { return Def(opcode, TypeOf(bank), a); }
  mlir::Value Binary(Opcode opcode, Bank bank, mlir::Value a, mlir::Value b) {
    return Def(opcode, TypeOf(bank), {a, b});
  }
  // add.imm.i32/i64: a + imm (the immediate sign-extended, wrapping).
  mlir::Value AddImm(Bank bank, mlir::Value a, int32_t imm);

  // const.i32/i64/f32/f64 of the bits of a value of `bank` (i32/f32: the low
  // 32 bits).
  mlir::Value Constant(Bank bank, uint64_t bits);

  // --- Narrow integers (see above) ---
  mlir::Value SignedView(mlir::Value v, unsigned width) {
    return width == 1 ? Unary(Opcode::kNegI32, Bank::kI32, v) : v;
  }
  mlir::Value UnsignedView(mlir::Value v, unsigned width);
  mlir::Value Canonicalize(mlir::Value v, unsigned width);
  // Integer width change (extsi/extui/trunci/index_cast[ui]).
  mlir::Value Resize(mlir::Value a, unsigned from, unsigned to, bool is_signed);

 private:
  mlir::OpBuilder& b_;
  mlir::Location loc_;
};

// Opcode by bank: the i64 form for the i64 bank, else the i32 form.
inline kiln::vm::Opcode ByBank(kiln::vm::Bank bank, kiln::vm::Opcode i32, kiln::vm::Opcode i64) {
  return bank == kiln::vm::Bank::kI64 ? i64 : i32;
}
// Opcode by float bank: the f64 form for the f64 bank, else the f32 form.
inline kiln::vm::Opcode ByFloat(kiln::vm::Bank bank, kiln::vm::Opcode f32, kiln::vm::Opcode f64) {
  return bank == kiln::vm::Bank::kF64 ? f64 : f32;
}

// 2^32 - x: 32-bit wrapping negation without signed overflow.
inline int32_t WrapNegate32(int64_t value) {
  return static_cast<int32_t>(0u - static_cast<uint32_t>(value));
}

}  // namespace kiln::compiler
