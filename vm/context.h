// Context: a set of linked modules with their states, ready to invoke.
//
// Creating a context creates each module's state, then resolves every import
// of every module by its fully qualified name ("module.function") against the
// exports of the modules before it (as in IREE: libraries first, so an
// initialiser only calls into initialised modules; an import of a later
// module is an error saying to reorder), checking calling conventions (exactly, or
// against the fixed prefix of a variadic native export, see signature.h): a
// mismatch names the import and both signatures, a missing required import
// names the import. Optional imports may stay unresolved (bytecode tests them
// with import.resolved). Finally module initialisers run, in module order.
//
// A context is used by one thread at a time; two contexts share nothing
// mutable and run concurrently on two threads.
#pragma once

#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "base/ref.h"
#include "base/result.h"
#include "vm/instance.h"
#include "vm/module.h"
#include "vm/stack.h"

namespace kiln::vm {

struct ContextOptions {
  StackOptions stack;
  TraceSink trace_sink;  // Where `trace` output goes; stderr when empty.
};

// An invocable function of a context.
struct Function {
  Module* module = nullptr;
  ModuleState* state = nullptr;
  const ExportedFunction* info = nullptr;
};

class Context final : public RefObject {
 public:
  static Result<Ref<Context>> Create(Ref<Instance> instance, std::vector<Ref<Module>> modules,
                                     ContextOptions options = {});

  // Looks up "module.function", or "function" in the last module that exports
  // it (the main module is usually registered last). A leading '@' is ignored.
  Result<Function> LookupFunction(std::string_view name) const;

  const Ref<Instance>& instance() const { return instance_; }
  std::span<const Ref<Module>> modules() const { return modules_; }
  const ContextOptions& options() const { return options_; }
  ModuleState* state_of(size_t module_index) const { return states_[module_index].get(); }

  // A stack for one invocation: the context's cached stack when it is idle
  // (so repeated invocations do not allocate), a new one when it is in use
  // (an invocation re-entering the context from a native function).
  std::unique_ptr<Stack> AcquireStack();
  void ReleaseStack(std::unique_ptr<Stack> stack);

 private:
  Context() = default;
  ~Context() override;
  Status Link();

  Ref<Instance> instance_;
  std::vector<Ref<Module>> modules_;
  std::vector<std::unique_ptr<ModuleState>> states_;
  ContextOptions options_;
  std::unique_ptr<Stack> idle_stack_;
};

}  // namespace kiln::vm
