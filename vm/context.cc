#include "vm/context.h"

#include "vm/signature.h"

namespace kiln::vm {

Result<Ref<Context>> Context::Create(Ref<Instance> instance, std::vector<Ref<Module>> modules,
                                     ContextOptions options) {
  if (!instance) return InvalidArgumentError("context needs an instance");
  auto context = Ref<Context>::Adopt(new Context());
  context->instance_ = std::move(instance);
  context->options_ = std::move(options);
  for (size_t i = 0; i < modules.size(); ++i) {
    if (!modules[i]) return InvalidArgumentError("module " + std::to_string(i) + " is null");
    for (size_t j = 0; j < i; ++j) {
      if (modules[j]->name() == modules[i]->name()) {
        return InvalidArgumentError("two modules are named '" + std::string(modules[i]->name()) +
                                    "'");
      }
    }
  }
  context->modules_ = std::move(modules);
  for (const Ref<Module>& module : context->modules_) {
    KILN_ASSIGN_OR_RETURN(std::unique_ptr<ModuleState> state, module->CreateState());
    context->states_.push_back(std::move(state));
  }
  KILN_RETURN_IF_ERROR(context->Link());
  // Initialisers run in module order, each on its own stack.
  for (size_t i = 0; i < context->modules_.size(); ++i) {
    Stack stack(context->options_.stack, context->options_.trace_sink);
    KILN_RETURN_IF_ERROR(context->modules_[i]->Initialize(*context->states_[i], stack));
  }
  return context;
}

Context::~Context() {
  // States may hold refs to objects of other modules; drop them before the
  // modules themselves.
  states_.clear();
}

Status Context::Link() {
  for (size_t m = 0; m < modules_.size(); ++m) {
    Module& importer = *modules_[m];
    std::span<const ImportDecl> imports = importer.imports();
    for (size_t i = 0; i < imports.size(); ++i) {
      const ImportDecl& import = imports[i];
      size_t dot = import.name.find('.');
      std::string_view module_name = std::string_view(import.name).substr(0, dot);
      std::string_view function_name = std::string_view(import.name).substr(dot + 1);
      ImportTarget target;
      // As in IREE, a module imports from the modules before it: libraries
      // come first, and initialisers (run in module order) only ever call
      // into modules that are already initialised.
      for (size_t e = 0; e < m; ++e) {
        if (modules_[e]->name() != module_name) continue;
        const ExportedFunction* exported = modules_[e]->LookupExport(function_name);
        if (!exported) break;
        // A variadic native export accepts every concrete import signature
        // that extends its fixed prefix (signature.h).
        if (!ImportMatchesExport(import.signature, exported->signature)) {
          return InvalidArgumentError("import '" + import.name + "' of module '" +
                                      std::string(importer.name()) + "' has signature " +
                                      FormatSignature(import.signature) + " but module '" +
                                      std::string(module_name) + "' exports it with signature " +
                                      FormatSignature(exported->signature));
        }
        // The signatures match, so calls through this import have the shape
        // the export expects and may take its trusted entry (module.h).
        target = ImportTarget{modules_[e].get(), states_[e].get(), exported->ordinal,
                              modules_[e]->GetTrustedEntry(exported->ordinal)};
        break;
      }
      if (!target.resolved() && !import.optional) {
        for (size_t e = m + 1; e < modules_.size(); ++e) {
          if (modules_[e]->name() != module_name) continue;
          return NotFoundError("import '" + import.name + "' of module '" +
                               std::string(importer.name()) + "' names module '" +
                               std::string(module_name) +
                               "', which comes after it: a module imports only from the modules "
                               "before it (list '" +
                               std::string(module_name) + "' first)");
        }
        return NotFoundError("missing required import '" + import.name + "' " +
                             FormatSignature(import.signature) + " of module '" +
                             std::string(importer.name()) + "'");
      }
      KILN_RETURN_IF_ERROR(importer.ResolveImport(*states_[m], i, target));
    }
  }
  return OkStatus();
}

std::unique_ptr<Stack> Context::AcquireStack() {
  if (idle_stack_) return std::move(idle_stack_);
  return std::make_unique<Stack>(options_.stack, options_.trace_sink);
}

void Context::ReleaseStack(std::unique_ptr<Stack> stack) {
  if (!idle_stack_) idle_stack_ = std::move(stack);
}

Result<Function> Context::LookupFunction(std::string_view name) const {
  if (!name.empty() && name.front() == '@') name.remove_prefix(1);
  size_t dot = name.find('.');
  if (dot != std::string_view::npos) {
    std::string_view module_name = name.substr(0, dot);
    for (size_t i = 0; i < modules_.size(); ++i) {
      if (modules_[i]->name() != module_name) continue;
      if (const ExportedFunction* f = modules_[i]->LookupExport(name.substr(dot + 1))) {
        return Function{modules_[i].get(), states_[i].get(), f};
      }
    }
  }
  for (size_t i = modules_.size(); i-- > 0;) {
    if (const ExportedFunction* f = modules_[i]->LookupExport(name)) {
      return Function{modules_[i].get(), states_[i].get(), f};
    }
  }
  return NotFoundError("no exported function '" + std::string(name) + "' in the context");
}

}  // namespace kiln::vm
