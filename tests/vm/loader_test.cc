// Loading valid modules: a module using every feature the loader handles
// (types, optional imports, rodata, globals, an initializer, exports with
// reflection, switch, trace, calls, source locations) loads, exposes what it
// declared and runs; the bytecode version rule; file loading errors; and a
// robustness sweep: every truncation and thousands of single-byte mutations
// of a valid module either load or fail with a message, and whatever loads
// runs without crashing. The sweep's modules are resealed with a correct
// checksum after each cut or mutation (as a hostile file would be), so what it
// exercises is the verifier, not the checksum.
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "schemas/module_generated.h"
#include "tests/vm/test_util.h"
#include "vm/bytecode_version.h"
#include "vm/module_checksum.h"
#include "vm/signature.h"

namespace kiln::vm {
namespace {

using testing::BuildBytes;
using testing::Call;
using testing::LoadBytes;

constexpr uint16_t kR0[] = {0};
constexpr uint16_t kR1[] = {1};

// Module "full": init (function 0) fills the globals; twice (1) doubles its
// argument; pick (2) switches on its argument:
//   0: loads i32 #1 of rodata "table" through the global ref -> 8, traced
//   1: global i32 (100) + ref.is_type(global ref, vm.buffer) -> 101
//   2: calls the optional import host.log only if resolved; global i64 -> 42
//   3: calls twice -> 6
//   default: fails with "no such case" at full.mlir:9:1
std::vector<uint8_t> FullModule(uint16_t minor = kBytecodeVersionMinor) {
  ModuleBuilder builder("full", /*version=*/7);
  builder.SetBytecodeVersion(kBytecodeVersionMajor, minor);
  uint32_t buffer_type = builder.AddType("vm.buffer");
  builder.AddType("vm.list");
  uint32_t log = builder.AddImport("host.log", "i_", /*optional=*/true);
  const int32_t table[] = {7, 8, 9, 10};
  uint32_t table_rodata = builder.AddRodata(
      "table", std::span(reinterpret_cast<const uint8_t*>(table), sizeof(table)), 16);
  const uint8_t blob[] = {1, 2, 3, 4, 5, 6, 7, 8};
  builder.AddRodata("blob", blob, 64);
  uint32_t picked = builder.AddString("picked");
  uint32_t no_such_case = builder.AddString("no such case");
  uint32_t file = builder.AddSourceFile("full.mlir");
  builder.SetGlobals(16, 1);

  FunctionBuilder& init = builder.AddFunction("init", "_");
  init.SetLocation(file, 1, 1);
  init.Emit(Opcode::kConstI32, {Reg(0), ImmI32(100)});
  init.Emit(Opcode::kGlobalStoreI32, {Index(0), Reg(0)});
  init.Emit(Opcode::kConstI64, {Reg(0), ImmI64(42)});
  init.Emit(Opcode::kGlobalStoreI64, {Index(8), Reg(0)});
  init.Emit(Opcode::kConstRefRodata, {Reg(0), Index(table_rodata)});
  init.Emit(Opcode::kGlobalStoreRef, {Index(0), Reg(0)});
  init.EmitReturn({});
  builder.SetInitializer(init.ordinal());

  FunctionBuilder& twice = builder.AddFunction("twice", "i_i");
  twice.Emit(Opcode::kAddI32, {Reg(1), Reg(0), Reg(0)});
  twice.EmitReturn({1});

  FunctionBuilder& pick = builder.AddFunction("pick", "i_i");
  Label fallback = pick.NewLabel();
  const Label cases[] = {pick.NewLabel(), pick.NewLabel(), pick.NewLabel(), pick.NewLabel()};
  Label call_log = pick.NewLabel(), after_log = pick.NewLabel();
  pick.SetLocation(file, 3, 5);
  pick.EmitSwitch(0, fallback, cases);
  pick.Bind(cases[0]);
  pick.SetLocation(file, 4, 3);
  pick.Emit(Opcode::kGlobalLoadRef, {Reg(0), Index(0)});
  pick.Emit(Opcode::kConstI64, {Reg(0), ImmI64(4)});
  pick.Emit(Opcode::kBufferLoadI32, {Reg(1), Reg(0), Reg(0)});
  const std::pair<Bank, uint16_t> traced[] = {{Bank::kI32, 1}};
  pick.EmitTrace(picked, traced);
  pick.EmitReturn({1});
  pick.Bind(cases[1]);
  pick.SetLocation(file, 5, 3);
  pick.Emit(Opcode::kGlobalLoadI32, {Reg(1), Index(0)});
  pick.Emit(Opcode::kGlobalLoadRef, {Reg(0), Index(0)});
  pick.Emit(Opcode::kRefIsType, {Reg(2), Reg(0), Index(buffer_type)});
  pick.Emit(Opcode::kAddI32, {Reg(1), Reg(1), Reg(2)});
  pick.EmitReturn({1});
  pick.Bind(cases[2]);
  pick.SetLocation(file, 6, 3);
  pick.Emit(Opcode::kImportResolved, {Reg(1), Index(log)});
  pick.Emit(Opcode::kCondBr, {Reg(1), Target(call_log), Target(after_log)});
  pick.Bind(call_log);
  pick.EmitCallImport(log, kR0, {});
  pick.Emit(Opcode::kBr, {Target(after_log)});
  pick.Bind(after_log);
  pick.Emit(Opcode::kGlobalLoadI64, {Reg(0), Index(8)});
  pick.Emit(Opcode::kTruncI64I32, {Reg(1), Reg(0)});
  pick.EmitReturn({1});
  pick.Bind(cases[3]);
  pick.SetLocation(file, 7, 3);
  pick.EmitCall(twice.ordinal(), kR0, kR1);
  pick.EmitReturn({1});
  pick.Bind(fallback);
  pick.SetLocation(file, 9, 1);
  pick.Emit(Opcode::kFail, {Index(no_such_case)});

  ExportReflection reflection;
  reflection.attributes = {{"iree.abi", "{\"v\":1}"}};
  reflection.argument_descriptions = {"i32 which"};
  reflection.result_descriptions = {"i32 value"};
  builder.AddExport("pick", pick.ordinal(), reflection);
  builder.AddExport("twice", twice.ordinal());
  return BuildBytes(builder);
}

TEST(LoaderTest, ModuleWithEveryFeatureLoads) {
  Ref<Instance> instance = Instance::Create();
  auto loaded = LoadBytes(*instance, FullModule());
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  const BytecodeModule& module = **loaded;

  EXPECT_EQ(module.name(), "full");
  EXPECT_EQ(module.version(), 7u);
  ASSERT_EQ(module.exports().size(), 2u);
  EXPECT_EQ(module.exports()[0].name, "pick");
  EXPECT_EQ(module.exports()[0].signature, "i_i");
  EXPECT_EQ(module.exports()[1].name, "twice");
  ASSERT_EQ(module.imports().size(), 1u);
  EXPECT_EQ(module.imports()[0].name, "host.log");
  EXPECT_EQ(module.imports()[0].signature, "i_");
  EXPECT_TRUE(module.imports()[0].optional);

  ASSERT_EQ(module.functions().size(), 3u);
  const FunctionInfo& pick = module.function(2);
  EXPECT_EQ(pick.name, "pick");
  EXPECT_EQ(pick.arguments, "i");
  EXPECT_EQ(pick.results, "i");
  EXPECT_EQ(pick.register_counts, (std::array<uint16_t, kBankCount>{3, 1, 0, 0, 1}));
  EXPECT_EQ(pick.frame_bytes % 8, 0u);

  // Rodata views the file bytes, honouring each segment's alignment.
  ASSERT_EQ(module.rodata(0)->length(), 16u);
  int32_t second;
  std::memcpy(&second, module.rodata(0)->data() + 4, 4);
  EXPECT_EQ(second, 8);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(module.rodata(0)->data()) % 16, 0u);
  ASSERT_EQ(module.rodata(1)->length(), 8u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(module.rodata(1)->data()) % 64, 0u);
  EXPECT_EQ(module.type(0).name, "vm.buffer");
  EXPECT_EQ(module.type(1).name, "vm.list");
  EXPECT_EQ(module.string(1), "no such case");

