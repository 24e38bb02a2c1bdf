// VM speed benchmark: a recursive fib(32) and a 10^8-iteration integer loop,
// built with the module builder and run through the public invocation API.
// tests/benchmarks/run_vm_benchmarks.sh times the same algorithms on lua5.4
// and `luajit -joff` in one interleaved run; see README.md there.
//
// Each repetition is a single invocation (Iterations(1)), so the reported
// time is the time of one fib(32) or one loop, directly comparable with the
// os.clock() figures the Lua scripts print. Counters give the exact number of
// executed VM instructions (derived from the emitted bytecode below) and the
// time per instruction.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "vm/bytecode_module.h"
#include "vm/context.h"
#include "vm/invocation.h"
#include "vm/module_builder.h"

namespace kiln::vm {
namespace {

// fib(i32)->i32: the natural lowering of
//   fib(n) = n < 2 ? n : fib(n - 1) + fib(n - 2)
// using the constant-operand forms a compiler emits for `n < 2` and `n - 1`
// (as LuaJIT's bytecode does with ISLT/SUBVN and Lua 5.4's with LTI/ADDI).
// A leaf call (n < 2) executes 2 instructions (br.lt.imm, return r0); a
// non-leaf call executes 7 (br.lt.imm, add.imm, call, add.imm, call, add,
// return r4).
constexpr int64_t kFibLeafInstructions = 2;
constexpr int64_t kFibNonLeafInstructions = 7;

void BuildFib(ModuleBuilder& builder) {
  FunctionBuilder& fib = builder.AddFunction("fib", "i_i");
  Label base = fib.NewLabel(), recurse = fib.NewLabel();
  fib.Emit(Opcode::kBrLtImmI32S, {Reg(0), ImmI32(2), Target(base), Target(recurse)});
  fib.Bind(base);
  fib.EmitReturn({0});
  fib.Bind(recurse);
  fib.Emit(Opcode::kAddImmI32, {Reg(1), Reg(0), ImmI32(-1)});
  const uint16_t arg[] = {1}, first[] = {2}, second[] = {3};
  fib.EmitCall(fib.ordinal(), arg, first);
  fib.Emit(Opcode::kAddImmI32, {Reg(1), Reg(0), ImmI32(-2)});
  fib.EmitCall(fib.ordinal(), arg, second);
  fib.Emit(Opcode::kAddI32, {Reg(2), Reg(2), Reg(3)});
  fib.EmitReturn({2});
  builder.AddExport("fib", fib.ordinal());
}

// loop(i64 n)->i64: s = sum over i in [0, n) of i * 3 % 7, in 64-bit
// integers like Lua 5.4's, as a compiler lowers the counted loop: the
// back-edge is for.step (i += 1; continue while i < n), the counterpart of
// Lua's FORLOOP and LuaJIT's FORL. i64 registers: r0 n, r1 s, r2 i, r3 3,
// r4 7, r5 t.
// 4 setup constants + 1 entry branch + 4 per iteration + 1 return.
constexpr int64_t kLoopSetupInstructions = 4 + 1 + 1;
constexpr int64_t kLoopBodyInstructions = 4;

void BuildLoop(ModuleBuilder& builder) {
  FunctionBuilder& loop = builder.AddFunction("loop", "I_I");
  Label body = loop.NewLabel(), done = loop.NewLabel();
  loop.Emit(Opcode::kConstI64, {Reg(1), ImmI64(0)});
  loop.Emit(Opcode::kConstI64, {Reg(2), ImmI64(0)});
  loop.Emit(Opcode::kConstI64, {Reg(3), ImmI64(3)});
  loop.Emit(Opcode::kConstI64, {Reg(4), ImmI64(7)});
  loop.Emit(Opcode::kBrLtI64S, {Reg(2), Reg(0), Target(body), Target(done)});
  loop.Bind(body);
  loop.Emit(Opcode::kMulI64, {Reg(5), Reg(2), Reg(3)});
  loop.Emit(Opcode::kRemSI64, {Reg(5), Reg(5), Reg(4)});
  loop.Emit(Opcode::kAddI64, {Reg(1), Reg(1), Reg(5)});
  loop.Emit(Opcode::kForStepI64, {Reg(2), ImmI32(1), Reg(0), Target(body), Target(done)});
  loop.Bind(done);
  loop.EmitReturn({1});
  builder.AddExport("loop", loop.ordinal());
}

// The module and its context, built once and shared by every benchmark.
struct BenchModule {
  Ref<Context> context;
  Function fib, loop;
  std::string error;  // Non-empty when building, loading or linking failed.
};

Result<BenchModule> CreateBenchModule() {
  ModuleBuilder builder("bench");
  BuildFib(builder);
  BuildLoop(builder);
  KILN_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, builder.Finish());
  Ref<Instance> instance = Instance::Create();
  KILN_ASSIGN_OR_RETURN(Ref<BytecodeModule> module,
                        BytecodeModule::Load(*instance, AlignedBuffer::CopyOf(bytes)));
  BenchModule bench;
  KILN_ASSIGN_OR_RETURN(bench.context, Context::Create(instance, {Ref<Module>(module)}));
  KILN_ASSIGN_OR_RETURN(bench.fib, bench.context->LookupFunction("bench.fib"));
  KILN_ASSIGN_OR_RETURN(bench.loop, bench.context->LookupFunction("bench.loop"));
  return bench;
}

BenchModule& GetBenchModule() {
  static BenchModule* bench = [] {
    auto created = CreateBenchModule();
    if (created.ok()) return new BenchModule(std::move(*created));
    auto* failed = new BenchModule;
    failed->error = created.status().ToString();
    return failed;
  }();
  return *bench;
}

// Invokes a one-argument, one-result function through the public API.
Result<Variant> InvokeOne(BenchModule& bench, const Function& function, Variant argument) {
  Ref<List> args = List::Create(1);
  args->Push(std::move(argument));
  KILN_ASSIGN_OR_RETURN(Ref<List> results, Invoke(*bench.context, function, *args));
  if (results->items().size() != 1) return InternalError("expected exactly one result");
  return results->items()[0];
}

int64_t ReferenceFib(int n) {
  int64_t a = 0, b = 1;
  for (int i = 0; i < n; ++i) {
    int64_t next = a + b;
    a = b;
    b = next;
  }
  return a;
}

int64_t ReferenceLoop(int64_t n) {
  int64_t s = 0;
  for (int64_t i = 0; i < n; ++i) s += i * 3 % 7;
  return s;
}

// fib(n) makes fib(n+1) leaf calls (n < 2) and fib(n+1) - 1 non-leaf calls.
int64_t FibInstructions(int n) {
  int64_t leaves = ReferenceFib(n + 1);
  return kFibLeafInstructions * leaves + kFibNonLeafInstructions * (leaves - 1);
}

int64_t LoopInstructions(int64_t n) {
  return kLoopSetupInstructions + kLoopBodyInstructions * (n > 0 ? n : 0);
}

// CPU time of the calling thread, in nanoseconds: what Google Benchmark's
// "CPU" column measures, and (for a single-threaded interpreter) what the Lua
// scripts' os.clock() measures.
int64_t ThreadCpuNanos() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

// Reports the exact instruction count of one invocation and the CPU time per
// executed instruction. Computed here rather than through a kIsRate|kInvert
// counter, which the console reporter prints with a misleading "s" suffix.
void ReportInstructions(benchmark::State& state, int64_t instructions, int64_t cpu_nanos) {
  state.counters["instructions"] = static_cast<double>(instructions);
  const double executed = static_cast<double>(instructions) * state.iterations();
  state.counters["ns_per_instruction"] = executed > 0 ? cpu_nanos / executed : 0;
}

// Set when any benchmark's result check fails, so the process exits non-zero
// (Google Benchmark 1.7 itself exits 0 after SkipWithError).
bool g_failed = false;

void Fail(benchmark::State& state, const std::string& message) {
  g_failed = true;
  state.SkipWithError(message.c_str());
}

void RunFib(benchmark::State& state, int n) {
  BenchModule& bench = GetBenchModule();
  if (!bench.error.empty()) return Fail(state, bench.error);
  const int64_t expected = ReferenceFib(n);
  int64_t cpu_nanos = 0;
  for (auto _ : state) {
    const int64_t start = ThreadCpuNanos();
    auto result = InvokeOne(bench, bench.fib, Variant::I32(n));
    cpu_nanos += ThreadCpuNanos() - start;
    if (!result.ok()) return Fail(state, result.status().ToString());
    if (result->i32() != expected) {
      return Fail(state, "fib(" + std::to_string(n) + ") returned " +
                             std::to_string(result->i32()) + ", expected " +
                             std::to_string(expected));
    }
  }
  ReportInstructions(state, FibInstructions(n), cpu_nanos);
}

void RunLoop(benchmark::State& state, int64_t n) {
  BenchModule& bench = GetBenchModule();
  if (!bench.error.empty()) return Fail(state, bench.error);
  const int64_t expected = ReferenceLoop(n);
  int64_t cpu_nanos = 0;
  for (auto _ : state) {
    const int64_t start = ThreadCpuNanos();
    auto result = InvokeOne(bench, bench.loop, Variant::I64(n));
    cpu_nanos += ThreadCpuNanos() - start;
    if (!result.ok()) return Fail(state, result.status().ToString());
    if (result->i64() != expected) {
      return Fail(state, "loop(" + std::to_string(n) + ") returned " +
                             std::to_string(result->i64()) + ", expected " +
                             std::to_string(expected));
    }
  }
  ReportInstructions(state, LoopInstructions(n), cpu_nanos);
}

void BM_Fib32(benchmark::State& state) { RunFib(state, 32); }
void BM_Loop1e8(benchmark::State& state) { RunLoop(state, 100'000'000); }
void BM_Fib20(benchmark::State& state) { RunFib(state, 20); }

// Registers the benchmarks. fib(32) and the loop run one invocation per
// repetition, so each repetition's time is one run of the algorithm;
// `repetitions` comes from --repetitions (run_vm_benchmarks.sh passes 1 and
// interleaves processes itself). A per-benchmark Repetitions() would override
// Google Benchmark's own --benchmark_repetitions flag, hence our own flag.
void RegisterBenchmarks(int repetitions) {
  benchmark::RegisterBenchmark("BM_Fib32", BM_Fib32)
      ->Unit(benchmark::kMillisecond)
      ->Iterations(1)
      ->Repetitions(repetitions);
  benchmark::RegisterBenchmark("BM_Loop1e8", BM_Loop1e8)
      ->Unit(benchmark::kMillisecond)
      ->Iterations(1)
      ->Repetitions(repetitions);
  // Quick check for ctest (kiln_vm_benchmark_smoke): runs and verifies fib(20).
  benchmark::RegisterBenchmark("BM_Fib20", BM_Fib20)->Unit(benchmark::kMicrosecond);
}

}  // namespace
}  // namespace kiln::vm

int main(int argc, char** argv) {
  // Takes --repetitions=N (default 5) out of argv before Google Benchmark
  // parses the rest.
  int repetitions = 5;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    const std::string prefix = "--repetitions=";
    if (arg.rfind(prefix, 0) == 0) {
      char* end = nullptr;
      long value = std::strtol(arg.c_str() + prefix.size(), &end, 10);
      if (end == arg.c_str() + prefix.size() || *end != '\0' || value < 1 || value > 1000) {
        std::fprintf(stderr, "invalid %s: expected an integer in [1, 1000]\n", arg.c_str());
        return 2;
      }
      repetitions = static_cast<int>(value);
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  kiln::vm::RegisterBenchmarks(repetitions);
  size_t ran = benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (ran == 0) {
    std::fprintf(stderr, "no benchmark matched the filter\n");
    return 1;
  }
  return kiln::vm::g_failed ? 1 : 0;
}
