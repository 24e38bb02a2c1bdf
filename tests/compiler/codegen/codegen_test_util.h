// Helpers for the code generator's tests: compile MLIR text (parse, verify,
// the passes, GenerateModule), load the module through the VM's verifier,
// run its functions, and decode the emitted bytecode with the opcode table so
// tests can check instruction sequences and register counts.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "compiler/codegen/codegen.h"
#include "compiler/parser/parser.h"
#include "compiler/passes/passes.h"
#include "schemas/module_generated.h"
#include "vm/bytecode_module.h"
#include "vm/context.h"
#include "vm/invocation.h"
#include "vm/opcodes.h"

namespace kiln::compiler::testing {

// One decoded instruction: its opcode and every operand as a number
// (registers, immediates' bits, targets, indices; variadic lists flattened
// after their count).
struct Instruction {
  uint32_t offset = 0;
  vm::Opcode opcode = vm::Opcode::kCount;
  std::vector<int64_t> operands;
  std::string_view mnemonic() const { return vm::GetOpcodeInfo(opcode).mnemonic; }
};

// Decodes a function's bytecode with the opcode table (for verified modules).
inline std::vector<Instruction> Decode(const uint8_t* code, size_t length) {
  std::vector<Instruction> out;
  size_t pc = 0;
  auto read = [&](size_t bytes) {
    uint64_t value = 0;
    std::memcpy(&value, code + pc, bytes);
    pc += bytes;
    return value;
  };
  while (pc < length) {
    Instruction inst;
    inst.offset = static_cast<uint32_t>(pc);
    inst.opcode = static_cast<vm::Opcode>(code[pc++]);
    const vm::OpcodeInfo& info = vm::GetOpcodeInfo(inst.opcode);
    for (int i = 0; i < info.operand_count; ++i) {
      const vm::OperandKind kind = info.operands[i];
      switch (kind) {
        case vm::OperandKind::kCallArgs:
        case vm::OperandKind::kCallResults:
        case vm::OperandKind::kReturnValues: {
          const uint64_t count = read(1);
          inst.operands.push_back(static_cast<int64_t>(count));
          for (uint64_t k = 0; k < count; ++k)
            inst.operands.push_back(static_cast<int64_t>(read(2)));
          break;
        }
        case vm::OperandKind::kSwitchTargets: {
          const uint64_t count = read(2);
          inst.operands.push_back(static_cast<int64_t>(count));
          for (uint64_t k = 0; k < count; ++k)
            inst.operands.push_back(static_cast<int64_t>(read(4)));
          break;
        }
        case vm::OperandKind::kTraceOperands: {
          const uint64_t count = read(1);
          for (uint64_t k = 0; k < count; ++k) read(3);
          break;
        }
        case vm::OperandKind::kImmI32: {
          inst.operands.push_back(static_cast<int32_t>(static_cast<uint32_t>(read(4))));
          break;
        }
        default:
          inst.operands.push_back(static_cast<int64_t>(read(vm::FixedOperandSize(kind))));
          break;
      }
    }
    out.push_back(std::move(inst));
  }
  return out;
}

// A compiled module, loaded and linked into a context.
class Compiled {
 public:
  // Compiles `text`. `run_passes`: verify, fold, lower scf, simplify and
  // eliminate dead code first (as kiln-compile does); otherwise only verify,
  // so hand-written shapes reach the code generator unchanged.
  static Compiled FromText(const std::string& text, bool run_passes = true,
                           std::vector<Ref<vm::Module>> natives = {}, CodegenOptions options = {}) {
    Compiled c;
    c.sources_ = std::make_unique<SourceManager>();
    const uint32_t file = c.sources_->AddFile("test.mlir", text);
    DiagnosticEngine diagnostics(*c.sources_);
    auto module = ParseModule(*c.sources_, file, diagnostics);
    if (!module.ok()) {
      c.error_ = "parse: " + diagnostics.Render() + module.status().ToString();
      return c;
    }
    Operation* m = module->get();
    Status status = VerifyModule(m, diagnostics);
    if (status.ok() && run_passes) {
      FoldConstants(m);
      status = LowerStructuredControlFlow(m, diagnostics);
      if (status.ok()) {
        SimplifyControlFlow(m);
        EliminateDeadCode(m);
      }
    }
    if (!status.ok()) {
      c.error_ = "passes: " + diagnostics.Render() + status.ToString();
      return c;
    }
    const SourceManager& sources = *c.sources_;  // Outlives the move of `c`.
    return FromModule(m, sources, std::move(c), std::move(natives), options);
  }