  // Reflection stays readable through the FlatBuffer.
  const schema::Export* pick_export = module.flat().exports()->Get(0);
  ASSERT_NE(pick_export->attributes(), nullptr);
  ASSERT_EQ(pick_export->attributes()->size(), 1u);
  EXPECT_EQ(pick_export->attributes()->Get(0)->key()->str(), "iree.abi");
  EXPECT_EQ(pick_export->attributes()->Get(0)->value()->str(), "{\"v\":1}");
  EXPECT_EQ(pick_export->argument_descriptions()->Get(0)->str(), "i32 which");
  EXPECT_EQ(pick_export->result_descriptions()->Get(0)->str(), "i32 value");

  EXPECT_EQ(module.SourceLocation(2, 0), "full.mlir:3:5");
  EXPECT_EQ(module.DescribeLocation(2, 0),
            "function 'full.pick' at bytecode offset 0 (full.mlir:3:5)");
  EXPECT_EQ(module.SourceLocation(1, 0), "");
}

TEST(LoaderTest, ModuleWithEveryFeatureRuns) {
  Ref<Instance> instance = Instance::Create();
  auto loaded = LoadBytes(*instance, FullModule());
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  std::vector<std::string> trace;
  ContextOptions options;
  options.trace_sink = [&](std::string_view line) { trace.emplace_back(line); };
  auto context = Context::Create(instance, {Ref<Module>(*loaded)}, options);
  ASSERT_TRUE(context.ok()) << context.status().ToString();

  const int32_t expected[] = {8, 101, 42, 6};
  for (int32_t which = 0; which < 4; ++which) {
    auto results = Call(**context, "pick", {Variant::I32(which)});
    ASSERT_TRUE(results.ok()) << which << ": " << results.status().ToString();
    ASSERT_EQ(results->size(), 1u);
    EXPECT_EQ((*results)[0].i32(), expected[which]) << "pick(" << which << ")";
  }
  EXPECT_EQ(trace, std::vector<std::string>{"[trace] picked i32=8  (full.mlir:4:3)"});

  auto failed = Call(**context, "pick", {Variant::I32(9)});
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("(full.mlir:9:1): no such case"), std::string::npos)
      << failed.status().message();
}

