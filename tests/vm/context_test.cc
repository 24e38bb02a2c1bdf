// Context: linking modules by qualified import name with exact signature
// checks, function lookup, invocation argument checks, initializer order, and
// two contexts running concurrently on two threads.
#include "vm/context.h"

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "tests/vm/test_util.h"
#include "vm/native_module.h"

namespace kiln::vm {
namespace {

using testing::BuildBytes;
using testing::Bump;
using testing::Call;
using testing::CounterState;
using testing::LoadBytes;

struct NoState {};

int32_t Square(NoState&, int32_t v) { return v * v; }
int32_t Cube(NoState&, int32_t v) { return v * v * v; }

// "math": a native module exporting square (and cube unless told not to).
Ref<Module> MakeMath(bool with_cube = true, std::string name = "math") {
  auto math = NativeModule<NoState>::Create(std::move(name), nullptr);
  math->Export("square", &Square);
  if (with_cube) math->Export("cube", &Cube);
  return Ref<Module>(math);
}

// Builds a bytecode module, failing the test if it does not load.
Ref<Module> Load(const Instance& instance, ModuleBuilder& builder) {
  auto module = LoadBytes(instance, BuildBytes(builder));
  EXPECT_TRUE(module.ok()) << module.status().ToString();
  return module.ok() ? Ref<Module>(*module) : Ref<Module>();
}

// Adds an exported "_i" function returning `value`.
void AddConstant(ModuleBuilder& builder, const std::string& name, int32_t value) {
  FunctionBuilder& f = builder.AddFunction(name, "_i");
  f.Emit(Opcode::kConstI32, {Reg(0), ImmI32(value)});
  f.EmitReturn({0});
  builder.AddExport(name, f.ordinal());
}

// "lib": sum_squares(a, b) = math.square(a) + math.square(b); version() = 1.
Ref<Module> MakeLib(const Instance& instance) {
  ModuleBuilder builder("lib");
  uint32_t square = builder.AddImport("math.square", "i_i");
  FunctionBuilder& f = builder.AddFunction("sum_squares", "ii_i");
  const uint16_t a[] = {0}, b[] = {1}, a2[] = {2}, b2[] = {3};
  f.EmitCallImport(square, a, a2);
  f.EmitCallImport(square, b, b2);
  f.Emit(Opcode::kAddI32, {Reg(2), Reg(2), Reg(3)});
  f.EmitReturn({2});
  builder.AddExport("sum_squares", f.ordinal());
  AddConstant(builder, "version", 1);
  return Load(instance, builder);
}

// "app": main(a, b) = lib.sum_squares(a, b) + math.cube(a); version() = 2.
// `cube_signature` lets tests declare the import with a wrong signature.
Ref<Module> MakeApp(const Instance& instance, const std::string& cube_signature = "i_i") {
  ModuleBuilder builder("app");
  uint32_t sum_squares = builder.AddImport("lib.sum_squares", "ii_i");
  uint32_t cube = builder.AddImport("math.cube", cube_signature);
  FunctionBuilder& f = builder.AddFunction("main", "ii_i");
  const uint16_t ab[] = {0, 1}, sum[] = {2}, a[] = {0}, cubed[] = {3};
  f.EmitCallImport(sum_squares, ab, sum);
  if (cube_signature == "i_i") {
    f.EmitCallImport(cube, a, cubed);
  } else {
    f.Emit(Opcode::kConstI32, {Reg(3), ImmI32(0)});
  }
  f.Emit(Opcode::kAddI32, {Reg(2), Reg(2), Reg(3)});
  f.EmitReturn({2});
  builder.AddExport("main", f.ordinal());
  AddConstant(builder, "version", 2);
  return Load(instance, builder);
}

Result<int32_t> CallI32(Context& context, const std::string& function, std::vector<Variant> args) {
  KILN_ASSIGN_OR_RETURN(std::vector<Variant> results, Call(context, function, std::move(args)));
  if (results.size() != 1) return InternalError("expected one result");
  return results[0].i32();
}

TEST(ContextTest, ResolvesImportsByQualifiedNameAcrossThreeModules) {
  Ref<Instance> instance = Instance::Create();
  auto context = Context::Create(instance, {MakeMath(), MakeLib(*instance), MakeApp(*instance)});
  ASSERT_TRUE(context.ok()) << context.status().ToString();
  EXPECT_EQ((*context)->modules().size(), 3u);
  auto result = CallI32(**context, "app.main", {Variant::I32(3), Variant::I32(4)});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(*result, 9 + 16 + 27);
}

TEST(ContextTest, AModuleImportsOnlyFromTheModulesBeforeIt) {
  // As in IREE: the importer comes after the modules it imports from, and
  // an import of a later module says to reorder.
  Ref<Instance> instance = Instance::Create();
  auto context = Context::Create(instance, {MakeApp(*instance), MakeLib(*instance), MakeMath()});
  ASSERT_FALSE(context.ok());
  EXPECT_EQ(context.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(context.status().message(),
            "import 'lib.sum_squares' of module 'app' names module 'lib', which comes after it: a "
            "module imports only from the modules before it (list 'lib' first)");
  // Between the two libraries too.
  context = Context::Create(instance, {MakeLib(*instance), MakeMath(), MakeApp(*instance)});
  ASSERT_FALSE(context.ok());
  EXPECT_EQ(context.status().message(),
            "import 'math.square' of module 'lib' names module 'math', which comes after it: a "
            "module imports only from the modules before it (list 'math' first)");
  // In order, the same modules link.
  context = Context::Create(instance, {MakeMath(), MakeLib(*instance), MakeApp(*instance)});
  ASSERT_TRUE(context.ok()) << context.status().ToString();
  auto result = CallI32(**context, "app.main", {Variant::I32(-2), Variant::I32(5)});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(*result, 4 + 25 - 8);
}

TEST(ContextTest, SignatureMismatchNamesImportAndBothSignatures) {
  Ref<Instance> instance = Instance::Create();
  auto context = Context::Create(
      instance, {MakeMath(), MakeLib(*instance), MakeApp(*instance, /*cube_signature=*/"I_I")});
  ASSERT_FALSE(context.ok());
  EXPECT_EQ(context.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(context.status().message(),
            "import 'math.cube' of module 'app' has signature (i64) -> (i64) but module 'math' "
            "exports it with signature (i32) -> (i32)");

  // A difference in results alone is a mismatch too.
  context = Context::Create(instance, {MakeMath(), MakeLib(*instance), MakeApp(*instance, "i_")});
  ASSERT_FALSE(context.ok());
  EXPECT_EQ(context.status().message(),
            "import 'math.cube' of module 'app' has signature (i32) -> () but module 'math' "
            "exports it with signature (i32) -> (i32)");
}

TEST(ContextTest, MissingRequiredImportIsNamed) {
  Ref<Instance> instance = Instance::Create();
  // "math" exists but lacks "cube".
  auto context = Context::Create(
      instance, {MakeMath(/*with_cube=*/false), MakeLib(*instance), MakeApp(*instance)});
  ASSERT_FALSE(context.ok());
  EXPECT_EQ(context.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(context.status().message(),
            "missing required import 'math.cube' (i32) -> (i32) of module 'app'");
  // No module named "math" at all.
  context = Context::Create(instance, {MakeLib(*instance)});
  ASSERT_FALSE(context.ok());
  EXPECT_EQ(context.status().message(),
            "missing required import 'math.square' (i32) -> (i32) of module 'lib'");
  // A module never resolves an import against its own exports.
  ModuleBuilder builder("self");
  uint32_t import = builder.AddImport("self.f", "i_i");
  FunctionBuilder& f = builder.AddFunction("f", "i_i");
  const uint16_t arg[] = {0}, result[] = {1};
  f.EmitCallImport(import, arg, result);
  f.EmitReturn({1});
  builder.AddExport("f", f.ordinal());
  context = Context::Create(instance, {Load(*instance, builder)});
  ASSERT_FALSE(context.ok());
  EXPECT_EQ(context.status().message(),
            "missing required import 'self.f' (i32) -> (i32) of module 'self'");
}

// "opt": cube_or_minus_one(a) uses math.cube when resolved, else -1;
// call_cube(a) calls it unconditionally.
Ref<Module> MakeOptionalUser(const Instance& instance, const std::string& signature = "i_i") {
  ModuleBuilder builder("opt");
  uint32_t cube = builder.AddImport("math.cube", signature, /*optional=*/true);
  FunctionBuilder& f = builder.AddFunction("cube_or_minus_one", "i_i");
  Label present = f.NewLabel(), absent = f.NewLabel();
  f.Emit(Opcode::kImportResolved, {Reg(1), Index(cube)});
  f.Emit(Opcode::kCondBr, {Reg(1), Target(present), Target(absent)});
  f.Bind(present);
  const uint16_t a[] = {0}, result[] = {2};
  f.EmitCallImport(cube, a, result);
  f.EmitReturn({2});
  f.Bind(absent);
  f.Emit(Opcode::kConstI32, {Reg(2), ImmI32(-1)});
  f.EmitReturn({2});
  builder.AddExport("cube_or_minus_one", f.ordinal());
  FunctionBuilder& g = builder.AddFunction("call_cube", "i_i");
  g.EmitCallImport(cube, a, result);
  g.EmitReturn({2});
  builder.AddExport("call_cube", g.ordinal());
  return Load(instance, builder);
}

TEST(ContextTest, OptionalImportMayStayUnresolved) {
  Ref<Instance> instance = Instance::Create();
  auto without = Context::Create(instance, {MakeMath(false), MakeOptionalUser(*instance)});
  ASSERT_TRUE(without.ok()) << without.status().ToString();
  auto result = CallI32(**without, "opt.cube_or_minus_one", {Variant::I32(3)});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(*result, -1);
  result = CallI32(**without, "opt.call_cube", {Variant::I32(3)});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(result.status().message(),
            "function 'opt.call_cube' at bytecode offset 0: call to optional import 'math.cube' "
            "that was not resolved");

  auto with = Context::Create(instance, {MakeMath(true), MakeOptionalUser(*instance)});
  ASSERT_TRUE(with.ok()) << with.status().ToString();
  result = CallI32(**with, "opt.cube_or_minus_one", {Variant::I32(3)});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(*result, 27);
}

TEST(ContextTest, OptionalImportWithWrongSignatureIsStillAnError) {
  // Optional means "may be absent", not "may be incompatible".
  Ref<Instance> instance = Instance::Create();
  auto context = Context::Create(instance, {MakeMath(true), MakeOptionalUser(*instance, "f_f")});
  ASSERT_FALSE(context.ok());
  EXPECT_EQ(context.status().message(),
            "import 'math.cube' of module 'opt' has signature (f32) -> (f32) but module 'math' "
            "exports it with signature (i32) -> (i32)");
}

TEST(ContextTest, RejectsDuplicateNamesNullModulesAndNoInstance) {
  Ref<Instance> instance = Instance::Create();
  auto context = Context::Create(instance, {MakeMath(), MakeMath(false)});
  ASSERT_FALSE(context.ok());
  EXPECT_EQ(context.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(context.status().message(), "two modules are named 'math'");

  context = Context::Create(instance, {MakeMath(), Ref<Module>()});
  ASSERT_FALSE(context.ok());
  EXPECT_EQ(context.status().message(), "module 1 is null");

  context = Context::Create(nullptr, {MakeMath()});
  ASSERT_FALSE(context.ok());
  EXPECT_EQ(context.status().message(), "context needs an instance");

  // An empty context is valid; it just has nothing to invoke.
  context = Context::Create(instance, {});
  ASSERT_TRUE(context.ok()) << context.status().ToString();
  EXPECT_EQ((*context)->LookupFunction("main").status().code(), StatusCode::kNotFound);
}

class LookupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Ref<Instance> instance = Instance::Create();
    auto context = Context::Create(instance, {MakeMath(), MakeLib(*instance), MakeApp(*instance)});
    ASSERT_TRUE(context.ok()) << context.status().ToString();
    context_ = *context;
  }

  // "module.function" of what `name` resolves to, or the error message.
  std::string Resolve(std::string_view name) {
    auto function = context_->LookupFunction(name);
    if (!function.ok()) return function.status().ToString();
    return std::string(function->module->name()) + "." + function->info->name + " " +
           function->info->signature;
  }

  Ref<Context> context_;
};

TEST_F(LookupTest, QualifiedBareAndAtNames) {
  EXPECT_EQ(Resolve("app.main"), "app.main ii_i");
  EXPECT_EQ(Resolve("main"), "app.main ii_i");
  EXPECT_EQ(Resolve("@main"), "app.main ii_i");
  EXPECT_EQ(Resolve("@app.main"), "app.main ii_i");
  EXPECT_EQ(Resolve("lib.sum_squares"), "lib.sum_squares ii_i");
  EXPECT_EQ(Resolve("math.square"), "math.square i_i");
  EXPECT_EQ(Resolve("square"), "math.square i_i");
}

TEST_F(LookupTest, BareNamePrefersTheLastModule) {
  // Both lib and app export "version"; the main module is registered last.
  EXPECT_EQ(Resolve("version"), "app.version _i");
  EXPECT_EQ(Resolve("lib.version"), "lib.version _i");
  auto result = CallI32(*context_, "version", {});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(*result, 2);
  result = CallI32(*context_, "lib.version", {});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(*result, 1);
}

TEST_F(LookupTest, UnknownNamesAreNotFound) {
  EXPECT_EQ(Resolve("nope"), "NOT_FOUND: no exported function 'nope' in the context");
  EXPECT_EQ(Resolve("@nope"), "NOT_FOUND: no exported function 'nope' in the context");
  EXPECT_EQ(Resolve("app.nope"), "NOT_FOUND: no exported function 'app.nope' in the context");
  EXPECT_EQ(Resolve("nomodule.main"),
            "NOT_FOUND: no exported function 'nomodule.main' in the context");
  EXPECT_EQ(Resolve(""), "NOT_FOUND: no exported function '' in the context");
  // Invoke by name reports the same error.
  auto result = Call(*context_, "@nope", {});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message(), "no exported function 'nope' in the context");
}

TEST_F(LookupTest, InvokeChecksArgumentCountAndTypes) {
  auto result = Call(*context_, "app.main", {Variant::I32(1)});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(result.status().message(),
            "function 'main' expects 2 argument(s) (i32, i32) -> (i32), got 1");

  result = Call(*context_, "app.main", {Variant::I32(1), Variant::I32(2), Variant::I32(3)});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message(),
            "function 'main' expects 2 argument(s) (i32, i32) -> (i32), got 3");

  result = Call(*context_, "app.main", {Variant::I32(1), Variant::F32(1.5f)});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message(), "argument 1 of 'main' must be i32, got f32=1.5");

