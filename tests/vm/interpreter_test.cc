// Semantics of the interpreter beyond single value instructions: control flow,
// calls (internal, into native modules and into other bytecode modules),
// globals and initialisers, rodata, lists, byte buffers, refs and their
// counts, trace output, and the errors that stop an invocation (division by
// zero, stack overflow, failed imports, bad list/buffer accesses, fail) with
// a Status naming the function, bytecode offset and source location.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "tests/vm/test_util.h"
#include "vm/byte_buffer.h"
#include "vm/list.h"
#include "vm/native_module.h"

namespace kiln::vm {
namespace {

using enum Opcode;
using testing::BuildBytes;
using testing::Call;
using testing::LoadBytes;
using testing::MakeContext;

// --- Helpers. ---

Ref<Context> MakeContextOrFail(ModuleBuilder& builder, std::vector<Ref<Module>> extra = {},
                               ContextOptions options = {}) {
  auto context = MakeContext(builder, std::move(extra), std::move(options));
  EXPECT_TRUE(context.ok()) << context.status().ToString();
  return context.ok() ? *context : Ref<Context>();
}

// Builds and loads a module that another module links against.
Ref<Module> LoadOrFail(ModuleBuilder& builder) {
  Ref<Instance> instance = Instance::Create();
  auto module = LoadBytes(*instance, BuildBytes(builder));
  EXPECT_TRUE(module.ok()) << module.status().ToString();
  return module.ok() ? Ref<Module>(*module) : Ref<Module>();
}

std::vector<Variant> CallOrFail(Context& context, std::string_view function,
                                std::vector<Variant> args) {
  auto results = Call(context, function, std::move(args));
  EXPECT_TRUE(results.ok()) << function << ": " << results.status().ToString();
  return results.ok() ? *results : std::vector<Variant>();
}

// The status of a call that is expected to fail.
Status CallError(Context& context, std::string_view function, std::vector<Variant> args) {
  auto results = Call(context, function, std::move(args));
  if (results.ok()) return InternalError("call to '" + std::string(function) + "' succeeded");
  return results.status();
}

int32_t CallI32(Context& context, std::string_view function, std::vector<Variant> args) {
  std::vector<Variant> results = CallOrFail(context, function, std::move(args));
  EXPECT_EQ(results.size(), 1u) << function;
  if (results.size() != 1) return -1;
  EXPECT_EQ(results[0].type(), ValueType::kI32) << function;
  return results[0].i32();
}

Ref<ByteBuffer> MakeBuffer(std::vector<uint8_t> bytes) {
  auto buffer = ByteBuffer::Allocate(bytes.size());
  EXPECT_TRUE(buffer.ok());
  if (!bytes.empty()) std::memcpy((*buffer)->mutable_data(), bytes.data(), bytes.size());
  return *buffer;
}

std::vector<uint8_t> BytesOf(const ByteBuffer& buffer) {
  return std::vector<uint8_t>(buffer.data(), buffer.data() + buffer.length());
}

Variant RefOf(Ref<Object> object) { return Variant::FromRef(std::move(object)); }

std::string FirstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

::testing::AssertionResult StartsWith(const std::string& text, const std::string& prefix) {
  if (text.rfind(prefix, 0) == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' does not start with '" << prefix << "'";
}

int CountOccurrences(const std::string& text, const std::string& needle) {
  int count = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++count;
  }
  return count;
}

// --- Control flow. ---

TEST(InterpreterTest, CondBrTakesEitherBranch) {
  ModuleBuilder builder("flow");
  FunctionBuilder& f = builder.AddFunction("pick", "i_i");
  Label yes = f.NewLabel(), no = f.NewLabel();
  f.Emit(kCondBr, {Reg(0), Target(yes), Target(no)});
  f.Bind(no);
  f.Emit(kConstI32, {Reg(1), ImmI32(200)});
  f.EmitReturn({1});
  f.Bind(yes);
  f.Emit(kConstI32, {Reg(1), ImmI32(100)});
  f.EmitReturn({1});
  builder.AddExport("pick", f.ordinal());
  Ref<Context> context = MakeContextOrFail(builder);
  ASSERT_TRUE(context);
  EXPECT_EQ(CallI32(*context, "pick", {Variant::I32(1)}), 100);
  EXPECT_EQ(CallI32(*context, "pick", {Variant::I32(0)}), 200);
  EXPECT_EQ(CallI32(*context, "pick", {Variant::I32(-5)}), 100);  // Any non-zero is true.
  EXPECT_EQ(CallI32(*context, "pick", {Variant::I32(INT32_MIN)}), 100);
}

// sum(n) = 0 + 1 + ... + (n - 1), as a loop: br into the check, fused
// br.lt as the back edge.
TEST(InterpreterTest, LoopsWithBrAndFusedCompareBranch) {
  ModuleBuilder builder("flow");
  {
    FunctionBuilder& f = builder.AddFunction("sum", "i_i");
    Label body = f.NewLabel(), check = f.NewLabel(), done = f.NewLabel();
    f.Emit(kConstI32, {Reg(1), ImmI32(0)});  // i
    f.Emit(kConstI32, {Reg(2), ImmI32(0)});  // acc
    f.Emit(kConstI32, {Reg(3), ImmI32(1)});
    f.Emit(kBr, {Target(check)});
    f.Bind(body);
    f.Emit(kAddI32, {Reg(2), Reg(2), Reg(1)});
    f.Emit(kAddI32, {Reg(1), Reg(1), Reg(3)});
    f.Emit(kBr, {Target(check)});
    f.Bind(check);
    f.Emit(kBrLtI32S, {Reg(1), Reg(0), Target(body), Target(done)});
    f.Bind(done);
    f.EmitReturn({2});
    builder.AddExport("sum", f.ordinal());
  }
  {
    FunctionBuilder& f = builder.AddFunction("sum64", "I_I");
    Label body = f.NewLabel(), check = f.NewLabel(), done = f.NewLabel();
    f.Emit(kConstI64, {Reg(1), ImmI64(0)});
    f.Emit(kConstI64, {Reg(2), ImmI64(0)});
    f.Emit(kConstI64, {Reg(3), ImmI64(1)});
    f.Emit(kBr, {Target(check)});
    f.Bind(body);
    f.Emit(kAddI64, {Reg(2), Reg(2), Reg(1)});
    f.Emit(kAddI64, {Reg(1), Reg(1), Reg(3)});
    f.Emit(kBr, {Target(check)});
    f.Bind(check);
    f.Emit(kBrLtI64S, {Reg(1), Reg(0), Target(body), Target(done)});
    f.Bind(done);
    f.EmitReturn({2});
    builder.AddExport("sum64", f.ordinal());
  }
  // lt(a, b) = a < b (signed) through the fused branches.
  for (const char* name : {"lt32", "lt64"}) {
    const bool wide = name == std::string("lt64");
    FunctionBuilder& f = builder.AddFunction(name, wide ? "II_i" : "ii_i");
    Label yes = f.NewLabel(), no = f.NewLabel();
    const uint16_t result = wide ? 0 : 2;
    f.Emit(wide ? kBrLtI64S : kBrLtI32S, {Reg(0), Reg(1), Target(yes), Target(no)});
    f.Bind(yes);
    f.Emit(kConstI32, {Reg(result), ImmI32(1)});
    f.EmitReturn({result});
    f.Bind(no);
    f.Emit(kConstI32, {Reg(result), ImmI32(0)});
    f.EmitReturn({result});
    builder.AddExport(name, f.ordinal());
  }
  Ref<Context> context = MakeContextOrFail(builder);
  ASSERT_TRUE(context);
  EXPECT_EQ(CallI32(*context, "sum", {Variant::I32(100)}), 4950);
  EXPECT_EQ(CallI32(*context, "sum", {Variant::I32(2)}), 1);
  EXPECT_EQ(CallI32(*context, "sum", {Variant::I32(0)}), 0);
  EXPECT_EQ(CallI32(*context, "sum", {Variant::I32(-3)}), 0);
  std::vector<Variant> wide = CallOrFail(*context, "sum64", {Variant::I64(100000)});
  ASSERT_EQ(wide.size(), 1u);
  EXPECT_EQ(wide[0].i64(), 4999950000);  // Beyond i32.

  using V = Variant;
  EXPECT_EQ(CallI32(*context, "lt32", {V::I32(-1), V::I32(0)}), 1);
  EXPECT_EQ(CallI32(*context, "lt32", {V::I32(0), V::I32(-1)}), 0);
  EXPECT_EQ(CallI32(*context, "lt32", {V::I32(5), V::I32(5)}), 0);
  EXPECT_EQ(CallI32(*context, "lt32", {V::I32(INT32_MIN), V::I32(INT32_MAX)}), 1);
  EXPECT_EQ(CallI32(*context, "lt64", {V::I64(-1), V::I64(0)}), 1);
  EXPECT_EQ(CallI32(*context, "lt64", {V::I64(0x100000000), V::I64(1)}), 0);
  EXPECT_EQ(CallI32(*context, "lt64", {V::I64(INT64_MIN), V::I64(INT64_MAX)}), 1);
  EXPECT_EQ(CallI32(*context, "lt64", {V::I64(7), V::I64(7)}), 0);
}

TEST(InterpreterTest, SwitchPicksCaseOrDefault) {
  ModuleBuilder builder("flow");
  {
    FunctionBuilder& f = builder.AddFunction("sw", "i_i");
    Label fallback = f.NewLabel();
    const Label cases[] = {f.NewLabel(), f.NewLabel(), f.NewLabel()};
    f.EmitSwitch(0, fallback, cases);
    const int32_t values[] = {10, 20, 30};
    for (int i = 0; i < 3; ++i) {
      f.Bind(cases[i]);
      f.Emit(kConstI32, {Reg(1), ImmI32(values[i])});
      f.EmitReturn({1});
    }
    f.Bind(fallback);
    f.Emit(kConstI32, {Reg(1), ImmI32(99)});
    f.EmitReturn({1});
    builder.AddExport("sw", f.ordinal());
  }
  {
    FunctionBuilder& f = builder.AddFunction("empty", "i_i");
    Label fallback = f.NewLabel();
    f.EmitSwitch(0, fallback, {});
    f.Bind(fallback);
    f.Emit(kConstI32, {Reg(1), ImmI32(-1)});
    f.EmitReturn({1});
    builder.AddExport("empty", f.ordinal());
  }
  Ref<Context> context = MakeContextOrFail(builder);
  ASSERT_TRUE(context);
  const std::pair<int32_t, int32_t> cases[] = {
      {0, 10}, {1, 20}, {2, 30}, {3, 99}, {1000, 99}, {-1, 99}, {INT32_MIN, 99}, {INT32_MAX, 99},
  };
  for (auto [index, expected] : cases) {
    EXPECT_EQ(CallI32(*context, "sw", {Variant::I32(index)}), expected) << "index " << index;
  }
  EXPECT_EQ(CallI32(*context, "empty", {Variant::I32(0)}), -1);
}

// --- Calls. ---

// Builds fib(n) = n < 2 ? n : fib(n - 1) + fib(n - 2).
void AddFib(ModuleBuilder& builder) {
  FunctionBuilder& fib = builder.AddFunction("fib", "i_i");
  Label base = fib.NewLabel(), recurse = fib.NewLabel();
  fib.Emit(kConstI32, {Reg(1), ImmI32(2)});
  fib.Emit(kCmpLtSI32, {Reg(2), Reg(0), Reg(1)});
  fib.Emit(kCondBr, {Reg(2), Target(base), Target(recurse)});
  fib.Bind(base);
  fib.EmitReturn({0});
  fib.Bind(recurse);
  fib.Emit(kConstI32, {Reg(2), ImmI32(1)});
  fib.Emit(kSubI32, {Reg(3), Reg(0), Reg(2)});
  const uint16_t arg[] = {3}, first[] = {4}, second[] = {5};
  fib.EmitCall(fib.ordinal(), arg, first);
  fib.Emit(kSubI32, {Reg(3), Reg(0), Reg(1)});
  fib.EmitCall(fib.ordinal(), arg, second);
  fib.Emit(kAddI32, {Reg(4), Reg(4), Reg(5)});
  fib.EmitReturn({4});
  builder.AddExport("fib", fib.ordinal());
}

TEST(InterpreterTest, RecursionAndMutualRecursion) {
  ModuleBuilder builder("rec");
  AddFib(builder);
  // is_even(n) = n == 0 ? 1 : is_odd(n - 1); is_odd(n) = n == 0 ? 0 : is_even(n - 1).
  FunctionBuilder& even = builder.AddFunction("is_even", "i_i");
  FunctionBuilder& odd = builder.AddFunction("is_odd", "i_i");
  for (FunctionBuilder* f : {&even, &odd}) {
    const bool is_even = f == &even;
    Label zero = f->NewLabel(), recurse = f->NewLabel();
    f->Emit(kCondBr, {Reg(0), Target(recurse), Target(zero)});
    f->Bind(zero);
    f->Emit(kConstI32, {Reg(1), ImmI32(is_even ? 1 : 0)});
    f->EmitReturn({1});
    f->Bind(recurse);
    f->Emit(kConstI32, {Reg(1), ImmI32(1)});
    f->Emit(kSubI32, {Reg(2), Reg(0), Reg(1)});
    const uint16_t arg[] = {2}, result[] = {3};
    f->EmitCall(is_even ? odd.ordinal() : even.ordinal(), arg, result);
    f->EmitReturn({3});
    builder.AddExport(f->name(), f->ordinal());
  }
  Ref<Context> context = MakeContextOrFail(builder);
  ASSERT_TRUE(context);
  EXPECT_EQ(CallI32(*context, "fib", {Variant::I32(0)}), 0);
  EXPECT_EQ(CallI32(*context, "fib", {Variant::I32(1)}), 1);
  EXPECT_EQ(CallI32(*context, "fib", {Variant::I32(24)}), 46368);
  EXPECT_EQ(CallI32(*context, "is_even", {Variant::I32(1000)}), 1);
  EXPECT_EQ(CallI32(*context, "is_even", {Variant::I32(1001)}), 0);
  EXPECT_EQ(CallI32(*context, "is_odd", {Variant::I32(7)}), 1);
  EXPECT_EQ(CallI32(*context, "is_odd", {Variant::I32(0)}), 0);
}

TEST(InterpreterTest, CallsReturnMultipleResults) {
  ModuleBuilder builder("multi");
  FunctionBuilder& divmod = builder.AddFunction("divmod", "ii_ii");
  divmod.Emit(kDivSI32, {Reg(2), Reg(0), Reg(1)});
  divmod.Emit(kRemSI32, {Reg(3), Reg(0), Reg(1)});
  divmod.EmitReturn({2, 3});
  // Results land in the caller's registers in the order the call lists them.
  FunctionBuilder& swapped = builder.AddFunction("swapped", "ii_ii");
  const uint16_t args[] = {0, 1}, results[] = {5, 4};
  swapped.EmitCall(divmod.ordinal(), args, results);
  swapped.EmitReturn({4, 5});
  builder.AddExport("swapped", swapped.ordinal());
  Ref<Context> context = MakeContextOrFail(builder);
  ASSERT_TRUE(context);
  std::vector<Variant> out = CallOrFail(*context, "swapped", {Variant::I32(17), Variant::I32(5)});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].i32(), 2);  // 17 % 5
  EXPECT_EQ(out[1].i32(), 3);  // 17 / 5
}

