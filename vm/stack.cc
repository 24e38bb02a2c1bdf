#include "vm/stack.h"

#include <cstdio>
#include <string>

namespace kiln::vm {

Stack::Stack(const StackOptions& options, TraceSink trace_sink)
    : options_(options), trace_sink_(std::move(trace_sink)) {
  options_.arena_bytes = (options_.arena_bytes + 7) & ~size_t{7};
  // The arena is 8-byte aligned (operator new guarantees 16).
  arena_.reset(new uint8_t[options_.arena_bytes]);
}

void Stack::Trace(std::string_view line) const {
  if (trace_sink_) {
    trace_sink_(line);
  } else {
    std::fprintf(stderr, "%.*s\n", static_cast<int>(line.size()), line.data());
  }
}

}  // namespace kiln::vm
