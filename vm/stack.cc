#include "vm/stack.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace kiln::vm {

Stack::Stack(const StackOptions& options, TraceSink trace_sink)
    : options_(options), trace_sink_(std::move(trace_sink)) {
  options_.arena_bytes = (options_.arena_bytes + 7) & ~size_t{7};
  // Zeroed so that a register read before any write (legal in bytecode that
  // the verifier accepts) sees zeros, not stale memory; calloc gets fresh
  // zero pages from the OS without touching them. 16-byte aligned.
  arena_.reset(static_cast<uint8_t*>(std::calloc(options_.arena_bytes, 1)));
  if (!arena_) options_.arena_bytes = 0;  // Every call then fails as a stack overflow.
  ResetBudget();
}

void Stack::Free::operator()(uint8_t* p) const { std::free(p); }

void Stack::Trace(std::string_view line) const {
  if (trace_sink_) {
    trace_sink_(line);
  } else {
    std::fprintf(stderr, "%.*s\n", static_cast<int>(line.size()), line.data());
  }
}

}  // namespace kiln::vm
