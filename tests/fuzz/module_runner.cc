#include "tests/fuzz/module_runner.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "schemas/module_generated.h"
#include "tests/fuzz/work_bound.h"
#include "vm/byte_buffer.h"
#include "vm/bytecode_module.h"
#include "vm/context.h"
#include "vm/invocation.h"
#include "vm/list.h"
#include "vm/module_checksum.h"
#include "vm/native_module.h"

namespace kiln::fuzz {
namespace {

using vm::ByteBuffer;
using vm::List;
using vm::Object;
using vm::Variant;

// What one input may spend, summed over the initializer and every export.
// The byte budget keeps an input to well under a millisecond of interpreted
// code; the allocation budget keeps the worst case (list.resize to the
// interpreter's 2^24-element limit is 384 MiB) inside libFuzzer's 2 GiB RSS
// limit; bulk fills and copies touch at most one buffer each.
struct Budget {
  uint64_t bytecode_bytes = uint64_t{1} << 20;
  uint64_t allocations = 3;
  uint64_t bulk_operations = 16;

  // Charges a function that loops or recurses, run under kBranchBudget: its
  // work is at most (budget + 1) straight runs, each no longer than the
  // longest reachable function. Only when nothing value-dependent (which a
  // loop could repeat without bound in memory) is reachable.
  bool TryChargeUnderBudget(const Reach& reach) {
    if (reach.value_dependent_work) return false;
    const uint64_t bytes = (kBranchBudget + 1) * reach.longest_function_bytes;
    if (bytes > bytecode_bytes) return false;
    bytecode_bytes -= bytes;
    return true;
  }

  // Taken branches and calls each invocation may make.
  static constexpr uint64_t kBranchBudget = 4096;