  // Generates and loads `module`.
  static Compiled FromModule(Operation* module, const SourceManager& sources, Compiled c = {},
                             std::vector<Ref<vm::Module>> natives = {},
                             CodegenOptions options = {}) {
    DiagnosticEngine diagnostics(sources);
    auto bytes = GenerateModule(module, sources, diagnostics, options);
    if (!bytes.ok()) {
      c.error_ = bytes.status().message();
      c.diagnostics_ = diagnostics.diagnostics();
      return c;
    }
    c.bytes_ = std::move(*bytes);
    Ref<vm::Instance> instance = vm::Instance::Create();
    auto loaded = vm::BytecodeModule::Load(*instance, AlignedBuffer::CopyOf(c.bytes_));
    if (!loaded.ok()) {
      c.error_ = "load: " + loaded.status().ToString();
      return c;
    }
    c.module_ = *loaded;
    natives.push_back(Ref<vm::Module>(c.module_));
    auto context = vm::Context::Create(instance, std::move(natives));
    if (!context.ok()) {
      c.error_ = "context: " + context.status().ToString();
      return c;
    }
    c.context_ = *context;
    return c;
  }

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }
  vm::Context& context() { return *context_; }

  Result<std::vector<vm::Variant>> Call(std::string_view function, std::vector<vm::Variant> args) {
    if (!context_) return FailedPreconditionError("not compiled: " + error_);
    Ref<vm::List> list = vm::List::Create(args.size());
    for (vm::Variant& arg : args) list->Push(std::move(arg));
    std::string name = std::string(flat().name()->string_view()) + "." + std::string(function);
    KILN_ASSIGN_OR_RETURN(Ref<vm::List> results, vm::Invoke(*context_, name, *list));
    return results->items();
  }

  const schema::Module& flat() const { return *schema::GetModule(bytes_.data()); }
  const schema::Function* function(std::string_view name) const {
    for (const schema::Function* f : *flat().functions()) {
      if (f->name()->string_view() == name) return f;
    }
    return nullptr;
  }
  std::vector<Instruction> Disassemble(std::string_view name) const {
    const schema::Function* f = function(name);
    if (!f) return {};
    return Decode(flat().bytecode()->data() + f->bytecode_offset(), f->bytecode_length());
  }
  std::vector<std::string> Mnemonics(std::string_view name) const {
    std::vector<std::string> out;
    for (const Instruction& i : Disassemble(name)) out.emplace_back(i.mnemonic());
    return out;
  }
  // "12: add.imm.i32 1 0 -1" per line, for failure messages.
  std::string Listing(std::string_view name) const {
    std::string out;
    for (const Instruction& i : Disassemble(name)) {
      out += std::to_string(i.offset) + ": " + std::string(i.mnemonic());
      for (int64_t o : i.operands) out += " " + std::to_string(o);
      out += "\n";
    }
    return out;
  }
  size_t Count(std::string_view name, vm::Opcode opcode) const {
    size_t n = 0;
    for (const Instruction& i : Disassemble(name)) n += i.opcode == opcode;
    return n;
  }

 private:
  std::unique_ptr<SourceManager> sources_;
  std::string error_;
  std::vector<Diagnostic> diagnostics_;
  std::vector<uint8_t> bytes_;
  Ref<vm::BytecodeModule> module_;
  Ref<vm::Context> context_;
};

// The single result of calling `function` (test failure on errors).
inline vm::Variant CallOne(Compiled& c, std::string_view function, std::vector<vm::Variant> args) {
  auto results = c.Call(function, std::move(args));
  EXPECT_TRUE(results.ok()) << results.status().ToString();
  if (!results.ok() || results->size() != 1) {
    ADD_FAILURE() << "expected one result from " << function;
    return vm::Variant::I32(0);
  }
  return (*results)[0];
}

}  // namespace kiln::compiler::testing
