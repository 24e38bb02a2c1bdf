#include "vm/interpreter.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "vm/list.h"
#include "vm/signature.h"

namespace kiln::vm {
namespace {

// One register of any bank. Frames are arrays of slots (see FunctionInfo);
// the bank an instruction reads is fixed by its opcode and was verified, so
// each slot is only ever read as the member it was written as.
union Slot {
  int32_t i32;
  int64_t i64;
  float f32;
  double f64;
  Object* ref;  // Owning: each non-null ref slot holds one reference.
  uint64_t bits;
};
static_assert(sizeof(Slot) == 8);

// Typed views of the current frame's slots: `ri[r]` reads slot r as an i32.
// They hold a reference to the frame pointer so they follow calls/returns.
#define KILN_SLOT_VIEW_(View, T, member)                        \
  struct View {                                                 \
    Slot* const& slots;                                         \
    T& operator[](uint32_t i) const { return slots[i].member; } \
  };
KILN_SLOT_VIEW_(I32View, int32_t, i32)
KILN_SLOT_VIEW_(I64View, int64_t, i64)
KILN_SLOT_VIEW_(F32View, float, f32)
KILN_SLOT_VIEW_(F64View, double, f64)
KILN_SLOT_VIEW_(RefView, Object*, ref)
#undef KILN_SLOT_VIEW_

// Frame header, stored at the start of each frame in the stack arena.
// Kept to three words because every call writes it: everything else is
// derived when needed (the arena top before the frame is the frame's own
// address, the caller's call instruction and return address follow from
// `result_list` and the callee's argument count).
struct Frame {
  const FunctionInfo* function;
  Frame* caller;               // Null for the entry frame of an Execute call.
  const uint8_t* result_list;  // Caller's call-instruction result list.
};

// Encoded call and call.import instructions: opcode, u32 callee, u8
// argument count, the argument registers, then the result list.
constexpr int kCallArgListOffset = 5;

// The caller's call instruction that created `frame`.
inline const uint8_t* CallSiteOf(const Frame* frame) {
  return frame->result_list - 2 * frame->function->arguments.size() - 1 - kCallArgListOffset;
}
// Where the caller continues after `frame` returns.
inline const uint8_t* ReturnAddressOf(const Frame* frame) {
  return frame->result_list + 1 + 2 * frame->result_list[0];
}
static_assert(sizeof(Frame) <= kFrameHeaderBytes);

inline Slot* SlotsOf(Frame* frame) {
  return reinterpret_cast<Slot*>(reinterpret_cast<uint8_t*>(frame) + kFrameHeaderBytes);
}

template <typename T>
inline T Load(const uint8_t* p) {
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

inline void SetRef(Object** slot, Object* value) {
  if (value) value->Retain();
  Object* old = *slot;
  *slot = value;
  if (old) old->Release();
}

// Reads a slot as a value of calling-convention type `type` ('i', 'I', 'f',
// 'F' or 'r'); a ref is retained by the returned Variant.
inline Variant SlotToVariant(char type, const Slot& slot) {
  switch (type) {
    case 'i':
      return Variant::I32(slot.i32);
    case 'I':
      return Variant::I64(slot.i64);
    case 'f':
      return Variant::F32(slot.f32);
    case 'F':
      return Variant::F64(slot.f64);
    default:
      return Variant::FromRef(Ref<Object>(slot.ref));
  }
}

// Stores `value`, which has calling-convention type `type`, into `slot`
// (retaining a ref and releasing the slot's previous one).
inline void StoreVariant(char type, const Variant& value, Slot* slot) {
  switch (type) {
    case 'i':
      slot->i32 = value.i32();
      break;
    case 'I':
      slot->i64 = value.i64();
      break;
    case 'f':
      slot->f32 = value.f32();
      break;
    case 'F':
      slot->f64 = value.f64();
      break;
    default:
      SetRef(&slot->ref, value.ref().get());
      break;
  }
}

// Constructs at `at` a Variant of `type` holding the value of `slot`,
// borrowing a ref rather than retaining it: the caller passes it to an import
// while the register keeps its reference, and never runs its destructor (the
// storage is simply reused), so no reference count changes. An import that
// keeps the value copies the Variant, which retains.
inline void BorrowSlot(ValueType type, const Slot& slot, Variant* at) {
  if (type == ValueType::kRef) {  // Most import arguments are refs: tested first.
    new (at) Variant(Variant::FromRef(Ref<Object>::Adopt(slot.ref)));
    return;
  }
  switch (type) {
    case ValueType::kI32:
      new (at) Variant(Variant::I32(slot.i32));
      break;
    case ValueType::kI64:
      new (at) Variant(Variant::I64(slot.i64));
      break;
    case ValueType::kF32:
      new (at) Variant(Variant::F32(slot.f32));
      break;
    default:
      new (at) Variant(Variant::F64(slot.f64));
      break;
  }
}

// Stores `value` (already checked to have the register's type) into `slot`,
// moving a ref in (the Variant's reference becomes the register's) and
// releasing the slot's previous one.
inline void MoveVariantToSlot(Variant& value, Slot* slot) {
  switch (value.type()) {
    case ValueType::kI32:
      slot->i32 = value.i32();
      break;
    case ValueType::kI64:
      slot->i64 = value.i64();
      break;
    case ValueType::kF32:
      slot->f32 = value.f32();
      break;
    case ValueType::kF64:
      slot->f64 = value.f64();
      break;
    default: {
      Object* old = slot->ref;
      slot->ref = value.TakeRef().Detach();
      if (old) old->Release();
      break;
    }
  }
}

// Releases the ref bank of a frame.
inline void ReleaseRefs(Slot* slots, const FunctionInfo& fn) {
  Slot* refs = slots + fn.bank_slots[4];
  for (uint32_t i = 0; i < fn.register_counts[4]; ++i) {
    if (refs[i].ref) {
      refs[i].ref->Release();
      refs[i].ref = nullptr;
    }
  }
}

inline void ClearRefs(Slot* slots, const FunctionInfo& fn) {
  if (fn.register_counts[4]) {
    std::memset(slots + fn.bank_slots[4], 0, sizeof(Slot) * fn.register_counts[4]);
  }
}

// Float → integer conversions saturate and send NaN to 0.
template <typename I, typename F>
inline I SaturatingCast(F value) {
  if (value != value) return 0;
  constexpr I kMin = std::numeric_limits<I>::min();
  constexpr I kMax = std::numeric_limits<I>::max();
  if (value <= static_cast<F>(kMin)) return kMin;
  if (value >= static_cast<F>(kMax)) return kMax;
  return static_cast<I>(value);
}

// IEEE 754-2019 minimum/maximum: NaN-propagating, -0 < +0 (arith.minimumf).
template <typename F>
inline F Minimum(F a, F b) {
  if (a != a || b != b) return std::numeric_limits<F>::quiet_NaN();
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
template <typename F>
inline F Maximum(F a, F b) {
  if (a != a || b != b) return std::numeric_limits<F>::quiet_NaN();
  if (a == b) return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

// True when both 64-bit operands are small enough for a 32-bit divide, which
// is several times cheaper than a 64-bit one on many x86 cores.
template <typename T>
inline bool FitsDivide32(T a, T b) {
  if constexpr (sizeof(T) == 8) {
    return static_cast<uint64_t>(a) <= INT32_MAX && static_cast<uint64_t>(b) <= INT32_MAX;
  } else {
    return false;
  }
}
template <typename T>
inline T DivS(T a, T b) {
  if (FitsDivide32(a, b)) return static_cast<uint32_t>(a) / static_cast<uint32_t>(b);
  return (a == std::numeric_limits<T>::min() && b == -1) ? a : a / b;
}
template <typename T>
inline T RemS(T a, T b) {
  if (FitsDivide32(a, b)) return static_cast<uint32_t>(a) % static_cast<uint32_t>(b);
  return b == -1 ? 0 : a % b;
}

template <Opcode kOpcode>
constexpr int kInstructionLength = FixedLength(kOpcode);

// Bound on list sizes requested by bytecode.
constexpr int32_t kMaxListSize = 1 << 24;

inline uint32_t OrdinalOf(const BytecodeModule& module, const FunctionInfo* fn) {
  return static_cast<uint32_t>(fn - module.functions().data());
}

// The message List gives for an index past the end, for negative indices too.
std::string ListIndexError(int32_t index, const List& list) {
  return "list index " + std::to_string(index) + " out of range (size " +
         std::to_string(list.size()) + ")";
}

std::string RefDescription(const Object* object) {
  return object ? std::string(object->type().name) : std::string("null");
}

// The interpreter loop. It is instantiated twice: kTrace = false is the
// normal loop; kTrace = true calls StackOptions::instruction_trace before
// every instruction. Execute picks one per invocation, so tracing costs the
// normal loop nothing (not even a test per instruction).
template <bool kTrace>
Status Run(const BytecodeModule& module, BytecodeModuleState& state, uint32_t function,
           std::span<const Variant> args, std::span<Variant> results, Stack& stack) {
  // Register files and globals of the current frame.
  const FunctionInfo* fn;
  Frame* frame;
  const uint8_t* pc;
  Slot* regs;
  const I32View ri{regs};
  const I64View rl{regs};
  const F32View rf{regs};
  const F64View rd{regs};
  const RefView rr{regs};
  const uint8_t* code;  // Start of the current function's bytecode.
  uint8_t* const globals = state.global_bytes();
  Object** const global_refs = state.global_refs();
  uint8_t* const arena = stack.arena();
  const size_t arena_capacity = stack.arena_capacity();
  const uint8_t* const arena_end = arena + arena_capacity;
  const int max_depth = stack.options().max_depth;
  const size_t entry_used = stack.used();
  const int entry_depth = stack.depth();
  Status trap_status;

#define KILN_LOAD_FRAME_() \
  do {                     \
    regs = SlotsOf(frame); \
    code = fn->code;       \
  } while (false)

  // --- Entry frame. ---
  fn = &module.function(function);
  if (stack.depth() >= max_depth || entry_used + fn->frame_bytes > arena_capacity) {
    return ResourceExhaustedError("stack overflow calling " + module.DescribeLocation(function, 0));
  }
  if (args.size() != fn->arguments.size() || results.size() != fn->results.size()) {
    return InvalidArgumentError("function '" + fn->name + "' called with " +
                                std::to_string(args.size()) + " argument(s) and " +
                                std::to_string(results.size()) + " result slot(s); signature " +
                                fn->signature);
  }
  frame = reinterpret_cast<Frame*>(arena + entry_used);
  *frame = Frame{fn, nullptr, nullptr};
  // The call depth lives in a local while the loop runs (stores through
  // register pointers would otherwise force reloads from the Stack); the arena
  // top is implied by the current frame. Both are written back to the Stack
  // around import calls and on exit.
  int depth = entry_depth + 1;
  int64_t budget = stack.budget();
  KILN_LOAD_FRAME_();
  ClearRefs(regs, *fn);
  for (size_t i = 0; i < args.size(); ++i) {
    StoreVariant(fn->arguments[i], args[i], &regs[fn->argument_slots[i]]);
  }
  pc = fn->code;

  // --- Dispatch. ---
  static const void* const kDispatch[256] = {
#define KILN_DISPATCH_ENTRY_(name, ...) &&op_##name,
      KILN_FOR_EACH_OPCODE(KILN_DISPATCH_ENTRY_)
#undef KILN_DISPATCH_ENTRY_
  };
  [[maybe_unused]] const InstructionTrace& instruction_trace = stack.options().instruction_trace;
  // Dispatches the instruction at pc (reporting it first when tracing; the
  // rewritten code has the original bytecode's offsets).
#define NEXT()                                                                            \
  do {                                                                                    \
    if constexpr (kTrace) {                                                               \
      instruction_trace(module, OrdinalOf(module, fn), static_cast<uint32_t>(pc - code)); \
    }                                                                                     \
    goto* kDispatch[*pc];                                                                 \
  } while (false)
#define R(offset) Load<uint16_t>(pc + (offset))
#define U32(offset) Load<uint32_t>(pc + (offset))
#define TRAP(status_expr)        \
  do {                           \
    trap_status = (status_expr); \
    goto trap;                   \
  } while (false)
#define OP(name) op_##name:
// Instruction lengths come from the opcode table, fixed at compile time.
#define LEN(name) kInstructionLength<Opcode::k##name>

// dst = expr(a, b) over one register file.
#define BINARY(name, file, T, expr) \
  OP(name) {                        \
    T a = file[R(3)];               \
    T b = file[R(5)];               \
    file[R(1)] = (expr);            \
    pc += LEN(name);                \
    NEXT();                         \
  }
#define UNARY(name, dst_file, src_file, T, expr) \
  OP(name) {                                     \
    T a = src_file[R(3)];                        \
    dst_file[R(1)] = (expr);                     \
    pc += LEN(name);                             \
    NEXT();                                      \
  }
#define COMPARE(name, file, T, expr) \
  OP(name) {                         \
    T a = file[R(3)];                \
    T b = file[R(5)];                \
    ri[R(1)] = (expr) ? 1 : 0;       \
    pc += LEN(name);                 \
    NEXT();                          \
  }

  NEXT();

  // Constants and moves.
  OP(ConstI32) {
    ri[R(1)] = Load<int32_t>(pc + 3);
    pc += LEN(ConstI32);
    NEXT();
  }
  OP(ConstI64) {
    rl[R(1)] = Load<int64_t>(pc + 3);
    pc += LEN(ConstI64);
    NEXT();
  }
  OP(ConstF32) {
    rf[R(1)] = Load<float>(pc + 3);
    pc += LEN(ConstF32);
    NEXT();
  }
  OP(ConstF64) {
    rd[R(1)] = Load<double>(pc + 3);
    pc += LEN(ConstF64);
    NEXT();
  }
  OP(ConstRefNull) {
    SetRef(&rr[R(1)], nullptr);
    pc += LEN(ConstRefNull);
    NEXT();
  }
  OP(ConstRefRodata) {
    SetRef(&rr[R(1)], module.rodata(U32(3)).get());
    pc += LEN(ConstRefRodata);
    NEXT();
  }
  OP(MovI32) {
    ri[R(1)] = ri[R(3)];
    pc += LEN(MovI32);
    NEXT();
  }
  OP(MovI64) {
    rl[R(1)] = rl[R(3)];
    pc += LEN(MovI64);
    NEXT();
  }
  OP(MovF32) {
    rf[R(1)] = rf[R(3)];
    pc += LEN(MovF32);
    NEXT();
  }
  OP(MovF64) {
    rd[R(1)] = rd[R(3)];
    pc += LEN(MovF64);
    NEXT();
  }
  OP(MovRef) {
    SetRef(&rr[R(1)], rr[R(3)]);
    pc += LEN(MovRef);
    NEXT();
  }

  // Integer arithmetic. Wrapping ops go through the unsigned type.
#define INT_OPS(T, S, U, file)                                                           \
  BINARY(Add##T, file, S, static_cast<S>(static_cast<U>(a) + static_cast<U>(b)))         \
  BINARY(Sub##T, file, S, static_cast<S>(static_cast<U>(a) - static_cast<U>(b)))         \
  BINARY(Mul##T, file, S, static_cast<S>(static_cast<U>(a) * static_cast<U>(b)))         \
  OP(DivS##T) {                                                                          \
    S a = file[R(3)], b = file[R(5)];                                                    \
    if (b == 0) TRAP(InvalidArgumentError("integer division by zero"));                  \
    file[R(1)] = DivS<S>(a, b);                                                          \
    pc += LEN(DivS##T);                                                                  \
    NEXT();                                                                              \
  }                                                                                      \
  OP(DivU##T) {                                                                          \
    U a = static_cast<U>(file[R(3)]), b = static_cast<U>(file[R(5)]);                    \
    if (b == 0) TRAP(InvalidArgumentError("integer division by zero"));                  \
    file[R(1)] = static_cast<S>(a / b);                                                  \
    pc += LEN(DivU##T);                                                                  \
    NEXT();                                                                              \
  }                                                                                      \
  OP(RemS##T) {                                                                          \
    S a = file[R(3)], b = file[R(5)];                                                    \
    if (b == 0) TRAP(InvalidArgumentError("integer remainder by zero"));                 \
    file[R(1)] = RemS<S>(a, b);                                                          \
    pc += LEN(RemS##T);                                                                  \
    NEXT();                                                                              \
  }                                                                                      \
  OP(RemU##T) {                                                                          \
    U a = static_cast<U>(file[R(3)]), b = static_cast<U>(file[R(5)]);                    \
    if (b == 0) TRAP(InvalidArgumentError("integer remainder by zero"));                 \
    file[R(1)] = static_cast<S>(a % b);                                                  \
    pc += LEN(RemU##T);                                                                  \
    NEXT();                                                                              \
  }                                                                                      \
  BINARY(MinS##T, file, S, a < b ? a : b)                                                \
  BINARY(MaxS##T, file, S, a > b ? a : b)                                                \
  BINARY(MinU##T, file, S, static_cast<U>(a) < static_cast<U>(b) ? a : b)                \
  BINARY(MaxU##T, file, S, static_cast<U>(a) > static_cast<U>(b) ? a : b)                \
  UNARY(Abs##T, file, file, S, a < 0 ? static_cast<S>(U{0} - static_cast<U>(a)) : a)     \
  UNARY(Neg##T, file, file, S, static_cast<S>(U{0} - static_cast<U>(a)))                 \
  BINARY(And##T, file, S, a& b)                                                          \
  BINARY(Or##T, file, S, a | b)                                                          \
  BINARY(Xor##T, file, S, a ^ b)                                                         \
  UNARY(Not##T, file, file, S, ~a)                                                       \
  BINARY(Shl##T, file, S,                                                                \
         static_cast<S>(static_cast<U>(a) << (static_cast<U>(b) & (sizeof(S) * 8 - 1)))) \
  BINARY(ShrS##T, file, S, a >> (static_cast<U>(b) & (sizeof(S) * 8 - 1)))               \
  BINARY(ShrU##T, file, S,                                                               \
         static_cast<S>(static_cast<U>(a) >> (static_cast<U>(b) & (sizeof(S) * 8 - 1))))
  INT_OPS(I32, int32_t, uint32_t, ri)
  INT_OPS(I64, int64_t, uint64_t, rl)
#undef INT_OPS

  // Float arithmetic.
#define FLOAT_OPS(T, F, file)                                  \
  BINARY(Add##T, file, F, a + b)                               \
  BINARY(Sub##T, file, F, a - b)                               \
  BINARY(Mul##T, file, F, a* b)                                \
  BINARY(Div##T, file, F, a / b)                               \
  BINARY(Rem##T, file, F, std::fmod(a, b))                     \
  BINARY(Min##T, file, F, Minimum(a, b))                       \
  BINARY(Max##T, file, F, Maximum(a, b))                       \
  BINARY(Pow##T, file, F, std::pow(a, b))                      \
  OP(Fma##T) {                                                 \
    file[R(1)] = std::fma(file[R(3)], file[R(5)], file[R(7)]); \
    pc += LEN(Fma##T);                                         \
    NEXT();                                                    \
  }                                                            \
  UNARY(Neg##T, file, file, F, -a)                             \
  UNARY(Abs##T, file, file, F, std::fabs(a))                   \
  UNARY(Sqrt##T, file, file, F, std::sqrt(a))                  \
  UNARY(Exp##T, file, file, F, std::exp(a))                    \
  UNARY(Log##T, file, file, F, std::log(a))                    \
  UNARY(Sin##T, file, file, F, std::sin(a))                    \
  UNARY(Cos##T, file, file, F, std::cos(a))                    \
  UNARY(Tanh##T, file, file, F, std::tanh(a))                  \
  UNARY(Floor##T, file, file, F, std::floor(a))                \
  UNARY(Ceil##T, file, file, F, std::ceil(a))                  \
  UNARY(Round##T, file, file, F, std::round(a))
  FLOAT_OPS(F32, float, rf)
  FLOAT_OPS(F64, double, rd)
#undef FLOAT_OPS

  // Comparisons.
#define INT_CMPS(T, S, U, file)                                       \
  COMPARE(CmpEq##T, file, S, a == b)                                  \
  COMPARE(CmpNe##T, file, S, a != b)                                  \
  COMPARE(CmpLtS##T, file, S, a < b)                                  \
  COMPARE(CmpLeS##T, file, S, a <= b)                                 \
  COMPARE(CmpGtS##T, file, S, a > b)                                  \
  COMPARE(CmpGeS##T, file, S, a >= b)                                 \
  COMPARE(CmpLtU##T, file, S, static_cast<U>(a) < static_cast<U>(b))  \
  COMPARE(CmpLeU##T, file, S, static_cast<U>(a) <= static_cast<U>(b)) \
  COMPARE(CmpGtU##T, file, S, static_cast<U>(a) > static_cast<U>(b))  \
  COMPARE(CmpGeU##T, file, S, static_cast<U>(a) >= static_cast<U>(b))
  INT_CMPS(I32, int32_t, uint32_t, ri)
  INT_CMPS(I64, int64_t, uint64_t, rl)
#undef INT_CMPS
#define FLOAT_CMPS(T, F, file)                   \
  COMPARE(CmpOeq##T, file, F, a == b)            \
  COMPARE(CmpOne##T, file, F, a<b || a> b)       \
  COMPARE(CmpOlt##T, file, F, a < b)             \
  COMPARE(CmpOle##T, file, F, a <= b)            \
  COMPARE(CmpOgt##T, file, F, a > b)             \
  COMPARE(CmpOge##T, file, F, a >= b)            \
  COMPARE(CmpUeq##T, file, F, !(a < b || a > b)) \
  COMPARE(CmpUne##T, file, F, !(a == b))         \
  COMPARE(CmpUlt##T, file, F, !(a >= b))         \
  COMPARE(CmpUle##T, file, F, !(a > b))          \
  COMPARE(CmpUgt##T, file, F, !(a <= b))         \
  COMPARE(CmpUge##T, file, F, !(a < b))          \
  COMPARE(CmpOrd##T, file, F, a == a && b == b)  \
  COMPARE(CmpUno##T, file, F, a != a || b != b)
  FLOAT_CMPS(F32, float, rf)
  FLOAT_CMPS(F64, double, rd)
#undef FLOAT_CMPS

  // Select.
  OP(SelectI32) {
    ri[R(1)] = ri[R(3)] ? ri[R(5)] : ri[R(7)];
    pc += LEN(SelectI32);
    NEXT();
  }
  OP(SelectI64) {
    rl[R(1)] = ri[R(3)] ? rl[R(5)] : rl[R(7)];
    pc += LEN(SelectI64);
    NEXT();
  }
  OP(SelectF32) {
    rf[R(1)] = ri[R(3)] ? rf[R(5)] : rf[R(7)];
    pc += LEN(SelectF32);
    NEXT();
  }
  OP(SelectF64) {
    rd[R(1)] = ri[R(3)] ? rd[R(5)] : rd[R(7)];
    pc += LEN(SelectF64);
    NEXT();
  }
  OP(SelectRef) {
    SetRef(&rr[R(1)], ri[R(3)] ? rr[R(5)] : rr[R(7)]);
    pc += LEN(SelectRef);
    NEXT();
  }

  // Conversions.
  UNARY(TruncI64I32, ri, rl, int64_t, static_cast<int32_t>(static_cast<uint32_t>(a)))
  UNARY(TruncI32I8, ri, ri, int32_t, a & 0xFF)
  UNARY(TruncI32I16, ri, ri, int32_t, a & 0xFFFF)
  UNARY(ExtI8I32S, ri, ri, int32_t, static_cast<int8_t>(a & 0xFF))
  UNARY(ExtI16I32S, ri, ri, int32_t, static_cast<int16_t>(a & 0xFFFF))
  UNARY(ExtI32I64S, rl, ri, int32_t, static_cast<int64_t>(a))
  UNARY(ExtI32I64U, rl, ri, int32_t, static_cast<int64_t>(static_cast<uint32_t>(a)))
  UNARY(CastSI32F32, rf, ri, int32_t, static_cast<float>(a))
  UNARY(CastUI32F32, rf, ri, int32_t, static_cast<float>(static_cast<uint32_t>(a)))
  UNARY(CastSI32F64, rd, ri, int32_t, static_cast<double>(a))
  UNARY(CastUI32F64, rd, ri, int32_t, static_cast<double>(static_cast<uint32_t>(a)))
  UNARY(CastSI64F32, rf, rl, int64_t, static_cast<float>(a))
  UNARY(CastUI64F32, rf, rl, int64_t, static_cast<float>(static_cast<uint64_t>(a)))
  UNARY(CastSI64F64, rd, rl, int64_t, static_cast<double>(a))
  UNARY(CastUI64F64, rd, rl, int64_t, static_cast<double>(static_cast<uint64_t>(a)))
  UNARY(CastF32SI32, ri, rf, float, SaturatingCast<int32_t>(a))
  UNARY(CastF32UI32, ri, rf, float, static_cast<int32_t>(SaturatingCast<uint32_t>(a)))
  UNARY(CastF64SI32, ri, rd, double, SaturatingCast<int32_t>(a))
  UNARY(CastF64UI32, ri, rd, double, static_cast<int32_t>(SaturatingCast<uint32_t>(a)))
  UNARY(CastF32SI64, rl, rf, float, SaturatingCast<int64_t>(a))
  UNARY(CastF32UI64, rl, rf, float, static_cast<int64_t>(SaturatingCast<uint64_t>(a)))
  UNARY(CastF64SI64, rl, rd, double, SaturatingCast<int64_t>(a))
  UNARY(CastF64UI64, rl, rd, double, static_cast<int64_t>(SaturatingCast<uint64_t>(a)))
  UNARY(ExtF32F64, rd, rf, float, static_cast<double>(a))
  UNARY(TruncF64F32, rf, rd, double, static_cast<float>(a))
  OP(BitcastI32F32) {
    std::memcpy(&rf[R(1)], &ri[R(3)], 4);
    pc += LEN(BitcastI32F32);
    NEXT();
  }
  OP(BitcastF32I32) {
    std::memcpy(&ri[R(1)], &rf[R(3)], 4);
    pc += LEN(BitcastF32I32);
    NEXT();
  }
  OP(BitcastI64F64) {
    std::memcpy(&rd[R(1)], &rl[R(3)], 8);
    pc += LEN(BitcastI64F64);
    NEXT();
  }
  OP(BitcastF64I64) {
    std::memcpy(&rl[R(1)], &rd[R(3)], 8);
    pc += LEN(BitcastF64I64);
    NEXT();
  }

  // Control flow.
  // Taken branches and calls spend the execution budget (StackOptions).
#define SPEND_BUDGET()                                                          \
  if (--budget < 0) {                                                           \
    TRAP(ResourceExhaustedError("execution budget of " +                        \
                                std::to_string(stack.options().branch_budget) + \
                                " taken branches and calls exhausted"));        \
  }
  OP(Br) {
    SPEND_BUDGET();
    pc = code + U32(1);
    NEXT();
  }
  OP(CondBr) {
    SPEND_BUDGET();
    pc = code + (ri[R(1)] ? U32(3) : U32(7));
    NEXT();
  }
  OP(BrLtI32S) {
    SPEND_BUDGET();
    pc = code + (ri[R(1)] < ri[R(3)] ? U32(5) : U32(9));
    NEXT();
  }
  OP(BrLtI64S) {
    SPEND_BUDGET();
    pc = code + (rl[R(1)] < rl[R(3)] ? U32(5) : U32(9));
    NEXT();
  }
  OP(BrLtImmI32S) {
    SPEND_BUDGET();
    pc = code + (ri[R(1)] < Load<int32_t>(pc + 3) ? U32(7) : U32(11));
    NEXT();
  }
  OP(ForStepI32) {
    SPEND_BUDGET();
    const int32_t i = static_cast<int32_t>(static_cast<uint32_t>(ri[R(1)]) +
                                           static_cast<uint32_t>(Load<int32_t>(pc + 3)));
    ri[R(1)] = i;
    pc = code + (i < ri[R(7)] ? U32(9) : U32(13));
    NEXT();
  }
  OP(ForStepI64) {
    SPEND_BUDGET();
    const int64_t i = static_cast<int64_t>(static_cast<uint64_t>(rl[R(1)]) +
                                           static_cast<uint64_t>(int64_t{Load<int32_t>(pc + 3)}));
    rl[R(1)] = i;
    pc = code + (i < rl[R(7)] ? U32(9) : U32(13));
    NEXT();
  }
  OP(AddImmI32) {
    ri[R(1)] = static_cast<int32_t>(static_cast<uint32_t>(ri[R(3)]) +
                                    static_cast<uint32_t>(Load<int32_t>(pc + 5)));
    pc += LEN(AddImmI32);
    NEXT();
  }
  OP(AddImmI64) {
    rl[R(1)] = static_cast<int64_t>(static_cast<uint64_t>(rl[R(3)]) +
                                    static_cast<uint64_t>(int64_t{Load<int32_t>(pc + 5)}));
    pc += LEN(AddImmI64);
    NEXT();
  }
  OP(Switch) {
    SPEND_BUDGET();
    uint32_t index = static_cast<uint32_t>(ri[R(1)]);
    uint16_t count = Load<uint16_t>(pc + 7);
    pc = code + (index < count ? U32(9 + 4 * index) : U32(3));
    NEXT();
  }
  OP(Fail) { TRAP(AbortedError(std::string(module.string(U32(1))))); }

  OP(Call) {
    SPEND_BUDGET();
    const FunctionInfo* callee = &module.function(U32(1));
    const uint8_t* arg_list = pc + kCallArgListOffset;
    const uint8_t* result_list = arg_list + 1 + 2 * arg_list[0];
    if (depth >= max_depth) {
      TRAP(ResourceExhaustedError("stack overflow: call depth limit of " +
                                  std::to_string(max_depth) + " exceeded"));
    }
    // Frames are contiguous: the callee's starts where the caller's ends.
    uint8_t* const callee_base = reinterpret_cast<uint8_t*>(frame) + fn->frame_bytes;
    if (callee_base + callee->frame_bytes > arena_end) {
      TRAP(ResourceExhaustedError("stack overflow: register frames exceed the " +
                                  std::to_string(arena_capacity) + "-byte stack"));
    }
    Frame* callee_frame = reinterpret_cast<Frame*>(callee_base);
    *callee_frame = Frame{callee, frame, result_list};
    ++depth;
    // Copy arguments into the callee's argument slots, in signature order:
    // one 8-byte move per primitive, a retain per ref.
    Slot* callee_regs = SlotsOf(callee_frame);
    const uint8_t count = arg_list[0];
    if (callee->ref_free) {
      // No refs anywhere in the callee: plain slot copies, the one-argument
      // case (most recursive helpers) without a loop.
      if (count == 1) {
        callee_regs[callee->first_argument_slot].bits = regs[Load<uint16_t>(arg_list + 1)].bits;
      } else {
        const uint16_t* arg_slots = callee->argument_slots.data();
        for (uint8_t i = 0; i < count; ++i) {
          callee_regs[arg_slots[i]].bits = regs[Load<uint16_t>(arg_list + 1 + 2 * i)].bits;
        }
      }
    } else {
      ClearRefs(callee_regs, *callee);
      const char* types = callee->arguments.data();
      const uint16_t* arg_slots = callee->argument_slots.data();
      for (uint8_t i = 0; i < count; ++i) {
        const Slot& value = regs[Load<uint16_t>(arg_list + 1 + 2 * i)];
        Slot& target = callee_regs[arg_slots[i]];
        if (types[i] == 'r') {
          SetRef(&target.ref, value.ref);
        } else {
          target.bits = value.bits;
        }
      }
    }
    frame = callee_frame;
    fn = callee;
    KILN_LOAD_FRAME_();
    pc = fn->code;
    NEXT();
  }

  OP(Return) {
    const uint8_t count = pc[1];
    if (!frame->caller) {
      // Leaving the entry frame: hand results to the host.
      for (uint8_t i = 0; i < count; ++i) {
        results[i] = SlotToVariant(fn->results[i], regs[Load<uint16_t>(pc + 2 + 2 * i)]);
      }
      ReleaseRefs(regs, *fn);
      stack.set_used(entry_used);
      stack.set_depth(entry_depth);
      stack.set_budget(budget);
      return OkStatus();
    }
    Frame* caller = frame->caller;
    const FunctionInfo* caller_fn = caller->function;
    Slot* caller_regs = SlotsOf(caller);
    const uint8_t* result_list = frame->result_list;
    if (fn->ref_free) {
      if (count == 1) {
        caller_regs[Load<uint16_t>(result_list + 1)].bits = regs[Load<uint16_t>(pc + 2)].bits;
      } else {
        for (uint8_t i = 0; i < count; ++i) {
          caller_regs[Load<uint16_t>(result_list + 1 + 2 * i)].bits =
              regs[Load<uint16_t>(pc + 2 + 2 * i)].bits;
        }
      }
    } else {
      const char* types = fn->results.data();
      for (uint8_t i = 0; i < count; ++i) {
        const Slot& value = regs[Load<uint16_t>(pc + 2 + 2 * i)];
        Slot& target = caller_regs[Load<uint16_t>(result_list + 1 + 2 * i)];
        if (types[i] == 'r') {
          SetRef(&target.ref, value.ref);
        } else {
          target.bits = value.bits;
        }
      }
      ReleaseRefs(regs, *fn);
    }
    --depth;
    pc = ReturnAddressOf(frame);
    frame = caller;
    fn = caller_fn;
    KILN_LOAD_FRAME_();
    NEXT();
  }

  OP(CallImport) {
    {  // Locals with destructors end before the dispatch jump.
      const uint32_t ordinal = U32(1);
      const ImportTarget& target = state.imports()[ordinal];
      if (!target.resolved()) {
        TRAP(FailedPreconditionError("call to optional import '" + module.imports()[ordinal].name +
                                     "' that was not resolved"));
      }
      if (depth >= max_depth) {
        TRAP(ResourceExhaustedError("stack overflow: call depth limit of " +
                                    std::to_string(max_depth) + " exceeded"));
      }
      // The verifier matched both lists to the import's signature, whose
      // value types (arguments, then results) were decoded at load.
      const uint8_t* arg_list = pc + kCallArgListOffset;
      const size_t arg_count = arg_list[0];
      const uint8_t* result_list = arg_list + 1 + 2 * arg_count;
      const size_t result_count = result_list[0];
      const ValueType* types = module.import_types(ordinal);
      // The values are Variants in the arena right above this frame (they
      // count as used while the import runs, so an invocation it makes on
      // this stack starts above them): no allocation, whatever the count.
      uint8_t* const values_base = reinterpret_cast<uint8_t*>(frame) + fn->frame_bytes;
      const size_t values_bytes = (arg_count + result_count) * sizeof(Variant);
      if (values_bytes > static_cast<size_t>(arena_end - values_base)) {
        TRAP(ResourceExhaustedError("stack overflow: the values of an import call exceed the " +
                                    std::to_string(arena_capacity) + "-byte stack"));
      }
      Variant* const values = reinterpret_cast<Variant*>(values_base);
      for (size_t i = 0; i < arg_count; ++i) {
        BorrowSlot(types[i], regs[Load<uint16_t>(arg_list + 1 + 2 * i)], &values[i]);
      }
      Variant* const result_values = values + arg_count;
      std::uninitialized_default_construct_n(result_values, result_count);
      stack.set_used(static_cast<size_t>(values_base + values_bytes - arena));
      stack.set_depth(depth + 1);
      stack.set_budget(budget);
      const std::span<const Variant> arg_span(values, arg_count);
      const std::span<Variant> result_span(result_values, result_count);
      Status status =
          target.entry.fn
              ? target.entry.fn(target.entry.data, *target.state, arg_span, result_span, stack)
              : target.module->Call(*target.state, target.ordinal, arg_span, result_span, stack);
      budget = stack.budget();
      if (!status.ok()) {
        std::destroy_n(result_values, result_count);  // What the import set before failing.
        TRAP(status.WithContext("import '" + module.imports()[ordinal].name + "' failed"));
      }
      for (size_t i = 0; i < result_count; ++i) {
        Variant& value = result_values[i];
        const ValueType expected = types[arg_count + i];
        if (value.type() != expected) {
          trap_status = InternalError("import '" + module.imports()[ordinal].name + "' returned " +
                                      value.ToString() + " for result " + std::to_string(i) +
                                      ", expected " + std::string(ValueTypeName(expected)));
          std::destroy_n(result_values, result_count);  // Those not moved into registers.
          goto trap;
        }
        MoveVariantToSlot(value, &regs[Load<uint16_t>(result_list + 1 + 2 * i)]);
      }
      // No destructors to run: every ref was moved into a register, and a
      // Variant of any other type holds no ref.
      pc = result_list + 1 + 2 * result_count;
    }
    NEXT();
  }

  OP(ImportResolved) {
    ri[R(1)] = state.imports()[U32(3)].resolved() ? 1 : 0;
    pc += LEN(ImportResolved);
    NEXT();
  }

  // Globals.
  OP(GlobalLoadI32) {
    std::memcpy(&ri[R(1)], globals + U32(3), 4);
    pc += LEN(GlobalLoadI32);
    NEXT();
  }
  OP(GlobalLoadI64) {
    std::memcpy(&rl[R(1)], globals + U32(3), 8);
    pc += LEN(GlobalLoadI64);
    NEXT();
  }
  OP(GlobalLoadF32) {
    std::memcpy(&rf[R(1)], globals + U32(3), 4);
    pc += LEN(GlobalLoadF32);
    NEXT();
  }
  OP(GlobalLoadF64) {
    std::memcpy(&rd[R(1)], globals + U32(3), 8);
    pc += LEN(GlobalLoadF64);
    NEXT();
  }
  OP(GlobalLoadRef) {
    SetRef(&rr[R(1)], global_refs[U32(3)]);
    pc += LEN(GlobalLoadRef);
    NEXT();
  }
  OP(GlobalStoreI32) {
    std::memcpy(globals + U32(1), &ri[R(5)], 4);
    pc += LEN(GlobalStoreI32);
    NEXT();
  }
  OP(GlobalStoreI64) {
    std::memcpy(globals + U32(1), &rl[R(5)], 8);
    pc += LEN(GlobalStoreI64);
    NEXT();
  }
  OP(GlobalStoreF32) {
    std::memcpy(globals + U32(1), &rf[R(5)], 4);
    pc += LEN(GlobalStoreF32);
    NEXT();
  }
  OP(GlobalStoreF64) {
    std::memcpy(globals + U32(1), &rd[R(5)], 8);
    pc += LEN(GlobalStoreF64);
    NEXT();
  }
  OP(GlobalStoreRef) {
    SetRef(&global_refs[U32(1)], rr[R(5)]);
    pc += LEN(GlobalStoreRef);
    NEXT();
  }

  // Refs.
  OP(RefIsNull) {
    ri[R(1)] = rr[R(3)] == nullptr;
    pc += LEN(RefIsNull);
    NEXT();
  }
  OP(RefEq) {
    ri[R(1)] = rr[R(3)] == rr[R(5)];
    pc += LEN(RefEq);
    NEXT();
  }
  OP(RefIsType) {
    Object* object = rr[R(3)];
    ri[R(1)] = object && &object->type() == &module.type(U32(5));
    pc += LEN(RefIsType);
    NEXT();
  }

  // Lists and buffers: refs are checked for null and type, indices for range.
#define AS(T, var, offset)                                                                        \
  T* var = DynCast<T>(rr[R(offset)]);                                                             \
  if (!var) {                                                                                     \
    TRAP(InvalidArgumentError("expected a " + std::string(T::Type().name) + " in register ref:" + \
                              std::to_string(R(offset) - fn->bank_slots[4]) + ", got " +          \
                              RefDescription(rr[R(offset)])));                                    \
  }
  OP(ListAlloc) {
    {  // Locals with destructors end before the dispatch jump.
      int32_t capacity = ri[R(3)];
      if (capacity < 0 || capacity > kMaxListSize) {
        TRAP(OutOfRangeError("list capacity " + std::to_string(capacity) + " out of range"));
      }
      Ref<List> list = List::Create(static_cast<size_t>(capacity));
      SetRef(&rr[R(1)], list.get());
      pc += LEN(ListAlloc);
    }
    NEXT();
  }
  OP(ListSize) {
    AS(List, list, 3);
    ri[R(1)] = static_cast<int32_t>(list->size());
    pc += LEN(ListSize);
    NEXT();
  }
  OP(ListResize) {
    AS(List, list, 1);
    int32_t size = ri[R(3)];
    if (size < 0 || size > kMaxListSize) {
      TRAP(OutOfRangeError("list size " + std::to_string(size) + " out of range"));
    }
    list->Resize(static_cast<size_t>(size));
    pc += LEN(ListResize);
    NEXT();
  }
#define LIST_GET(name, file, getter)                                            \
  OP(name) {                                                                    \
    {                                                                           \
      AS(List, list, 3);                                                        \
      if (ri[R(5)] < 0) TRAP(OutOfRangeError(ListIndexError(ri[R(5)], *list))); \
      auto value = list->getter(static_cast<size_t>(ri[R(5)]));                 \
      if (!value.ok()) TRAP(value.status());                                    \
      file[R(1)] = *value;                                                      \
      pc += LEN(name);                                                          \
    }                                                                           \
    NEXT();                                                                     \
  }
  LIST_GET(ListGetI32, ri, GetI32)
  LIST_GET(ListGetI64, rl, GetI64)
  LIST_GET(ListGetF32, rf, GetF32)
  LIST_GET(ListGetF64, rd, GetF64)
#undef LIST_GET
  OP(ListGetRef) {
    {  // Locals with destructors end before the dispatch jump.
      AS(List, list, 3);
      if (ri[R(5)] < 0) TRAP(OutOfRangeError(ListIndexError(ri[R(5)], *list)));
      auto value = list->GetRef(static_cast<size_t>(ri[R(5)]));
      if (!value.ok()) TRAP(value.status());
      SetRef(&rr[R(1)], value->get());
      pc += LEN(ListGetRef);
    }
    NEXT();
  }
#define LIST_SET(name, make)                                                    \
  OP(name) {                                                                    \
    {                                                                           \
      AS(List, list, 1);                                                        \
      if (ri[R(3)] < 0) TRAP(OutOfRangeError(ListIndexError(ri[R(3)], *list))); \
      Status status = list->Set(static_cast<size_t>(ri[R(3)]), make);           \
      if (!status.ok()) TRAP(status);                                           \
      pc += LEN(name);                                                          \
    }                                                                           \
    NEXT();                                                                     \
  }
  LIST_SET(ListSetI32, Variant::I32(ri[R(5)]))
  LIST_SET(ListSetI64, Variant::I64(rl[R(5)]))
  LIST_SET(ListSetF32, Variant::F32(rf[R(5)]))
  LIST_SET(ListSetF64, Variant::F64(rd[R(5)]))
  LIST_SET(ListSetRef, Variant::FromRef(Ref<Object>(rr[R(5)])))
#undef LIST_SET

  OP(BufferAlloc) {
    {  // Locals with destructors end before the dispatch jump.
      int64_t length = rl[R(3)];
      if (length < 0) TRAP(OutOfRangeError("negative buffer length " + std::to_string(length)));
      auto buffer = ByteBuffer::Allocate(static_cast<size_t>(length));
      if (!buffer.ok()) TRAP(buffer.status());
      SetRef(&rr[R(1)], buffer->get());
      pc += LEN(BufferAlloc);
    }
    NEXT();
  }
  OP(BufferLength) {
    AS(ByteBuffer, buffer, 3);
    rl[R(1)] = static_cast<int64_t>(buffer->length());
    pc += LEN(BufferLength);
    NEXT();
  }
  OP(BufferCopy) {
    {  // Locals with destructors end before the dispatch jump.
      AS(ByteBuffer, source, 1);
      AS(ByteBuffer, target, 5);
      int64_t source_offset = rl[R(3)], target_offset = rl[R(7)], length = rl[R(9)];
      Status status = source->CheckRange(source_offset, length, false);
      if (status.ok()) status = target->CheckRange(target_offset, length, true);
      if (!status.ok()) TRAP(status);
      std::memmove(target->mutable_data() + target_offset, source->data() + source_offset,
                   static_cast<size_t>(length));
      pc += LEN(BufferCopy);
    }
    NEXT();
  }
  OP(BufferFill) {
    {  // Locals with destructors end before the dispatch jump.
      AS(ByteBuffer, buffer, 1);
      int64_t offset = rl[R(3)], length = rl[R(5)];
      Status status = buffer->CheckRange(offset, length, true);
      if (!status.ok()) TRAP(status);
      std::memset(buffer->mutable_data() + offset, ri[R(7)] & 0xFF, static_cast<size_t>(length));
      pc += LEN(BufferFill);
    }
    NEXT();
  }
#define BUFFER_LOAD(name, file, T, convert)                         \
  OP(name) {                                                        \
    {                                                               \
      AS(ByteBuffer, buffer, 3);                                    \
      int64_t offset = rl[R(5)];                                    \
      Status status = buffer->CheckRange(offset, sizeof(T), false); \
      if (!status.ok()) TRAP(status);                               \
      T value;                                                      \
      std::memcpy(&value, buffer->data() + offset, sizeof(T));      \
      file[R(1)] = convert;                                         \
      pc += LEN(name);                                              \
    }                                                               \
    NEXT();                                                         \
  }
  BUFFER_LOAD(BufferLoadI8S, ri, int8_t, value)
  BUFFER_LOAD(BufferLoadI8U, ri, uint8_t, value)
  BUFFER_LOAD(BufferLoadI16S, ri, int16_t, value)
  BUFFER_LOAD(BufferLoadI16U, ri, uint16_t, value)
  BUFFER_LOAD(BufferLoadI32, ri, int32_t, value)
  BUFFER_LOAD(BufferLoadI64, rl, int64_t, value)
  BUFFER_LOAD(BufferLoadF32, rf, float, value)
  BUFFER_LOAD(BufferLoadF64, rd, double, value)
#undef BUFFER_LOAD
#define BUFFER_STORE(name, T, value_expr)                              \
  OP(name) {                                                           \
    {                                                                  \
      AS(ByteBuffer, buffer, 1);                                       \
      int64_t offset = rl[R(3)];                                       \
      Status status = buffer->CheckRange(offset, sizeof(T), true);     \
      if (!status.ok()) TRAP(status);                                  \
      T value = static_cast<T>(value_expr);                            \
      std::memcpy(buffer->mutable_data() + offset, &value, sizeof(T)); \
      pc += LEN(name);                                                 \
    }                                                                  \
    NEXT();                                                            \
  }
  BUFFER_STORE(BufferStoreI8, uint8_t, ri[R(5)])
  BUFFER_STORE(BufferStoreI16, uint16_t, ri[R(5)])
  BUFFER_STORE(BufferStoreI32, int32_t, ri[R(5)])
  BUFFER_STORE(BufferStoreI64, int64_t, rl[R(5)])
  BUFFER_STORE(BufferStoreF32, float, rf[R(5)])
  BUFFER_STORE(BufferStoreF64, double, rd[R(5)])
#undef BUFFER_STORE
#undef AS

  OP(Trace) {
    {  // Locals with destructors end before the dispatch jump.
      std::string line = "[trace] " + std::string(module.string(U32(1)));
      const uint8_t count = pc[5];
      for (uint8_t i = 0; i < count; ++i) {
        const uint8_t* operand = pc + 6 + 3 * i;
        uint16_t reg = Load<uint16_t>(operand + 1);
        line += i ? ", " : " ";
        line += SlotToVariant(TypeCharOfBank(static_cast<Bank>(operand[0])), regs[reg]).ToString();
      }
      std::string source =
          module.SourceLocation(OrdinalOf(module, fn), static_cast<uint32_t>(pc - code));
      if (!source.empty()) line += "  (" + source + ")";
      stack.Trace(line);
      pc += 6 + 3 * count;
    }
    NEXT();
  }

trap : {
  // Name where it happened, then every enclosing frame of this Execute.
  std::string message =
      module.DescribeLocation(OrdinalOf(module, fn), static_cast<uint32_t>(pc - fn->code)) + ": " +
      trap_status.message();
  int lines = 0;
  for (Frame *callee = frame, *f = frame->caller; f; callee = f, f = f->caller) {
    if (++lines > 16) {
      message += "\n  ...";
      break;
    }
    // `callee` is the frame f called into; its result list sits inside f's
    // call instruction.
    message +=
        "\n  called from " +
        module.DescribeLocation(OrdinalOf(module, f->function),
                                static_cast<uint32_t>(CallSiteOf(callee) - f->function->code));
  }
  // Unwind: release every frame's refs.
  for (Frame* f = frame; f; f = f->caller) ReleaseRefs(SlotsOf(f), *f->function);
  stack.set_used(entry_used);
  stack.set_depth(entry_depth);
  stack.set_budget(budget);
  return Status(trap_status.code(), std::move(message));
}

#undef NEXT
#undef SPEND_BUDGET
#undef R
#undef U32
#undef TRAP
#undef OP
#undef LEN
#undef BINARY
#undef UNARY
#undef COMPARE
#undef KILN_LOAD_FRAME_
}

}  // namespace

Status Execute(const BytecodeModule& module, BytecodeModuleState& state, uint32_t function,
               std::span<const Variant> args, std::span<Variant> results, Stack& stack) {
  if (stack.options().instruction_trace) {
    return Run<true>(module, state, function, args, results, stack);
  }
  return Run<false>(module, state, function, args, results, stack);
}

}  // namespace kiln::vm
