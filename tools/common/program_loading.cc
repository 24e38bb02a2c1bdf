#include "tools/common/program_loading.h"

#include <utility>
#include <vector>

#include "base/file_io.h"
#include "hal/module/hal_module.h"

namespace kiln::tools {

Result<Ref<vm::BytecodeModule>> LoadModule(const vm::Instance& instance, const std::string& path) {
  if (path != "-") return vm::BytecodeModule::LoadFile(instance, path);
  KILN_ASSIGN_OR_RETURN(AlignedBuffer bytes, ReadFile(path));
  auto module = vm::BytecodeModule::Load(instance, std::move(bytes));
  if (!module.ok()) return module.status().WithContext("loading <stdin>");
  return module;
}

Result<const vm::ExportedFunction*> FindExport(const vm::BytecodeModule& module,
                                               std::string_view name) {
  if (name.empty()) {
    // No name: the module's only export, as an ONNX model's one function.
    if (module.exports().size() == 1) return &module.exports()[0];
    std::string message = "no --function given and module '" + std::string(module.name()) +
                          "' exports " + std::to_string(module.exports().size()) +
                          " functions; name one with --function";
    return InvalidArgumentError(message);
  }
  if (name.front() == '@') name.remove_prefix(1);
  if (const vm::ExportedFunction* function = module.LookupExport(name)) return function;
  const std::string prefix = std::string(module.name()) + ".";
  if (name.starts_with(prefix)) {
    if (const vm::ExportedFunction* function = module.LookupExport(name.substr(prefix.size()))) {
      return function;
    }
  }
  std::string message = "function '" + std::string(name) + "' not found in module '" +
                        std::string(module.name()) + "'";
  // A short hint; a module with many exports is for kiln-dump-module to list.
  constexpr size_t kMaxListed = 8;
  const auto exports = module.exports();
  if (exports.empty()) {
    message += " (it exports no functions)";
  } else if (exports.size() <= kMaxListed) {
    message += " (exports:";
    for (size_t i = 0; i < exports.size(); ++i) message += (i ? ", @" : " @") + exports[i].name;
    message += ")";
  }
  return NotFoundError(message);
}

Result<Ref<vm::Context>> CreateProgramContext(Ref<vm::Instance> instance, Ref<hal::Device> device,
                                              std::vector<Ref<vm::BytecodeModule>> modules,
                                              vm::ContextOptions options,
                                              std::vector<Ref<vm::Module>> extra_modules,
                                              hal::HalModuleOptions hal_options) {
  Ref<hal::Trace> trace = hal_options.trace;
  hal::ScopedHostSpan span(trace.get(), "initialize");
  KILN_ASSIGN_OR_RETURN(
      Ref<vm::Module> hal_module,
      hal::CreateHalModule(*instance, {std::move(device)}, std::move(hal_options)));
  std::vector<Ref<vm::Module>> linked = {std::move(hal_module)};
  for (Ref<vm::Module>& extra : extra_modules) linked.push_back(std::move(extra));
  for (Ref<vm::BytecodeModule>& module : modules) {
    linked.push_back(Ref<vm::Module>(std::move(module)));
  }
  return vm::Context::Create(std::move(instance), std::move(linked), std::move(options));
}

Result<Ref<vm::Context>> CreateProgramContext(Ref<vm::Instance> instance, Ref<hal::Device> device,
                                              Ref<vm::BytecodeModule> module,
                                              vm::ContextOptions options,
                                              std::vector<Ref<vm::Module>> extra_modules,
                                              hal::HalModuleOptions hal_options) {
  std::vector<Ref<vm::BytecodeModule>> modules;
  modules.push_back(std::move(module));
  return CreateProgramContext(std::move(instance), std::move(device), std::move(modules),
                              std::move(options), std::move(extra_modules), std::move(hal_options));
}

}  // namespace kiln::tools
