#include "tools/common/dispatch_sites.h"

#include <map>

#include "schemas/module_generated.h"

namespace kiln::tools {

std::vector<std::pair<std::string, std::string>> DispatchSiteLocations(
    const vm::BytecodeModule& module) {
  std::vector<std::pair<std::string, std::string>> result;
  const auto* executables = module.flat().executables();
  if (executables == nullptr) return result;
  for (const auto* executable : *executables) {
    if (!executable->name() || !executable->exports() || !executable->dispatch_sites()) continue;
    // Per export ordinal, its locations in site order.
    std::map<uint32_t, std::string> locations;
    for (const auto* site : *executable->dispatch_sites()) {
      // The loader verified the functions; the debug table is only trusted
      // as far as it indexes them.
      if (site->function() >= module.functions().size()) continue;
      const std::string location = module.SourceLocation(site->function(), site->bytecode_offset());
      if (location.empty()) continue;
      std::string& text = locations[site->export_ordinal()];
      if (text.find(location) != std::string::npos) continue;
      text += (text.empty() ? "" : ", ") + location;
    }
    for (const auto* e : *executable->exports()) {
      auto it = locations.find(e->ordinal());
      if (it == locations.end() || !e->name()) continue;
      result.emplace_back("dispatch @" + executable->name()->str() + "::@" + e->name()->str(),
                          it->second);
    }
  }
  return result;
}

void AddDispatchSiteDetails(const vm::BytecodeModule& module, hal::Trace& trace) {
  for (auto& [name, locations] : DispatchSiteLocations(module)) {
    trace.SetDefaultDetail(std::move(name), std::move(locations));
  }
}

}  // namespace kiln::tools
