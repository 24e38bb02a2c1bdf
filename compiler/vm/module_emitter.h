// Bytecode emission of a vm.module into a .kmod through vm::ModuleBuilder:
// the entry point of the VM backend (the pipeline's last step).
//
// Module layout:
//   * vm.func: one bytecode function each, in module order (ordinals);
//     `vm.export` exports it (reflection: `vm.abi_type` when present, else the
//     function type, printed as MLIR types); `vm.initializer` makes it part of
//     the module initializer.
//   * vm.global.*: 8-byte globals (i64, f64) first, then 4-byte ones (i32,
//     f32), so each is naturally aligned without padding; vm.global.ref in ref
//     slots. The global bytes start zeroed: non-zero initial values are stored
//     by a generated `__init` function, which then calls the vm.initializer
//     functions (the initializer is that function alone when there are no
//     values to store and one initializer).
//   * vm.rodata: embedded data (alignment: its `alignment`, default 16).
//     A vm.rodata with `executable = #vm.executable_variant<...>` is a
//     serialized executable: the rodata of one name are the variants of one
//     entry of the module's executables debug table, with the exports listed
//     in the attribute; every vm.call.import carrying `dispatch =
//     @executable::@export` is recorded as a dispatch site (function, bytecode
//     offset, export ordinal) of that executable.
//   * vm.import: imported on first call, once per concrete signature (a
//     variadic import's calls may pass different tails; each distinct
//     signature is its own bytecode import of the same name). `optional`
//     imports may be missing at run time (vm.import.resolved tests them).
//   * Debug locations: each instruction's FileLineColLoc (looked for through
//     name, call-site, fused and opaque locations) in the module's debug
//     table, bytecode offset -> file:line:col.
// Functions carrying register annotations (--kiln-vm-allocate-registers,
// register_annotations.h) are emitted with that allocation; the others are
// allocated here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "mlir/IR/BuiltinOps.h"

namespace kiln::compiler::VM {
class ModuleOp;
}  // namespace kiln::compiler::VM

namespace kiln::compiler {

struct EmitModuleOptions {
  // The module name written to the .kmod; empty: the vm.module's name.
  std::string module_name;
  // Emit the debug table (bytecode offset -> file:line:col).
  bool debug_locations = true;
};

// Emits `module`. Problems are reported as MLIR diagnostics at the ops
// (file:line:col) and the result is then an error saying so.
Result<std::vector<uint8_t>> EmitModule(VM::ModuleOp module, const EmitModuleOptions& options = {});

// The same for the one vm.module inside `module` (as --kiln-convert-to-vm
// leaves it).
Result<std::vector<uint8_t>> EmitModule(mlir::ModuleOp module,
                                        const EmitModuleOptions& options = {});

}  // namespace kiln::compiler
