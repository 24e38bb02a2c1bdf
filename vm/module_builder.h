// ModuleBuilder: assembles functions, constants, rodata, imports/exports and
// debug locations, and writes a .kmod.
//
//   ModuleBuilder builder("math");
//   FunctionBuilder& fib = builder.AddFunction("fib", "i_i");
//   Label recurse = fib.NewLabel();
//   fib.Emit(Opcode::kConstI32, {Reg(1), ImmI32(2)});
//   fib.Emit(Opcode::kCmpLtSI32, {Reg(2), Reg(0), Reg(1)});
//   ...
//   builder.AddExport("fib", fib.ordinal());
//   KILN_ASSIGN_OR_RETURN(std::vector<uint8_t> kmod, builder.Finish());
//
// The builder encodes operands per the opcode table (vm/opcodes.h) and checks
// that each operand has the kind the table asks for; it does not run the
// verifier, so tests can also produce deliberately malformed modules (raw
// bytes, wrong register counts, a different bytecode version).
// Register counts default to one more than the highest register used in each
// bank (and at least the arguments); SetRegisterCounts overrides them.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <initializer_list>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "vm/opcodes.h"

namespace kiln::vm {

// A position in a function's bytecode, bound with FunctionBuilder::Bind.
struct Label {
  uint32_t id = UINT32_MAX;
};

// One operand for FunctionBuilder::Emit. Registers take the bank the opcode
// table says; indices (function, import, rodata, string, type, global) are
// plain numbers.
struct Operand {
  enum class Kind : uint8_t { kRegister, kImmI32, kImmI64, kImmF32, kImmF64, kLabel, kIndex };
  Kind kind;
  uint64_t bits;  // Register number, index, label id or immediate bits.
};
Operand Reg(uint16_t index);
Operand ImmI32(int32_t value);
Operand ImmI64(int64_t value);
Operand ImmF32(float value);
Operand ImmF64(double value);
Operand Target(Label label);
Operand Index(uint32_t index);

// Reflection for one export, printed by tools.
struct ExportReflection {
  std::vector<std::pair<std::string, std::string>> attributes;
  std::vector<std::string> argument_descriptions;
  std::vector<std::string> result_descriptions;
};

// Debug description of one embedded executable (see module.fbs,
// ExecutableDescriptor); tools print it, the VM ignores it.
struct ExecutableDescription {
  struct Variant {
    std::string target, format, config;
    uint32_t rodata = 0;  // Ordinal returned by AddRodata.
  };
  struct Export {
    std::string name;
    uint32_t ordinal = 0;
    std::string layout;
    std::array<uint32_t, 3> workgroup_size = {1, 1, 1};
  };
  struct DispatchSite {
    uint32_t function = 0;
    uint32_t bytecode_offset = 0;  // Relative to the function's bytecode.
    uint32_t export_ordinal = 0;
    // The id an instrumented dispatch records (module.fbs); kNoSiteId for
    // the others.
    static constexpr uint32_t kNoSiteId = 0xFFFFFFFFu;
    uint32_t site_id = kNoSiteId;
  };
  std::string name;
  std::vector<Variant> variants;
  std::vector<Export> exports;
  std::vector<DispatchSite> dispatch_sites;
};

class FunctionBuilder {
 public:
  uint32_t ordinal() const { return ordinal_; }
  const std::string& name() const { return name_; }
  const std::string& signature() const { return signature_; }

  Label NewLabel();
  // Binds `label` to the current position.
  void Bind(Label label);

  // Sets the source location attached to the following instructions.
  void SetLocation(uint32_t file, uint32_t line, uint32_t column);
  void ClearLocation() { has_location_ = false; }

  // Emits a fixed-operand instruction (not call/call.import/return/switch/trace).
  void Emit(Opcode opcode, std::initializer_list<Operand> operands);
  void EmitCall(uint32_t function, std::span<const uint16_t> args,
                std::span<const uint16_t> results);
  void EmitCallImport(uint32_t import, std::span<const uint16_t> args,
                      std::span<const uint16_t> results);
  void EmitReturn(std::span<const uint16_t> values);
  void EmitReturn(std::initializer_list<uint16_t> values) {
    EmitReturn(std::span<const uint16_t>(values.begin(), values.size()));
  }
  void EmitSwitch(uint16_t index_register, Label default_target, std::span<const Label> cases);
  // Operands are (bank, register) pairs.
  void EmitTrace(uint32_t string, std::span<const std::pair<Bank, uint16_t>> operands);
  // Appends raw bytes (for malformed-module tests).
  void EmitRaw(std::span<const uint8_t> bytes);