  result = Call(*context_, "math.square", {Variant::FromRef(List::Create())});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message(), "argument 0 of 'square' must be i32, got ref<vm.list>");

  result = Call(*context_, "app.main", {Variant(), Variant::I32(2)});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message(), "argument 0 of 'main' must be i32, got none");

  // InvokeWithStack also checks the result slots it is given.
  auto main = context_->LookupFunction("app.main");
  ASSERT_TRUE(main.ok());
  std::vector<Variant> args = {Variant::I32(1), Variant::I32(2)};
  std::vector<Variant> results(2);
  Stack stack;
  Status status = InvokeWithStack(*main, args, results, stack);
  EXPECT_EQ(status.message(), "function 'main' returns 1 result(s)");

  EXPECT_EQ(InvokeWithStack(Function{}, args, results, stack).message(), "invalid function");
}

// ---------------------------------------------------------------------------
// Initializers.

struct RecorderState {
  std::vector<int32_t> ids;
};

Status Record(RecorderState& state, int32_t id) {
  if (id < 0) return InvalidArgumentError("negative id " + std::to_string(id));
  state.ids.push_back(id);
  return OkStatus();
}

// A module whose initializer records `id` with recorder.record and stores
// id * 10 in a global that value() returns.
Ref<Module> MakeInitialized(const Instance& instance, const std::string& name, int32_t id,
                            uint32_t* record_offset = nullptr) {
  ModuleBuilder builder(name);
  uint32_t record = builder.AddImport("recorder.record", "i_");
  builder.SetGlobals(4, 0);
  FunctionBuilder& init = builder.AddFunction("__init", "_");
  init.Emit(Opcode::kConstI32, {Reg(0), ImmI32(id)});
  if (record_offset) *record_offset = init.offset();
  const uint16_t args[] = {0};
  init.EmitCallImport(record, args, std::span<const uint16_t>());
  init.Emit(Opcode::kConstI32, {Reg(1), ImmI32(10)});
  init.Emit(Opcode::kMulI32, {Reg(1), Reg(1), Reg(0)});
  init.Emit(Opcode::kGlobalStoreI32, {Index(0), Reg(1)});
  init.EmitReturn(std::span<const uint16_t>());
  builder.SetInitializer(init.ordinal());
  FunctionBuilder& value = builder.AddFunction("value", "_i");
  value.Emit(Opcode::kGlobalLoadI32, {Reg(0), Index(0)});
  value.EmitReturn({0});
  builder.AddExport("value", value.ordinal());
  return Load(instance, builder);
}