// Arguments of every bank, interleaved, are passed from arbitrary caller
// registers into the callee's first registers of each bank, and mixed-bank
// results come back into arbitrary caller registers.
TEST(InterpreterTest, CallsPassAllFiveBanksInMixedOrder) {
  ModuleBuilder builder("mix");
  // mix(a: r, b: I, c: f, d: i, e: F, g: r, h: i) -> (2e, g, d - h, 2b, c * c, a)
  FunctionBuilder& mix = builder.AddFunction("mix", "rIfiFri_FriIfr");
  mix.Emit(kAddF64, {Reg(1), Reg(0), Reg(0)});
  mix.Emit(kSubI32, {Reg(2), Reg(0), Reg(1)});
  mix.Emit(kAddI64, {Reg(1), Reg(0), Reg(0)});
  mix.Emit(kMulF32, {Reg(1), Reg(0), Reg(0)});
  mix.EmitReturn({1, 1, 2, 1, 1, 0});
  // caller has the same signature; it moves everything to high registers first.
  FunctionBuilder& caller = builder.AddFunction("caller", "rIfiFri_FriIfr");
  caller.Emit(kMovRef, {Reg(5), Reg(1)});  // g
  caller.Emit(kMovRef, {Reg(6), Reg(0)});  // a
  caller.Emit(kConstRefNull, {Reg(0)});
  caller.Emit(kConstRefNull, {Reg(1)});
  caller.Emit(kMovI64, {Reg(3), Reg(0)});
  caller.Emit(kMovF32, {Reg(4), Reg(0)});
  caller.Emit(kMovI32, {Reg(7), Reg(0)});
  caller.Emit(kMovI32, {Reg(8), Reg(1)});
  caller.Emit(kMovF64, {Reg(2), Reg(0)});
  const uint16_t args[] = {6, 3, 4, 7, 2, 5, 8};
  const uint16_t results[] = {9, 9, 9, 9, 9, 8};
  caller.EmitCall(mix.ordinal(), args, results);
  caller.EmitReturn({9, 9, 9, 9, 9, 8});
  builder.AddExport("caller", caller.ordinal());
  Ref<Context> context = MakeContextOrFail(builder);
  ASSERT_TRUE(context);

  Ref<ByteBuffer> a = MakeBuffer({1, 2, 3});
  Ref<List> g = List::Create();
  std::vector<Variant> out =
      CallOrFail(*context, "caller",
                 {RefOf(a), Variant::I64(0x100000001), Variant::F32(1.5f), Variant::I32(10),
                  Variant::F64(0.125), RefOf(g), Variant::I32(3)});
  ASSERT_EQ(out.size(), 6u);
  EXPECT_EQ(out[0].type(), ValueType::kF64);
  EXPECT_EQ(out[0].f64(), 0.25);
  EXPECT_EQ(out[1].ref().get(), g.get());
  EXPECT_EQ(out[2].type(), ValueType::kI32);
  EXPECT_EQ(out[2].i32(), 7);
  EXPECT_EQ(out[3].type(), ValueType::kI64);
  EXPECT_EQ(out[3].i64(), 0x200000002);
  EXPECT_EQ(out[4].type(), ValueType::kF32);
  EXPECT_EQ(out[4].f32(), 2.25f);
  EXPECT_EQ(out[5].ref().get(), a.get());
}

// --- Imports. ---

// A ref type whose objects report their destruction, to check refcounts.
class Tracked final : public Object {
 public:
  static const RefType& Type() {
    static constexpr RefType kType{"test.tracked"};
    return kType;
  }
  static Ref<Tracked> Create(int* destroyed) { return Ref<Tracked>::Adopt(new Tracked(destroyed)); }

 private:
  explicit Tracked(int* destroyed) : Object(Type()), destroyed_(destroyed) {}
  ~Tracked() override { ++*destroyed_; }
  int* destroyed_;
};

struct HostState {
  int calls = 0;
  int created = 0;
  int destroyed = 0;
};

int32_t HostAdd(HostState& state, int32_t a, int32_t b) {
  ++state.calls;
  return a + b;
}
double HostMix(HostState& state, int64_t a, float b, double c) {
  ++state.calls;
  return static_cast<double>(a) + static_cast<double>(b) * c;
}
Result<int32_t> HostCheck(HostState& state, int32_t value) {
  ++state.calls;
  if (value == 13) return InvalidArgumentError("value 13 is unlucky");
  return value * 2;
}
int64_t HostLength(HostState& state, Ref<ByteBuffer> buffer) {
  ++state.calls;
  return buffer ? static_cast<int64_t>(buffer->length()) : -1;
}
Ref<Tracked> HostMake(HostState& state) {
  ++state.created;
  return Tracked::Create(&state.destroyed);
}
Result<std::tuple<int32_t, double>> HostPair(HostState& state, int32_t x) {
  ++state.calls;
  return std::tuple<int32_t, double>(x * 3, x * 0.5);
}

Ref<NativeModule<HostState>> MakeHostModule() {
  auto host = NativeModule<HostState>::Create("host", nullptr);
  host->Export("add", &HostAdd)
      .Export("mix", &HostMix)
      .Export("check", &HostCheck)
      .Export("length", &HostLength)
      .Export("make", &HostMake)
      .Export("pair", &HostPair);
  return host;
}

HostState& HostStateOf(Context& context) {
  return NativeModule<HostState>::UserState(*context.state_of(0));
}

// Adds `name` (signature `signature`) that forwards its arguments to import
// `import` and returns its results.
FunctionBuilder& AddForwarder(ModuleBuilder& builder, std::string name, uint32_t import,
                              std::vector<uint16_t> args, std::vector<uint16_t> results,
                              std::string signature) {
  FunctionBuilder& f = builder.AddFunction(name, signature);
  f.EmitCallImport(import, args, results);
  f.EmitReturn(results);
  builder.AddExport(name, f.ordinal());
  return f;
}

TEST(InterpreterTest, CallsNativeModuleImports) {
  ModuleBuilder builder("main");
  uint32_t add = builder.AddImport("host.add", "ii_i");
  uint32_t mix = builder.AddImport("host.mix", "IfF_F");
  uint32_t length = builder.AddImport("host.length", "r_I");
  uint32_t pair = builder.AddImport("host.pair", "i_iF");
  AddForwarder(builder, "add", add, {0, 1}, {2}, "ii_i");
  AddForwarder(builder, "mix", mix, {0, 0, 0}, {1}, "IfF_F");
  AddForwarder(builder, "length", length, {0}, {0}, "r_I");
  AddForwarder(builder, "pair", pair, {0}, {1, 0}, "i_iF");
  Ref<Context> context = MakeContextOrFail(builder, {MakeHostModule()});
  ASSERT_TRUE(context);

  EXPECT_EQ(CallI32(*context, "add", {Variant::I32(40), Variant::I32(2)}), 42);
  std::vector<Variant> mixed =
      CallOrFail(*context, "mix", {Variant::I64(3), Variant::F32(0.5f), Variant::F64(8.0)});
  ASSERT_EQ(mixed.size(), 1u);
  EXPECT_EQ(mixed[0].f64(), 7.0);
  std::vector<Variant> len = CallOrFail(*context, "length", {RefOf(MakeBuffer({1, 2, 3, 4, 5}))});
  ASSERT_EQ(len.size(), 1u);
  EXPECT_EQ(len[0].i64(), 5);
  len = CallOrFail(*context, "length", {RefOf(nullptr)});
  ASSERT_EQ(len.size(), 1u);
  EXPECT_EQ(len[0].i64(), -1);  // A null ref reaches the native function as null.
  std::vector<Variant> two = CallOrFail(*context, "pair", {Variant::I32(7)});
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].i32(), 21);
  EXPECT_EQ(two[1].f64(), 3.5);
  // The native functions ran against this context's state.
  EXPECT_EQ(HostStateOf(*context).calls, 5);
}

