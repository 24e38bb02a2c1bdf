// Module: the unit a Context links. Bytecode modules (loaded from a .kmod) and
// native modules (C++ functions, see native_module.h) implement the same
// interface, so imports resolve the same way whichever side implements them.
//
// A Module is immutable and may be shared by many contexts on many threads.
// Everything mutable (globals, resolved imports, a native module's user
// state) lives in a ModuleState, created once per context.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "base/ref.h"
#include "base/result.h"
#include "vm/variant.h"

namespace kiln::vm {

class Module;
class Stack;

// Per-context, per-module mutable state.
class ModuleState {
 public:
  virtual ~ModuleState() = default;
};

// A function a module offers to importers and invokers.
struct ExportedFunction {
  std::string name;
  std::string signature;  // Calling-convention string, see signature.h.
  uint32_t ordinal = 0;   // Passed back to Module::Call.
};

// A function a module needs from another module.
struct ImportDecl {
  std::string name;  // Fully qualified "module.function".
  std::string signature;
  bool optional = false;
};

// Where a resolved import goes.
struct ImportTarget {
  Module* module = nullptr;
  ModuleState* state = nullptr;
  uint32_t ordinal = 0;
  bool resolved() const { return module != nullptr; }
};

class Module : public RefObject {
 public:
  virtual std::string_view name() const = 0;
  virtual std::span<const ExportedFunction> exports() const = 0;
  virtual std::span<const ImportDecl> imports() const { return {}; }

  // Creates this module's state for one context.
  virtual Result<std::unique_ptr<ModuleState>> CreateState() = 0;
  // Records where import `ordinal` resolved to (or an unresolved optional one).
  virtual Status ResolveImport(ModuleState& state, size_t ordinal, const ImportTarget& target);
  // Runs once per context after all imports are resolved (global initialisers).
  virtual Status Initialize(ModuleState& state, Stack& stack) { return OkStatus(); }

  // Calls export `ordinal`. `args` match the export's signature (the caller
  // guarantees count and value types); `results` has one slot per result.
  virtual Status Call(ModuleState& state, uint32_t ordinal, std::span<const Variant> args,
                      std::span<Variant> results, Stack& stack) = 0;

  // Finds an export by name (with or without a leading '@').
  const ExportedFunction* LookupExport(std::string_view name) const;
};

}  // namespace kiln::vm
