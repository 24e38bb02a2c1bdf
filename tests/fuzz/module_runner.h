// The body of the module fuzzer: load + verify, link and invoke one input.
//
// RunModuleBytes treats `bytes` as the FlatBuffer of a .kmod: it seals it with
// a correct checksum (vm/module_checksum.h; a hostile file would carry one,
// and a mutated input must reach the verifier, not stop at the checksum),
// loads it (which verifies it),
// links it into a context after a small native module named "fuzz" (so that
// imports such as "fuzz.i_i" resolve and call.import reaches native code),
// then invokes every export with zero/null arguments on a small stack. Errors
// at any step are expected and ignored; what the fuzzer looks for is a crash,
// a sanitizer report, a leak or a hang.
//
// A function is invoked only when its work is statically bounded (see
// work_bound.h) and fits the input's budget; so is the module initializer,
// which runs while the context is created.
#pragma once

#include <cstdint>
#include <span>

namespace kiln::fuzz {

struct RunSummary {
  bool loaded = false;  // Load + verify succeeded.
  bool linked = false;  // The context was created (imports resolved, initializer ran).
  int invoked = 0;      // Exports invoked (whatever they returned).
  int skipped = 0;      // Exports (or the initializer) not run: unbounded or over budget.
};

RunSummary RunModuleBytes(std::span<const uint8_t> bytes);

}  // namespace kiln::fuzz
