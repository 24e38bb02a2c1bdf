// InstructionTracer: turns the interpreter's per-instruction callback
// (StackOptions::instruction_trace) into readable lines, for
// kiln-run-module --trace_execution:
//
//   [trace] fib+12  add.i32 i2, i0, i1  (fib.mlir:4:10)
//
// function name, bytecode offset, the instruction as the disassembler
// (vm/disassembler.h) renders it, and its source location when the module's
// debug table has one. A loop executes the same instructions again and again,
// so each (module, function, offset) is disassembled once and its line cached.
//
// A tracer is used by one thread at a time, like the context it traces.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "vm/stack.h"

namespace kiln::vm {
class BytecodeModule;
}  // namespace kiln::vm

namespace kiln::tools {

class InstructionTracer {
 public:
  // Each traced line (without a newline) goes to `sink`.
  explicit InstructionTracer(std::function<void(std::string_view line)> sink)
      : sink_(std::move(sink)) {}

  // The callback to put in StackOptions::instruction_trace. It refers to this
  // tracer, which must outlive every invocation that uses it.
  vm::InstructionTrace Callback();

  // The trace line of one instruction (cached).
  const std::string& Line(const vm::BytecodeModule& module, uint32_t function, uint32_t offset);

 private:
  std::function<void(std::string_view)> sink_;
  // Per module: (function << 32 | offset) -> line.
  std::unordered_map<const vm::BytecodeModule*, std::unordered_map<uint64_t, std::string>> lines_;
};

}  // namespace kiln::tools
