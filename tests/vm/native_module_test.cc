// NativeModule<State>: signatures derived from C++ types, marshalling in both
// directions (direct invocation and bytecode call.import), ref type checks,
// error propagation, and per-context state.
#include "vm/native_module.h"

#include <array>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "tests/vm/test_util.h"
#include "vm/byte_buffer.h"
#include "vm/list.h"
#include "vm/signature.h"

namespace kiln::vm {
namespace {

using testing::Bump;
using testing::Call;
using testing::CounterState;
using testing::LoadBytes;

// ---------------------------------------------------------------------------
// A native module with one function per supported parameter/result type.

struct NativeState {
  int32_t touches = 0;
};

int32_t AddI32(NativeState&, int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));  // Wraps.
}
uint32_t HalveU32(NativeState&, uint32_t v) { return v / 2; }
bool NegateBool(NativeState&, bool b) { return !b; }
int64_t MulI64(NativeState&, int64_t a, int64_t b) { return a * b; }
uint64_t HalveU64(NativeState&, uint64_t v) { return v / 2; }
float ScaleF32(NativeState&, float v) { return v * 2.5f; }
double ScaleF64(NativeState&, double v) { return v * -0.5; }
void Touch(NativeState& state) { ++state.touches; }
int32_t Touches(NativeState& state) { return state.touches; }
Status CheckPositive(NativeState&, int32_t v) {
  if (v <= 0) return InvalidArgumentError("value " + std::to_string(v) + " is not positive");
  return OkStatus();
}
Result<int32_t> Divide(NativeState&, int32_t a, int32_t b) {
  if (b == 0) return InvalidArgumentError("division of " + std::to_string(a) + " by zero");
  return a / b;
}
Result<std::tuple<int32_t, int64_t, float, double>> Split(NativeState&, double v) {
  return std::make_tuple(static_cast<int32_t>(v), static_cast<int64_t>(v * 1000), float(v) / 4, -v);
}
Result<std::tuple<int32_t>> Single(NativeState&, int32_t v) { return std::make_tuple(v + 1); }
Result<std::tuple<int32_t, Ref<List>>> SquareAndList(NativeState&, int32_t n) {
  Ref<List> list = List::Create();
  for (int32_t i = 0; i < n; ++i) list->Push(Variant::I32(i));
  return std::make_tuple(n * n, list);
}
int64_t BufferLength(NativeState&, Ref<ByteBuffer> buffer) {
  return buffer ? static_cast<int64_t>(buffer->length()) : -1;
}
int32_t ListSize(NativeState&, Ref<List> list) {
  return list ? static_cast<int32_t>(list->size()) : -1;
}
Ref<Object> Identity(NativeState&, Ref<Object> object) { return object; }
Result<Ref<ByteBuffer>> MakeBuffer(NativeState&, int64_t length) {
  KILN_ASSIGN_OR_RETURN(Ref<ByteBuffer> buffer, ByteBuffer::Allocate(length));
  for (int64_t i = 0; i < length; ++i) buffer->mutable_data()[i] = static_cast<uint8_t>(0xA0 + i);
  return buffer;
}
double Mixed(NativeState&, int32_t a, int64_t b, float c, double d, Ref<Object> ref, bool flag) {
  return a + static_cast<double>(b) + c + d + (ref ? 1000 : 0) + (flag ? 0.5 : 0);
}

