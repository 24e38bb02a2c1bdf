// Stack: the execution stack of one invocation.
//
// Register frames of bytecode functions are carved out of one contiguous arena
// (no allocation per call), and the stack counts call depth across bytecode
// and native calls alike, so runaway recursion ends in a clean "stack
// overflow" error naming the function rather than a crash. A Stack belongs to
// one thread for the duration of an invocation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "vm/variant.h"

namespace kiln::vm {

class BytecodeModule;

// Receives the output of the `trace` instruction, one line per call.
using TraceSink = std::function<void(std::string_view line)>;

// Called before each bytecode instruction executes, with the function ordinal
// within `module` and the instruction's bytecode offset in that function (the
// offset into the module's original bytecode, see vm/disassembler.h).
using InstructionTrace =
    std::function<void(const BytecodeModule& module, uint32_t function, uint32_t offset)>;

struct StackOptions {
  // Most nested calls (bytecode and native) an invocation may make.
  int max_depth = 4096;
  // Bytes of register-frame storage; a deep recursion with big frames ends in
  // "stack overflow" when this runs out.
  size_t arena_bytes = size_t{1} << 20;
  // Most taken branches plus calls an invocation may make before it stops
  // with RESOURCE_EXHAUSTED; 0 means unlimited. Every instruction lies on a
  // straight run between such events, so this bounds the work of any
  // invocation (a watchdog for untrusted modules; the fuzzer relies on it).
  int64_t branch_budget = 0;
  // When set, the interpreter runs its tracing variant, which calls this
  // before every instruction (kiln-run-module --trace_execution). When empty
  // (the default) it runs the variant without tracing, which costs nothing.
  InstructionTrace instruction_trace;
};

class Stack {
 public:
  explicit Stack(const StackOptions& options = {}, TraceSink trace_sink = nullptr);
  Stack(const Stack&) = delete;
  Stack& operator=(const Stack&) = delete;

  const StackOptions& options() const { return options_; }
  // The trace sink, or a sink writing to stderr when none was given.
  void Trace(std::string_view line) const;

  // --- Used by module implementations. ---
  // Arena storage: a frame takes `bytes` (a multiple of 8) at `used()`; a
  // call to an import also takes the Variants it passes and receives there,
  // right above the caller's frame, so those calls do not allocate.
  uint8_t* arena() { return arena_.get(); }
  size_t arena_capacity() const { return options_.arena_bytes; }
  size_t used() const { return used_; }
  void set_used(size_t used) { used_ = used; }
  int depth() const { return depth_; }
  void set_depth(int depth) { depth_ = depth; }
  // Taken branches and calls left to the current invocation.
  int64_t budget() const { return budget_; }
  void set_budget(int64_t budget) { budget_ = budget; }
  // Refills the budget from the options; done when an invocation starts.
  void ResetBudget() { budget_ = options_.branch_budget > 0 ? options_.branch_budget : INT64_MAX; }

 private:
  StackOptions options_;
  TraceSink trace_sink_;
  struct Free {
    void operator()(uint8_t* p) const;
  };
  std::unique_ptr<uint8_t, Free> arena_;
  size_t used_ = 0;
  int depth_ = 0;
  int64_t budget_ = INT64_MAX;
};

}  // namespace kiln::vm