TEST(InterpreterTest, CallsImportsOfAnotherBytecodeModule) {
  // lib.muladd(a, b, c) = a * b + c, counting its calls in a global.
  ModuleBuilder lib("lib");
  lib.SetGlobals(4, 0);
  FunctionBuilder& muladd = lib.AddFunction("muladd", "IIi_I");
  muladd.Emit(kMulI64, {Reg(2), Reg(0), Reg(1)});
  muladd.Emit(kExtI32I64S, {Reg(3), Reg(0)});
  muladd.Emit(kAddI64, {Reg(2), Reg(2), Reg(3)});
  muladd.Emit(kGlobalLoadI32, {Reg(1), Index(0)});
  muladd.Emit(kConstI32, {Reg(2), ImmI32(1)});
  muladd.Emit(kAddI32, {Reg(1), Reg(1), Reg(2)});
  muladd.Emit(kGlobalStoreI32, {Index(0), Reg(1)});
  muladd.EmitReturn({2});
  lib.AddExport("muladd", muladd.ordinal());
  FunctionBuilder& count = lib.AddFunction("count", "_i");
  count.Emit(kGlobalLoadI32, {Reg(0), Index(0)});
  count.EmitReturn({0});
  lib.AddExport("count", count.ordinal());
  FunctionBuilder& boom = lib.AddFunction("boom", "i_i");
  boom.Emit(kConstI32, {Reg(1), ImmI32(0)});
  boom.Emit(kDivSI32, {Reg(2), Reg(0), Reg(1)});
  boom.EmitReturn({2});
  lib.AddExport("boom", boom.ordinal());

  ModuleBuilder builder("main");
  uint32_t imported = builder.AddImport("lib.muladd", "IIi_I");
  uint32_t imported_boom = builder.AddImport("lib.boom", "i_i");
  AddForwarder(builder, "run", imported, {0, 1, 0}, {0}, "IIi_I");
  AddForwarder(builder, "boom", imported_boom, {0}, {1}, "i_i");
  Ref<Context> context = MakeContextOrFail(builder, {LoadOrFail(lib)});
  ASSERT_TRUE(context);

  std::vector<Variant> out =
      CallOrFail(*context, "main.run", {Variant::I64(6), Variant::I64(7), Variant::I32(-2)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].i64(), 40);
  out = CallOrFail(*context, "main.run",
                   {Variant::I64(0x100000000), Variant::I64(4), Variant::I32(1)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].i64(), 0x400000001);
  // The callee ran against its own module state in this context.
  EXPECT_EQ(CallI32(*context, "lib.count", {}), 2);

  // An error inside the imported module names both functions.
  Status status = CallError(*context, "main.boom", {Variant::I32(1)});
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "function 'main.boom' at bytecode offset 0: import 'lib.boom' failed: function "
            "'lib.boom' at bytecode offset 7: integer division by zero");
}

TEST(InterpreterTest, ImportedBytecodePassesRefsBothWays) {
  // lib.swap(a, n, b) = (b, n, a). The call's values sit in the stack's arena
  // above main's frame while lib runs its frame on the same stack, above
  // them; each ref ends up counted once per holder.
  ModuleBuilder lib("lib");
  FunctionBuilder& swap = lib.AddFunction("swap", "rIr_rIr");
  swap.EmitReturn({1, 0, 0});
  lib.AddExport("swap", swap.ordinal());
  ModuleBuilder builder("main");
  uint32_t imported = builder.AddImport("lib.swap", "rIr_rIr");
  AddForwarder(builder, "run", imported, {0, 0, 1}, {1, 0, 0}, "rIr_rIr");
  Ref<Context> context = MakeContextOrFail(builder, {LoadOrFail(lib)});
  ASSERT_TRUE(context);
  Ref<ByteBuffer> a = MakeBuffer({1});
  Ref<ByteBuffer> b = MakeBuffer({2, 2});
  {
    std::vector<Variant> out =
        CallOrFail(*context, "main.run", {RefOf(a), Variant::I64(-5), RefOf(b)});
    ASSERT_EQ(out.size(), 3u);
    EXPECT_EQ(out[0].ref().get(), b.get());
    EXPECT_EQ(out[1].i64(), -5);
    EXPECT_EQ(out[2].ref().get(), a.get());
    EXPECT_EQ(a->ref_count(), 2);
    EXPECT_EQ(b->ref_count(), 2);
  }
  EXPECT_EQ(a->ref_count(), 1);
  EXPECT_EQ(b->ref_count(), 1);
}

TEST(InterpreterTest, OptionalImportsMayStayUnresolved) {
  ModuleBuilder builder("opt");
  uint32_t missing = builder.AddImport("nowhere.fn", "i_i", /*optional=*/true);
  uint32_t present = builder.AddImport("host.add", "ii_i", /*optional=*/true);
  FunctionBuilder& probe = builder.AddFunction("probe", "_ii");
  probe.Emit(kImportResolved, {Reg(0), Index(missing)});
  probe.Emit(kImportResolved, {Reg(1), Index(present)});
  probe.EmitReturn({0, 1});
  builder.AddExport("probe", probe.ordinal());
  // guarded(x) = resolved(nowhere.fn) ? nowhere.fn(x) : -1
  FunctionBuilder& guarded = builder.AddFunction("guarded", "i_i");
  Label call = guarded.NewLabel(), skip = guarded.NewLabel();
  guarded.Emit(kImportResolved, {Reg(1), Index(missing)});
  guarded.Emit(kCondBr, {Reg(1), Target(call), Target(skip)});
  guarded.Bind(call);
  const uint16_t arg[] = {0}, result[] = {2};
  guarded.EmitCallImport(missing, arg, result);
  guarded.EmitReturn({2});
  guarded.Bind(skip);
  guarded.Emit(kConstI32, {Reg(2), ImmI32(-1)});
  guarded.EmitReturn({2});
  builder.AddExport("guarded", guarded.ordinal());
  AddForwarder(builder, "call_missing", missing, {0}, {1}, "i_i");
  AddForwarder(builder, "call_present", present, {0, 0}, {1}, "i_i");
  Ref<Context> context = MakeContextOrFail(builder, {MakeHostModule()});
  ASSERT_TRUE(context);

  std::vector<Variant> resolved = CallOrFail(*context, "probe", {});
  ASSERT_EQ(resolved.size(), 2u);
  EXPECT_EQ(resolved[0].i32(), 0);
  EXPECT_EQ(resolved[1].i32(), 1);
  EXPECT_EQ(CallI32(*context, "guarded", {Variant::I32(5)}), -1);
  EXPECT_EQ(CallI32(*context, "call_present", {Variant::I32(21)}), 42);
  Status status = CallError(*context, "call_missing", {Variant::I32(5)});
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(status.message(),
            "function 'opt.call_missing' at bytecode offset 0: call to optional import "
            "'nowhere.fn' that was not resolved");
}

TEST(InterpreterTest, FailingNativeImportNamesImportAndCaller) {
  ModuleBuilder builder("main");
  const uint32_t file = builder.AddSourceFile("model.mlir");
  uint32_t check = builder.AddImport("host.check", "i_i");
  uint32_t length = builder.AddImport("host.length", "r_I");
  FunctionBuilder& inner = builder.AddFunction("inner", "i_i");
  inner.Emit(kMovI32, {Reg(1), Reg(0)});
  const uint32_t call_offset = inner.offset();
  const uint16_t arg[] = {1}, result[] = {2};
  inner.EmitCallImport(check, arg, result);
  inner.EmitReturn({2});
  builder.AddExport("inner", inner.ordinal());
  FunctionBuilder& outer = builder.AddFunction("outer", "i_i");
  outer.SetLocation(file, 12, 3);
  const uint16_t outer_arg[] = {0}, outer_result[] = {1};
  outer.EmitCall(inner.ordinal(), outer_arg, outer_result);
  outer.EmitReturn({1});
  builder.AddExport("outer", outer.ordinal());
  AddForwarder(builder, "length", length, {0}, {0}, "r_I");
  Ref<Context> context = MakeContextOrFail(builder, {MakeHostModule()});
  ASSERT_TRUE(context);

  EXPECT_EQ(CallI32(*context, "inner", {Variant::I32(12)}), 24);
  Status status = CallError(*context, "inner", {Variant::I32(13)});
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "function 'main.inner' at bytecode offset " +
                                  std::to_string(call_offset) +
                                  ": import 'host.check' failed: 'host.check' failed: value 13 "
                                  "is unlucky");
  status = CallError(*context, "outer", {Variant::I32(13)});
  EXPECT_EQ(status.message(), "function 'main.inner' at bytecode offset " +
                                  std::to_string(call_offset) +
                                  ": import 'host.check' failed: 'host.check' failed: value 13 "
                                  "is unlucky\n  called from function 'main.outer' at bytecode "
                                  "offset 0 (model.mlir:12:3)");
  // A ref of the wrong type is refused at the native boundary.
  status = CallError(*context, "length", {RefOf(List::Create())});
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "function 'main.length' at bytecode offset 0: import 'host.length' failed: argument 0 "
            "of 'host.length': expected ref<vm.buffer>, got ref<vm.list>");
  // The context is still usable after failed invocations.
  EXPECT_EQ(CallI32(*context, "outer", {Variant::I32(4)}), 8);
}

// --- Errors. ---

struct DivisionCase {
  Opcode op;
  const char* message;
};
constexpr DivisionCase kDivisionCases[] = {
    {kDivSI32, "integer division by zero"},  {kDivUI32, "integer division by zero"},
    {kRemSI32, "integer remainder by zero"}, {kRemUI32, "integer remainder by zero"},
    {kDivSI64, "integer division by zero"},  {kDivUI64, "integer division by zero"},
    {kRemSI64, "integer remainder by zero"}, {kRemUI64, "integer remainder by zero"},
};

TEST(InterpreterTest, DivisionByZeroNamesFunctionOffsetAndLocation) {
  for (const DivisionCase& c : kDivisionCases) {
    SCOPED_TRACE(GetOpcodeInfo(c.op).mnemonic);
    const bool wide = BankOfRegisterKind(GetOpcodeInfo(c.op).operands[0]) == Bank::kI64;
    const std::string signature = wide ? "II_I" : "ii_i";
    ModuleBuilder builder("errs");
    const uint32_t file = builder.AddSourceFile("model.mlir");
    // plain(a, b) and located(a, b) compute a op b after a 5-byte mov.
    for (const char* name : {"plain", "located"}) {
      const bool located = name == std::string("located");
      FunctionBuilder& f = builder.AddFunction(name, signature);
      if (located) f.SetLocation(file, 3, 1);
      f.Emit(wide ? kMovI64 : kMovI32, {Reg(3), Reg(1)});
      if (located) f.SetLocation(file, 4, 9);
      f.Emit(c.op, {Reg(2), Reg(0), Reg(3)});
      f.EmitReturn({2});
      builder.AddExport(name, f.ordinal());
    }
    // outer calls located (at 11:2); top calls outer (at 20:7) after a mov.
    FunctionBuilder& outer = builder.AddFunction("outer", signature);
    outer.SetLocation(file, 11, 2);
    const uint16_t args[] = {0, 1}, result[] = {2};
    outer.EmitCall(1, args, result);
    outer.EmitReturn({2});
    FunctionBuilder& top = builder.AddFunction("top", signature);
    top.Emit(wide ? kMovI64 : kMovI32, {Reg(4), Reg(0)});
    top.SetLocation(file, 20, 7);
    const uint16_t top_args[] = {4, 1};
    top.EmitCall(outer.ordinal(), top_args, result);
    top.EmitReturn({2});
    builder.AddExport("top", top.ordinal());
    Ref<Context> context = MakeContextOrFail(builder);
    ASSERT_TRUE(context);

    auto arg = [&](int64_t v) { return wide ? Variant::I64(v) : Variant::I32(int32_t(v)); };
    const std::string what = c.message;
    Status status = CallError(*context, "plain", {arg(7), arg(0)});
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(status.message(), "function 'errs.plain' at bytecode offset 5: " + what);
    status = CallError(*context, "located", {arg(7), arg(0)});
    EXPECT_EQ(status.message(),
              "function 'errs.located' at bytecode offset 5 (model.mlir:4:9): " + what);
    status = CallError(*context, "top", {arg(-7), arg(0)});
    EXPECT_EQ(status.message(),
              "function 'errs.located' at bytecode offset 5 (model.mlir:4:9): " + what +
                  "\n  called from function 'errs.outer' at bytecode offset 0 (model.mlir:11:2)"
                  "\n  called from function 'errs.top' at bytecode offset 5 (model.mlir:20:7)");
    // The error left the context usable.
    std::vector<Variant> ok = CallOrFail(*context, "top", {arg(7), arg(2)});
    ASSERT_EQ(ok.size(), 1u);
    const bool is_division = what.find("division") != std::string::npos;
    EXPECT_EQ(wide ? ok[0].i64() : ok[0].i32(), is_division ? 3 : 1);  // 7 / 2 or 7 % 2.
  }
}

// count(n) = n == 0 ? 0 : count(n - 1) + 1 uses n + 1 frames.
uint32_t AddCount(ModuleBuilder& builder) {
  FunctionBuilder& f = builder.AddFunction("count", "i_i");
  Label recurse = f.NewLabel(), base = f.NewLabel();
  f.Emit(kConstI32, {Reg(1), ImmI32(1)});
  f.Emit(kCondBr, {Reg(0), Target(recurse), Target(base)});
  f.Bind(base);
  f.EmitReturn({0});
  f.Bind(recurse);
  f.Emit(kSubI32, {Reg(2), Reg(0), Reg(1)});
  const uint32_t call_offset = f.offset();
  const uint16_t arg[] = {2}, result[] = {3};
  f.EmitCall(f.ordinal(), arg, result);
  f.Emit(kAddI32, {Reg(3), Reg(3), Reg(1)});
  f.EmitReturn({3});
  builder.AddExport("count", f.ordinal());
  return call_offset;
}

