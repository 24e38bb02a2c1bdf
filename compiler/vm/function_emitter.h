// Bytecode emission of one register-allocated vm.func into a
// vm::FunctionBuilder (the module around it: module_emitter.h).
//
// Blocks are emitted in IR order (unreachable ones dropped), each ending in an
// explicit terminator (the verifier lets a block be entered only by a branch,
// so even a branch to the next block is written out). Block-argument passing
// becomes parallel copies (parallel_copy.h) after allocation has coalesced
// what it could:
//   * on a `br`, before the branch;
//   * on an edge of a multi-way terminator (cond_br, br.lt, for.step,
//     switch), before the terminator when that is safe — the copies write
//     nothing the terminator reads, nothing live into the other targets,
//     nothing the other edges read or write differently, and (for.step) read
//     nothing it defines — otherwise in an edge block placed after the
//     function's blocks, which copies and branches on to the target. An edge
//     leaving a loop always gets an edge block, so its copies do not run on
//     every iteration.
// A `br` to a block holding only a vm.return returns directly (reading the
// branch's arguments in place of the block's), so a value computed into a
// shared return block costs no copy and no jump; such a block is left out
// when every predecessor is a `br`.
// A copy of a constant is rematerialised (`const` into the target register).
// for.step whose increment did not get its induction variable's register is
// preceded by a mov into the increment's register.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "compiler/vm/liveness.h"
#include "compiler/vm/machine_function.h"
#include "compiler/vm/register_allocation.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/TypeRange.h"
#include "vm/module_builder.h"

namespace kiln::compiler::vm_backend {

// What emission of one function needs from the module: the indices of the
// symbols, strings and types its instructions name. Lookups that fail report
// an error at `op` and return nullopt.
class ModuleSymbols {
 public:
  virtual ~ModuleSymbols() = default;
  virtual std::optional<uint32_t> Function(mlir::Operation* op, mlir::FlatSymbolRefAttr name) = 0;
  // The import of `name` with the concrete signature (args) -> (results);
  // without types, the declaration's own (non-variadic) signature.
  virtual std::optional<uint32_t> Import(mlir::Operation* op, mlir::FlatSymbolRefAttr name,
                                         std::optional<mlir::TypeRange> args,
                                         std::optional<mlir::TypeRange> results) = 0;
  // A primitive global's byte offset, or a ref global's slot.
  virtual std::optional<uint32_t> Global(mlir::Operation* op, mlir::FlatSymbolRefAttr name) = 0;
  virtual std::optional<uint32_t> Rodata(mlir::Operation* op, mlir::FlatSymbolRefAttr name) = 0;
  virtual uint32_t String(std::string text) = 0;
  virtual uint32_t Type(mlir::Type type) = 0;
  // Sets the builder's source location for the next instructions.
  virtual void Locate(vm::FunctionBuilder& builder, mlir::Location loc) = 0;
  // A vm.call.import carrying `dispatch = @executable::@export` (and, when
  // the dispatch is instrumented, `kiln.dispatch_site_id`; else `site_id` is
  // vm::ExecutableDescription::DispatchSite::kNoSiteId) is about to be
  // emitted at `offset` of the function being built.
  virtual void DispatchSite(mlir::SymbolRefAttr entry_point, uint32_t offset, uint32_t site_id) = 0;
};

mlir::LogicalResult EmitFunction(const MFunction& mf, const ControlFlow& cfg,
                                 const Liveness& liveness, const Allocation& allocation,
                                 vm::FunctionBuilder& builder, ModuleSymbols& symbols);

}  // namespace kiln::compiler::vm_backend
