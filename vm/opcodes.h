// The bytecode instruction set: one table that the module builder, the
// verifier, the interpreter and the disassembler all derive from.
//
// Encoding. An instruction is a one-byte opcode followed by its operands in the
// order listed below, little-endian, unaligned:
//   register (any bank)      u16 index into that bank of the current frame
//   i32/f32 immediate        4 bytes;  i64/f64 immediate: 8 bytes
//   branch target            u32 byte offset from the start of the function
//   function/import/rodata/string/type/global-ref index: u32
//   global byte offset       u32 into the module state's primitive globals;
//                            the access width (4 or 8) must fit and be aligned
//   call args / results      u8 count, then count u16 registers whose banks are
//                            given by the callee's signature
//   return values            u8 count, then u16 registers (the function's own
//                            result signature gives the banks)
//   switch targets           u16 count, then count u32 branch targets
//   trace operands           u8 count, then count × (u8 bank, u16 register)
//
// Destinations come first. Comparisons and predicates write 0/1 to an i32
// register; i1/i8/i16 values live in i32 registers. Buffer offsets and lengths
// are i64; list indices and sizes are i32.
//
// Semantics that C++ leaves undefined are defined here: integer arithmetic
// wraps (two's complement); shift amounts are taken modulo the bit width;
// INT_MIN / -1 yields INT_MIN and INT_MIN % -1 yields 0; division or remainder
// by zero stops the invocation with an error; float→int conversions saturate
// and map NaN to 0.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace kiln::vm {

// How an operand is encoded and what the verifier checks about it.
enum class OperandKind : uint8_t {
  kRegI32,
  kRegI64,
  kRegF32,
  kRegF64,
  kRegRef,
  kImmI32,
  kImmI64,
  kImmF32,
  kImmF64,
  kTarget,       // Branch target.
  kFunction,     // Internal function ordinal.
  kImport,       // Import ordinal.
  kRodata,       // Rodata segment ordinal.
  kString,       // Module string ordinal.
  kType,         // Module type table ordinal.
  kGlobal32,     // Byte offset of a 4-byte primitive global.
  kGlobal64,     // Byte offset of an 8-byte primitive global.
  kGlobalRef,    // Ref global slot.
  kCallArgs,     // Variadic: argument registers of the preceding function/import.
  kCallResults,  // Variadic: result registers of the preceding function/import.
  kReturnValues, // Variadic: the current function's results.
  kSwitchTargets,// Variadic: switch table.
  kTraceOperands,// Variadic: (bank, register) pairs.
};

// Register banks; also the per-character meaning of calling-convention strings.
enum class Bank : uint8_t { kI32 = 0, kI64 = 1, kF32 = 2, kF64 = 3, kRef = 4 };
inline constexpr int kBankCount = 5;