Ref<NativeModule<NativeState>> MakeNativeModule() {
  auto native = NativeModule<NativeState>::Create("native", nullptr);
  native->Export("add_i32", &AddI32)
      .Export("halve_u32", &HalveU32)
      .Export("negate_bool", &NegateBool)
      .Export("mul_i64", &MulI64)
      .Export("halve_u64", &HalveU64)
      .Export("scale_f32", &ScaleF32)
      .Export("scale_f64", &ScaleF64)
      .Export("touch", &Touch)
      .Export("touches", &Touches)
      .Export("check_positive", &CheckPositive)
      .Export("divide", &Divide)
      .Export("split", &Split)
      .Export("single", &Single)
      .Export("square_and_list", &SquareAndList)
      .Export("take_buffer", &BufferLength)
      .Export("take_list", &ListSize)
      .Export("identity", &Identity)
      .Export("make_buffer", &MakeBuffer)
      .Export("mixed", &Mixed)
      // A captureless lambda works like a function pointer.
      .Export("lambda", [](NativeState&, int32_t v) -> int64_t { return int64_t{v} << 33; });
  return native;
}

// Adds to `builder` an exported function "fwd_<name>" with `signature` that
// passes its arguments to import `import` and returns its results, so each
// value crosses the bytecode <-> native boundary both ways.
void AddForwarder(ModuleBuilder& builder, const std::string& name, uint32_t import,
                  const std::string& signature) {
  FunctionBuilder& f = builder.AddFunction("fwd_" + name, signature);
  std::array<uint16_t, kBankCount> next{};
  std::vector<uint16_t> args, results;
  const size_t split = signature.find('_');
  for (size_t i = 0; i < signature.size(); ++i) {
    if (i == split) continue;
    Bank bank;
    ASSERT_TRUE(BankOfTypeChar(signature[i], &bank)) << signature;
    (i < split ? args : results).push_back(next[static_cast<int>(bank)]++);
  }
  f.EmitCallImport(import, args, results);
  f.EmitReturn(results);
  builder.AddExport(f.name(), f.ordinal());
}

// A context of [native, caller] where "caller" imports every export of
// `native` and forwards to it.
Result<Ref<Context>> MakeForwardingContext(const Ref<NativeModule<NativeState>>& native) {
  ModuleBuilder builder("caller");
  for (const ExportedFunction& e : native->exports()) {
    uint32_t import = builder.AddImport("native." + e.name, e.signature);
    AddForwarder(builder, e.name, import, e.signature);
  }
  Ref<Instance> instance = Instance::Create();
  KILN_ASSIGN_OR_RETURN(Ref<BytecodeModule> caller,
                        LoadBytes(*instance, testing::BuildBytes(builder)));
  return Context::Create(instance, {Ref<Module>(native), Ref<Module>(caller)});
}

std::vector<std::string> ToStrings(const std::vector<Variant>& values) {
  std::vector<std::string> texts;
  for (const Variant& value : values) texts.push_back(value.ToString());
  return texts;
}

class NativeModuleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    native_ = MakeNativeModule();
    auto context = MakeForwardingContext(native_);
    ASSERT_TRUE(context.ok()) << context.status().ToString();
    context_ = *context;
  }

  // Calls native function `name` directly and through the bytecode forwarder,
  // expecting the same results (as Variant::ToString texts) from both.
  void ExpectRoundTrip(const std::string& name, std::vector<Variant> args,
                       std::vector<std::string> expected) {
    for (const std::string& function : {"native." + name, "caller.fwd_" + name}) {
      auto results = Call(*context_, function, args);
      ASSERT_TRUE(results.ok()) << function << ": " << results.status().ToString();
      EXPECT_EQ(ToStrings(*results), expected) << function;
    }
  }

  // Calls `function` expecting it to fail with exactly `message`.
  void ExpectError(const std::string& function, std::vector<Variant> args, StatusCode code,
                   const std::string& message) {
    auto results = Call(*context_, function, std::move(args));
    ASSERT_FALSE(results.ok()) << function;
    EXPECT_EQ(results.status().code(), code) << results.status().ToString();
    EXPECT_EQ(results.status().message(), message);
  }

  NativeState& state() { return NativeModule<NativeState>::UserState(*context_->state_of(0)); }

  Ref<NativeModule<NativeState>> native_;
  Ref<Context> context_;
};

