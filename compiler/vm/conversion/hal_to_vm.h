// HAL -> VM: the typed host ops of the hal dialect into calls of the
// runtime's `hal` module, through the one import contract
// (hal/module/hal_imports.h).
//
// Each hal op becomes one vm.call.import of the import the table names for
// it, its operands in the table's order and types (index values narrowed to
// i32 where the import takes i32; strings and executable bytes as
// vm.const.ref.rodata of a vm.rodata). The vm.import declaration is made from
// the table entry on first use, in the enclosing vm.module: the hal ops must
// already be inside it when the conversion runs. A variadic import is
// declared once with `...` and called with concrete tails.
//
//   hal.buffer.length<%b : !hal.buffer> : index
//     -> %len = vm.call.import @hal.buffer.length(%b) : (!vm.ref<!hal.buffer>) -> i64
//   hal.command_buffer.dispatch<%cmd> target(%exe)[%c0] workgroups([%x, %y, %z])
//       constants([%k]) bindings([(%buf)[%off, %len]]) {entry_point = @ex::@f}
//     -> vm.call.import @hal.command_buffer.dispatch(%cmd, %exe, %c0_i32, %x_i32, %y_i32,
//            %z_i32, %c1_i32, %k, %buf, %off, %len) {dispatch = @ex::@f} : (...) -> ()
//     (bindings of binding-table slots, index operands, call dispatch.indirect)
//
// hal.command_buffer.collective calls command_buffer.collective (buffers) or
// command_buffer.collective.indirect (binding-table slots), its
// #hal.collective packed into the import's op (kind | reduction << 8) and
// element type (the runtime's encoding, si/ui kept); ranks are -1 but for
// send_recv.
//
// hal.executable ops become vm.rodata, one per hal.executable.binary (its
// bytes, with `executable = #vm.executable_variant<...>` describing it for
// the module's executables debug table); hal.executable.load passes the
// executable's name and every variant's format and bytes.
#pragma once

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

namespace kiln::compiler {

// Patterns for every host op of the hal dialect and for hal.executable.
// `converter` maps !hal.X to !vm.ref<!hal.X> and index to i64
// (VMTypeConverter).
void PopulateHALToVMPatterns(const mlir::TypeConverter& converter,
                             mlir::RewritePatternSet& patterns);

// Adds the patterns to --kiln-convert-to-vm (RegisterVMConversionExtension),
// with the hal dialect illegal. Call once, before the pass runs.
void RegisterHALToVMConversion();

}  // namespace kiln::compiler