// forever() calls itself with no way out.
void AddForever(ModuleBuilder& builder) {
  FunctionBuilder& f = builder.AddFunction("forever", "_");
  f.EmitCall(f.ordinal(), {}, {});
  f.EmitReturn({});
  builder.AddExport("forever", f.ordinal());
}

TEST(InterpreterTest, StackDepthLimitStopsRecursion) {
  ModuleBuilder builder("deep");
  const uint32_t call_offset = AddCount(builder);
  ContextOptions options;
  options.stack.max_depth = 64;
  Ref<Context> context = MakeContextOrFail(builder, {}, options);
  ASSERT_TRUE(context);
  EXPECT_EQ(CallI32(*context, "count", {Variant::I32(63)}), 63);  // Exactly 64 frames.
  Status status = CallError(*context, "count", {Variant::I32(64)});
  EXPECT_EQ(status.code(), StatusCode::kResourceExhausted);
  const std::string where =
      "function 'deep.count' at bytecode offset " + std::to_string(call_offset);
  std::string expected = where + ": stack overflow: call depth limit of 64 exceeded";
  for (int i = 0; i < 16; ++i) expected += "\n  called from " + where;  // Capped backtrace.
  expected += "\n  ...";
  EXPECT_EQ(status.message(), expected);
  EXPECT_EQ(CallI32(*context, "count", {Variant::I32(10)}), 10);  // Still usable.
}

// spin(n) counts i from 0 to n and returns it, taking exactly n + 1 branches
// (the entry test plus one loop test per iteration). i32 registers: r0 n, r1 i.
void AddSpin(ModuleBuilder& builder) {
  FunctionBuilder& f = builder.AddFunction("spin", "i_i");
  Label body = f.NewLabel(), done = f.NewLabel();
  f.Emit(kConstI32, {Reg(1), ImmI32(0)});
  f.Emit(kBrLtI32S, {Reg(1), Reg(0), Target(body), Target(done)});  // 1 branch.
  f.Bind(body);
  f.Emit(kAddImmI32, {Reg(1), Reg(1), ImmI32(1)});
  f.Emit(kBrLtI32S, {Reg(1), Reg(0), Target(body), Target(done)});  // n branches.
  f.Bind(done);
  f.EmitReturn({1});
  builder.AddExport("spin", f.ordinal());
}

TEST(InterpreterTest, BranchBudgetStopsRunawayLoopsExactly) {
  ModuleBuilder builder("budget");
  AddSpin(builder);
  FunctionBuilder& forever = builder.AddFunction("forever", "_");
  Label top = forever.NewLabel();
  forever.Bind(top);
  forever.Emit(kBr, {Target(top)});
  builder.AddExport("forever", forever.ordinal());
  ContextOptions options;
  options.stack.branch_budget = 1000;
  Ref<Context> context = MakeContextOrFail(builder, {}, options);
  ASSERT_TRUE(context);
  // spin(999) takes 1000 branches: exactly the budget.
  EXPECT_EQ(CallI32(*context, "spin", {Variant::I32(999)}), 999);
  // The budget is per invocation: the same again still fits.
  EXPECT_EQ(CallI32(*context, "spin", {Variant::I32(999)}), 999);
  Status status = CallError(*context, "spin", {Variant::I32(1000)});
  EXPECT_EQ(status.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(status.message(),
            "function 'budget.spin' at bytecode offset 29: execution budget of 1000 taken "
            "branches and calls exhausted");
  status = CallError(*context, "forever", {});
  EXPECT_EQ(status.message(),
            "function 'budget.forever' at bytecode offset 0: execution budget of 1000 taken "
            "branches and calls exhausted");
  // Unlimited by default.
  Ref<Context> unlimited = MakeContextOrFail(builder);
  ASSERT_TRUE(unlimited);
  EXPECT_EQ(CallI32(*unlimited, "spin", {Variant::I32(100000)}), 100000);
}

// Calls spend the budget too, and bytecode reached through an import shares
// the caller's budget rather than starting afresh.
TEST(InterpreterTest, BranchBudgetCoversCallsAndImportedBytecode) {
  ModuleBuilder lib("lib");
  AddSpin(lib);
  Ref<Instance> instance = Instance::Create();
  auto lib_module = LoadBytes(*instance, BuildBytes(lib));
  ASSERT_TRUE(lib_module.ok()) << lib_module.status().ToString();
  ModuleBuilder app("app");
  uint32_t spin = app.AddImport("lib.spin", "i_i");
  FunctionBuilder& twice = app.AddFunction("twice", "i_i");
  const uint16_t n[] = {0}, r[] = {1};
  twice.EmitCallImport(spin, n, r);
  twice.EmitCallImport(spin, n, r);
  twice.EmitReturn({1});
  app.AddExport("twice", twice.ordinal());
  FunctionBuilder& calls = app.AddFunction("calls", "i_i");  // calls(n) = n calls of id.
  FunctionBuilder& id = app.AddFunction("id", "i_i");
  id.EmitReturn({0});
  Label body = calls.NewLabel(), done = calls.NewLabel();
  calls.Emit(kConstI32, {Reg(1), ImmI32(0)});
  calls.Emit(kBrLtI32S, {Reg(1), Reg(0), Target(body), Target(done)});
  calls.Bind(body);
  const uint16_t in[] = {1}, out[] = {1};
  calls.EmitCall(id.ordinal(), in, out);
  calls.Emit(kAddImmI32, {Reg(1), Reg(1), ImmI32(1)});
  calls.Emit(kBrLtI32S, {Reg(1), Reg(0), Target(body), Target(done)});
  calls.Bind(done);
  calls.EmitReturn({1});
  app.AddExport("calls", calls.ordinal());
  auto app_module = LoadBytes(*instance, BuildBytes(app));
  ASSERT_TRUE(app_module.ok()) << app_module.status().ToString();
  ContextOptions options;
  options.stack.branch_budget = 100;
  auto context =
      Context::Create(instance, {Ref<Module>(*lib_module), Ref<Module>(*app_module)}, options);
  ASSERT_TRUE(context.ok()) << context.status().ToString();
  // One spin(49) takes 50 branches; two take the whole budget of 100.
  EXPECT_EQ(CallI32(**context, "twice", {Variant::I32(49)}), 49);
  Status status = CallError(**context, "twice", {Variant::I32(50)});
  EXPECT_EQ(status.code(), StatusCode::kResourceExhausted);
  EXPECT_NE(status.message().find("execution budget of 100 taken branches and calls exhausted"),
            std::string::npos)
      << status.message();
  // calls(n): 1 + n branches and n calls; 33 iterations = 67 <= 100, 50 = 101.
  EXPECT_EQ(CallI32(**context, "calls", {Variant::I32(33)}), 33);
  EXPECT_EQ(CallError(**context, "calls", {Variant::I32(50)}).code(),
            StatusCode::kResourceExhausted);
}

TEST(InterpreterTest, UnboundedRecursionEndsInStackOverflow) {
  ModuleBuilder builder("deep");
  AddForever(builder);
  {
    // Default limits: the depth limit stops it.
    Ref<Context> context = MakeContextOrFail(builder);
    ASSERT_TRUE(context);
    Status status = CallError(*context, "forever", {});
    EXPECT_EQ(status.code(), StatusCode::kResourceExhausted);
    EXPECT_EQ(FirstLine(status.message()),
              "function 'deep.forever' at bytecode offset 0: stack overflow: call depth limit of "
              "4096 exceeded");
  }
  {
    // A small frame arena runs out first.
    ModuleBuilder small("deep");
    AddForever(small);
    ContextOptions options;
    options.stack.arena_bytes = 4096;
    Ref<Context> context = MakeContextOrFail(small, {}, options);
    ASSERT_TRUE(context);
    Status status = CallError(*context, "forever", {});
    EXPECT_EQ(status.code(), StatusCode::kResourceExhausted);
    EXPECT_EQ(FirstLine(status.message()),
              "function 'deep.forever' at bytecode offset 0: stack overflow: register frames "
              "exceed the 4096-byte stack");
    EXPECT_EQ(CountOccurrences(status.message(), "\n  called from function 'deep.forever'"), 16);
  }
  {
    // An arena too small for even the entry frame.
    ModuleBuilder tiny("deep");
    AddForever(tiny);
    ContextOptions options;
    options.stack.arena_bytes = 16;
    Ref<Context> context = MakeContextOrFail(tiny, {}, options);
    ASSERT_TRUE(context);
    Status status = CallError(*context, "forever", {});
    EXPECT_EQ(status.code(), StatusCode::kResourceExhausted);
    EXPECT_EQ(status.message(),
              "stack overflow calling function 'deep.forever' at bytecode offset 0");
  }
}

TEST(InterpreterTest, DeepCallsThroughImportsEndInStackOverflow) {
  // A chain of 50 modules: m0.bounce returns, each later m<k>.bounce calls
  // m<k-1>.bounce. Every hop goes through the import path (and a nested
  // interpreter entry); a module imports only from the modules before it,
  // so a chain, not a cycle, is how imports nest deeply.
  constexpr int kModules = 50;
  std::vector<Ref<Module>> chain;
  for (int k = 0; k + 1 < kModules; ++k) {
    ModuleBuilder link("m" + std::to_string(k));
    if (k == 0) {
      FunctionBuilder& f = link.AddFunction("bounce", "_");
      f.EmitReturn({});
      link.AddExport("bounce", f.ordinal());
    } else {
      uint32_t down = link.AddImport("m" + std::to_string(k - 1) + ".bounce", "_");
      AddForwarder(link, "bounce", down, {}, {}, "_");
    }
    chain.push_back(LoadOrFail(link));
  }
  ModuleBuilder top("m" + std::to_string(kModules - 1));
  uint32_t down = top.AddImport("m" + std::to_string(kModules - 2) + ".bounce", "_");
  AddForwarder(top, "bounce", down, {}, {}, "_");
  ContextOptions options;
  options.stack.max_depth = 40;
  Ref<Context> context = MakeContextOrFail(top, std::move(chain), options);
  ASSERT_TRUE(context);
  Status status = CallError(*context, "m49.bounce", {});
  EXPECT_EQ(status.code(), StatusCode::kResourceExhausted);
  EXPECT_TRUE(
      StartsWith(status.message(),
                 "function 'm49.bounce' at bytecode offset 0: import 'm48.bounce' failed: function "
                 "'m48.bounce' at bytecode offset 0: import 'm47.bounce' failed: "))
      << status.message();
  EXPECT_NE(status.message().find("stack overflow"), std::string::npos) << status.message();
}

TEST(InterpreterTest, StackIsReusableAfterATrap) {
  ModuleBuilder builder("deep");
  AddCount(builder);
  FunctionBuilder& div = builder.AddFunction("div", "ii_i");
  div.Emit(kDivSI32, {Reg(2), Reg(0), Reg(1)});
  div.EmitReturn({2});
  builder.AddExport("div", div.ordinal());
  Ref<Context> context = MakeContextOrFail(builder);
  ASSERT_TRUE(context);
  auto count = context->LookupFunction("count");
  auto div_fn = context->LookupFunction("div");
  ASSERT_TRUE(count.ok() && div_fn.ok());
  StackOptions stack_options;
  stack_options.max_depth = 20;
  Stack stack(stack_options);
  Variant result;
  const Variant deep[] = {Variant::I32(50)};
  EXPECT_FALSE(InvokeWithStack(*count, deep, {&result, 1}, stack).ok());
  EXPECT_EQ(stack.used(), 0u);
  EXPECT_EQ(stack.depth(), 0);
  const Variant zero[] = {Variant::I32(1), Variant::I32(0)};
  EXPECT_FALSE(InvokeWithStack(*div_fn, zero, {&result, 1}, stack).ok());
  EXPECT_EQ(stack.used(), 0u);
  EXPECT_EQ(stack.depth(), 0);
  const Variant shallow[] = {Variant::I32(19)};  // 20 frames: exactly the limit.
  Status status = InvokeWithStack(*count, shallow, {&result, 1}, stack);
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(result.i32(), 19);
}

TEST(InterpreterTest, FailStopsWithItsMessage) {
  ModuleBuilder builder("m");
  const uint32_t file = builder.AddSourceFile("train.mlir");
  const uint32_t message = builder.AddString("model diverged: loss is NaN");
  FunctionBuilder& fail = builder.AddFunction("fail", "_");
  fail.Emit(kFail, {Index(message)});
  builder.AddExport("fail", fail.ordinal());
  // check(x) fails unless x is non-zero.
  FunctionBuilder& check = builder.AddFunction("check", "i_i");
  Label ok = check.NewLabel(), bad = check.NewLabel();
  check.Emit(kCondBr, {Reg(0), Target(ok), Target(bad)});
  check.Bind(ok);
  check.EmitReturn({0});
  check.Bind(bad);
  check.SetLocation(file, 8, 4);
  const uint32_t fail_offset = check.offset();
  check.Emit(kFail, {Index(message)});
  builder.AddExport("check", check.ordinal());
  Ref<Context> context = MakeContextOrFail(builder);
  ASSERT_TRUE(context);
  Status status = CallError(*context, "fail", {});
  EXPECT_EQ(status.code(), StatusCode::kAborted);
  EXPECT_EQ(status.message(),
            "function 'm.fail' at bytecode offset 0: model diverged: loss is NaN");
  EXPECT_EQ(CallI32(*context, "check", {Variant::I32(3)}), 3);
  status = CallError(*context, "check", {Variant::I32(0)});
  EXPECT_EQ(status.code(), StatusCode::kAborted);
  EXPECT_EQ(status.message(), "function 'm.check' at bytecode offset " +
                                  std::to_string(fail_offset) +
                                  " (train.mlir:8:4): model diverged: loss is NaN");
}

// --- Globals. ---

// store(i, I, f, F, r) writes globals; load() reads them back; bump()
// increments an i32 global and returns it.
void AddGlobalFunctions(ModuleBuilder& builder) {
  builder.SetGlobals(32, 2);
  FunctionBuilder& store = builder.AddFunction("store", "iIfFr_");
  store.Emit(kGlobalStoreI32, {Index(0), Reg(0)});
  store.Emit(kGlobalStoreF32, {Index(4), Reg(0)});
  store.Emit(kGlobalStoreI64, {Index(8), Reg(0)});
  store.Emit(kGlobalStoreF64, {Index(16), Reg(0)});
  store.Emit(kGlobalStoreRef, {Index(1), Reg(0)});
  store.EmitReturn({});
  builder.AddExport("store", store.ordinal());
  FunctionBuilder& load = builder.AddFunction("load", "_iIfFrr");
  load.Emit(kGlobalLoadI32, {Reg(0), Index(0)});
  load.Emit(kGlobalLoadI64, {Reg(0), Index(8)});
  load.Emit(kGlobalLoadF32, {Reg(0), Index(4)});
  load.Emit(kGlobalLoadF64, {Reg(0), Index(16)});
  load.Emit(kGlobalLoadRef, {Reg(0), Index(0)});
  load.Emit(kGlobalLoadRef, {Reg(1), Index(1)});
  load.EmitReturn({0, 0, 0, 0, 0, 1});
  builder.AddExport("load", load.ordinal());
  FunctionBuilder& bump = builder.AddFunction("bump", "_i");
  bump.Emit(kGlobalLoadI32, {Reg(0), Index(24)});
  bump.Emit(kConstI32, {Reg(1), ImmI32(1)});
  bump.Emit(kAddI32, {Reg(0), Reg(0), Reg(1)});
  bump.Emit(kGlobalStoreI32, {Index(24), Reg(0)});
  bump.EmitReturn({0});
  builder.AddExport("bump", bump.ordinal());
}

TEST(InterpreterTest, GlobalsPersistPerContextAndAreIsolatedBetweenContexts) {
  ModuleBuilder builder("state");
  AddGlobalFunctions(builder);
  Ref<Instance> instance = Instance::Create();
  auto module = LoadBytes(*instance, BuildBytes(builder));
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  auto first = Context::Create(instance, {Ref<Module>(*module)});
  auto second = Context::Create(instance, {Ref<Module>(*module)});
  ASSERT_TRUE(first.ok() && second.ok());

  Ref<ByteBuffer> buffer = MakeBuffer({9});
  CallOrFail(**first, "store",
             {Variant::I32(-42), Variant::I64(0x123456789abcdef), Variant::F32(2.5f),
              Variant::F64(-0.125), RefOf(buffer)});
  EXPECT_EQ(buffer->ref_count(), 2);  // The host and the global.
  std::vector<Variant> values = CallOrFail(**first, "load", {});
  ASSERT_EQ(values.size(), 6u);
  EXPECT_EQ(values[0].i32(), -42);
  EXPECT_EQ(values[1].i64(), 0x123456789abcdef);
  EXPECT_EQ(values[2].f32(), 2.5f);
  EXPECT_EQ(values[3].f64(), -0.125);
  EXPECT_FALSE(values[4].ref());  // Ref global 0 was never stored.
  EXPECT_EQ(values[5].ref().get(), buffer.get());
  values.clear();

  // The second context's globals are untouched.
  std::vector<Variant> fresh = CallOrFail(**second, "load", {});
  ASSERT_EQ(fresh.size(), 6u);
  EXPECT_EQ(fresh[0].i32(), 0);
  EXPECT_EQ(fresh[1].i64(), 0);
  EXPECT_EQ(fresh[2].f32(), 0.0f);
  EXPECT_EQ(fresh[3].f64(), 0.0);
  EXPECT_FALSE(fresh[5].ref());

  EXPECT_EQ(CallI32(**first, "bump", {}), 1);
  EXPECT_EQ(CallI32(**first, "bump", {}), 2);
  EXPECT_EQ(CallI32(**first, "bump", {}), 3);
  EXPECT_EQ(CallI32(**second, "bump", {}), 1);
  // The i32 at offset 24 did not clobber its neighbours.
  values = CallOrFail(**first, "load", {});
  ASSERT_EQ(values.size(), 6u);
  EXPECT_EQ(values[0].i32(), -42);
  EXPECT_EQ(values[3].f64(), -0.125);
  values.clear();

  // Destroying the context releases the ref global.
  *first = Ref<Context>();
  EXPECT_EQ(buffer->ref_count(), 1);
}

TEST(InterpreterTest, InitializerRunsOnceAtContextCreation) {
  ModuleBuilder builder("init");
  builder.SetGlobals(4, 1);
  // init: ++runs; global ref 0 = a fresh 12-byte buffer.
  FunctionBuilder& init = builder.AddFunction("init", "_");
  init.Emit(kGlobalLoadI32, {Reg(0), Index(0)});
  init.Emit(kConstI32, {Reg(1), ImmI32(1)});
  init.Emit(kAddI32, {Reg(0), Reg(0), Reg(1)});
  init.Emit(kGlobalStoreI32, {Index(0), Reg(0)});
  init.Emit(kConstI64, {Reg(0), ImmI64(12)});
  init.Emit(kBufferAlloc, {Reg(0), Reg(0)});
  init.Emit(kGlobalStoreRef, {Index(0), Reg(0)});
  init.EmitReturn({});
  builder.SetInitializer(init.ordinal());
  FunctionBuilder& get = builder.AddFunction("get", "_iI");
  get.Emit(kGlobalLoadI32, {Reg(0), Index(0)});
  get.Emit(kGlobalLoadRef, {Reg(0), Index(0)});
  get.Emit(kBufferLength, {Reg(0), Reg(0)});
  get.EmitReturn({0, 0});
  builder.AddExport("get", get.ordinal());
  Ref<Context> context = MakeContextOrFail(builder);
  ASSERT_TRUE(context);
  for (int i = 0; i < 2; ++i) {
    std::vector<Variant> out = CallOrFail(*context, "get", {});
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].i32(), 1);  // Ran once, not per invocation.
    EXPECT_EQ(out[1].i64(), 12);
  }
}

