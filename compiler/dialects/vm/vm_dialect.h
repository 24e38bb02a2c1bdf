// The vm dialect: kiln's bytecode VM (vm/opcodes.h) as MLIR ops, the last
// IR before bytecode emission (compiler/vm/module_emitter.h). C++ namespace
// kiln::compiler::VM; registered by compiler/dialects/registration.cc.
//
// TYPES (the five register banks): i32 (also holds i1/i8/i16 after
// instruction selection), i64 (also index), f32, f64, and
//   !vm.ref<T>      a reference-counted object: T = !hal.buffer, !hal.device,
//                   ..., !vm.buffer, !vm.list, or `?` (any: !vm.ref<?>);
//                   C++ RefType::get(ctx, T) (T = NoneType for `?`, isAny()).
//   !vm.buffer, !vm.list   the VM's own byte buffer and list (BufferType,
//                   ListType), always used inside !vm.ref<...>.
// Values of any other type are rejected by the verifiers.
//
// STRUCTURAL OPS (vm_structural_ops.td):
//   vm.module @name { ... }                         ModuleOp(builder, loc, name)
//       (SymbolTable; holds everything below; one per .kmod)
//   vm.func @f(%a: i32, %b: !vm.ref<!hal.buffer>) -> (i64, f32) attributes {vm.export} {
//   ^bb0(...): ... }                                FuncOp(builder, loc, name, FunctionType)
//       FunctionOpInterface; blocks hold opcode ops only. Discardable attrs:
//       `vm.export` (unit: export under its own name; or a StringAttr export
//       name; FuncOp::getExportName()), `vm.initializer` (unit, () -> ()
//       only: run when a context is created; isInitializer()), `vm.abi_type`
//       (TypeAttr of a FunctionType: the source-level signature the export's
//       reflection prints, e.g. (tensor<?xf32>) -> tensor<?xf32>).
//   vm.import @hal.buffer.length(!vm.ref<!hal.buffer>) -> i64
//   vm.import optional @mod.fn(i32, ...) -> (i32, i64)
//       ImportOp: sym_name, function_type, is_variadic (trailing `...`: calls
//       pass any concrete tail; emission imports each distinct concrete
//       signature once under the same name), is_optional. ONE declaration per
//       import name, variadic or not.
//   vm.global.i32 [mutable] @g [= 5]       (likewise .i64 / .f32 = 1.5 / .f64)
//   vm.global.ref [mutable] @dev : !vm.ref<!hal.device>   (starts null)
//       GlobalI32Op, GlobalI64Op, GlobalF32Op, GlobalF64Op, GlobalRefOp:
//       sym_name, is_mutable, initial_value (typed attr, primitives only),
//       getGlobalType().
//   vm.rodata @name dense<[1, 2]> : tensor<2xi32>    (or a string: "\01\02")
//       RodataOp: sym_name, value (ElementsAttr or StringAttr), optional
//       `alignment` (i64, default 16) and `executable`: a serialized
//       executable variant, for the executables debug table:
//         executable = #vm.executable_variant<name = "ex", target = "cuda",
//             format = "cuda-nvptx-fb", config = "target_arch = [sm_80]",
//             exports = [#vm.executable_export<name = "add", ordinal = 0,
//                 layout = "<text>", workgroup_size = 64, 1, 1>]>
//         (ExecutableVariantAttr::get(ctx, name, target, format, config,
//          ArrayAttr of ExecutableExportAttr::get(ctx, name, ordinal, layout,
//          ArrayRef<int64_t>{x, y, z})); `config` may be omitted).
//
// OPCODE OPS (generated from KILN_FOR_EACH_OPCODE by vm_opcode_ops_gen.cc;
// nothing else defines them): op "vm." + mnemonic, class table Name + "Op"
// (AddI32Op, ConstI64Op, CallImportOp, BrLtImmI32SOp, ForStepI64Op, ...).
// GetOpcode(op) maps an op back to its vm::Opcode. Rules:
//   * the destination register is the result `result` (getResult());
//   * registers read are operands in table order, named: 1 operand
//     `operand`; 2 `lhs`, `rhs`; select `condition, true_value, false_value`;
//     fma `a, b, c`; buffer.load `buffer, offset`; buffer.store `buffer,
//     offset, value`; buffer.copy `source, source_offset, target,
//     target_offset, length`; buffer.fill `buffer, offset, length, value`;
//     buffer.alloc `length`; buffer.length `buffer`; list.alloc `capacity`;
//     list.size `list`; list.resize `list, size`; list.get `list, index`;
//     list.set `list, index, value`; global.store `value`; cond_br
//     `condition`; for.step `induction, bound`;
//   * immediates are attributes: `value` (const.*), `step` (for.step), `imm`
//     (add.imm, br.lt.imm): I32Attr/I64Attr/F32Attr/F64Attr as the table says;
//   * symbols are FlatSymbolRefAttr: `callee` (call: a vm.func; call.import,
//     import.resolved: a vm.import), `global` (a vm.global.* of the op's bank),
//     `rodata` (a vm.rodata); strings StrAttr `message` (fail, trace); types
//     TypeAttr `object_type` (ref.is_type);
//   * branch targets are successors with block-argument operands: one target
//     `dest` + `dest_operands`; two `true_dest`/`false_dest` (+ `_operands`);
//     for.step `body`/`exit` + `body_operands`/`exit_operands`.
// Forms (generated assembly; types are printed where they are not implied):
//   %c = vm.const.i32 7 : i32            %f = vm.const.f64 1.5 : f64
//   %r = vm.const.ref.null : !vm.ref<?>  %d = vm.const.ref.rodata @data : !vm.ref<!vm.buffer>
//   %2 = vm.add.i32 %0, %1 : i32         %n = vm.neg.f32 %x : f32
//   %b = vm.cmp.lt.i64.s %x, %y : i32    (compares write i32 0/1)
//   %s = vm.select.f32 %cond, %a, %b : f32
//   %e = vm.ext.i32.i64.s %x : i64       %t = vm.trunc.i64.i32 %x : i32
//   %a = vm.add.imm.i32 %x, -1 : i32     %a = vm.add.imm.i64 %x, 1 : i64 (i32 immediate)
//   %m = vm.mov.i32 %x : i32
//   %g = vm.global.load.i32 @g : i32     vm.global.store.i32 @g, %v
//   %h = vm.global.load.ref @dev : !vm.ref<!hal.device>
//   vm.global.store.ref @dev, %h : !vm.ref<!hal.device>
//   %z = vm.ref.is_null %h : !vm.ref<!hal.device> -> i32
//   %q = vm.ref.eq %a, %b : !vm.ref<?>, !vm.ref<?> -> i32
//   %k = vm.ref.is_type %a, !hal.buffer : !vm.ref<?> -> i32
//   %l = vm.buffer.length %buf : !vm.ref<!vm.buffer> -> i64
//   %v = vm.buffer.load.f32 %buf, %off : !vm.ref<!vm.buffer> -> f32
//   vm.buffer.store.f32 %buf, %off, %v : !vm.ref<!vm.buffer>
//   %x = vm.list.get.i32 %list, %i : !vm.ref<!vm.list> -> i32
//   %ok = vm.import.resolved @mod.fn : i32
//   %r = vm.call @f(%a, %b) : (i32, i64) -> f32
//   %r = vm.call.import @hal.buffer.length(%b) : (!vm.ref<!hal.buffer>) -> i64
//   vm.call.import @hal.command_buffer.dispatch(...) {dispatch = @ex::@export} : (...) -> ()
//       (`dispatch`: optional SymbolRefAttr executable::export, recorded as a
//        dispatch site in the executables debug table)
//   vm.trace "label"(%a, %b : i32, f32)        vm.fail "message"
//   vm.return %a, %b : i32, i64                vm.return
//   vm.br ^bb1(%x : i32)
//   vm.cond_br %c, ^bb1(%x : i32), ^bb2
//   vm.br.lt.i32.s %a, %b, ^bb1(%x : i32), ^bb2      (to ^bb1 iff a < b, signed)
//   vm.br.lt.imm.i32.s %a, 10, ^bb1, ^bb2(%y : i64)  (a < 10)
//   vm.switch %i [^case0, ^case1(%x : i32)], default ^other
//       (hand-written assembly; successor 0 is the default, then the cases)
//   vm.for.step.i64 %i, 1, %n, ^body(%acc : i64), ^exit(%acc2 : i64)
//       i' = i + step (wrapping); to ^body while i' < n (signed), else ^exit.
//       ^body's FIRST block argument receives i' (a produced successor
//       operand, BranchOpInterface SuccessorOperands(1, body_operands)); the
//       listed body operands fill the following arguments. ^exit gets only
//       its listed operands. So a counted loop reads
//         ^body(%i: i64, %acc: i64): ...
//           vm.for.step.i64 %i, 1, %n, ^body(%acc2 : i64), ^exit(%acc2 : i64)
//       and register allocation gives i' the register of %i (no copies).
// Verification (what the bytecode verifier would reject): register banks by
// type; immediates fit their attribute widths; calls match the callee's
// signature (a variadic import's fixed prefix), returns the function's
// results; globals are of the op's bank; symbols exist in the vm.module.
//
// Register allocation annotations (vm.regs, vm.block_regs,
// vm.register_counts): compiler/vm/register_annotations.h.
#pragma once

