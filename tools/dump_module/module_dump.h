// ModuleDump: what kiln-dump-module prints about a loaded (verified) module,
// as text for people or as one JSON object for scripts; both carry the same
// information:
//   - module name, module version, bytecode version
//   - imports (name, signature, optional), exports (name, function,
//     signature, reflection attributes, argument and result descriptions;
//     the text shows the `arena_size` attribute as `arena: N bytes`: the
//     function's memory arena, see compiler/host/plan_memory.cc)
//   - globals (bytes, refs, initializer), rodata segments (name, size,
//     alignment), embedded executables (variants with target, format and
//     size; exports with layout and workgroup size; every dispatch site with
//     its function, offset, source location and, when the dispatch is
//     instrumented, its site id: `, site 3`; "site_id": 3, null when not),
//     ref types, the string count, source files
//   - per function: name, signature, registers per bank and frame slots,
//     bytecode offset and size, and the disassembly (vm/disassembler.h), one
//     instruction per line with its offset and source location. A debug-table
//     entry applies from its offset until the next entry.
#pragma once

#include <string>

#include "base/result.h"
#include "vm/bytecode_module.h"

namespace kiln::tools {

Result<std::string> DumpModuleText(const vm::BytecodeModule& module);
Result<std::string> DumpModuleJson(const vm::BytecodeModule& module);

}  // namespace kiln::tools