TEST(InterpreterTest, FailingInitializerFailsContextCreation) {
  ModuleBuilder builder("init");
  FunctionBuilder& init = builder.AddFunction("init", "_");
  init.Emit(kConstI64, {Reg(0), ImmI64(0)});
  init.Emit(kRemUI64, {Reg(0), Reg(0), Reg(0)});
  init.EmitReturn({});
  builder.SetInitializer(init.ordinal());
  auto context = MakeContext(builder);
  ASSERT_FALSE(context.ok());
  EXPECT_EQ(context.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(context.status().message(),
            "initializing module 'init': function 'init.init' at bytecode offset 11: integer "
            "remainder by zero");
}

// --- Rodata. ---

TEST(InterpreterTest, RodataIsReadableAndOutlivesItsModule) {
  ModuleBuilder builder("ro");
  const std::vector<uint8_t> bytes = {0x01, 0x02, 0x03, 0x04, 0xff, 0x80, 0x00,
                                      0x00, 0x00, 0x00, 0xc0, 0x3f, 0x2a};
  const uint32_t table = builder.AddRodata("table", bytes);
  // read() -> (length, i32 at 0, i8.s at 4, i16.s at 4, f32 at 8)
  FunctionBuilder& read = builder.AddFunction("read", "_Iiiif");
  read.Emit(kConstRefRodata, {Reg(0), Index(table)});
  read.Emit(kBufferLength, {Reg(0), Reg(0)});
  read.Emit(kConstI64, {Reg(1), ImmI64(0)});
  read.Emit(kBufferLoadI32, {Reg(0), Reg(0), Reg(1)});
  read.Emit(kConstI64, {Reg(1), ImmI64(4)});
  read.Emit(kBufferLoadI8S, {Reg(1), Reg(0), Reg(1)});
  read.Emit(kBufferLoadI16S, {Reg(2), Reg(0), Reg(1)});
  read.Emit(kConstI64, {Reg(1), ImmI64(8)});
  read.Emit(kBufferLoadF32, {Reg(0), Reg(0), Reg(1)});
  read.EmitReturn({0, 0, 1, 2, 0});
  builder.AddExport("read", read.ordinal());
  FunctionBuilder& get = builder.AddFunction("get", "_r");
  get.Emit(kConstRefRodata, {Reg(0), Index(table)});
  get.EmitReturn({0});
  builder.AddExport("get", get.ordinal());
  FunctionBuilder& write = builder.AddFunction("write", "_");
  write.Emit(kConstRefRodata, {Reg(0), Index(table)});
  write.Emit(kConstI64, {Reg(0), ImmI64(0)});
  write.Emit(kConstI32, {Reg(0), ImmI32(7)});
  const uint32_t store_offset = write.offset();
  write.Emit(kBufferStoreI8, {Reg(0), Reg(0), Reg(0)});
  write.EmitReturn({});
  builder.AddExport("write", write.ordinal());

  Ref<Object> kept;
  {
    Ref<Context> context = MakeContextOrFail(builder);
    ASSERT_TRUE(context);
    std::vector<Variant> out = CallOrFail(*context, "read", {});
    ASSERT_EQ(out.size(), 5u);
    EXPECT_EQ(out[0].i64(), 13);
    EXPECT_EQ(out[1].i32(), 0x04030201);
    EXPECT_EQ(out[2].i32(), -1);
    EXPECT_EQ(out[3].i32(), static_cast<int16_t>(0x80ff));
    EXPECT_EQ(out[4].f32(), 1.5f);
    Status status = CallError(*context, "write", {});
    EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition);
    EXPECT_EQ(status.message(), "function 'ro.write' at bytecode offset " +
                                    std::to_string(store_offset) + ": buffer is read-only");
    out = CallOrFail(*context, "get", {});
    ASSERT_EQ(out.size(), 1u);
    kept = out[0].ref();
  }
  // The context and the module are gone; the rodata view keeps its bytes.
  ByteBuffer* buffer = DynCast<ByteBuffer>(kept.get());
  ASSERT_NE(buffer, nullptr);
  EXPECT_TRUE(buffer->read_only());
  EXPECT_EQ(BytesOf(*buffer), bytes);
  EXPECT_EQ(kept->ref_count(), 1);
}

// --- Lists. ---

