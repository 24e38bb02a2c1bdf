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

// A way into one export that skips what Module::Call checks about the shape
// of a call: the argument count, the value types of the arguments the
// export's signature fixes, and the result count. Only for callers that
// guarantee those by construction, as the interpreter does for a linked
// import: Context linking proved the import's signature compatible with the
// export's, the verifier proved each call site passes and receives exactly
// the import's values, and the interpreter builds every value from a register
// of the signature's type. What depends on the values themselves (a ref's
// type, a variadic tail, ranges) the function still checks.
struct TrustedEntry {
  using Fn = Status (*)(const void* data, ModuleState& state, std::span<const Variant> args,
                        std::span<Variant> results, Stack& stack);
  Fn fn = nullptr;  // Null: the module offers none, go through Module::Call.
  const void* data = nullptr;
};

// Where a resolved import goes.
struct ImportTarget {
  Module* module = nullptr;
  ModuleState* state = nullptr;
  uint32_t ordinal = 0;
  // Filled by Context linking once the signatures matched; empty otherwise.
  TrustedEntry entry;
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
  // The trusted way into export `ordinal` (see TrustedEntry), valid for the
  // module's lifetime; empty when the module has none (the default) or the
  // ordinal is out of range.
  virtual TrustedEntry GetTrustedEntry(uint32_t ordinal) const { return {}; }

  // Finds an export by name (with or without a leading '@').
  const ExportedFunction* LookupExport(std::string_view name) const;
};

}  // namespace kiln::vm