// X(Name, "mnemonic", flags, operand kinds...)
// flags: 0, or kTerminator for instructions that end a block.
#define KILN_FOR_EACH_OPCODE(X)                                                         \
  /* Constants and moves. */                                                             \
  X(ConstI32, "const.i32", 0, kRegI32, kImmI32)                                          \
  X(ConstI64, "const.i64", 0, kRegI64, kImmI64)                                          \
  X(ConstF32, "const.f32", 0, kRegF32, kImmF32)                                          \
  X(ConstF64, "const.f64", 0, kRegF64, kImmF64)                                          \
  X(ConstRefNull, "const.ref.null", 0, kRegRef)                                          \
  X(ConstRefRodata, "const.ref.rodata", 0, kRegRef, kRodata)                             \
  X(MovI32, "mov.i32", 0, kRegI32, kRegI32)                                              \
  X(MovI64, "mov.i64", 0, kRegI64, kRegI64)                                              \
  X(MovF32, "mov.f32", 0, kRegF32, kRegF32)                                              \
  X(MovF64, "mov.f64", 0, kRegF64, kRegF64)                                              \
  X(MovRef, "mov.ref", 0, kRegRef, kRegRef)                                              \
  /* i32 arithmetic, bitwise and shifts. */                                              \
  KILN_INT_OPS_(X, I32, "i32", kRegI32)                                                  \
  KILN_INT_OPS_(X, I64, "i64", kRegI64)                                                  \
  KILN_FLOAT_OPS_(X, F32, "f32", kRegF32)                                                \
  KILN_FLOAT_OPS_(X, F64, "f64", kRegF64)                                                \
  KILN_INT_CMPS_(X, I32, "i32", kRegI32)                                                 \
  KILN_INT_CMPS_(X, I64, "i64", kRegI64)                                                 \
  KILN_FLOAT_CMPS_(X, F32, "f32", kRegF32)                                               \
  KILN_FLOAT_CMPS_(X, F64, "f64", kRegF64)                                               \
  /* Select: dst = cond != 0 ? a : b. */                                                 \
  X(SelectI32, "select.i32", 0, kRegI32, kRegI32, kRegI32, kRegI32)                      \
  X(SelectI64, "select.i64", 0, kRegI64, kRegI32, kRegI64, kRegI64)                      \
  X(SelectF32, "select.f32", 0, kRegF32, kRegI32, kRegF32, kRegF32)                      \
  X(SelectF64, "select.f64", 0, kRegF64, kRegI32, kRegF64, kRegF64)                      \
  X(SelectRef, "select.ref", 0, kRegRef, kRegI32, kRegRef, kRegRef)                      \
  /* Conversions. */                                                                     \
  X(TruncI64I32, "trunc.i64.i32", 0, kRegI32, kRegI64)                                   \
  X(TruncI32I8, "trunc.i32.i8", 0, kRegI32, kRegI32)                                     \
  X(TruncI32I16, "trunc.i32.i16", 0, kRegI32, kRegI32)                                   \
  X(ExtI8I32S, "ext.i8.i32.s", 0, kRegI32, kRegI32)                                      \
  X(ExtI16I32S, "ext.i16.i32.s", 0, kRegI32, kRegI32)                                    \
  X(ExtI32I64S, "ext.i32.i64.s", 0, kRegI64, kRegI32)                                    \
  X(ExtI32I64U, "ext.i32.i64.u", 0, kRegI64, kRegI32)                                    \
  X(CastSI32F32, "cast.si32.f32", 0, kRegF32, kRegI32)                                   \
  X(CastUI32F32, "cast.ui32.f32", 0, kRegF32, kRegI32)                                   \
  X(CastSI32F64, "cast.si32.f64", 0, kRegF64, kRegI32)                                   \
  X(CastUI32F64, "cast.ui32.f64", 0, kRegF64, kRegI32)                                   \
  X(CastSI64F32, "cast.si64.f32", 0, kRegF32, kRegI64)                                   \
  X(CastUI64F32, "cast.ui64.f32", 0, kRegF32, kRegI64)                                   \
  X(CastSI64F64, "cast.si64.f64", 0, kRegF64, kRegI64)                                   \
  X(CastUI64F64, "cast.ui64.f64", 0, kRegF64, kRegI64)                                   \
  X(CastF32SI32, "cast.f32.si32", 0, kRegI32, kRegF32)                                   \
  X(CastF32UI32, "cast.f32.ui32", 0, kRegI32, kRegF32)                                   \
  X(CastF64SI32, "cast.f64.si32", 0, kRegI32, kRegF64)                                   \
  X(CastF64UI32, "cast.f64.ui32", 0, kRegI32, kRegF64)                                   \
  X(CastF32SI64, "cast.f32.si64", 0, kRegI64, kRegF32)                                   \
  X(CastF32UI64, "cast.f32.ui64", 0, kRegI64, kRegF32)                                   \
  X(CastF64SI64, "cast.f64.si64", 0, kRegI64, kRegF64)                                   \
  X(CastF64UI64, "cast.f64.ui64", 0, kRegI64, kRegF64)                                   \
  X(ExtF32F64, "ext.f32.f64", 0, kRegF64, kRegF32)                                       \
  X(TruncF64F32, "trunc.f64.f32", 0, kRegF32, kRegF64)                                   \
  X(BitcastI32F32, "bitcast.i32.f32", 0, kRegF32, kRegI32)                               \
  X(BitcastF32I32, "bitcast.f32.i32", 0, kRegI32, kRegF32)                               \
  X(BitcastI64F64, "bitcast.i64.f64", 0, kRegF64, kRegI64)                               \
  X(BitcastF64I64, "bitcast.f64.i64", 0, kRegI64, kRegF64)                               \
  /* Control flow. */                                                                    \
  X(Br, "br", kTerminator, kTarget)                                                      \
  X(CondBr, "cond_br", kTerminator, kRegI32, kTarget, kTarget)                           \
  X(Switch, "switch", kTerminator, kRegI32, kTarget, kSwitchTargets)                     \
  X(Return, "return", kTerminator, kReturnValues)                                        \
  X(Fail, "fail", kTerminator, kString)                                                  \
  X(Call, "call", 0, kFunction, kCallArgs, kCallResults)                                 \
  X(CallImport, "call.import", 0, kImport, kCallArgs, kCallResults)                      \
  X(ImportResolved, "import.resolved", 0, kRegI32, kImport)                              \
  /* Fused compare-and-branch: the hot loop back-edge in one dispatch. */                \
  X(BrLtI32S, "br.lt.i32.s", kTerminator, kRegI32, kRegI32, kTarget, kTarget)            \
  X(BrLtI64S, "br.lt.i64.s", kTerminator, kRegI64, kRegI64, kTarget, kTarget)            \
  /* Globals. */                                                                         \
  X(GlobalLoadI32, "global.load.i32", 0, kRegI32, kGlobal32)                             \
  X(GlobalLoadI64, "global.load.i64", 0, kRegI64, kGlobal64)                             \
  X(GlobalLoadF32, "global.load.f32", 0, kRegF32, kGlobal32)                             \
  X(GlobalLoadF64, "global.load.f64", 0, kRegF64, kGlobal64)                             \
  X(GlobalLoadRef, "global.load.ref", 0, kRegRef, kGlobalRef)                            \
  X(GlobalStoreI32, "global.store.i32", 0, kGlobal32, kRegI32)                           \
  X(GlobalStoreI64, "global.store.i64", 0, kGlobal64, kRegI64)                           \
  X(GlobalStoreF32, "global.store.f32", 0, kGlobal32, kRegF32)                           \
  X(GlobalStoreF64, "global.store.f64", 0, kGlobal64, kRegF64)                           \
  X(GlobalStoreRef, "global.store.ref", 0, kGlobalRef, kRegRef)                          \
  /* Refs. */                                                                            \
  X(RefIsNull, "ref.is_null", 0, kRegI32, kRegRef)                                       \
  X(RefEq, "ref.eq", 0, kRegI32, kRegRef, kRegRef)                                       \
  X(RefIsType, "ref.is_type", 0, kRegI32, kRegRef, kType)                                \
  /* Variant lists: alloc(dst, capacity), size, resize, get/set by i32 index. */         \
  X(ListAlloc, "list.alloc", 0, kRegRef, kRegI32)                                        \
  X(ListSize, "list.size", 0, kRegI32, kRegRef)                                          \
  X(ListResize, "list.resize", 0, kRegRef, kRegI32)                                      \
  X(ListGetI32, "list.get.i32", 0, kRegI32, kRegRef, kRegI32)                            \
  X(ListGetI64, "list.get.i64", 0, kRegI64, kRegRef, kRegI32)                            \
  X(ListGetF32, "list.get.f32", 0, kRegF32, kRegRef, kRegI32)                            \
  X(ListGetF64, "list.get.f64", 0, kRegF64, kRegRef, kRegI32)                            \
  X(ListGetRef, "list.get.ref", 0, kRegRef, kRegRef, kRegI32)                            \
  X(ListSetI32, "list.set.i32", 0, kRegRef, kRegI32, kRegI32)                            \
  X(ListSetI64, "list.set.i64", 0, kRegRef, kRegI32, kRegI64)                            \
  X(ListSetF32, "list.set.f32", 0, kRegRef, kRegI32, kRegF32)                            \
  X(ListSetF64, "list.set.f64", 0, kRegRef, kRegI32, kRegF64)                            \
  X(ListSetRef, "list.set.ref", 0, kRegRef, kRegI32, kRegRef)                            \
  /* Byte buffers: alloc(dst, length), length, copy(src, src_off, dst, dst_off, len), */ \
  /* fill(buf, off, len, byte), load(dst, buf, off), store(buf, off, value). */          \
  X(BufferAlloc, "buffer.alloc", 0, kRegRef, kRegI64)                                    \
  X(BufferLength, "buffer.length", 0, kRegI64, kRegRef)                                  \
  X(BufferCopy, "buffer.copy", 0, kRegRef, kRegI64, kRegRef, kRegI64, kRegI64)           \
  X(BufferFill, "buffer.fill", 0, kRegRef, kRegI64, kRegI64, kRegI32)                    \
  X(BufferLoadI8S, "buffer.load.i8.s", 0, kRegI32, kRegRef, kRegI64)                     \
  X(BufferLoadI8U, "buffer.load.i8.u", 0, kRegI32, kRegRef, kRegI64)                     \
  X(BufferLoadI16S, "buffer.load.i16.s", 0, kRegI32, kRegRef, kRegI64)                   \
  X(BufferLoadI16U, "buffer.load.i16.u", 0, kRegI32, kRegRef, kRegI64)                   \
  X(BufferLoadI32, "buffer.load.i32", 0, kRegI32, kRegRef, kRegI64)                      \
  X(BufferLoadI64, "buffer.load.i64", 0, kRegI64, kRegRef, kRegI64)                      \
  X(BufferLoadF32, "buffer.load.f32", 0, kRegF32, kRegRef, kRegI64)                      \
  X(BufferLoadF64, "buffer.load.f64", 0, kRegF64, kRegRef, kRegI64)                      \
  X(BufferStoreI8, "buffer.store.i8", 0, kRegRef, kRegI64, kRegI32)                      \
  X(BufferStoreI16, "buffer.store.i16", 0, kRegRef, kRegI64, kRegI32)                    \
  X(BufferStoreI32, "buffer.store.i32", 0, kRegRef, kRegI64, kRegI32)                    \
  X(BufferStoreI64, "buffer.store.i64", 0, kRegRef, kRegI64, kRegI64)                    \
  X(BufferStoreF32, "buffer.store.f32", 0, kRegRef, kRegI64, kRegF32)                    \
  X(BufferStoreF64, "buffer.store.f64", 0, kRegRef, kRegI64, kRegF64)                    \
  /* Debugging: print the string and the operands through the context's trace sink. */  \
  X(Trace, "trace", 0, kString, kTraceOperands)                                          \
  /* Constant-operand forms (as Lua's ADDI/LTI): the immediate is sign-extended and */   \
  /* the addition wraps. New opcodes go last so existing encodings never change. */      \
  X(BrLtImmI32S, "br.lt.imm.i32.s", kTerminator, kRegI32, kImmI32, kTarget, kTarget)     \
  X(AddImmI32, "add.imm.i32", 0, kRegI32, kRegI32, kImmI32)                              \
  X(AddImmI64, "add.imm.i64", 0, kRegI64, kRegI64, kImmI32)                              \
  /* Counted-loop back-edge (as Lua's FORLOOP): i += step (sign-extended immediate, */   \
  /* wrapping), then branch to the body while i < bound (signed), else to the exit. */  \
  X(ForStepI32, "for.step.i32", kTerminator, kRegI32, kImmI32, kRegI32, kTarget, kTarget) \
  X(ForStepI64, "for.step.i64", kTerminator, kRegI64, kImmI32, kRegI64, kTarget, kTarget)

