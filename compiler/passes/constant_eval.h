// Compile-time evaluation of arith/math ops on constant operands, with exactly
// the semantics of the code that codegen emits for them running on the VM
// (vm/opcodes.h, compiler/codegen/instruction_selection.h), so folding never
// changes what a program computes:
//
//  - integers wrap at the type's width (i8: 127 + 1 = -128); values are kept
//    sign-extended from that width (as Attribute::Integer stores them), i1 as
//    0/1, with signed ops reading an i1 true as -1 (MLIR's meaning); index is
//    i64;
//  - shift amounts are taken modulo the register width, as the VM does: 32
//    for i1..i32, 64 for i64/index; the amount is the register value (narrow
//    amounts sign-extended, i1 0/1) and the result wraps to the width. So an
//    i8 shifted left by 8..31 is 0, by 32 is unchanged (MLIR calls amounts
//    at or above the width poison);
//  - INT_MIN / -1 = INT_MIN and INT_MIN % -1 = 0 (ceildivsi/floordivsi too);
//    division and remainder by zero are not folded: they trap at run time;
//  - floats are computed in the type's precision (f32 in float, f64 in
//    double) with the C library functions the interpreter calls; rsqrt is
//    1 / sqrt(x), exp2 is pow(2, x), log2 is log(x) / ln 2 in double, as
//    codegen expands them; f16/bf16 are never folded (no VM registers);
//  - float→int conversions saturate at the register width (32 bits for
//    i1..i32, 64 for i64), map NaN to 0, then wrap to the result's width
//    (fptosi 300.0 to i8 is 44); int→float conversions round once, from the
//    exact integer;
//  - bitcasts move bits, except those whose float side is a NaN: a constant
//    float is held as a double, which would not keep a signalling NaN's bits.
#pragma once

#include <vector>

#include "compiler/ir/attributes.h"
#include "compiler/ir/ir.h"

namespace kiln::compiler {

// The value of `op`'s single result when its operands have the constant
// values `operands` (one per operand, each of the operand's type), or a null
// Attribute when the op is not foldable (not an arith/math op, division by
// zero, an unsupported type, ...). i1 results are Bool attributes.
Attribute EvaluateConstantOp(const Operation& op, const std::vector<const Attribute*>& operands);

// The number of bits a shift of an integer of `type` by the constant `amount`
// shifts by (the rule above; 0 means the shift leaves the value unchanged).
uint32_t ConstantShiftAmount(const Attribute& amount, const Type& type);

}  // namespace kiln::compiler