TEST_F(NativeModuleTest, SignaturesAreDerivedFromCppTypes) {
  std::map<std::string, std::string> signatures;
  uint32_t expected_ordinal = 0;
  for (const ExportedFunction& e : native_->exports()) {
    signatures[e.name] = e.signature;
    EXPECT_EQ(e.ordinal, expected_ordinal++) << e.name;
  }
  const std::map<std::string, std::string> expected = {
      {"add_i32", "ii_i"},    {"halve_u32", "i_i"},
      {"negate_bool", "i_i"}, {"mul_i64", "II_I"},
      {"halve_u64", "I_I"},   {"scale_f32", "f_f"},
      {"scale_f64", "F_F"},   {"touch", "_"},
      {"touches", "_i"},      {"check_positive", "i_"},
      {"divide", "ii_i"},     {"split", "F_iIfF"},
      {"single", "i_i"},      {"square_and_list", "i_ir"},
      {"take_buffer", "r_I"}, {"take_list", "r_i"},
      {"identity", "r_r"},    {"make_buffer", "I_r"},
      {"mixed", "iIfFri_F"},  {"lambda", "i_I"},
  };
  EXPECT_EQ(signatures, expected);
  EXPECT_EQ(FormatSignature(signatures["mixed"]), "(i32, i64, f32, f64, ref, i32) -> (f64)");
  EXPECT_EQ(native_->name(), "native");
  ASSERT_NE(native_->LookupExport("@split"), nullptr);
  EXPECT_EQ(native_->LookupExport("@split")->signature, "F_iIfF");
  EXPECT_EQ(native_->LookupExport("nope"), nullptr);
}

TEST_F(NativeModuleTest, IntegerAndBoolMarshalling) {
  ExpectRoundTrip("add_i32", {Variant::I32(40), Variant::I32(2)}, {"i32=42"});
  ExpectRoundTrip("add_i32", {Variant::I32(INT32_MAX), Variant::I32(1)}, {"i32=-2147483648"});
  // 0xFFFFFFFE arrives as uint32_t (a signed halving would give -1).
  ExpectRoundTrip("halve_u32", {Variant::I32(-2)}, {"i32=2147483647"});
  ExpectRoundTrip("negate_bool", {Variant::I32(7)}, {"i32=0"});
  ExpectRoundTrip("negate_bool", {Variant::I32(0)}, {"i32=1"});
  ExpectRoundTrip("mul_i64", {Variant::I64(3000000000), Variant::I64(-3)}, {"i64=-9000000000"});
  ExpectRoundTrip("halve_u64", {Variant::I64(-2)}, {"i64=9223372036854775807"});
  ExpectRoundTrip("lambda", {Variant::I32(3)}, {"i64=25769803776"});
}

TEST_F(NativeModuleTest, FloatMarshalling) {
  ExpectRoundTrip("scale_f32", {Variant::F32(1.5f)}, {"f32=3.75"});
  ExpectRoundTrip("scale_f64", {Variant::F64(0.25)}, {"f64=-0.125"});
  // Exact bits survive the round trip, not just a printed approximation.
  auto results = Call(*context_, "caller.fwd_scale_f64", {Variant::F64(1e300 / 3)});
  ASSERT_TRUE(results.ok()) << results.status().ToString();
  EXPECT_EQ((*results)[0].f64(), 1e300 / 3 * -0.5);
}

TEST_F(NativeModuleTest, VoidAndStatusResults) {
  ExpectRoundTrip("touch", {}, {});
  ExpectRoundTrip("touches", {}, {"i32=2"});  // Once directly, once through bytecode.
  EXPECT_EQ(state().touches, 2);
  ExpectRoundTrip("check_positive", {Variant::I32(5)}, {});
}