TEST(InterpreterTest, ListsHoldMixedVariantsAndReturnToTheHost) {
  ModuleBuilder builder("lists");
  // make() -> (list, size after alloc, size after resize)
  FunctionBuilder& make = builder.AddFunction("make", "_rii");
  make.Emit(kConstI32, {Reg(0), ImmI32(4)});
  make.Emit(kListAlloc, {Reg(0), Reg(0)});
  make.Emit(kListSize, {Reg(0), Reg(0)});
  make.Emit(kConstI32, {Reg(1), ImmI32(6)});
  make.Emit(kListResize, {Reg(0), Reg(1)});
  make.Emit(kListSize, {Reg(1), Reg(0)});
  make.Emit(kConstI32, {Reg(2), ImmI32(0)});
  make.Emit(kConstI32, {Reg(3), ImmI32(-7)});
  make.Emit(kListSetI32, {Reg(0), Reg(2), Reg(3)});
  make.Emit(kConstI32, {Reg(2), ImmI32(1)});
  make.Emit(kConstI64, {Reg(0), ImmI64(0x7000000000000001)});
  make.Emit(kListSetI64, {Reg(0), Reg(2), Reg(0)});
  make.Emit(kConstI32, {Reg(2), ImmI32(2)});
  make.Emit(kConstF32, {Reg(0), ImmF32(-1.25f)});
  make.Emit(kListSetF32, {Reg(0), Reg(2), Reg(0)});
  make.Emit(kConstI32, {Reg(2), ImmI32(3)});
  make.Emit(kConstF64, {Reg(0), ImmF64(1e300)});
  make.Emit(kListSetF64, {Reg(0), Reg(2), Reg(0)});
  make.Emit(kConstI32, {Reg(2), ImmI32(4)});
  make.Emit(kConstI64, {Reg(0), ImmI64(3)});
  make.Emit(kBufferAlloc, {Reg(1), Reg(0)});
  make.Emit(kListSetRef, {Reg(0), Reg(2), Reg(1)});
  make.Emit(kConstRefNull, {Reg(1)});  // Element 5 stays none.
  make.EmitReturn({0, 0, 1});
  builder.AddExport("make", make.ordinal());
  // read(list) -> (get.i32 0, get.i64 1, get.f32 2, get.f64 3, get.ref 4, get.ref 5 is null)
  FunctionBuilder& read = builder.AddFunction("read", "r_iIfFri");
  const Opcode getters[] = {kListGetI32, kListGetI64, kListGetF32, kListGetF64, kListGetRef};
  for (int i = 0; i < 5; ++i) {
    read.Emit(kConstI32, {Reg(0), ImmI32(i)});
    read.Emit(getters[i], {Reg(1), Reg(0), Reg(0)});
  }
  read.Emit(kConstI32, {Reg(0), ImmI32(5)});
  read.Emit(kListGetRef, {Reg(2), Reg(0), Reg(0)});
  read.Emit(kRefIsNull, {Reg(0), Reg(2)});
  read.EmitReturn({1, 1, 1, 1, 1, 0});
  builder.AddExport("read", read.ordinal());
  Ref<Context> context = MakeContextOrFail(builder);
  ASSERT_TRUE(context);

  auto made = Invoke(*context, "make", *List::Create());
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  ASSERT_EQ((*made)->size(), 3u);
  EXPECT_EQ((*made)->GetI32(1).value(), 0);  // list.alloc reserves, it does not grow.
  EXPECT_EQ((*made)->GetI32(2).value(), 6);
  Ref<Object> object = (*made)->GetRef(0).value();
  List* list = DynCast<List>(object.get());
  ASSERT_NE(list, nullptr);
  ASSERT_EQ(list->size(), 6u);
  EXPECT_EQ(list->GetI32(0).value(), -7);
  EXPECT_EQ(list->GetI64(1).value(), 0x7000000000000001);
  EXPECT_EQ(list->GetF32(2).value(), -1.25f);
  EXPECT_EQ(list->GetF64(3).value(), 1e300);
  ByteBuffer* element = DynCast<ByteBuffer>(list->GetRef(4).value().get());
  ASSERT_NE(element, nullptr);
  EXPECT_EQ(element->length(), 3u);
  EXPECT_EQ(element->ref_count(), 1);  // Only the list holds it.
  EXPECT_TRUE(list->items()[5].is_none());
  EXPECT_EQ(object->ref_count(), 2);  // The results list and `object`.

  // A host-built list read by bytecode.
  Ref<List> host = List::Create();
  Ref<ByteBuffer> buffer = MakeBuffer({5});
  host->Push(Variant::I32(11));
  host->Push(Variant::I64(-22));
  host->Push(Variant::F32(3.5f));
  host->Push(Variant::F64(-4.75));
  host->Push(RefOf(buffer));
  host->Resize(6);
  std::vector<Variant> out = CallOrFail(*context, "read", {RefOf(host)});
  ASSERT_EQ(out.size(), 6u);
  EXPECT_EQ(out[0].i32(), 11);
  EXPECT_EQ(out[1].i64(), -22);
  EXPECT_EQ(out[2].f32(), 3.5f);
  EXPECT_EQ(out[3].f64(), -4.75);
  EXPECT_EQ(out[4].ref().get(), buffer.get());
  EXPECT_EQ(out[5].i32(), 1);  // The none element read as a null ref.
}

