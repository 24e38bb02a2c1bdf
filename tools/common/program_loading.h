// Program loading: how kiln-run-module and kiln-benchmark-module turn a
// module path and a function name into something they can invoke.
//
//   KILN_ASSIGN_OR_RETURN(Ref<vm::BytecodeModule> module, LoadModule(*instance, path));
//   KILN_ASSIGN_OR_RETURN(const vm::ExportedFunction* exported, FindExport(*module, "@fib"));
//   KILN_ASSIGN_OR_RETURN(Ref<vm::Context> context,
//                         CreateProgramContext(instance, device, module, {}));
//
// The steps are separate so a tool can check everything the user typed (the
// function name, the inputs) before the context runs the module's
// initialisers. The context links the `hal` VM module, serving the one device,
// before the program, so a program that imports hal functions resolves them
// and one that imports nothing from it runs as well. The instance must have
// the hal ref types registered (hal::RegisterHalTypes) before LoadModule: a
// module's type table names them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/ref.h"
#include "base/result.h"
#include "hal/device.h"
#include "hal/module/hal_module.h"
#include "hal/parameters/parameter_index.h"
#include "hal/trace.h"
#include "vm/bytecode_module.h"
#include "vm/context.h"
#include "vm/instance.h"

namespace kiln::tools {

// Loads and verifies the module at `path`; "-" reads standard input (errors
// then say "loading <stdin>").
Result<Ref<vm::BytecodeModule>> LoadModule(const vm::Instance& instance, const std::string& path);

// The export `name` names: "fib", "@fib" or "<module>.fib"; an empty name
// means the module's only export (an error when it has several or none).
// When there is none the error names the module and, when it has only a
// few, lists its exports.
Result<const vm::ExportedFunction*> FindExport(const vm::BytecodeModule& module,
                                               std::string_view name);

// A context holding the hal module (serving `device` with `hal_options`:
// the external parameters, the trace, the collective group and where the
// instrumentation rings are registered), then
// `extra_modules` (kiln-check-module's `check` module), then `modules` in
// order (the tools' repeated --module, as iree-run-module links them: the
// last is the program, the others libraries whose exports its imports name,
// "a.f" for module a's export f; vm::Context resolves every import against
// all the other modules). The modules' initialisers run here, in that order
// (libraries first, so a program's initialiser may call them) (and upload the parameters they use,
// and join the channels they make), inside an "initialize" span of hal_options.trace (null:
// untraced), which the hal module's spans go to as well. An import no module
// exports is an error naming it.
Result<Ref<vm::Context>> CreateProgramContext(Ref<vm::Instance> instance, Ref<hal::Device> device,
                                              std::vector<Ref<vm::BytecodeModule>> modules,
                                              vm::ContextOptions options,
                                              std::vector<Ref<vm::Module>> extra_modules = {},
                                              hal::HalModuleOptions hal_options = {});
// The same with one module.
Result<Ref<vm::Context>> CreateProgramContext(Ref<vm::Instance> instance, Ref<hal::Device> device,
                                              Ref<vm::BytecodeModule> module,
                                              vm::ContextOptions options,
                                              std::vector<Ref<vm::Module>> extra_modules = {},
                                              hal::HalModuleOptions hal_options = {});

}  // namespace kiln::tools