  // Charges `bound` and returns true if it fits (and may therefore run).
  bool TryCharge(const WorkBound& bound) {
    // Reference counting cannot free a list that holds itself; a function
    // that may store a list into a list could leak by design, which the leak
    // checker would report on every such input.
    if (!bound.bounded || bound.stores_refs_in_lists) return false;
    if (bound.bytecode_bytes > bytecode_bytes || bound.allocations > allocations ||
        bound.bulk_operations > bulk_operations) {
      return false;
    }
    bytecode_bytes -= bound.bytecode_bytes;
    allocations -= bound.allocations;
    bulk_operations -= bound.bulk_operations;
    return true;
  }
};

// The native module "fuzz": one cheap function per common signature (the
// export name is the signature, so "fuzz.i_i" imports the i32 -> i32 one),
// plus functions that fail or return refs. Every function is constant time,
// which WorkBounds relies on.
struct FuzzImportsState {
  int32_t calls = 0;
};

Ref<vm::Module> MakeFuzzImports() {
  using State = FuzzImportsState;
  auto module = vm::NativeModule<State>::Create("fuzz", nullptr);
  module->Export("_", [](State& state) { ++state.calls; });
  module->Export("_i", [](State& state) -> int32_t { return ++state.calls; });
  module->Export("i_", [](State& state, int32_t value) -> Status {
    ++state.calls;
    if (value != 0) return InvalidArgumentError("rejected value " + std::to_string(value));
    return OkStatus();
  });
  module->Export("i_i", [](State& state, int32_t value) -> int32_t {
    return static_cast<int32_t>(static_cast<uint32_t>(value) + 1);
  });
  module->Export("ii_i", [](State& state, int32_t a, int32_t b) -> int32_t { return a ^ b; });
  module->Export("I_I", [](State& state, int64_t value) -> int64_t { return value ^ 0x5a5a; });
  module->Export("f_f", [](State& state, float value) -> float { return value * 0.5f; });
  module->Export("F_F", [](State& state, double value) -> double { return value + 1.0; });
  module->Export("r_r", [](State& state, Ref<Object> value) -> Ref<Object> { return value; });
  // A list of min(n, 16) i32 elements 0, 1, ...
  module->Export("i_r", [](State& state, int32_t count) -> Result<Ref<List>> {
    if (count < 0) return OutOfRangeError("negative list size " + std::to_string(count));
    Ref<List> list = List::Create();
    for (int32_t i = 0; i < std::min(count, 16); ++i) list->Push(Variant::I32(i));
    return list;
  });
  // A zero-filled buffer of min(n, 4096) bytes.
  module->Export("I_r", [](State& state, int64_t length) -> Result<Ref<ByteBuffer>> {
    if (length < 0) return OutOfRangeError("negative buffer length " + std::to_string(length));
    return ByteBuffer::Allocate(static_cast<size_t>(std::min<int64_t>(length, 4096)));
  });
  // The length of a buffer argument; rejects other refs through the type check.
  module->Export("r_I", [](State& state, Ref<ByteBuffer> buffer) -> Result<int64_t> {
    if (!buffer) return InvalidArgumentError("null buffer");
    return static_cast<int64_t>(buffer->length());
  });
  return Ref<vm::Module>(module);
}

const Ref<vm::Instance>& FuzzInstance() {
  static const Ref<vm::Instance> instance = vm::Instance::Create();
  return instance;
}

const Ref<vm::Module>& FuzzImports() {
  static const Ref<vm::Module> imports = MakeFuzzImports();
  return imports;
}

// KILN_FUZZ_VERBOSE=1 prints what happens to each input (to understand a
// reproducer); the fuzzer itself runs silently.
bool Verbose() {
  static const bool verbose = [] {
    const char* value = std::getenv("KILN_FUZZ_VERBOSE");
    return value && *value && std::string_view(value) != "0";
  }();
  return verbose;
}

void Log(const std::string& line) {
  if (Verbose()) std::fprintf(stderr, "%s\n", line.c_str());
}

Variant ZeroValue(char type) {
  switch (type) {
    case 'i':
      return Variant::I32(0);
    case 'I':
      return Variant::I64(0);
    case 'f':
      return Variant::F32(0.0f);
    case 'F':
      return Variant::F64(0.0);
    default:
      return Variant::FromRef(nullptr);
  }
}

}  // namespace

RunSummary RunModuleBytes(std::span<const uint8_t> bytes) {
  RunSummary summary;
  // Sealed with a correct checksum, so every mutation reaches the verifier
  // (as a hostile file would); the checksum itself has its own tests.
  std::vector<uint8_t> sealed(bytes.begin(), bytes.end());
  vm::AppendModuleChecksum(&sealed);
  auto loaded = vm::BytecodeModule::Load(*FuzzInstance(), AlignedBuffer::CopyOf(sealed));
  if (!loaded.ok()) {
    Log("load: " + loaded.status().ToString());
    return summary;
  }
  summary.loaded = true;
  Ref<vm::BytecodeModule> module = *loaded;

  WorkBounds bounds(*module);
  Budget budget;
  const int32_t initializer = module->flat().initializer();
  // Bounded functions are charged their static bound; others run under the
  // interpreter's execution budget when that bounds them.
  auto may_run = [&](uint32_t function) {
    const WorkBound& bound = bounds.Of(function);
    if (bound.bounded) return budget.TryCharge(bound);
    return budget.TryChargeUnderBudget(bounds.ReachableFrom(function));
  };
  if (initializer >= 0 && !may_run(static_cast<uint32_t>(initializer))) {
    summary.skipped = 1 + static_cast<int>(module->exports().size());
    Log("initializer: not run (unbounded or over budget); no context created");
    return summary;
  }

  // Trace lines are formatted (that code is under test) but not printed.
  size_t traced_bytes = 0;
  vm::ContextOptions options;
  options.stack.max_depth = 64;
  options.stack.arena_bytes = 64 << 10;
  options.stack.branch_budget = Budget::kBranchBudget;
  options.trace_sink = [&traced_bytes](std::string_view line) { traced_bytes += line.size(); };
  auto context = vm::Context::Create(FuzzInstance(), {FuzzImports(), Ref<vm::Module>(module)},
                                     std::move(options));
  if (!context.ok()) {
    Log("link: " + context.status().ToString());
    return summary;
  }
  summary.linked = true;

  for (const vm::ExportedFunction& exported : module->exports()) {
    const uint32_t function = module->flat().exports()->Get(exported.ordinal)->function();
    if (!may_run(function)) {
      ++summary.skipped;
      Log("export '" + exported.name + "': not run (unbounded or over budget)");
      continue;
    }
    // Name lookup is public API too; export names are arbitrary strings.
    (void)(*context)->LookupFunction(exported.name);
    vm::Function target{module.get(), (*context)->state_of(1), &exported};
    Ref<List> arguments = List::Create();
    for (char type : module->function(function).arguments) arguments->Push(ZeroValue(type));
    auto results = vm::Invoke(**context, target, *arguments);
    std::string outcome;
    if (results.ok()) {
      for (const Variant& result : (*results)->items()) outcome += " " + result.ToString();
    } else {
      outcome = " " + results.status().ToString();
    }
    traced_bytes += outcome.size();
    Log("export '" + exported.name + "':" + outcome);
    ++summary.invoked;
  }
  return summary;
}

}  // namespace kiln::fuzz