TEST(ContextInitializerTest, InitializersRunInModuleOrder) {
  auto recorder = NativeModule<RecorderState>::Create("recorder", nullptr);
  recorder->Export("record", &Record);
  Ref<Instance> instance = Instance::Create();
  auto context = Context::Create(
      instance, {Ref<Module>(recorder), MakeInitialized(*instance, "second", 2),
                 MakeInitialized(*instance, "first", 1), MakeInitialized(*instance, "third", 3)});
  ASSERT_TRUE(context.ok()) << context.status().ToString();
  EXPECT_EQ(NativeModule<RecorderState>::UserState(*(*context)->state_of(0)).ids,
            (std::vector<int32_t>{2, 1, 3}));
  for (auto [function, expected] : {std::pair{"second.value", 20}, std::pair{"first.value", 10},
                                    std::pair{"third.value", 30}}) {
    auto result = CallI32(**context, function, {});
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    EXPECT_EQ(*result, expected) << function;
  }
}

TEST(ContextInitializerTest, InitializerFailureFailsCreate) {
  auto recorder = NativeModule<RecorderState>::Create("recorder", nullptr);
  recorder->Export("record", &Record);
  Ref<Instance> instance = Instance::Create();
  uint32_t offset = 0;
  auto context =
      Context::Create(instance, {Ref<Module>(recorder), MakeInitialized(*instance, "good", 1),
                                 MakeInitialized(*instance, "bad", -1, &offset)});
  ASSERT_FALSE(context.ok());
  EXPECT_EQ(context.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(context.status().message(),
            "initializing module 'bad': function 'bad.__init' at bytecode offset " +
                std::to_string(offset) +
                ": import 'recorder.record' failed: 'recorder.record' failed: negative id -1");
}

// ---------------------------------------------------------------------------
// Concurrency: contexts share modules (immutable) but no mutable state.

TEST(ContextConcurrencyTest, ContextsOnSeparateThreadsDoNotInterfere) {
  // "worker.step(x)" adds x to a bytecode global, calls counter.bump(x) and
  // returns (global, bump's call count). Every thread has its own context
  // built from the same two module objects, with its own increment; any
  // sharing of globals or native state would show up as a wrong value.
  auto counter = NativeModule<CounterState>::Create("counter", nullptr);
  counter->Export("bump", &Bump);
  ModuleBuilder builder("worker");
  uint32_t bump = builder.AddImport("counter.bump", "i_i");
  builder.SetGlobals(4, 0);
  FunctionBuilder& step = builder.AddFunction("step", "i_ii");
  step.Emit(Opcode::kGlobalLoadI32, {Reg(1), Index(0)});
  step.Emit(Opcode::kAddI32, {Reg(1), Reg(1), Reg(0)});
  step.Emit(Opcode::kGlobalStoreI32, {Index(0), Reg(1)});
  const uint16_t args[] = {0}, results[] = {2};
  step.EmitCallImport(bump, args, results);
  step.EmitReturn({1, 2});
  builder.AddExport("step", step.ordinal());
  Ref<Instance> instance = Instance::Create();
  Ref<Module> worker = Load(*instance, builder);
  ASSERT_TRUE(worker);

  constexpr int kThreads = 2;
  constexpr int kIterations = 20000;
  std::vector<Ref<Context>> contexts;
  for (int t = 0; t < kThreads; ++t) {
    auto context = Context::Create(instance, {Ref<Module>(counter), worker});
    ASSERT_TRUE(context.ok()) << context.status().ToString();
    contexts.push_back(*context);
  }

  std::atomic<int> ready{0};
  std::vector<int> mismatches(kThreads, 0);
  std::vector<std::string> first_error(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      Context& context = *contexts[t];
      const int32_t increment = t + 1;
      auto function = context.LookupFunction("worker.step");
      if (!function.ok()) {
        first_error[t] = function.status().ToString();
        return;
      }
      Stack stack(context.options().stack);  // Reused across calls, like a host loop would.
      std::vector<Variant> in = {Variant::I32(increment)};
      std::vector<Variant> out(2);
      ready.fetch_add(1);
      while (ready.load() < kThreads) {
      }
      for (int i = 1; i <= kIterations; ++i) {
        Status status;
        if (i % 1000 == 0) {
          // Now and then through the list-based API too.
          auto list = List::Create();
          list->Push(Variant::I32(increment));
          auto results = Invoke(context, *function, *list);
          if (results.ok()) {
            out = (*results)->items();
          } else {
            status = results.status();
          }
        } else {
          status = InvokeWithStack(*function, in, out, stack);
        }
        if (!status.ok() || out[0].i32() != i * increment || out[1].i32() != i) {
          if (mismatches[t]++ == 0) {
            first_error[t] = "iteration " + std::to_string(i) + ": " + status.ToString() + " " +
                             out[0].ToString() + " " + out[1].ToString();
          }
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();

  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(mismatches[t], 0) << "thread " << t << ": " << first_error[t];
    CounterState& state = NativeModule<CounterState>::UserState(*contexts[t]->state_of(0));
    EXPECT_EQ(state.calls, kIterations) << "thread " << t;
    EXPECT_EQ(state.total, int64_t{kIterations} * (t + 1)) << "thread " << t;
  }
}

}  // namespace
}  // namespace kiln::vm