// A module with no functions at all is degenerate but well formed.
TEST(LoaderTest, EmptyModuleLoads) {
  ModuleBuilder builder("empty");
  Ref<Instance> instance = Instance::Create();
  auto module = LoadBytes(*instance, BuildBytes(builder));
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  EXPECT_EQ((*module)->name(), "empty");
  EXPECT_TRUE((*module)->exports().empty());
}

// Same major version and a minor version no newer than the VM's loads;
// anything else is refused with the version in the message.
TEST(LoaderTest, BytecodeVersionRule) {
  Ref<Instance> instance = Instance::Create();
  for (uint16_t minor = 0; minor <= kBytecodeVersionMinor; ++minor) {
    auto module = LoadBytes(*instance, FullModule(minor));
    ASSERT_TRUE(module.ok()) << "1." << minor << ": " << module.status().ToString();
    EXPECT_EQ((*module)->flat().bytecode_version_major(), kBytecodeVersionMajor);
    EXPECT_EQ((*module)->flat().bytecode_version_minor(), minor);
  }
  struct Refused {
    uint16_t major, minor;
  };
  for (Refused v : {Refused{kBytecodeVersionMajor, kBytecodeVersionMinor + 1},
                    Refused{kBytecodeVersionMajor, 0xffff},
                    Refused{static_cast<uint16_t>(kBytecodeVersionMajor + 1), 0},
                    Refused{static_cast<uint16_t>(kBytecodeVersionMajor - 1), 0}}) {
    ModuleBuilder builder("versioned");
    builder.SetBytecodeVersion(v.major, v.minor);
    builder.AddFunction("fn", "_").EmitReturn({});
    auto module = LoadBytes(*instance, BuildBytes(builder));
    ASSERT_FALSE(module.ok()) << v.major << "." << v.minor << " loaded";
    std::string version = std::to_string(v.major) + "." + std::to_string(v.minor);
    EXPECT_EQ(module.status().message(), "unsupported bytecode version " + version +
                                             " (this VM runs " +
                                             std::to_string(kBytecodeVersionMajor) + ".0 through " +
                                             std::to_string(kBytecodeVersionMajor) + "." +
                                             std::to_string(kBytecodeVersionMinor) + ")");
  }
}

