// Dispatch sites: where in the program source each executable export is
// dispatched, for the `detail` of the device spans of --trace.
//
// Drivers name a dispatch span after the executable and export
// ("dispatch @ex::@f", hal/utils/dispatch_spans.h) but cannot know which
// call made it: the hal module's dispatch import does not see the calling
// instruction. The module's debug tables can say it: each embedded
// executable lists its dispatch sites (function and bytecode offset, as
// kiln-dump-module prints them) and the functions map offsets to source
// locations. An export dispatched from several sites gets all of their
// locations, in the order the module lists them ("a.mlir:3:5, a.mlir:9:5").
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "hal/trace.h"
#include "vm/bytecode_module.h"

namespace kiln::tools {

// (span name, locations) for every export of `module`'s executables that
// has a dispatch site with a source location.
std::vector<std::pair<std::string, std::string>> DispatchSiteLocations(
    const vm::BytecodeModule& module);

// Makes those locations the default detail of the spans (Trace::SetDefaultDetail).
void AddDispatchSiteDetails(const vm::BytecodeModule& module, hal::Trace& trace);

}  // namespace kiln::tools