TEST_F(NativeModuleTest, ResultAndTupleResults) {
  ExpectRoundTrip("divide", {Variant::I32(7), Variant::I32(2)}, {"i32=3"});
  ExpectRoundTrip("split", {Variant::F64(2.5)}, {"i32=2", "i64=2500", "f32=0.625", "f64=-2.5"});
  ExpectRoundTrip("single", {Variant::I32(41)}, {"i32=42"});
  for (const char* function : {"native.square_and_list", "caller.fwd_square_and_list"}) {
    auto results = Call(*context_, function, {Variant::I32(3)});
    ASSERT_TRUE(results.ok()) << results.status().ToString();
    ASSERT_EQ(ToStrings(*results), (std::vector<std::string>{"i32=9", "ref<vm.list>"}));
    auto* list = DynCast<List>((*results)[1].ref().get());
    ASSERT_NE(list, nullptr);
    ASSERT_EQ(list->size(), 3u);
    EXPECT_EQ(*list->GetI32(2), 2);
  }
}

TEST_F(NativeModuleTest, RefMarshalling) {
  Ref<ByteBuffer> buffer = *ByteBuffer::Allocate(24);
  Ref<List> list = List::Create();
  list->Push(Variant::I32(1));
  list->Push(Variant::I32(2));
  ExpectRoundTrip("take_buffer", {Variant::FromRef(buffer)}, {"i64=24"});
  ExpectRoundTrip("take_list", {Variant::FromRef(list)}, {"i32=2"});
  // A null ref is still a ref: typed parameters receive null.
  ExpectRoundTrip("take_buffer", {Variant::FromRef(nullptr)}, {"i64=-1"});
  ExpectRoundTrip("take_list", {Variant::FromRef(nullptr)}, {"i32=-1"});
  ExpectRoundTrip("identity", {Variant::FromRef(nullptr)}, {"ref<null>"});

  // Ref<Object> accepts any type and gives back the very same object.
  for (const Ref<Object>& object : {Ref<Object>(buffer), Ref<Object>(list)}) {
    for (const char* function : {"native.identity", "caller.fwd_identity"}) {
      auto results = Call(*context_, function, {Variant::FromRef(object)});
      ASSERT_TRUE(results.ok()) << results.status().ToString();
      EXPECT_EQ((*results)[0].ref().get(), object.get()) << function;
    }
  }
}

TEST_F(NativeModuleTest, RefCountsBalanceAfterDirectCalls) {
  Ref<ByteBuffer> buffer = *ByteBuffer::Allocate(8);
  for (const char* function : {"native.take_buffer", "native.identity"}) {
    auto results = Call(*context_, function, {Variant::FromRef(buffer)});
    ASSERT_TRUE(results.ok()) << results.status().ToString();
  }
  EXPECT_EQ(buffer->ref_count(), 1);
}

TEST_F(NativeModuleTest, RefCountsBalanceAfterCallImport) {
  // Every reference the interpreter takes to marshal a ref argument or result
  // across call.import must be given back: after the calls only `buffer`
  // itself holds the object.
  Ref<ByteBuffer> buffer = *ByteBuffer::Allocate(8);
  auto results = Call(*context_, "caller.fwd_take_buffer", {Variant::FromRef(buffer)});
  ASSERT_TRUE(results.ok()) << results.status().ToString();
  EXPECT_EQ(buffer->ref_count(), 1) << "after call.import with a ref argument";
  results = Call(*context_, "caller.fwd_identity", {Variant::FromRef(buffer)});
  ASSERT_TRUE(results.ok()) << results.status().ToString();
  EXPECT_EQ(results->at(0).ref().get(), buffer.get());
  results->clear();
  EXPECT_EQ(buffer->ref_count(), 1) << "after call.import with a ref argument and result";
}

