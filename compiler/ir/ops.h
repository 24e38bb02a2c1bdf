// The operations kiln's IR knows: one table (name, traits) from which the
// parser, printer, verifier, passes and codegen all derive.
//
// Every operation is stored in MLIR's generic shape: operands, results,
// attributes by name, successors (blocks with their argument lists) and
// regions. The custom (pretty) syntax of an op is only a different spelling of
// that shape, so the parser turns both `arith.addi %a, %b : i32` and
// `"arith.addi"(%a, %b) : (i32, i32) -> i32` into the same Operation, and an op
// added to this table for a later issue (hal.*, flow.dispatch) needs no change
// to the IR classes.
//
// The shape of each op (the contract between parser, verifier and codegen;
// attribute names are MLIR's, so the generic form reads naturally):
//
//  builtin.module   attrs: sym_name? (string). One region, one block, no terminator.
//  func.func        attrs: sym_name (string), function_type (type attr, a function
//                   type), sym_visibility? ("private"/"public"), arg_attrs?,
//                   res_attrs?. One region: empty for a declaration (an
//                   external function, a VM import), else the body whose entry
//                   block arguments are the function arguments.
//  func.return      operands: the returned values. Terminator.
//  func.call        attrs: callee (symbol ref). operands: arguments. results.
//  arith.constant   attrs: value (integer/float/bool attr of the result type).
//  arith.<binary>   operands: lhs, rhs; one result of the same type. Integer ops
//                   take iN/index; float ops fN. Optional `fastmath` /
//                   `overflowFlags` attributes are accepted and ignored.
//  arith.cmpi       attrs: predicate (integer, CmpIPredicate). operands lhs, rhs
//                   (same integer/index type); result i1.
//  arith.cmpf       attrs: predicate (integer, CmpFPredicate); result i1.
//  arith.select     operands: condition (i1), true value, false value.
//  arith.<cast>     one operand, one result (index_cast, extsi, sitofp, ...).
//  arith.negf, math.<unary>: one operand, same-type result.
//  math.fma         operands a, b, c: a * b + c. math.powf: base, exponent.
//  math.absi        integer abs.
//  scf.if           operand: condition (i1). Regions: then, else (else may be
//                   empty when there are no results). Results = yielded values.
//  scf.for          operands: lower, upper, step, then the iter_args' initial
//                   values. One region whose block has (induction variable,
//                   iter_args...) arguments and ends in scf.yield. Results:
//                   the final iter_args.
//  scf.while        operands: initial values. Regions: before (args = initial
//                   values' types, ends in scf.condition), after (args = the
//                   condition's forwarded values, ends in scf.yield).
//                   Results: the forwarded values of the exiting condition.
//  scf.condition    operands: condition (i1), forwarded values. Terminator.
//  scf.yield        operands: yielded values. Terminator.
//  cf.br            successors: [dest(args)]. Terminator.
//  cf.cond_br       operands: condition (i1). successors: [true(args), false(args)].
//  cf.switch        operands: flag (integer). attrs: case_values (dense array
//                   or array of integers). successors: [default(args),
//                   case0(args), ...] in case_values order.
//  cf.assert        operands: condition (i1). attrs: msg (string).
//  util.global      attrs: sym_name (string), type (type attr), is_mutable
//                   (unit, present when mutable), initial_value? (attr),
//                   sym_visibility?.
//  util.global.load   attrs: global (symbol ref). One result of the global's type.
//  util.global.store  attrs: global (symbol ref). operands: value.
//
// Hand-authored executables and their dispatches (lowered away by
// LowerDispatches, passes.h, before code generation):
//  hal.executable.source  attrs: sym_name, sym_visibility?, objects
//                   (#hal.executable.objects). One region, one block holding
//                   hal.executable.export ops; no terminator.
//  hal.executable.export  attrs: sym_name, sym_visibility?, ordinal (index
//                   integer), layout (#hal.pipeline.layout), workgroup_size?
//                   ([x, y, z] integers). One region, the workgroup-count
//                   function: empty, or one block with arguments (%device:
//                   !hal.device, %workload: index...) ending in hal.return.
//  hal.return       operands: the workgroup count x, y, z (index). Terminator.
//  affine.apply     attrs: map (affine_map with one result). operands: the
//                   map's dimensions, then its symbols (index). Result: index.
//  flow.dispatch    attrs: entry_point (@executable::@export),
//                   operandSegmentSizes (dense i32 array: workload, arguments,
//                   argument dims, result dims), tied_operands? (array of i64,
//                   one per result: the argument it is written into, or -1).
//                   operands: workload (index), arguments (scalars and
//                   tensors), the dynamic dims of the tensor arguments in
//                   order, the dynamic dims of the results. Results: tensors.
//  tensor.dim       operands: tensor, index. Result: index.
//  tensor.empty     operands: the dynamic dims (index). Result: a tensor.
//
// Low-level ops the dispatch lowering produces (generic form only):
//  vm.rodata        attrs: sym_name, value (string of bytes), sym_visibility?.
//                   Module level: read-only data embedded in the module.
//  vm.const.ref.rodata  attrs: rodata (symbol of a vm.rodata). Result: !vm.buffer.
//  vm.const.ref.null    One result of a ref type (!hal.*, !vm.buffer): null.
//  vm.ref.is_null       operand: a ref. Result: i1, true when the ref is null
//                       (MemoizeCommandBuffers tests its lazily set globals).
#pragma once

