// kiln-embedding-sample <module.kmod> [n]: embedding kiln in an application.
//
// The application
//   1. creates an Instance (shared by all contexts of the process),
//   2. loads and verifies a .kmod from a file,
//   3. defines its own native module "logger" whose `log` function keeps a
//      call counter in per-context state (no globals: the state object is
//      passed to the function explicitly),
//   4. links [logger, module] into a Context, which resolves the module's
//      import of logger.log and checks its signature,
//   5. invokes sample.main(n) a couple of times with variant lists and
//      prints the results and the logger's final count.
// Every step returns a Status; any error is printed and the exit code is 1.
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "vm/bytecode_module.h"
#include "vm/context.h"
#include "vm/instance.h"
#include "vm/invocation.h"
#include "vm/list.h"
#include "vm/native_module.h"

namespace {

using namespace kiln;
using namespace kiln::vm;

// The logger's per-context state.
struct LoggerState {
  int32_t calls = 0;
};

// logger.log(value) -> calls so far. Its signature, "i_i", is derived from
// the C++ parameter and result types.
int32_t Log(LoggerState& state, int32_t value) {
  ++state.calls;
  std::printf("logger.log(%" PRId32 ") call #%" PRId32 "\n", value, state.calls);
  return state.calls;
}

constexpr int kInvocations = 2;

Status Run(const std::string& module_path, int32_t n) {
  Ref<Instance> instance = Instance::Create();
  KILN_ASSIGN_OR_RETURN(Ref<BytecodeModule> module,
                        BytecodeModule::LoadFile(*instance, module_path));

  Ref<NativeModule<LoggerState>> logger = NativeModule<LoggerState>::Create(
      "logger",
      []() -> Result<std::unique_ptr<LoggerState>> { return std::make_unique<LoggerState>(); });
  logger->Export("log", &Log);

  KILN_ASSIGN_OR_RETURN(Ref<Context> context,
                        Context::Create(instance, {Ref<Module>(logger), Ref<Module>(module)}));
  KILN_ASSIGN_OR_RETURN(Function main, context->LookupFunction("sample.main"));

  for (int i = 0; i < kInvocations; ++i) {
    Ref<List> arguments = List::Create(1);
    arguments->Push(Variant::I32(n));
    KILN_ASSIGN_OR_RETURN(Ref<List> results, Invoke(*context, main, *arguments));
    KILN_ASSIGN_OR_RETURN(int32_t value, results->GetI32(0));
    std::printf("sample.main(%" PRId32 ") = %" PRId32 "\n", n, value);
  }

  // The logger's state belongs to this context (module 0 of the list above).
  const LoggerState& state = NativeModule<LoggerState>::UserState(*context->state_of(0));
  std::printf("logger.log was called %" PRId32 " times\n", state.calls);
  return OkStatus();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: %s <module.kmod> [n]\n", argv[0]);
    return 1;
  }
  int32_t n = 10;
  if (argc == 3) {
    char* end = nullptr;
    errno = 0;
    long value = std::strtol(argv[2], &end, 10);
    if (errno != 0 || end == argv[2] || *end != '\0' || value < 0 || value > 40) {
      std::fprintf(stderr, "kiln-embedding-sample: n must be an integer in [0, 40], got '%s'\n",
                   argv[2]);
      return 1;
    }
    n = static_cast<int32_t>(value);
  }
  Status status = Run(argv[1], n);
  if (!status.ok()) {
    std::fflush(stdout);
    std::fprintf(stderr, "kiln-embedding-sample: %s\n", status.ToString().c_str());
    return 1;
  }
  return 0;
}