TEST(InterpreterTest, ListAccessErrors) {
  ModuleBuilder builder("lists");
  // get_i32(list, index), set_i32(list, index), get_f32(list, index)
  FunctionBuilder& get = builder.AddFunction("get_i32", "ri_i");
  get.Emit(kListGetI32, {Reg(1), Reg(0), Reg(0)});
  get.EmitReturn({1});
  builder.AddExport("get_i32", get.ordinal());
  FunctionBuilder& set = builder.AddFunction("set_i32", "ri_");
  set.Emit(kListSetI32, {Reg(0), Reg(0), Reg(0)});
  set.EmitReturn({});
  builder.AddExport("set_i32", set.ordinal());
  FunctionBuilder& get_f32 = builder.AddFunction("get_f32", "ri_f");
  get_f32.Emit(kListGetF32, {Reg(0), Reg(0), Reg(0)});
  get_f32.EmitReturn({0});
  builder.AddExport("get_f32", get_f32.ordinal());
  FunctionBuilder& size = builder.AddFunction("size", "r_i");
  size.Emit(kListSize, {Reg(0), Reg(0)});
  size.EmitReturn({0});
  builder.AddExport("size", size.ordinal());
  FunctionBuilder& alloc = builder.AddFunction("alloc", "i_");
  alloc.Emit(kListAlloc, {Reg(0), Reg(0)});
  alloc.EmitReturn({});
  builder.AddExport("alloc", alloc.ordinal());
  FunctionBuilder& resize = builder.AddFunction("resize", "ri_");
  resize.Emit(kListResize, {Reg(0), Reg(0)});
  resize.EmitReturn({});
  builder.AddExport("resize", resize.ordinal());
  Ref<Context> context = MakeContextOrFail(builder);
  ASSERT_TRUE(context);

  Ref<List> list = List::Create();
  list->Push(Variant::I32(1));
  list->Push(Variant::I32(2));
  auto error = [&](std::string_view fn, std::vector<Variant> args) {
    return CallError(*context, fn, std::move(args));
  };
  using V = Variant;
  EXPECT_EQ(CallI32(*context, "get_i32", {RefOf(list), V::I32(1)}), 2);
  Status status = error("get_i32", {RefOf(list), V::I32(2)});
  EXPECT_EQ(status.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(status.message(),
            "function 'lists.get_i32' at bytecode offset 0: list index 2 out of range (size 2)");
  status = error("get_i32", {RefOf(list), V::I32(-1)});
  EXPECT_EQ(status.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(status.message(),
            "function 'lists.get_i32' at bytecode offset 0: list index -1 out of range (size 2)");
  status = error("set_i32", {RefOf(list), V::I32(2)});
  EXPECT_EQ(status.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(status.message(),
            "function 'lists.set_i32' at bytecode offset 0: list index 2 out of range (size 2)");
  status = error("get_f32", {RefOf(list), V::I32(0)});
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "function 'lists.get_f32' at bytecode offset 0: list element 0 is i32, not f32");
  status = error("get_i32", {RefOf(nullptr), V::I32(0)});
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "function 'lists.get_i32' at bytecode offset 0: expected a vm.list in register "
            "ref:0, got null");
  status = error("size", {RefOf(MakeBuffer({1}))});
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "function 'lists.size' at bytecode offset 0: expected a vm.list in register ref:0, "
            "got vm.buffer");
  status = error("alloc", {V::I32(-1)});
  EXPECT_EQ(status.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(status.message(),
            "function 'lists.alloc' at bytecode offset 0: list capacity -1 out of range");
  status = error("resize", {RefOf(list), V::I32(-3)});
  EXPECT_EQ(status.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(status.message(),
            "function 'lists.resize' at bytecode offset 0: list size -3 out of range");
  EXPECT_EQ(list->size(), 2u);  // Failed operations changed nothing.
  CallOrFail(*context, "set_i32", {RefOf(list), V::I32(1)});
  EXPECT_EQ(list->GetI32(1).value(), 1);
}

// --- Byte buffers. ---

TEST(InterpreterTest, BufferLoadsAndStoresEveryScalarType) {
  ModuleBuilder builder("buf");
  // fill(buffer): stores one value of each type at fixed offsets.
  FunctionBuilder& fill = builder.AddFunction("store", "r_");
  auto at = [&](FunctionBuilder& f, int64_t offset) {
    f.Emit(kConstI64, {Reg(0), ImmI64(offset)});
  };
  at(fill, 0);
  fill.Emit(kConstI32, {Reg(0), ImmI32(0x1ff)});  // Only the low byte is stored.
  fill.Emit(kBufferStoreI8, {Reg(0), Reg(0), Reg(0)});
  at(fill, 2);
  fill.Emit(kConstI32, {Reg(0), ImmI32(0x18000)});  // Only the low 16 bits.
  fill.Emit(kBufferStoreI16, {Reg(0), Reg(0), Reg(0)});
  at(fill, 4);
  fill.Emit(kConstI32, {Reg(0), ImmI32(static_cast<int32_t>(0x80000001))});
  fill.Emit(kBufferStoreI32, {Reg(0), Reg(0), Reg(0)});
  at(fill, 8);
  fill.Emit(kConstI64, {Reg(1), ImmI64(static_cast<int64_t>(0x8877665544332211))});
  fill.Emit(kBufferStoreI64, {Reg(0), Reg(0), Reg(1)});
  at(fill, 16);
  fill.Emit(kConstF32, {Reg(0), ImmF32(-1.5f)});
  fill.Emit(kBufferStoreF32, {Reg(0), Reg(0), Reg(0)});
  at(fill, 21);  // Unaligned.
  fill.Emit(kConstF64, {Reg(0), ImmF64(0.1)});
  fill.Emit(kBufferStoreF64, {Reg(0), Reg(0), Reg(0)});
  fill.EmitReturn({});
  builder.AddExport("store", fill.ordinal());
  // load(buffer) -> every load of those offsets.
  FunctionBuilder& load = builder.AddFunction("load", "r_iiiiiIfF");
  at(load, 0);
  load.Emit(kBufferLoadI8S, {Reg(0), Reg(0), Reg(0)});
  load.Emit(kBufferLoadI8U, {Reg(1), Reg(0), Reg(0)});
  at(load, 2);
  load.Emit(kBufferLoadI16S, {Reg(2), Reg(0), Reg(0)});
  load.Emit(kBufferLoadI16U, {Reg(3), Reg(0), Reg(0)});
  at(load, 4);
  load.Emit(kBufferLoadI32, {Reg(4), Reg(0), Reg(0)});
  at(load, 8);
  load.Emit(kBufferLoadI64, {Reg(1), Reg(0), Reg(0)});
  at(load, 16);
  load.Emit(kBufferLoadF32, {Reg(0), Reg(0), Reg(0)});
  at(load, 21);
  load.Emit(kBufferLoadF64, {Reg(0), Reg(0), Reg(0)});
  load.EmitReturn({0, 1, 2, 3, 4, 1, 0, 0});
  builder.AddExport("load", load.ordinal());
  FunctionBuilder& make = builder.AddFunction("make", "I_rI");
  make.Emit(kBufferAlloc, {Reg(0), Reg(0)});
  make.Emit(kBufferLength, {Reg(1), Reg(0)});
  make.EmitReturn({0, 1});
  builder.AddExport("make", make.ordinal());
  Ref<Context> context = MakeContextOrFail(builder);
  ASSERT_TRUE(context);

  // A buffer allocated by bytecode: zero-filled, of the asked length.
  auto made = Invoke(
      *context, "make", *[] {
        Ref<List> args = List::Create();
        args->Push(Variant::I64(29));
        return args;
      }());
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  Ref<Object> object = (*made)->GetRef(0).value();
  EXPECT_EQ((*made)->GetI64(1).value(), 29);
  ByteBuffer* buffer = DynCast<ByteBuffer>(object.get());
  ASSERT_NE(buffer, nullptr);
  EXPECT_EQ(BytesOf(*buffer), std::vector<uint8_t>(29, 0));

  CallOrFail(*context, "store", {RefOf(object)});
  const std::vector<uint8_t> expected = {
      0xff, 0x00, 0x00, 0x80, 0x01, 0x00, 0x00, 0x80,  // i8, pad, i16, i32
      0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,  // i64, little-endian
      0x00, 0x00, 0xc0, 0xbf, 0x00,                    // f32 -1.5, pad
      0x9a, 0x99, 0x99, 0x99, 0x99, 0x99, 0xb9, 0x3f,  // f64 0.1 at 21
  };
  EXPECT_EQ(BytesOf(*buffer), expected);
  std::vector<Variant> out = CallOrFail(*context, "load", {RefOf(object)});
  ASSERT_EQ(out.size(), 8u);
  EXPECT_EQ(out[0].i32(), -1);      // i8.s of 0xff
  EXPECT_EQ(out[1].i32(), 255);     // i8.u
  EXPECT_EQ(out[2].i32(), -32768);  // i16.s of 0x8000
  EXPECT_EQ(out[3].i32(), 32768);   // i16.u
  EXPECT_EQ(out[4].i32(), static_cast<int32_t>(0x80000001));
  EXPECT_EQ(out[5].i64(), static_cast<int64_t>(0x8877665544332211));
  EXPECT_EQ(out[6].f32(), -1.5f);
  EXPECT_EQ(out[7].f64(), 0.1);
}

TEST(InterpreterTest, BufferCopyHandlesOverlapAndFillSetsBytes) {
  ModuleBuilder builder("buf");
  // copy(src, src_offset, dst, dst_offset, length)
  FunctionBuilder& copy = builder.AddFunction("copy", "rIrII_");
  copy.Emit(kBufferCopy, {Reg(0), Reg(0), Reg(1), Reg(1), Reg(2)});
  copy.EmitReturn({});
  builder.AddExport("copy", copy.ordinal());
  // fill(buffer, offset, length, value)
  FunctionBuilder& fill = builder.AddFunction("fill", "rIIi_");
  fill.Emit(kBufferFill, {Reg(0), Reg(0), Reg(1), Reg(0)});
  fill.EmitReturn({});
  builder.AddExport("fill", fill.ordinal());
  Ref<Context> context = MakeContextOrFail(builder);
  ASSERT_TRUE(context);
  using V = Variant;

  Ref<ByteBuffer> b = MakeBuffer({0, 1, 2, 3, 4, 5, 6, 7});
  CallOrFail(*context, "copy", {RefOf(b), V::I64(0), RefOf(b), V::I64(2), V::I64(5)});
  EXPECT_EQ(BytesOf(*b), (std::vector<uint8_t>{0, 1, 0, 1, 2, 3, 4, 7}));  // Forward overlap.
  b = MakeBuffer({0, 1, 2, 3, 4, 5, 6, 7});
  CallOrFail(*context, "copy", {RefOf(b), V::I64(2), RefOf(b), V::I64(0), V::I64(5)});
  EXPECT_EQ(BytesOf(*b), (std::vector<uint8_t>{2, 3, 4, 5, 6, 5, 6, 7}));  // Backward overlap.
  Ref<ByteBuffer> other = MakeBuffer({9, 9, 9});
  CallOrFail(*context, "copy", {RefOf(b), V::I64(5), RefOf(other), V::I64(0), V::I64(3)});
  EXPECT_EQ(BytesOf(*other), (std::vector<uint8_t>{5, 6, 7}));
  CallOrFail(*context, "copy", {RefOf(b), V::I64(8), RefOf(other), V::I64(3), V::I64(0)});
  EXPECT_EQ(BytesOf(*other), (std::vector<uint8_t>{5, 6, 7}));  // Empty copy at the ends.

  CallOrFail(*context, "fill", {RefOf(b), V::I64(1), V::I64(3), V::I32(0x1ab)});
  EXPECT_EQ(BytesOf(*b), (std::vector<uint8_t>{2, 0xab, 0xab, 0xab, 6, 5, 6, 7}));
  CallOrFail(*context, "fill", {RefOf(b), V::I64(8), V::I64(0), V::I32(1)});
  EXPECT_EQ(BytesOf(*b), (std::vector<uint8_t>{2, 0xab, 0xab, 0xab, 6, 5, 6, 7}));
}

TEST(InterpreterTest, BufferAccessErrors) {
  ModuleBuilder builder("buf");
  FunctionBuilder& load = builder.AddFunction("load", "rI_i");
  load.Emit(kBufferLoadI32, {Reg(0), Reg(0), Reg(0)});
  load.EmitReturn({0});
  builder.AddExport("load", load.ordinal());
  FunctionBuilder& store = builder.AddFunction("store", "rI_");
  store.Emit(kConstF64, {Reg(0), ImmF64(1.0)});
  store.Emit(kBufferStoreF64, {Reg(0), Reg(0), Reg(0)});
  store.EmitReturn({});
  builder.AddExport("store", store.ordinal());
  FunctionBuilder& copy = builder.AddFunction("copy", "rIrII_");
  copy.Emit(kBufferCopy, {Reg(0), Reg(0), Reg(1), Reg(1), Reg(2)});
  copy.EmitReturn({});
  builder.AddExport("copy", copy.ordinal());
  FunctionBuilder& fill = builder.AddFunction("fill", "rII_");
  fill.Emit(kConstI32, {Reg(0), ImmI32(0)});
  fill.Emit(kBufferFill, {Reg(0), Reg(0), Reg(1), Reg(0)});
  fill.EmitReturn({});
  builder.AddExport("fill", fill.ordinal());
  FunctionBuilder& alloc = builder.AddFunction("alloc", "I_");
  alloc.Emit(kBufferAlloc, {Reg(0), Reg(0)});
  alloc.EmitReturn({});
  builder.AddExport("alloc", alloc.ordinal());
  FunctionBuilder& length = builder.AddFunction("length", "r_I");
  length.Emit(kBufferLength, {Reg(0), Reg(0)});
  length.EmitReturn({0});
  builder.AddExport("length", length.ordinal());
  Ref<Context> context = MakeContextOrFail(builder);
  ASSERT_TRUE(context);
  using V = Variant;

  Ref<ByteBuffer> b = MakeBuffer({1, 2, 3, 4, 5, 6, 7, 8});
  struct ErrorCase {
    const char* function;
    std::vector<Variant> args;
    StatusCode code;
    std::string message;
  };
  {
    const ErrorCase cases[] = {
        {"load",
         {RefOf(b), V::I64(5)},
         StatusCode::kOutOfRange,
         "function 'buf.load' at bytecode offset 0: buffer range [5, 5+4) out of bounds of a "
         "8-byte buffer"},
        {"load",
         {RefOf(b), V::I64(-1)},
         StatusCode::kOutOfRange,
         "function 'buf.load' at bytecode offset 0: negative buffer offset -1"},
        {"load",
         {RefOf(b), V::I64(INT64_MAX)},
         StatusCode::kOutOfRange,
         "function 'buf.load' at bytecode offset 0: buffer range [9223372036854775807, "
         "9223372036854775807+4) out of bounds of a 8-byte buffer"},
        {"load",
         {RefOf(nullptr), V::I64(0)},
         StatusCode::kInvalidArgument,
         "function 'buf.load' at bytecode offset 0: expected a vm.buffer in register ref:0, got "
         "null"},
        {"load",
         {RefOf(List::Create()), V::I64(0)},
         StatusCode::kInvalidArgument,
         "function 'buf.load' at bytecode offset 0: expected a vm.buffer in register ref:0, got "
         "vm.list"},
        {"store",
         {RefOf(b), V::I64(1)},
         StatusCode::kOutOfRange,
         "function 'buf.store' at bytecode offset 11: buffer range [1, 1+8) out of bounds of a "
         "8-byte buffer"},
        {"copy",
         {RefOf(b), V::I64(4), RefOf(b), V::I64(0), V::I64(5)},
         StatusCode::kOutOfRange,
         "function 'buf.copy' at bytecode offset 0: buffer range [4, 4+5) out of bounds of a "
         "8-byte buffer"},
        {"copy",
         {RefOf(b), V::I64(0), RefOf(b), V::I64(6), V::I64(3)},
         StatusCode::kOutOfRange,
         "function 'buf.copy' at bytecode offset 0: buffer range [6, 6+3) out of bounds of a "
         "8-byte buffer"},
        {"copy",
         {RefOf(b), V::I64(0), RefOf(b), V::I64(0), V::I64(-1)},
         StatusCode::kOutOfRange,
         "function 'buf.copy' at bytecode offset 0: negative buffer length -1"},
        {"copy",
         {RefOf(b), V::I64(0), RefOf(nullptr), V::I64(0), V::I64(1)},
         StatusCode::kInvalidArgument,
         "function 'buf.copy' at bytecode offset 0: expected a vm.buffer in register ref:1, got "
         "null"},
        {"fill",
         {RefOf(b), V::I64(7), V::I64(2)},
         StatusCode::kOutOfRange,
         "function 'buf.fill' at bytecode offset 7: buffer range [7, 7+2) out of bounds of a "
         "8-byte buffer"},
        {"alloc",
         {V::I64(-1)},
         StatusCode::kOutOfRange,
         "function 'buf.alloc' at bytecode offset 0: negative buffer length -1"},
        {"alloc",
         {V::I64(int64_t{1} << 40)},
         StatusCode::kResourceExhausted,
         "function 'buf.alloc' at bytecode offset 0: buffer of 1099511627776 bytes exceeds the "
         "limit of 17179869184"},
        {"length",
         {RefOf(nullptr)},
         StatusCode::kInvalidArgument,
         "function 'buf.length' at bytecode offset 0: expected a vm.buffer in register ref:0, got "
         "null"},
    };
    for (const ErrorCase& c : cases) {
      Status status = CallError(*context, c.function, c.args);
      EXPECT_EQ(status.code(), c.code) << c.message;
      EXPECT_EQ(status.message(), c.message);
    }
  }  // Drops the cases' references to `b`.
  EXPECT_EQ(BytesOf(*b), (std::vector<uint8_t>{1, 2, 3, 4, 5, 6, 7, 8}));  // Untouched.
  EXPECT_EQ(b->ref_count(), 1);
}

// --- Refs. ---

TEST(InterpreterTest, RefPredicatesSelectAndMove) {
  ModuleBuilder builder("refs");
  const uint32_t buffer_type = builder.AddType("vm.buffer");
  const uint32_t list_type = builder.AddType("vm.list");
  // probe(a, b, cond) -> (is_null a, a == b, a is buffer, a is list,
  //                       select(cond, a, b), mov a)
  FunctionBuilder& probe = builder.AddFunction("probe", "rri_iiiirr");
  probe.Emit(kRefIsNull, {Reg(1), Reg(0)});
  probe.Emit(kRefEq, {Reg(2), Reg(0), Reg(1)});
  probe.Emit(kRefIsType, {Reg(3), Reg(0), Index(buffer_type)});
  probe.Emit(kRefIsType, {Reg(4), Reg(0), Index(list_type)});
  probe.Emit(kSelectRef, {Reg(2), Reg(0), Reg(0), Reg(1)});
  probe.Emit(kMovRef, {Reg(3), Reg(0)});
  probe.EmitReturn({1, 2, 3, 4, 2, 3});
  builder.AddExport("probe", probe.ordinal());
  Ref<Context> context = MakeContextOrFail(builder);
  ASSERT_TRUE(context);

  Ref<ByteBuffer> a = MakeBuffer({1});
  Ref<ByteBuffer> other = MakeBuffer({1});
  Ref<List> list = List::Create();
  struct Case {
    Ref<Object> a, b;
    int32_t cond;
    int32_t is_null, eq, is_buffer, is_list;
  };
  {
    const Case cases[] = {
        {a, a, 1, 0, 1, 1, 0},       {a, other, 0, 0, 0, 1, 0}, {nullptr, nullptr, 1, 1, 1, 0, 0},
        {nullptr, a, 0, 1, 0, 0, 0}, {list, a, 7, 0, 0, 0, 1},
    };
    for (const Case& c : cases) {
      std::vector<Variant> out =
          CallOrFail(*context, "probe", {RefOf(c.a), RefOf(c.b), Variant::I32(c.cond)});
      ASSERT_EQ(out.size(), 6u);
      EXPECT_EQ(out[0].i32(), c.is_null);
      EXPECT_EQ(out[1].i32(), c.eq);
      EXPECT_EQ(out[2].i32(), c.is_buffer);
      EXPECT_EQ(out[3].i32(), c.is_list);
      EXPECT_EQ(out[4].ref().get(), (c.cond ? c.a : c.b).get());
      EXPECT_EQ(out[5].ref().get(), c.a.get());
    }
  }  // Drops the cases' references.
  EXPECT_EQ(a->ref_count(), 1);
  EXPECT_EQ(other->ref_count(), 1);
  EXPECT_EQ(list->ref_count(), 1);
}

// A host object passed in is released by every register that held it when
// the invocation returns or traps.
TEST(InterpreterTest, HostRefsAreReleasedAfterReturnAndTrap) {
  ModuleBuilder builder("rc");
  FunctionBuilder& keep = builder.AddFunction("keep", "r_r");
  keep.EmitReturn({0});
  // hold(buffer, x): holds the buffer in several registers and frames, then
  // computes 100 / x (x == 0 traps with every copy live).
  FunctionBuilder& hold = builder.AddFunction("hold", "ri_i");
  hold.Emit(kMovRef, {Reg(1), Reg(0)});
  hold.Emit(kMovRef, {Reg(2), Reg(1)});
  hold.EmitCall(keep.ordinal(), std::vector<uint16_t>{2}, std::vector<uint16_t>{3});
  hold.Emit(kConstI32, {Reg(1), ImmI32(1)});
  hold.Emit(kSelectRef, {Reg(4), Reg(1), Reg(3), Reg(0)});
  hold.Emit(kConstI32, {Reg(1), ImmI32(100)});
  hold.Emit(kDivSI32, {Reg(1), Reg(1), Reg(0)});
  hold.EmitReturn({1});
  builder.AddExport("hold", hold.ordinal());
  Ref<Context> context = MakeContextOrFail(builder);
  ASSERT_TRUE(context);

  Ref<ByteBuffer> buffer = MakeBuffer({1, 2});
  EXPECT_EQ(CallI32(*context, "hold", {RefOf(buffer), Variant::I32(5)}), 20);
  EXPECT_EQ(buffer->ref_count(), 1);
  EXPECT_FALSE(CallError(*context, "hold", {RefOf(buffer), Variant::I32(0)}).ok());
  EXPECT_EQ(buffer->ref_count(), 1);
}

// Objects created during an invocation are freed when it returns (or traps),
// unless returned; returned ones are held only by the results list.
TEST(InterpreterTest, ObjectsCreatedInsideAreFreedAfterReturnAndTrap) {
  ModuleBuilder builder("rc");
  uint32_t make = builder.AddImport("host.make", "_r");
  FunctionBuilder& keep = builder.AddFunction("keep", "r_r");
  keep.EmitReturn({0});
  // churn(x): makes an object, copies it around registers, a list and a
  // callee frame, then divides by x (x == 0 traps with every copy live).
  FunctionBuilder& churn = builder.AddFunction("churn", "i_i");
  churn.EmitCallImport(make, {}, std::vector<uint16_t>{0});
  churn.Emit(kMovRef, {Reg(1), Reg(0)});
  churn.Emit(kConstI32, {Reg(1), ImmI32(1)});
  churn.Emit(kListAlloc, {Reg(2), Reg(1)});
  churn.Emit(kListResize, {Reg(2), Reg(1)});
  churn.Emit(kConstI32, {Reg(2), ImmI32(0)});
  churn.Emit(kListSetRef, {Reg(2), Reg(2), Reg(1)});
  churn.Emit(kSelectRef, {Reg(3), Reg(1), Reg(2), Reg(0)});
  churn.EmitCall(keep.ordinal(), std::vector<uint16_t>{3}, std::vector<uint16_t>{4});
  churn.Emit(kDivSI32, {Reg(1), Reg(1), Reg(0)});
  churn.EmitReturn({1});
  builder.AddExport("churn", churn.ordinal());
  FunctionBuilder& make_one = builder.AddFunction("make_one", "_r");
  make_one.EmitCallImport(make, {}, std::vector<uint16_t>{0});
  make_one.Emit(kMovRef, {Reg(1), Reg(0)});
  make_one.EmitReturn({1});
  builder.AddExport("make_one", make_one.ordinal());
  Ref<Context> context = MakeContextOrFail(builder, {MakeHostModule()});
  ASSERT_TRUE(context);
  HostState& host = HostStateOf(*context);

  EXPECT_EQ(CallI32(*context, "churn", {Variant::I32(1)}), 1);
  EXPECT_EQ(host.created, 1);
  EXPECT_EQ(host.destroyed, 1);
  EXPECT_FALSE(CallError(*context, "churn", {Variant::I32(0)}).ok());
  EXPECT_EQ(host.created, 2);
  EXPECT_EQ(host.destroyed, 2);  // Unwinding released every copy.
  {
    auto results = Invoke(*context, "make_one", *List::Create());
    ASSERT_TRUE(results.ok()) << results.status().ToString();
    ASSERT_EQ((*results)->size(), 1u);
    const Ref<Object>& returned = (*results)->items()[0].ref();
    ASSERT_TRUE(returned);
    EXPECT_EQ(&returned->type(), &Tracked::Type());
    EXPECT_EQ(returned->ref_count(), 1);
    EXPECT_EQ(host.destroyed, 2);
  }
  EXPECT_EQ(host.destroyed, 3);  // Freed with the results list.
}

// Each instruction that creates or reads a ref leaves exactly the references
// its registers own: nothing extra once the invocation has returned.
TEST(InterpreterTest, RefsCreatedByInstructionsHaveNoExtraReferences) {
  ModuleBuilder builder("rc");
  uint32_t make = builder.AddImport("host.make", "_r");
  uint32_t length = builder.AddImport("host.length", "r_I");
  FunctionBuilder& new_buffer = builder.AddFunction("new_buffer", "_r");
  new_buffer.Emit(kConstI64, {Reg(0), ImmI64(4)});
  new_buffer.Emit(kBufferAlloc, {Reg(0), Reg(0)});
  new_buffer.EmitReturn({0});
  builder.AddExport("new_buffer", new_buffer.ordinal());
  FunctionBuilder& new_list = builder.AddFunction("new_list", "_r");
  new_list.Emit(kConstI32, {Reg(0), ImmI32(2)});
  new_list.Emit(kListAlloc, {Reg(0), Reg(0)});
  new_list.EmitReturn({0});
  builder.AddExport("new_list", new_list.ordinal());
  FunctionBuilder& from_import = builder.AddFunction("from_import", "_r");
  from_import.EmitCallImport(make, {}, std::vector<uint16_t>{0});
  from_import.EmitReturn({0});
  builder.AddExport("from_import", from_import.ordinal());
  FunctionBuilder& get_ref = builder.AddFunction("get_ref", "r_");
  get_ref.Emit(kConstI32, {Reg(0), ImmI32(0)});
  get_ref.Emit(kListGetRef, {Reg(1), Reg(0), Reg(0)});
  get_ref.EmitReturn({});
  builder.AddExport("get_ref", get_ref.ordinal());
  AddForwarder(builder, "to_import", length, {0}, {0}, "r_I");
  Ref<Context> context = MakeContextOrFail(builder, {MakeHostModule()});
  ASSERT_TRUE(context);

  for (const char* function : {"new_buffer", "new_list", "from_import"}) {
    auto results = Invoke(*context, function, *List::Create());
    ASSERT_TRUE(results.ok()) << results.status().ToString();
    ASSERT_EQ((*results)->size(), 1u);
    EXPECT_EQ((*results)->items()[0].ref()->ref_count(), 1) << function;
  }
  EXPECT_EQ(HostStateOf(*context).destroyed, 1);  // from_import's result was freed.

  Ref<ByteBuffer> buffer = MakeBuffer({1});
  Ref<List> list = List::Create();
  list->Push(RefOf(buffer));
  EXPECT_EQ(buffer->ref_count(), 2);
  CallOrFail(*context, "get_ref", {RefOf(list)});
  EXPECT_EQ(buffer->ref_count(), 2) << "list.get.ref";
  CallOrFail(*context, "to_import", {RefOf(buffer)});
  EXPECT_EQ(buffer->ref_count(), 2) << "call.import argument";
}

// Null or mistyped refs given to list and buffer instructions are named by
// the register the bytecode used (bank and index).
TEST(InterpreterTest, RefOperandErrorsNameTheRegister) {
  ModuleBuilder builder("regs");
  FunctionBuilder& size = builder.AddFunction("size", "iir_i");
  size.Emit(kListSize, {Reg(0), Reg(0)});
  size.EmitReturn({0});
  builder.AddExport("size", size.ordinal());
  FunctionBuilder& copy = builder.AddFunction("copy", "rrI_");
  copy.Emit(kBufferCopy, {Reg(0), Reg(0), Reg(1), Reg(0), Reg(0)});
  copy.EmitReturn({});
  builder.AddExport("copy", copy.ordinal());
  Ref<Context> context = MakeContextOrFail(builder);
  ASSERT_TRUE(context);
  using V = Variant;
  Status status = CallError(*context, "size", {V::I32(1), V::I32(2), RefOf(nullptr)});
  EXPECT_EQ(status.message(),
            "function 'regs.size' at bytecode offset 0: expected a vm.list in register ref:0, "
            "got null");
  status = CallError(*context, "copy", {RefOf(MakeBuffer({1})), RefOf(List::Create()), V::I64(0)});
  EXPECT_EQ(status.message(),
            "function 'regs.copy' at bytecode offset 0: expected a vm.buffer in register ref:1, "
            "got vm.list");
}

// --- Trace. ---

TEST(InterpreterTest, TraceWritesToTheContextSink) {
  ModuleBuilder builder("tr");
  const uint32_t file = builder.AddSourceFile("trace.mlir");
  const uint32_t values = builder.AddString("values");
  const uint32_t here = builder.AddString("here");
  FunctionBuilder& f = builder.AddFunction("t", "iIfFr_");
  const std::pair<Bank, uint16_t> operands[] = {
      {Bank::kI32, 0}, {Bank::kI64, 0}, {Bank::kF32, 0},
      {Bank::kF64, 0}, {Bank::kRef, 0}, {Bank::kRef, 1},
  };
  f.Emit(kConstRefNull, {Reg(1)});
  f.EmitTrace(values, operands);
  f.SetLocation(file, 7, 3);
  f.EmitTrace(here, {});
  f.EmitReturn({});
  builder.AddExport("t", f.ordinal());
  std::vector<std::string> lines;
  ContextOptions options;
  options.trace_sink = [&lines](std::string_view line) { lines.emplace_back(line); };
  Ref<Context> context = MakeContextOrFail(builder, {}, options);
  ASSERT_TRUE(context);
  CallOrFail(*context, "t",
             {Variant::I32(-5), Variant::I64(1234567890123), Variant::F32(1.5f),
              Variant::F64(-0.25), RefOf(MakeBuffer({}))});
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0],
            "[trace] values i32=-5, i64=1234567890123, f32=1.5, f64=-0.25, ref<vm.buffer>, "
            "ref<null>");
  EXPECT_EQ(lines[1], "[trace] here  (trace.mlir:7:3)");
}

}  // namespace
}  // namespace kiln::vm
