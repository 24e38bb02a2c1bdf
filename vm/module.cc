#include "vm/module.h"

namespace kiln::vm {

Status Module::ResolveImport(ModuleState& state, size_t ordinal, const ImportTarget& target) {
  return InternalError("module '" + std::string(name()) + "' has no imports");
}

const ExportedFunction* Module::LookupExport(std::string_view function_name) const {
  if (!function_name.empty() && function_name.front() == '@') function_name.remove_prefix(1);
  for (const ExportedFunction& function : exports()) {
    if (function.name == function_name) return &function;
  }
  return nullptr;
}

}  // namespace kiln::vm