TEST_F(NativeModuleTest, RefResultsCreatedByNativeCode) {
  for (const char* function : {"native.make_buffer", "caller.fwd_make_buffer"}) {
    auto results = Call(*context_, function, {Variant::I64(3)});
    ASSERT_TRUE(results.ok()) << results.status().ToString();
    auto* buffer = DynCast<ByteBuffer>((*results)[0].ref().get());
    ASSERT_NE(buffer, nullptr) << function;
    ASSERT_EQ(buffer->length(), 3u);
    EXPECT_EQ(buffer->data()[0], 0xA0);
    EXPECT_EQ(buffer->data()[2], 0xA2);
  }
}

TEST_F(NativeModuleTest, MixedArgumentsUseEveryBank) {
  Ref<List> list = List::Create();
  ExpectRoundTrip("mixed",
                  {Variant::I32(1), Variant::I64(20), Variant::F32(0.25f), Variant::F64(300),
                   Variant::FromRef(list), Variant::I32(1)},
                  {"f64=1321.75"});
  ExpectRoundTrip("mixed",
                  {Variant::I32(-1), Variant::I64(-20), Variant::F32(0.5f), Variant::F64(0),
                   Variant::FromRef(nullptr), Variant::I32(0)},
                  {"f64=-20.5"});
}

TEST_F(NativeModuleTest, WrongRefTypeNamesTheFunction) {
  Ref<List> list = List::Create();
  Ref<ByteBuffer> buffer = *ByteBuffer::Allocate(4);
  ExpectError("native.take_buffer", {Variant::FromRef(list)}, StatusCode::kInvalidArgument,
              "argument 0 of 'native.take_buffer': expected ref<vm.buffer>, got ref<vm.list>");
  ExpectError("native.take_list", {Variant::FromRef(buffer)}, StatusCode::kInvalidArgument,
              "argument 0 of 'native.take_list': expected ref<vm.list>, got ref<vm.buffer>");
  // Through bytecode, the trap also names the calling function and offset.
  ExpectError("caller.fwd_take_buffer", {Variant::FromRef(list)}, StatusCode::kInvalidArgument,
              "function 'caller.fwd_take_buffer' at bytecode offset 0: import "
              "'native.take_buffer' failed: argument 0 of 'native.take_buffer': expected "
              "ref<vm.buffer>, got ref<vm.list>");
}

TEST_F(NativeModuleTest, ErrorsFromNativeFunctionsFailTheInvocation) {
  ExpectError("native.check_positive", {Variant::I32(-3)}, StatusCode::kInvalidArgument,
              "'native.check_positive' failed: value -3 is not positive");
  ExpectError("native.divide", {Variant::I32(7), Variant::I32(0)}, StatusCode::kInvalidArgument,
              "'native.divide' failed: division of 7 by zero");
  ExpectError("caller.fwd_check_positive", {Variant::I32(0)}, StatusCode::kInvalidArgument,
              "function 'caller.fwd_check_positive' at bytecode offset 0: import "
              "'native.check_positive' failed: 'native.check_positive' failed: value 0 is not "
              "positive");
}

