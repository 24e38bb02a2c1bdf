// Helpers shared by the VM unit tests: build a module with the ModuleBuilder,
// load it (running the verifier), link it into a context and invoke.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/file_io.h"
#include "vm/bytecode_module.h"
#include "vm/context.h"
#include "vm/invocation.h"
#include "vm/module_builder.h"

namespace kiln::vm::testing {

// Serialises `builder`, failing the test on builder errors.
inline std::vector<uint8_t> BuildBytes(ModuleBuilder& builder) {
  auto bytes = builder.Finish();
  EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
  return bytes.ok() ? *bytes : std::vector<uint8_t>();
}

// Loads (and so verifies) module bytes.
inline Result<Ref<BytecodeModule>> LoadBytes(const Instance& instance,
                                             const std::vector<uint8_t>& bytes) {
  return BytecodeModule::Load(instance, AlignedBuffer::CopyOf(bytes));
}

// Builds, loads and links `builder` (after `extra_modules`) into a new context.
inline Result<Ref<Context>> MakeContext(ModuleBuilder& builder,
                                        std::vector<Ref<Module>> extra_modules = {},
                                        ContextOptions options = {}) {
  Ref<Instance> instance = Instance::Create();
  KILN_ASSIGN_OR_RETURN(Ref<BytecodeModule> module, LoadBytes(*instance, BuildBytes(builder)));
  extra_modules.push_back(Ref<Module>(module));
  return Context::Create(instance, std::move(extra_modules), std::move(options));
}

// Invokes `function` with `args`, returning the results as a vector.
inline Result<std::vector<Variant>> Call(Context& context, std::string_view function,
                                         std::vector<Variant> args) {
  Ref<List> list = List::Create(args.size());
  for (Variant& arg : args) list->Push(std::move(arg));
  KILN_ASSIGN_OR_RETURN(Ref<List> results, Invoke(context, function, *list));
  return results->items();
}

// Per-context state of a small native module ("counter.bump" in the tests):
// counts calls and sums their arguments, so tests can tell contexts apart.
struct CounterState {
  int32_t calls = 0;
  int64_t total = 0;
};

// counter.bump(by): adds `by` to the total and returns the new call count.
inline int32_t Bump(CounterState& state, int32_t by) {
  state.total += by;
  return ++state.calls;
}

}  // namespace kiln::vm::testing
