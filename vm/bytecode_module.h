// BytecodeModule: a verified .kmod, ready to be linked into contexts.
//
// Load() copies nothing it does not have to: the file bytes are kept (64-byte
// aligned) for the module's lifetime, rodata segments are exposed as
// read-only ByteBuffers that view them, and function descriptors are decoded
// once into FunctionInfo records the interpreter reads. Loading runs the
// verifier (vm/verifier.h); a module that loads is safe to execute.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "vm/byte_buffer.h"
#include "vm/instance.h"
#include "vm/module.h"
#include "vm/opcodes.h"

namespace kiln::vm {
inline constexpr uint32_t kFrameHeaderBytes = 64;  // See interpreter.h.
}

namespace kiln::schema {
struct Module;
struct Function;
}  // namespace kiln::schema

namespace kiln::vm {

// A bytecode function as the interpreter sees it.
//
// Frames are a header followed by 8-byte slots, one per register of every
// bank (bank by bank: i32, i64, f32, f64, ref). At load time every register
// operand in the bytecode is rewritten from its bank-relative index to its
// slot index, so the interpreter addresses all banks through one frame pointer
// and copies any primitive value as one 8-byte move.
struct FunctionInfo {
  std::string name;
  std::string signature;
  std::string_view arguments;  // Type characters, views into `signature`.
  std::string_view results;
  const uint8_t* code = nullptr;  // Rewritten (slot-addressed) bytecode.
  uint32_t code_length = 0;
  std::array<uint16_t, kBankCount> register_counts{};
  std::array<uint16_t, kBankCount> bank_slots{};  // First slot of each bank.
  uint32_t frame_bytes = 0;                       // Header plus slots.
  std::vector<uint16_t> argument_slots;           // Slot of each argument, in order.
  uint16_t first_argument_slot = 0;               // argument_slots[0], without the indirection.
  // No ref registers at all (so no ref arguments or results): calls and
  // returns copy plain slots and have no references to take or drop.
  bool ref_free = false;
  const schema::Function* descriptor = nullptr;
};

class BytecodeModule final : public Module {
 public:
  static Result<Ref<BytecodeModule>> Load(const Instance& instance, AlignedBuffer bytes);
  static Result<Ref<BytecodeModule>> LoadFile(const Instance& instance, const std::string& path);

  std::string_view name() const override { return name_; }
  std::span<const ExportedFunction> exports() const override { return exports_; }
  std::span<const ImportDecl> imports() const override { return imports_; }
  Result<std::unique_ptr<ModuleState>> CreateState() override;
  Status ResolveImport(ModuleState& state, size_t ordinal, const ImportTarget& target) override;
  Status Initialize(ModuleState& state, Stack& stack) override;
  Status Call(ModuleState& state, uint32_t ordinal, std::span<const Variant> args,
              std::span<Variant> results, Stack& stack) override;

  // --- Read by the interpreter and tools. ---
  const schema::Module& flat() const { return *flat_; }
  const std::vector<FunctionInfo>& functions() const { return functions_; }
  const FunctionInfo& function(uint32_t ordinal) const { return functions_[ordinal]; }
  // The value types of import `ordinal`'s arguments followed by its results,
  // decoded from its signature once at load.
  const ValueType* import_types(uint32_t ordinal) const { return import_types_[ordinal].data(); }
  const Ref<ByteBuffer>& rodata(uint32_t ordinal) const { return rodata_[ordinal]; }
  const RefType& type(uint32_t ordinal) const { return *types_[ordinal]; }
  std::string_view string(uint32_t ordinal) const { return strings_[ordinal]; }
  uint32_t version() const;
  // "file.mlir:3:5" for a bytecode offset in a function, or "" if unknown.
  std::string SourceLocation(uint32_t function, uint32_t offset) const;
  // "function 'fib' at bytecode offset 12 (fib.mlir:3:5)".
  std::string DescribeLocation(uint32_t function, uint32_t offset) const;

 private:
  BytecodeModule() = default;

  // Owns the file bytes; rodata ByteBuffers retain it, not the module, so a
  // rodata ref may outlive the module without a reference cycle.
  struct Bytes final : RefObject {
    explicit Bytes(AlignedBuffer buffer) : buffer(std::move(buffer)) {}
    AlignedBuffer buffer;
  };

  Ref<Bytes> bytes_;
  AlignedBuffer code_;  // All functions' bytecode, register operands as slots.
  const schema::Module* flat_ = nullptr;
  std::string name_;
  std::vector<FunctionInfo> functions_;
  std::vector<ExportedFunction> exports_;
  std::vector<ImportDecl> imports_;
  std::vector<std::vector<ValueType>> import_types_;
  std::vector<uint32_t> export_functions_;  // The function of each export.
  std::vector<Ref<ByteBuffer>> rodata_;
  std::vector<const RefType*> types_;
  std::vector<std::string_view> strings_;
};

// Per-context state of a bytecode module: globals and resolved imports.
class BytecodeModuleState final : public ModuleState {
 public:
  BytecodeModuleState(uint32_t global_bytes, uint32_t global_refs, size_t import_count);
  ~BytecodeModuleState() override;

  uint8_t* global_bytes() { return global_bytes_.data(); }
  // Owning pointers (each holds one reference), null-initialised.
  Object** global_refs() { return global_refs_.data(); }
  std::vector<ImportTarget>& imports() { return imports_; }

 private:
  std::vector<uint8_t> global_bytes_;  // std::vector's allocator aligns to 16.
  std::vector<Object*> global_refs_;
  std::vector<ImportTarget> imports_;
};

}  // namespace kiln::vm