TEST(NativeModuleErrorTest, ErrorNamesImportFunctionOffsetSourceAndCaller) {
  // outer() calls inner(), which divides by zero in native code at a known
  // offset with a source location.
  ModuleBuilder builder("reporter");
  uint32_t file = builder.AddSourceFile("model.mlir");
  uint32_t divide = builder.AddImport("native.divide", "ii_i");
  FunctionBuilder& inner = builder.AddFunction("inner", "i_i");
  inner.Emit(Opcode::kConstI32, {Reg(1), ImmI32(0)});
  const uint32_t import_offset = inner.offset();
  inner.SetLocation(file, 12, 7);
  const uint16_t divide_args[] = {0, 1}, divide_results[] = {2};
  inner.EmitCallImport(divide, divide_args, divide_results);
  inner.EmitReturn({2});
  FunctionBuilder& outer = builder.AddFunction("outer", "i_i");
  outer.Emit(Opcode::kConstI32, {Reg(1), ImmI32(1)});
  outer.Emit(Opcode::kAddI32, {Reg(1), Reg(1), Reg(0)});
  const uint32_t call_offset = outer.offset();
  const uint16_t call_args[] = {1}, call_results[] = {2};
  outer.EmitCall(inner.ordinal(), call_args, call_results);
  outer.EmitReturn({2});
  builder.AddExport("outer", outer.ordinal());

  auto context = testing::MakeContext(builder, {Ref<Module>(MakeNativeModule())});
  ASSERT_TRUE(context.ok()) << context.status().ToString();
  auto result = Call(**context, "reporter.outer", {Variant::I32(6)});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(result.status().message(),
            "function 'reporter.inner' at bytecode offset " + std::to_string(import_offset) +
                " (model.mlir:12:7): import 'native.divide' failed: 'native.divide' failed: "
                "division of 7 by zero\n  called from function 'reporter.outer' at bytecode "
                "offset " +
                std::to_string(call_offset));
  // The context stays usable after a failed invocation.
  auto results = Call(**context, "native.divide", {Variant::I32(9), Variant::I32(3)});
  ASSERT_TRUE(results.ok()) << results.status().ToString();
  EXPECT_EQ((*results)[0].i32(), 3);
}

TEST_F(NativeModuleTest, DirectCallChecksArgumentsAndResultsItself) {
  // Module::Call is also reachable without Invoke's checks (e.g. from another
  // module implementation); the native thunk still validates what it gets.
  Stack stack;
  ModuleState& state = *context_->state_of(0);
  const uint32_t add = native_->LookupExport("add_i32")->ordinal;
  std::vector<Variant> one = {Variant::I32(1)};
  std::vector<Variant> results(1);
  Status status = native_->Call(state, add, one, results, stack);
  EXPECT_EQ(status.message(), "'native.add_i32' takes 2 argument(s), got 1");

  std::vector<Variant> mistyped = {Variant::I32(1), Variant::F32(1.5f)};
  status = native_->Call(state, add, mistyped, results, stack);
  EXPECT_EQ(status.message(), "argument 1 of 'native.add_i32': expected i32, got f32=1.5");

  std::vector<Variant> not_a_ref = {Variant::I64(1)};
  status =
      native_->Call(state, native_->LookupExport("take_list")->ordinal, not_a_ref, results, stack);
  EXPECT_EQ(status.message(), "argument 0 of 'native.take_list': expected ref, got i64=1");

  std::vector<Variant> two = {Variant::I32(1), Variant::I32(2)};
  std::vector<Variant> two_results(2);
  status = native_->Call(state, add, two, two_results, stack);
  EXPECT_EQ(status.message(), "'native.add_i32' returns 1 result(s), caller expects 2");

  status = native_->Call(state, 999, two, results, stack);
  EXPECT_EQ(status.code(), StatusCode::kNotFound);

  ASSERT_TRUE(native_->Call(state, add, two, results, stack).ok());
  EXPECT_EQ(results[0].ToString(), "i32=3");
}

TEST_F(NativeModuleTest, TrustedEntryStillChecksRefTypes) {
  // The trusted entry a linked import calls skips only what linking proved
  // (see TrustedEntry); a typed export still checks each ref's type.
  Stack stack;
  ModuleState& state = *context_->state_of(0);
  EXPECT_EQ(native_->GetTrustedEntry(999).fn, nullptr);
  const TrustedEntry entry = native_->GetTrustedEntry(native_->LookupExport("take_list")->ordinal);
  ASSERT_NE(entry.fn, nullptr);
  std::vector<Variant> buffer = {Variant::FromRef(*ByteBuffer::Allocate(4))};
  std::vector<Variant> results(1);
  Status status = entry.fn(entry.data, state, buffer, results, stack);
  EXPECT_EQ(status.message(),
            "argument 0 of 'native.take_list': expected ref<vm.list>, got ref<vm.buffer>");
  std::vector<Variant> list = {Variant::FromRef(List::Create())};
  ASSERT_TRUE(entry.fn(entry.data, state, list, results, stack).ok());
  EXPECT_EQ(results[0].ToString(), "i32=0");
}