TEST(LoaderTest, LoadFileNamesThePath) {
  Ref<Instance> instance = Instance::Create();
  std::string missing = ::testing::TempDir() + "/kiln_loader_test_missing.kmod";
  auto absent = BytecodeModule::LoadFile(*instance, missing);
  ASSERT_FALSE(absent.ok());
  EXPECT_EQ(absent.status().code(), StatusCode::kNotFound);
  EXPECT_NE(absent.status().message().find("'" + missing + "'"), std::string::npos)
      << absent.status().message();

  std::string garbage = ::testing::TempDir() + "/kiln_loader_test_garbage.kmod";
  std::ofstream(garbage, std::ios::binary) << "KILN";
  auto bad = BytecodeModule::LoadFile(*instance, garbage);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "loading '" + garbage + "': module is truncated (4 bytes; not a .kmod file)");

  std::string good = ::testing::TempDir() + "/kiln_loader_test_full.kmod";
  std::vector<uint8_t> bytes = FullModule();
  std::ofstream(good, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  auto loaded = BytecodeModule::LoadFile(*instance, good);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ((*loaded)->name(), "full");
}

// --- Robustness: hostile bytes never crash the loader or the interpreter. ---

// What running a loaded module did.
enum class RunOutcome { kFinished, kTimedOut, kCrashed };

// Links `module` into a context and calls every export with arguments of the
// right types, in a child process, so a crash is reported rather than taking
// the test down and a mutation that loops forever (legal bytecode) is cut off.
// `detail` receives the signal or exit code of a crash.
RunOutcome RunInChild(const Ref<Instance>& instance, const Ref<BytecodeModule>& module,
                      std::string* detail) {
  pid_t pid = fork();
  if (pid < 0) {
    *detail = "fork failed";
    return RunOutcome::kCrashed;
  }
  if (pid == 0) {
    // Correct runs take microseconds; half a second means a loop.
    itimerval limit{};
    limit.it_value.tv_usec = 500'000;
    setitimer(ITIMER_REAL, &limit, nullptr);
    ContextOptions options;
    options.trace_sink = [](std::string_view) {};
    auto context = Context::Create(instance, {Ref<Module>(module)}, options);
    if (!context.ok()) _exit(context.status().message().empty() ? 3 : 0);
    for (const ExportedFunction& e : module->exports()) {
      SignatureParts parts;
      if (!ParseSignature(e.signature, &parts).ok()) _exit(4);  // The verifier checked it.
      for (int32_t value : {0, 1, 2, 3, 4, -1}) {
        Ref<List> args = List::Create(parts.arguments.size());
        for (char c : parts.arguments) {
          switch (c) {
            case 'i':
              args->Push(Variant::I32(value));
              break;
            case 'I':
              args->Push(Variant::I64(value));
              break;
            case 'f':
              args->Push(Variant::F32(static_cast<float>(value)));
              break;
            case 'F':
              args->Push(Variant::F64(value));
              break;
            default:
              args->Push(Variant());
              break;
          }
        }
        Function function{module.get(), (*context)->state_of(0), &e};
        auto results = Invoke(**context, function, *args);
        if (!results.ok() && results.status().message().empty()) _exit(5);
      }
    }
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return RunOutcome::kFinished;
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) return RunOutcome::kTimedOut;
  *detail = WIFSIGNALED(status) ? "killed by signal " + std::to_string(WTERMSIG(status))
                                : "exit code " + std::to_string(WEXITSTATUS(status));
  return RunOutcome::kCrashed;
}

// FullModule's FlatBuffer bytes, without its checksum trailer.
std::vector<uint8_t> FullModuleContents() {
  std::vector<uint8_t> bytes = FullModule();
  bytes.resize(bytes.size() - kModuleTrailerBytes);
  return bytes;
}

// Seals the FlatBuffer `bytes` with a correct checksum and loads them; returns
// whether they loaded. Fails the test if loading failed without a message or
// if what loaded crashed when run.
bool LoadAndRun(const Ref<Instance>& instance, std::vector<uint8_t> bytes,
                const std::string& what, int* timeouts) {
  AppendModuleChecksum(&bytes);
  auto module = LoadBytes(*instance, bytes);
  if (!module.ok()) {
    EXPECT_FALSE(module.status().message().empty()) << what << " failed without a message";
    return false;
  }
  std::string detail;
  RunOutcome outcome = RunInChild(instance, *module, &detail);
  EXPECT_NE(outcome, RunOutcome::kCrashed) << what << " loaded, then crashed: " << detail;
  if (outcome == RunOutcome::kTimedOut) ++*timeouts;
  return true;
}