#include <optional>

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "vm/opcodes.h"

namespace kiln::compiler::VM {
// Checks an opcode op's symbol operands (callee, global, rodata): their kind,
// bank and signature. The generated ops' verifySymbolUses calls it.
llvm::LogicalResult VerifyOpcodeSymbolUses(mlir::Operation* op,
                                           mlir::SymbolTableCollection& symbols);
}  // namespace kiln::compiler::VM

#include "compiler/dialects/vm/vm_dialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "compiler/dialects/vm/vm_types.h.inc"

#define GET_ATTRDEF_CLASSES
#include "compiler/dialects/vm/vm_attributes.h.inc"

#define GET_OP_CLASSES
#include "compiler/dialects/vm/vm_structural_ops.h.inc"

#define GET_OP_CLASSES
#include "compiler/dialects/vm/vm_opcode_ops.h.inc"

namespace kiln::compiler::VM {

// The opcode of an opcode op (nullopt for structural ops and other dialects).
std::optional<kiln::vm::Opcode> GetOpcode(mlir::Operation* op);
// The registered op name of an opcode ("vm.add.i32").
std::string OpNameOfOpcode(kiln::vm::Opcode opcode);

// The register bank holding a value of `type`: i32, i64, f32, f64 or
// !vm.ref<...>; nullopt for every other type.
std::optional<kiln::vm::Bank> BankOfType(mlir::Type type);

// The calling-convention string ("iI_f", vm/signature.h) of a function type
// whose types all have banks; nullopt otherwise.
std::optional<std::string> SignatureOf(mlir::TypeRange inputs, mlir::TypeRange results);

}  // namespace kiln::compiler::VM