  // Overrides the computed register counts (i32, i64, f32, f64, ref).
  void SetRegisterCounts(std::array<uint16_t, kBankCount> counts);
  // Current bytecode size: the offset of the next instruction.
  uint32_t offset() const { return static_cast<uint32_t>(code_.size()); }

 private:
  friend class ModuleBuilder;
  FunctionBuilder(class ModuleBuilder* module, uint32_t ordinal, std::string name,
                  std::string signature);
  void EmitCallTo(bool is_import, uint32_t callee, std::span<const uint16_t> args,
                  std::span<const uint16_t> results);
  void RecordLocation();
  void UseRegister(Bank bank, uint16_t index);
  void Append(const void* data, size_t size);
  template <typename T>
  void AppendValue(T value) {
    Append(&value, sizeof(value));
  }
  void Error(std::string message);

  class ModuleBuilder* module_;
  uint32_t ordinal_;
  std::string name_;
  std::string signature_;
  std::vector<uint8_t> code_;
  std::vector<int64_t> label_offsets_;
  std::vector<std::pair<uint32_t, uint32_t>> fixups_;  // (code offset, label id)
  std::array<uint32_t, kBankCount> max_register_plus_one_{};
  bool has_register_override_ = false;
  std::array<uint16_t, kBankCount> register_override_{};
  bool has_location_ = false;
  uint32_t file_ = 0, line_ = 0, column_ = 0;
  struct Location {
    uint32_t offset, file, line, column;
  };
  std::vector<Location> locations_;
  struct PendingCall {
    uint32_t callee;
    bool is_import;
    std::vector<uint16_t> args, results;
  };
  std::vector<PendingCall> pending_calls_;
};

class ModuleBuilder {
 public:
  explicit ModuleBuilder(std::string name, uint32_t version = 0);

  uint32_t AddType(std::string name);
  uint32_t AddImport(std::string qualified_name, std::string signature, bool optional = false);
  uint32_t AddRodata(std::string name, std::span<const uint8_t> data, uint32_t alignment = 16);
  uint32_t AddString(std::string text);
  uint32_t AddSourceFile(std::string path);
  void SetGlobals(uint32_t bytes, uint32_t refs);
  // Names a global for tools (debug information; the VM ignores it).
  // `offset` is a byte offset (size 4 or 8) or, with is_ref, a ref slot.
  void AddGlobalDescriptor(std::string name, std::string type, uint32_t offset, uint32_t size,
                           bool is_ref = false);
  // Describes an embedded executable for tools (debug information).
  void AddExecutableDescription(ExecutableDescription description);
  void SetInitializer(uint32_t function);
  // Bytecode version written to the module (defaults to the VM's own).
  void SetBytecodeVersion(uint16_t major, uint16_t minor);

  // The returned reference stays valid for the builder's lifetime.
  FunctionBuilder& AddFunction(std::string name, std::string signature);
  void AddExport(std::string name, uint32_t function, ExportReflection reflection = {});

  // Serialises the module, ending in its checksum trailer
  // (vm/module_checksum.h); fails on builder misuse (unbound labels, operands
  // of the wrong kind), never on semantic problems the verifier would catch.
  Result<std::vector<uint8_t>> Finish();

 private:
  friend class FunctionBuilder;
  struct ImportEntry {
    std::string name, signature;
    bool optional;
  };
  struct RodataEntry {
    std::string name;
    std::vector<uint8_t> data;
    uint32_t alignment;
  };
  struct GlobalEntry {
    std::string name, type;
    uint32_t offset, size;
    bool is_ref;
  };
  struct ExportEntry {
    std::string name;
    uint32_t function;
    ExportReflection reflection;
  };

  std::string name_;
  uint32_t version_;
  uint16_t bytecode_major_, bytecode_minor_;
  std::vector<std::string> types_, strings_, source_files_;
  std::vector<ImportEntry> imports_;
  std::vector<RodataEntry> rodata_;
  std::vector<ExportEntry> exports_;
  std::vector<GlobalEntry> globals_;
  std::vector<ExecutableDescription> executables_;
  std::deque<FunctionBuilder> functions_;  // deque: references stay valid.
  uint32_t global_bytes_ = 0, global_refs_ = 0;
  int32_t initializer_ = -1;
  std::vector<std::string> errors_;
};

}  // namespace kiln::vm
