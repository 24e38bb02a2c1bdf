#include "tools/common/instruction_tracer.h"

#include "vm/bytecode_module.h"
#include "vm/disassembler.h"

namespace kiln::tools {

vm::InstructionTrace InstructionTracer::Callback() {
  return [this](const vm::BytecodeModule& module, uint32_t function, uint32_t offset) {
    sink_(Line(module, function, offset));
  };
}

const std::string& InstructionTracer::Line(const vm::BytecodeModule& module, uint32_t function,
                                           uint32_t offset) {
  std::string& line = lines_[&module][uint64_t{function} << 32 | offset];
  if (!line.empty()) return line;
  line = "[trace] " + module.function(function).name + "+" + std::to_string(offset) + "  ";
  auto instruction = vm::DisassembleInstruction(module.flat(), function, offset);
  line += instruction.ok() ? instruction->ToString() : "<" + instruction.status().message() + ">";
  std::string location = module.SourceLocation(function, offset);
  if (!location.empty()) line += "  (" + location + ")";
  return line;
}

}  // namespace kiln::tools