// ---------------------------------------------------------------------------
// Per-context state.

// Calls an "i_i" function, returning its result (or failing the test).
int32_t CallI32(Context& context, const std::string& function, int32_t arg) {
  auto results = Call(context, function, {Variant::I32(arg)});
  if (!results.ok()) {
    ADD_FAILURE() << function << ": " << results.status().ToString();
    return INT32_MIN;
  }
  return results->at(0).i32();
}

TEST(NativeModuleStateTest, OneModuleTwoContextsTwoStates) {
  int created = 0;
  auto counter = NativeModule<CounterState>::Create("counter", [&created] {
    ++created;
    return Result<std::unique_ptr<CounterState>>(std::make_unique<CounterState>());
  });
  counter->Export("bump", &Bump);
  // Bytecode reaches the same state as the host.
  ModuleBuilder builder("user");
  uint32_t bump = builder.AddImport("counter.bump", "i_i");
  AddForwarder(builder, "bump", bump, "i_i");
  Ref<Instance> instance = Instance::Create();
  auto user = LoadBytes(*instance, testing::BuildBytes(builder));
  ASSERT_TRUE(user.ok()) << user.status().ToString();

  auto a = Context::Create(instance, {Ref<Module>(counter), Ref<Module>(*user)});
  auto b = Context::Create(instance, {Ref<Module>(counter), Ref<Module>(*user)});
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(created, 2);

  EXPECT_EQ(CallI32(**a, "counter.bump", 10), 1);
  EXPECT_EQ(CallI32(**a, "user.fwd_bump", 20), 2);
  EXPECT_EQ(CallI32(**b, "user.fwd_bump", 5), 1);
  EXPECT_EQ(CallI32(**a, "counter.bump", 30), 3);

  CounterState& state_a = NativeModule<CounterState>::UserState(*(*a)->state_of(0));
  CounterState& state_b = NativeModule<CounterState>::UserState(*(*b)->state_of(0));
  EXPECT_NE(&state_a, &state_b);
  EXPECT_EQ(state_a.calls, 3);
  EXPECT_EQ(state_a.total, 60);
  EXPECT_EQ(state_b.calls, 1);
  EXPECT_EQ(state_b.total, 5);
}

TEST(NativeModuleStateTest, DefaultConstructedStateWithoutFactory) {
  auto counter = NativeModule<CounterState>::Create("counter", nullptr);
  counter->Export("bump", &Bump);
  auto context = Context::Create(Instance::Create(), {Ref<Module>(counter)});
  ASSERT_TRUE(context.ok()) << context.status().ToString();
  EXPECT_EQ(CallI32(**context, "bump", 1), 1);
}

TEST(NativeModuleStateTest, FactoryErrorPropagatesFromContextCreate) {
  auto counter =
      NativeModule<CounterState>::Create("counter", []() -> Result<std::unique_ptr<CounterState>> {
        return UnavailableError("counter device is offline");
      });
  counter->Export("bump", &Bump);
  auto context = Context::Create(Instance::Create(), {Ref<Module>(counter)});
  ASSERT_FALSE(context.ok());
  EXPECT_EQ(context.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(context.status().message(),
            "creating state of module 'counter': counter device is offline");
}

TEST(NativeModuleStateTest, FactoryReturningNullIsAnError) {
  auto counter = NativeModule<CounterState>::Create(
      "counter",
      []() -> Result<std::unique_ptr<CounterState>> { return std::unique_ptr<CounterState>(); });
  auto context = Context::Create(Instance::Create(), {Ref<Module>(counter)});
  ASSERT_FALSE(context.ok());
  EXPECT_EQ(context.status().message(), "module 'counter' produced no state");
}

}  // namespace
}  // namespace kiln::vm