// Integer ops for one width: binary ops are (dst, a, b), unary ops (dst, a).
#define KILN_INT_OPS_(X, T, t, R)                    \
  X(Add##T, "add." t, 0, R, R, R)                    \
  X(Sub##T, "sub." t, 0, R, R, R)                    \
  X(Mul##T, "mul." t, 0, R, R, R)                    \
  X(DivS##T, "div." t ".s", 0, R, R, R)              \
  X(DivU##T, "div." t ".u", 0, R, R, R)              \
  X(RemS##T, "rem." t ".s", 0, R, R, R)              \
  X(RemU##T, "rem." t ".u", 0, R, R, R)              \
  X(MinS##T, "min." t ".s", 0, R, R, R)              \
  X(MaxS##T, "max." t ".s", 0, R, R, R)              \
  X(MinU##T, "min." t ".u", 0, R, R, R)              \
  X(MaxU##T, "max." t ".u", 0, R, R, R)              \
  X(Abs##T, "abs." t, 0, R, R)                       \
  X(Neg##T, "neg." t, 0, R, R)                       \
  X(And##T, "and." t, 0, R, R, R)                    \
  X(Or##T, "or." t, 0, R, R, R)                      \
  X(Xor##T, "xor." t, 0, R, R, R)                    \
  X(Not##T, "not." t, 0, R, R)                       \
  X(Shl##T, "shl." t, 0, R, R, R)                    \
  X(ShrS##T, "shr." t ".s", 0, R, R, R)              \
  X(ShrU##T, "shr." t ".u", 0, R, R, R)

#define KILN_FLOAT_OPS_(X, T, t, R)                  \
  X(Add##T, "add." t, 0, R, R, R)                    \
  X(Sub##T, "sub." t, 0, R, R, R)                    \
  X(Mul##T, "mul." t, 0, R, R, R)                    \
  X(Div##T, "div." t, 0, R, R, R)                    \
  X(Rem##T, "rem." t, 0, R, R, R)                    \
  X(Min##T, "min." t, 0, R, R, R)                    \
  X(Max##T, "max." t, 0, R, R, R)                    \
  X(Pow##T, "pow." t, 0, R, R, R)                    \
  X(Fma##T, "fma." t, 0, R, R, R, R)                 \
  X(Neg##T, "neg." t, 0, R, R)                       \
  X(Abs##T, "abs." t, 0, R, R)                       \
  X(Sqrt##T, "sqrt." t, 0, R, R)                     \
  X(Exp##T, "exp." t, 0, R, R)                       \
  X(Log##T, "log." t, 0, R, R)                       \
  X(Sin##T, "sin." t, 0, R, R)                       \
  X(Cos##T, "cos." t, 0, R, R)                       \
  X(Tanh##T, "tanh." t, 0, R, R)                     \
  X(Floor##T, "floor." t, 0, R, R)                   \
  X(Ceil##T, "ceil." t, 0, R, R)                     \
  X(Round##T, "round." t, 0, R, R)

// Integer compares write 0/1 to an i32 register.
#define KILN_INT_CMPS_(X, T, t, R)                   \
  X(CmpEq##T, "cmp.eq." t, 0, kRegI32, R, R)         \
  X(CmpNe##T, "cmp.ne." t, 0, kRegI32, R, R)         \
  X(CmpLtS##T, "cmp.lt." t ".s", 0, kRegI32, R, R)   \
  X(CmpLeS##T, "cmp.le." t ".s", 0, kRegI32, R, R)   \
  X(CmpGtS##T, "cmp.gt." t ".s", 0, kRegI32, R, R)   \
  X(CmpGeS##T, "cmp.ge." t ".s", 0, kRegI32, R, R)   \
  X(CmpLtU##T, "cmp.lt." t ".u", 0, kRegI32, R, R)   \
  X(CmpLeU##T, "cmp.le." t ".u", 0, kRegI32, R, R)   \
  X(CmpGtU##T, "cmp.gt." t ".u", 0, kRegI32, R, R)   \
  X(CmpGeU##T, "cmp.ge." t ".u", 0, kRegI32, R, R)

// Float compares: ordered (false if either is NaN) and unordered (true if
// either is NaN) forms of each relation, plus ord/uno themselves.
#define KILN_FLOAT_CMPS_(X, T, t, R)                 \
  X(CmpOeq##T, "cmp.oeq." t, 0, kRegI32, R, R)       \
  X(CmpOne##T, "cmp.one." t, 0, kRegI32, R, R)       \
  X(CmpOlt##T, "cmp.olt." t, 0, kRegI32, R, R)       \
  X(CmpOle##T, "cmp.ole." t, 0, kRegI32, R, R)       \
  X(CmpOgt##T, "cmp.ogt." t, 0, kRegI32, R, R)       \
  X(CmpOge##T, "cmp.oge." t, 0, kRegI32, R, R)       \
  X(CmpUeq##T, "cmp.ueq." t, 0, kRegI32, R, R)       \
  X(CmpUne##T, "cmp.une." t, 0, kRegI32, R, R)       \
  X(CmpUlt##T, "cmp.ult." t, 0, kRegI32, R, R)       \
  X(CmpUle##T, "cmp.ule." t, 0, kRegI32, R, R)       \
  X(CmpUgt##T, "cmp.ugt." t, 0, kRegI32, R, R)       \
  X(CmpUge##T, "cmp.uge." t, 0, kRegI32, R, R)       \
  X(CmpOrd##T, "cmp.ord." t, 0, kRegI32, R, R)       \
  X(CmpUno##T, "cmp.uno." t, 0, kRegI32, R, R)

inline constexpr uint8_t kTerminator = 1;

enum class Opcode : uint8_t {
#define KILN_OPCODE_ENUM_(name, mnemonic, flags, ...) k##name,
  KILN_FOR_EACH_OPCODE(KILN_OPCODE_ENUM_)
#undef KILN_OPCODE_ENUM_
      kCount,
};
static_assert(static_cast<int>(Opcode::kCount) <= 256, "opcodes are one byte");
inline constexpr int kOpcodeCount = static_cast<int>(Opcode::kCount);

inline constexpr int kMaxFixedOperands = 5;

// A function's registers, all banks together, may number at most this many:
// the loader rewrites each u16 register operand into a u16 frame slot index.
inline constexpr uint32_t kMaxFrameSlots = 65535;

struct OpcodeInfo {
  std::string_view mnemonic;
  uint8_t flags;
  uint8_t operand_count;
  OperandKind operands[kMaxFixedOperands];
  bool is_terminator() const { return flags & kTerminator; }
};

#define KILN_OPCODE_INFO_(name, mnemonic, flags, ...)                                \
  OpcodeInfo{mnemonic, flags,                                                        \
             static_cast<uint8_t>(sizeof((OperandKind[]){__VA_ARGS__}) / sizeof(OperandKind)), \
             {__VA_ARGS__}},
namespace opcode_table_detail {
using enum OperandKind;
inline constexpr OpcodeInfo kOpcodeTable[] = {KILN_FOR_EACH_OPCODE(KILN_OPCODE_INFO_)};
}  // namespace opcode_table_detail
#undef KILN_OPCODE_INFO_
static_assert(sizeof(opcode_table_detail::kOpcodeTable) / sizeof(OpcodeInfo) == kOpcodeCount);

// Table indexed by opcode value.
constexpr const OpcodeInfo& GetOpcodeInfo(Opcode opcode) {
  return opcode_table_detail::kOpcodeTable[static_cast<int>(opcode)];
}
inline bool IsValidOpcode(uint8_t byte) { return byte < kOpcodeCount; }

// Encoded size of one operand of a fixed-size kind (not the variadic kinds).
constexpr int FixedOperandSize(OperandKind kind) {
  switch (kind) {
    case OperandKind::kRegI32:
    case OperandKind::kRegI64:
    case OperandKind::kRegF32:
    case OperandKind::kRegF64:
    case OperandKind::kRegRef:
      return 2;
    case OperandKind::kImmI64:
    case OperandKind::kImmF64:
      return 8;
    default:
      return 4;
  }
}

constexpr bool IsVariadicKind(OperandKind kind) { return kind >= OperandKind::kCallArgs; }

// Length in bytes of an instruction without variadic operands (opcode byte
// included); for variadic instructions, the length of the fixed prefix.
constexpr int FixedLength(Opcode opcode) {
  const OpcodeInfo& info = GetOpcodeInfo(opcode);
  int length = 1;
  for (int i = 0; i < info.operand_count; ++i) {
    if (!IsVariadicKind(info.operands[i])) length += FixedOperandSize(info.operands[i]);
  }
  return length;
}

// Encoded size of the operand of kind `kind` that starts at `at`, variadic
// kinds included (their counts are read from `at`). Only for bytecode the
// verifier accepted: nothing here is bounds-checked.
inline size_t EncodedOperandSize(OperandKind kind, const uint8_t* at) {
  switch (kind) {
    case OperandKind::kCallArgs:
    case OperandKind::kCallResults:
    case OperandKind::kReturnValues:
      return 1 + 2 * size_t{at[0]};
    case OperandKind::kSwitchTargets:
      return 2 + 4 * (size_t{at[0]} | size_t{at[1]} << 8);
    case OperandKind::kTraceOperands:
      return 1 + 3 * size_t{at[0]};
    default:
      return static_cast<size_t>(FixedOperandSize(kind));
  }
}

constexpr bool IsRegisterKind(OperandKind kind) { return kind <= OperandKind::kRegRef; }
constexpr Bank BankOfRegisterKind(OperandKind kind) { return static_cast<Bank>(kind); }

// The member of a per-bank opcode family (mov, select, global.load,
// global.store: one opcode per bank, listed in Bank order) for `bank`, given
// the family's i32 form.
constexpr Opcode OpcodeOfBank(Opcode i32_form, Bank bank) {
  return static_cast<Opcode>(static_cast<int>(i32_form) + static_cast<int>(bank));
}
static_assert(OpcodeOfBank(Opcode::kMovI32, Bank::kRef) == Opcode::kMovRef);
static_assert(OpcodeOfBank(Opcode::kMovI32, Bank::kF64) == Opcode::kMovF64);
static_assert(OpcodeOfBank(Opcode::kSelectI32, Bank::kRef) == Opcode::kSelectRef);
static_assert(OpcodeOfBank(Opcode::kGlobalLoadI32, Bank::kRef) == Opcode::kGlobalLoadRef);
static_assert(OpcodeOfBank(Opcode::kGlobalLoadI32, Bank::kF32) == Opcode::kGlobalLoadF32);
static_assert(OpcodeOfBank(Opcode::kGlobalStoreI32, Bank::kRef) == Opcode::kGlobalStoreRef);
static_assert(OpcodeOfBank(Opcode::kGlobalStoreI32, Bank::kI64) == Opcode::kGlobalStoreI64);

// Bank of a calling-convention character, or false if it is not one.
bool BankOfTypeChar(char c, Bank* bank);
char TypeCharOfBank(Bank bank);
std::string_view BankName(Bank bank);  // "i32", "i64", "f32", "f64", "ref"

}  // namespace kiln::vm