#include <cstdint>
#include <string_view>

namespace kiln::compiler {

// Traits.
inline constexpr uint32_t kOpTerminator = 1 << 0;  // Ends a block.
inline constexpr uint32_t kOpPure = 1 << 1;        // No side effects: dead if unused.
inline constexpr uint32_t kOpIsolated = 1 << 2;    // Regions cannot see values outside.
inline constexpr uint32_t kOpSymbol = 1 << 3;      // Defines a symbol (sym_name).
inline constexpr uint32_t kOpCommutative = 1 << 4;
inline constexpr uint32_t kOpNoTerminator = 1 << 5;  // Its region's block needs no terminator.

#define KILN_FOR_EACH_IR_OP(X)                                                                   \
  X(Module, "builtin.module", kOpIsolated | kOpSymbol | kOpNoTerminator, kOther)                 \
  X(Func, "func.func", kOpIsolated | kOpSymbol, kOther)                                          \
  X(Return, "func.return", kOpTerminator, kOther)                                                \
  X(Call, "func.call", 0, kOther)                                                                \
  X(Constant, "arith.constant", kOpPure, kOther)                                                 \
  X(AddI, "arith.addi", kOpPure | kOpCommutative, kIntegerBinary)                                \
  X(SubI, "arith.subi", kOpPure, kIntegerBinary)                                                 \
  X(MulI, "arith.muli", kOpPure | kOpCommutative, kIntegerBinary)                                \
  X(DivSI, "arith.divsi", 0, kIntegerBinary) /* Division by zero traps: not pure. */             \
  X(DivUI, "arith.divui", 0, kIntegerBinary)                                                     \
  X(RemSI, "arith.remsi", 0, kIntegerBinary)                                                     \
  X(RemUI, "arith.remui", 0, kIntegerBinary)                                                     \
  X(CeilDivSI, "arith.ceildivsi", 0, kIntegerBinary)                                             \
  X(FloorDivSI, "arith.floordivsi", 0, kIntegerBinary)                                           \
  X(AndI, "arith.andi", kOpPure | kOpCommutative, kIntegerBinary)                                \
  X(OrI, "arith.ori", kOpPure | kOpCommutative, kIntegerBinary)                                  \
  X(XOrI, "arith.xori", kOpPure | kOpCommutative, kIntegerBinary)                                \
  X(ShLI, "arith.shli", kOpPure, kIntegerBinary)                                                 \
  X(ShRSI, "arith.shrsi", kOpPure, kIntegerBinary)                                               \
  X(ShRUI, "arith.shrui", kOpPure, kIntegerBinary)                                               \
  X(MaxSI, "arith.maxsi", kOpPure | kOpCommutative, kIntegerBinary)                              \
  X(MinSI, "arith.minsi", kOpPure | kOpCommutative, kIntegerBinary)                              \
  X(MaxUI, "arith.maxui", kOpPure | kOpCommutative, kIntegerBinary)                              \
  X(MinUI, "arith.minui", kOpPure | kOpCommutative, kIntegerBinary)                              \
  X(AddF, "arith.addf", kOpPure | kOpCommutative, kFloatBinary)                                  \
  X(SubF, "arith.subf", kOpPure, kFloatBinary)                                                   \
  X(MulF, "arith.mulf", kOpPure | kOpCommutative, kFloatBinary)                                  \
  X(DivF, "arith.divf", kOpPure, kFloatBinary)                                                   \
  X(RemF, "arith.remf", kOpPure, kFloatBinary)                                                   \
  X(NegF, "arith.negf", kOpPure, kFloatUnary)                                                    \
  X(MaximumF, "arith.maximumf", kOpPure | kOpCommutative, kFloatBinary)                          \
  X(MinimumF, "arith.minimumf", kOpPure | kOpCommutative, kFloatBinary)                          \
  X(CmpI, "arith.cmpi", kOpPure, kOther)                                                         \
  X(CmpF, "arith.cmpf", kOpPure, kOther)                                                         \
  X(Select, "arith.select", kOpPure, kOther)                                                     \
  X(IndexCast, "arith.index_cast", kOpPure, kCast)                                               \
  X(IndexCastUI, "arith.index_castui", kOpPure, kCast)                                           \
  X(ExtSI, "arith.extsi", kOpPure, kCast)                                                        \
  X(ExtUI, "arith.extui", kOpPure, kCast)                                                        \
  X(TruncI, "arith.trunci", kOpPure, kCast)                                                      \
  X(SIToFP, "arith.sitofp", kOpPure, kCast)                                                      \
  X(UIToFP, "arith.uitofp", kOpPure, kCast)                                                      \
  X(FPToSI, "arith.fptosi", kOpPure, kCast)                                                      \
  X(FPToUI, "arith.fptoui", kOpPure, kCast)                                                      \
  X(ExtF, "arith.extf", kOpPure, kCast)                                                          \
  X(TruncF, "arith.truncf", kOpPure, kCast)                                                      \
  X(Bitcast, "arith.bitcast", kOpPure, kCast)                                                    \
  X(Sqrt, "math.sqrt", kOpPure, kFloatUnary)                                                     \
  X(RSqrt, "math.rsqrt", kOpPure, kFloatUnary)                                                   \
  X(Exp, "math.exp", kOpPure, kFloatUnary)                                                       \
  X(Exp2, "math.exp2", kOpPure, kFloatUnary)                                                     \
  X(Log, "math.log", kOpPure, kFloatUnary)                                                       \
  X(Log2, "math.log2", kOpPure, kFloatUnary)                                                     \
  X(Sin, "math.sin", kOpPure, kFloatUnary)                                                       \
  X(Cos, "math.cos", kOpPure, kFloatUnary)                                                       \
  X(Tanh, "math.tanh", kOpPure, kFloatUnary)                                                     \
  X(AbsF, "math.absf", kOpPure, kFloatUnary)                                                     \
  X(AbsI, "math.absi", kOpPure, kIntegerUnary)                                                   \
  X(Fma, "math.fma", kOpPure, kFloatTernary)                                                     \
  X(PowF, "math.powf", kOpPure, kFloatBinary)                                                    \
  X(Floor, "math.floor", kOpPure, kFloatUnary)                                                   \
  X(Ceil, "math.ceil", kOpPure, kFloatUnary)                                                     \
  X(Round, "math.round", kOpPure, kFloatUnary)                                                   \
  X(If, "scf.if", 0, kOther)                                                                     \
  X(For, "scf.for", 0, kOther)                                                                   \
  X(While, "scf.while", 0, kOther)                                                               \
  X(Condition, "scf.condition", kOpTerminator, kOther)                                           \
  X(Yield, "scf.yield", kOpTerminator, kOther)                                                   \
  X(Br, "cf.br", kOpTerminator, kOther)                                                          \
  X(CondBr, "cf.cond_br", kOpTerminator, kOther)                                                 \
  X(Switch, "cf.switch", kOpTerminator, kOther)                                                  \
  X(Assert, "cf.assert", 0, kOther)                                                              \
  X(Global, "util.global", kOpSymbol, kOther)                                                    \
  X(GlobalLoad, "util.global.load", 0, kOther)                                                   \
  X(GlobalStore, "util.global.store", 0, kOther)                                                 \
  X(ExecutableSource, "hal.executable.source", kOpIsolated | kOpSymbol | kOpNoTerminator, kOther) \
  X(ExecutableExport, "hal.executable.export", kOpIsolated | kOpSymbol, kOther)                  \
  X(HalReturn, "hal.return", kOpTerminator, kOther)                                              \
  X(AffineApply, "affine.apply", kOpPure, kOther)                                                \
  X(Dispatch, "flow.dispatch", 0, kOther)                                                        \
  X(TensorDim, "tensor.dim", kOpPure, kOther)                                                    \
  X(TensorEmpty, "tensor.empty", kOpPure, kOther)                                                \
  X(Rodata, "vm.rodata", kOpSymbol, kOther)                                                      \
  X(ConstRefRodata, "vm.const.ref.rodata", kOpPure, kOther)                                      \
  X(ConstRefNull, "vm.const.ref.null", kOpPure, kOther)                                          \
  X(RefIsNull, "vm.ref.is_null", kOpPure, kOther)

enum class OpKind : uint16_t {
#define KILN_IR_OP_ENUM_(name, text, traits, op_class) k##name,
  KILN_FOR_EACH_IR_OP(KILN_IR_OP_ENUM_)
#undef KILN_IR_OP_ENUM_
      kCount,
};

// How an op's operands and result relate, shared by the parser (custom
// syntax), the printer, the verifier (typing rules) and the folder.
enum class OpClass : uint8_t {
  kOther,          // Its own syntax and rules.
  kIntegerBinary,  // (T, T) -> T, T integer or index: `arith.addi %a, %b : T`.
  kIntegerUnary,   // (T) -> T, T integer or index: `math.absi %a : T`.
  kFloatBinary,    // (T, T) -> T, T float: `arith.addf %a, %b : T`.
  kFloatUnary,     // (T) -> T, T float: `math.sqrt %a : T`.
  kFloatTernary,   // (T, T, T) -> T, T float: `math.fma %a, %b, %c : T`.
  kCast,           // (A) -> B: `arith.extsi %a : A to B`.
};

struct OpInfo {
  std::string_view name;
  uint32_t traits;
  OpClass op_class;
};

// Operand count of an elementwise op (every class but kOther and kCast: all
// operands and the result share one type), or 0 for other ops.
int ElementwiseArity(OpKind kind);


const OpInfo& GetOpInfo(OpKind kind);
inline bool IsCastOp(OpKind kind) { return GetOpInfo(kind).op_class == OpClass::kCast; }
// Looks up an op by its full name ("arith.addi"). Also accepts the
// unqualified spellings MLIR allows in a func body: `return`, `call`,
// `module`. Returns false for unknown names.
bool LookupOpKind(std::string_view name, OpKind* kind);

// arith.cmpi predicates, numbered as MLIR numbers them (so the generic form's
// `{predicate = 2 : i64}` means slt).
enum class CmpIPredicate : int64_t {
  kEq = 0, kNe = 1, kSlt = 2, kSle = 3, kSgt = 4, kSge = 5, kUlt = 6, kUle = 7, kUgt = 8,
  kUge = 9,
};
// arith.cmpf predicates, numbered as MLIR numbers them.
enum class CmpFPredicate : int64_t {
  kFalse = 0, kOeq = 1, kOgt = 2, kOge = 3, kOlt = 4, kOle = 5, kOne = 6, kOrd = 7,
  kUeq = 8, kUgt = 9, kUge = 10, kUlt = 11, kUle = 12, kUne = 13, kUno = 14, kTrue = 15,
};
// "slt" <-> 2, "oeq" <-> 1, ...; false/empty when unknown.
bool ParseCmpIPredicate(std::string_view text, CmpIPredicate* predicate);
bool ParseCmpFPredicate(std::string_view text, CmpFPredicate* predicate);
std::string_view CmpIPredicateName(CmpIPredicate predicate);
std::string_view CmpFPredicateName(CmpFPredicate predicate);

}  // namespace kiln::compiler