TEST(LoaderRobustnessTest, EveryTruncationFailsOrLoadsCleanly) {
  std::vector<uint8_t> full = FullModuleContents();
  Ref<Instance> instance = Instance::Create();
  int timeouts = 0;
  for (size_t length = 0; length < full.size(); ++length) {
    std::vector<uint8_t> prefix(full.begin(), full.begin() + length);
    if (LoadAndRun(instance, prefix, "prefix of " + std::to_string(length) + " bytes", &timeouts)) {
      // Only the FlatBuffer's trailing alignment padding (at most 7 bytes)
      // may be cut without losing data the verifier needs.
      EXPECT_GE(length + 8, full.size()) << "prefix of " << length << " bytes loaded";
    }
  }
  EXPECT_EQ(timeouts, 0);
}

// Every byte of the bytecode (opcodes, registers, targets, indices, counts)
// set to a handful of boundary values: the verifier must catch each one the
// interpreter would trip over.
TEST(LoaderRobustnessTest, BytecodeByteMutationsFailOrLoadCleanly) {
  std::vector<uint8_t> full = FullModuleContents();
  const auto* bytecode = schema::GetModule(full.data())->bytecode();
  ASSERT_NE(bytecode, nullptr);
  const size_t begin = bytecode->data() - full.data(), end = begin + bytecode->size();
  Ref<Instance> instance = Instance::Create();
  int loaded = 0, rejected = 0, timeouts = 0;
  for (size_t at = begin; at < end; ++at) {
    const uint8_t old_byte = full[at];
    for (uint8_t new_byte :
         {uint8_t{0x00}, uint8_t{0x01}, uint8_t{0x7f}, uint8_t{0x80}, uint8_t{0xff},
          static_cast<uint8_t>(old_byte + 1), static_cast<uint8_t>(old_byte - 1)}) {
      if (new_byte == old_byte) continue;
      std::vector<uint8_t> mutant = full;
      mutant[at] = new_byte;
      std::string what = "bytecode byte " + std::to_string(at - begin) + ": " +
                         std::to_string(old_byte) + " -> " + std::to_string(new_byte);
      if (LoadAndRun(instance, mutant, what, &timeouts)) {
        ++loaded;
      } else {
        ++rejected;
      }
    }
  }
  EXPECT_GT(loaded, 0);
  EXPECT_GT(rejected, 0);
  ::testing::Test::RecordProperty("loaded", loaded);
  ::testing::Test::RecordProperty("timed_out", timeouts);
}

TEST(LoaderRobustnessTest, RandomByteMutationsFailOrLoadCleanly) {
  std::vector<uint8_t> full = FullModuleContents();
  Ref<Instance> instance = Instance::Create();
  // The harness itself: the unmutated module runs to completion in the child
  // (so timeouts below are loops, not a slow or broken harness).
  auto original = LoadBytes(*instance, FullModule());
  ASSERT_TRUE(original.ok()) << original.status().ToString();
  std::string detail;
  ASSERT_EQ(RunInChild(instance, *original, &detail), RunOutcome::kFinished) << detail;

  std::mt19937 random(20240611);  // Fixed seed: failures reproduce.
  std::uniform_int_distribution<size_t> position(0, full.size() - 1);
  std::uniform_int_distribution<int> value(0, 255);
  constexpr int kMutations = 3000;
  int loaded = 0, timeouts = 0;
  for (int i = 0; i < kMutations; ++i) {
    std::vector<uint8_t> mutant = full;
    size_t at = position(random);
    uint8_t old_byte = mutant[at];
    uint8_t new_byte = static_cast<uint8_t>(value(random));
    if (new_byte == old_byte) new_byte ^= 0xff;
    mutant[at] = new_byte;
    std::string what = "mutation " + std::to_string(i) + " (byte " + std::to_string(at) + ": " +
                       std::to_string(old_byte) + " -> " + std::to_string(new_byte) + ")";
    if (LoadAndRun(instance, mutant, what, &timeouts)) ++loaded;
  }
  // Mutations of names, immediates and padding load; those of offsets and
  // operands are rejected. Both paths must have been exercised.
  EXPECT_GT(loaded, 0);
  EXPECT_LT(loaded, kMutations);
  ::testing::Test::RecordProperty("loaded", loaded);
  ::testing::Test::RecordProperty("timed_out", timeouts);
}

}  // namespace
}  // namespace kiln::vm
