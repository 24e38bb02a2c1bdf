// Variadic native exports ("i*_I"): the signature rules, linking of concrete
// imports (including one name imported twice with different signatures),
// calls with a variadic tail through bytecode, and the errors of each.
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <vector>

#include "tests/vm/test_util.h"
#include "vm/byte_buffer.h"
#include "vm/native_module.h"
#include "vm/signature.h"

namespace kiln::vm {
namespace {

using testing::Call;
using testing::LoadBytes;

struct SumState {
  int32_t calls = 0;
};

// var.sum(scale i32, values...) -> i64: scale * (sum of the values); the
// tail may hold any numbers (f32/f64 truncated) but no refs.
Status Sum(SumState& state, std::span<const Variant> args, std::span<Variant> results) {
  ++state.calls;
  int64_t total = 0;
  for (size_t i = 1; i < args.size(); ++i) {
    switch (args[i].type()) {
      case ValueType::kI32:
        total += args[i].i32();
        break;
      case ValueType::kI64:
        total += args[i].i64();
        break;
      case ValueType::kF32:
        total += static_cast<int64_t>(args[i].f32());
        break;
      case ValueType::kF64:
        total += static_cast<int64_t>(args[i].f64());
        break;
      default:
        return InvalidArgumentError("argument " + std::to_string(i) + ": expected a number, got " +
                                    args[i].ToString());
    }
  }
  results[0] = Variant::I64(total * args[0].i32());
  return OkStatus();
}

// var.count(values...) -> i32: how many arguments arrived (no fixed prefix).
Status Count(SumState&, std::span<const Variant> args, std::span<Variant> results) {
  results[0] = Variant::I32(static_cast<int32_t>(args.size()));
  return OkStatus();
}

int32_t Twice(SumState&, int32_t v) { return 2 * v; }

Ref<NativeModule<SumState>> MakeVar() {
  auto var = NativeModule<SumState>::Create("var", nullptr);
  var->ExportVariadic("sum", "i*_I", &Sum).ExportVariadic("count", "*_i", &Count);
  var->Export("twice", &Twice);
  return var;
}

// Adds an exported function "<name>" with `signature` that forwards its
// arguments to import `import`.
void AddForwarder(ModuleBuilder& builder, const std::string& name, uint32_t import,
                  const std::string& signature) {
  FunctionBuilder& f = builder.AddFunction(name, signature);
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

// A context of [callee, caller]: caller imports `imports` (qualified name,
// signature) in order and exports a forwarder "f<i>" for each.
Result<Ref<Context>> MakeCaller(Ref<Module> callee,
                                const std::vector<std::pair<std::string, std::string>>& imports,
                                ContextOptions options = {}) {
  ModuleBuilder builder("caller");
  for (size_t i = 0; i < imports.size(); ++i) {
    uint32_t import = builder.AddImport(imports[i].first, imports[i].second);
    AddForwarder(builder, "f" + std::to_string(i), import, imports[i].second);
  }
  Ref<Instance> instance = Instance::Create();
  KILN_ASSIGN_OR_RETURN(Ref<BytecodeModule> caller,
                        LoadBytes(*instance, testing::BuildBytes(builder)));
  return Context::Create(instance, {std::move(callee), Ref<Module>(caller)}, std::move(options));
}

TEST(VariadicSignatureTest, ParseAndFormat) {
  SignatureParts parts;
  ASSERT_TRUE(ParseNativeSignature("rri*_r", &parts).ok());
  EXPECT_EQ(parts.arguments, "rri");
  EXPECT_EQ(parts.results, "r");
  EXPECT_TRUE(parts.variadic);
  ASSERT_TRUE(ParseNativeSignature("*_", &parts).ok());
  EXPECT_EQ(parts.arguments, "");
  EXPECT_TRUE(parts.variadic);
  ASSERT_TRUE(ParseNativeSignature("ri_I", &parts).ok());
  EXPECT_FALSE(parts.variadic);
  EXPECT_EQ(FormatSignature("rri*_r"), "(ref, ref, i32, ...) -> (ref)");

  // '*' only ends the arguments, and only native exports may use it.
  Status status = ParseNativeSignature("r*i_r", &parts);
  EXPECT_EQ(status.message(), "malformed signature 'r*i_r': '*' must end the arguments");
  EXPECT_FALSE(ParseNativeSignature("r_r*", &parts).ok());
  status = ParseSignature("ri*_r", &parts);
  EXPECT_EQ(status.message(),
            "malformed signature 'ri*_r': '*' (variadic arguments) is only allowed in native "
            "export signatures");
}

TEST(VariadicSignatureTest, ImportMatchesExport) {
  EXPECT_TRUE(ImportMatchesExport("ri_r", "ri_r"));
  EXPECT_FALSE(ImportMatchesExport("rii_r", "ri_r"));  // Only '*' admits a tail.
  EXPECT_TRUE(ImportMatchesExport("ri_r", "ri*_r"));   // An empty tail.
  EXPECT_TRUE(ImportMatchesExport("riIIfr_r", "ri*_r"));
  EXPECT_FALSE(ImportMatchesExport("r_r", "ri*_r"));   // Shorter than the prefix.
  EXPECT_FALSE(ImportMatchesExport("rI_r", "ri*_r"));  // Prefix differs.
  EXPECT_FALSE(ImportMatchesExport("rii_", "ri*_r"));  // Results differ.
  EXPECT_FALSE(ImportMatchesExport("rii_rr", "ri*_r"));
  EXPECT_FALSE(ImportMatchesExport("ri*_r", "ri*_r"));  // Imports are concrete.
  EXPECT_TRUE(ImportMatchesExport("_i", "*_i"));
  EXPECT_TRUE(ImportMatchesExport("rFf_i", "*_i"));
}

TEST(VariadicImportTest, ConcreteImportsLinkAndCallWithTheirTails) {
  Ref<NativeModule<SumState>> var = MakeVar();
  ASSERT_EQ(var->LookupExport("sum")->signature, "i*_I");
  // One import entry per (name, signature): "var.sum" three times, each
  // linking on its own; an exact duplicate entry is fine too.
  auto context = MakeCaller(var, {{"var.sum", "i_I"},
                                  {"var.sum", "iiI_I"},
                                  {"var.sum", "iIfF_I"},
                                  {"var.sum", "iiiiiiiiiiii_I"},  // As many as a dispatch.
                                  {"var.count", "_i"},
                                  {"var.count", "rIf_i"},
                                  {"var.twice", "i_i"},
                                  {"var.twice", "i_i"}});
  ASSERT_TRUE(context.ok()) << context.status().ToString();
  auto expect = [&](const std::string& function, std::vector<Variant> args,
                    const std::string& expected) {
    auto results = Call(**context, "caller." + function, std::move(args));
    ASSERT_TRUE(results.ok()) << function << ": " << results.status().ToString();
    ASSERT_EQ(results->size(), 1u);
    EXPECT_EQ((*results)[0].ToString(), expected) << function;
  };
  expect("f0", {Variant::I32(3)}, "i64=0");
  expect("f1", {Variant::I32(3), Variant::I32(4), Variant::I64(5000000000)}, "i64=15000000012");
  expect("f2", {Variant::I32(-1), Variant::I64(10), Variant::F32(2.5f), Variant::F64(100.75)},
         "i64=-112");
  std::vector<Variant> twelve;
  twelve.push_back(Variant::I32(2));
  for (int i = 1; i <= 11; ++i) twelve.push_back(Variant::I32(i));
  expect("f3", twelve, "i64=132");
  expect("f4", {}, "i32=0");
  expect("f5", {Variant::FromRef(nullptr), Variant::I64(1), Variant::F32(1)}, "i32=3");
  expect("f6", {Variant::I32(21)}, "i32=42");
  expect("f7", {Variant::I32(5)}, "i32=10");
  EXPECT_EQ(NativeModule<SumState>::UserState(*(*context)->state_of(0)).calls, 4);
}

TEST(VariadicImportTest, TailTypeErrorsNameTheImportAndArgument) {
  auto context = MakeCaller(MakeVar(), {{"var.sum", "iir_I"}});
  ASSERT_TRUE(context.ok()) << context.status().ToString();
  auto results =
      Call(**context, "caller.f0", {Variant::I32(1), Variant::I32(2), Variant::FromRef(nullptr)});
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(results.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(results.status().message().find(
                "import 'var.sum' failed: argument 2: expected a number, got ref<null>"),
            std::string::npos)
      << results.status().ToString();
}

TEST(VariadicImportTest, LinkErrorsNameTheImportAndBothSignatures) {
  struct Case {
    std::string signature, message;
  };
  const std::vector<Case> cases = {
      {"I_I",
       "import 'var.sum' of module 'caller' has signature (i64) -> (i64) but module 'var' "
       "exports it with signature (i32, ...) -> (i64)"},
      {"_I",
       "import 'var.sum' of module 'caller' has signature () -> (i64) but module 'var' "
       "exports it with signature (i32, ...) -> (i64)"},
      {"ii_i",
       "import 'var.sum' of module 'caller' has signature (i32, i32) -> (i32) but module 'var' "
       "exports it with signature (i32, ...) -> (i64)"},
  };
  for (const Case& c : cases) {
    auto context = MakeCaller(MakeVar(), {{"var.sum", "i_I"}, {"var.sum", c.signature}});
    ASSERT_FALSE(context.ok()) << c.signature;
    EXPECT_EQ(context.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(context.status().message(), c.message);
  }
  // A plain export still needs the exact signature: no tail without '*'.
  auto context = MakeCaller(MakeVar(), {{"var.twice", "ii_i"}});
  ASSERT_FALSE(context.ok());
  EXPECT_EQ(context.status().message(),
            "import 'var.twice' of module 'caller' has signature (i32, i32) -> (i32) but module "
            "'var' exports it with signature (i32) -> (i32)");
}

TEST(VariadicImportTest, MalformedExportSignatureFailsContextCreation) {
  auto var = NativeModule<SumState>::Create("var", nullptr);
  var->ExportVariadic("bad", "i*i_I", &Sum).ExportVariadic("sum", "i*_I", &Sum);
  EXPECT_EQ(var->exports().size(), 1u);  // The malformed one is not exported.
  auto context = Context::Create(Instance::Create(), {Ref<Module>(var)});
  ASSERT_FALSE(context.ok());
  EXPECT_EQ(context.status().message(),
            "export 'var.bad': malformed signature 'i*i_I': '*' must end the arguments");
}

TEST(VariadicImportTest, BytecodeImportsMayNotBeVariadic) {
  ModuleBuilder builder("caller");
  builder.AddImport("var.sum", "i*_I");
  FunctionBuilder& f = builder.AddFunction("main", "_");
  f.EmitReturn({});
  Ref<Instance> instance = Instance::Create();
  auto module = LoadBytes(*instance, testing::BuildBytes(builder));
  ASSERT_FALSE(module.ok());
  EXPECT_NE(module.status().message().find(
                "import 'var.sum': malformed signature 'i*_I': '*' (variadic arguments) is only "
                "allowed in native export signatures"),
            std::string::npos)
      << module.status().ToString();
}

TEST(VariadicImportTest, CallChecksTheFixedPrefixAndResultCount) {
  // Module::Call from a host that bypasses linking still gets checked values.
  Ref<NativeModule<SumState>> var = MakeVar();
  auto state = var->CreateState();
  ASSERT_TRUE(state.ok());
  Stack stack(StackOptions{}, TraceSink{});
  const uint32_t sum = var->LookupExport("sum")->ordinal;
  Variant result;
  std::vector<Variant> args = {Variant::I64(1)};
  Status status = var->Call(**state, sum, args, std::span(&result, 1), stack);
  EXPECT_EQ(status.message(), "argument 0 of 'var.sum': expected i32, got i64=1");
  args = {};
  status = var->Call(**state, sum, args, std::span(&result, 1), stack);
  EXPECT_EQ(status.message(), "'var.sum' called with 0 argument(s) and 1 result(s)");
  args = {Variant::I32(2), Variant::I32(3)};
  status = var->Call(**state, sum, args, std::span<Variant>(), stack);
  EXPECT_EQ(status.message(), "'var.sum' called with 2 argument(s) and 0 result(s)");
  status = var->Call(**state, sum, args, std::span(&result, 1), stack);
  ASSERT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(result.ToString(), "i64=6");
}

// State of the "keep" module below: what the functions were given.
struct KeepState {
  Ref<Object> kept;
};

// keep.hold(r, r) -> r: keeps its first argument (a copy, which retains) and
// returns its second.
Status Hold(KeepState& state, std::span<const Variant> args, std::span<Variant> results) {
  state.kept = args[0].ref();
  results[0] = args[1];
  return OkStatus();
}
// keep.fail(r) -> r: sets its result, then fails.
Status FailAfterResult(KeepState&, std::span<const Variant> args, std::span<Variant> results) {
  results[0] = args[0];
  return InvalidArgumentError("failed on purpose");
}
// keep.liar() -> r: returns an i32 where its signature says ref.
Status Liar(KeepState&, std::span<const Variant>, std::span<Variant> results) {
  results[0] = Variant::I32(7);
  return OkStatus();
}
// keep.silent() -> r: sets no result at all.
Status Silent(KeepState&, std::span<const Variant>, std::span<Variant>) { return OkStatus(); }

// A context of [keep, caller] where caller forwards "f<i>" to import i.
Result<Ref<Context>> MakeKeepCaller(Ref<NativeModule<KeepState>>* keep_out,
                                    const std::vector<std::pair<std::string, std::string>>& imports,
                                    ContextOptions options = {}) {
  auto keep = NativeModule<KeepState>::Create("keep", nullptr);
  keep->ExportVariadic("hold", "rr_r", &Hold)
      .ExportVariadic("fail", "r_r", &FailAfterResult)
      .ExportVariadic("liar", "_r", &Liar)
      .ExportVariadic("silent", "_r", &Silent);
  *keep_out = keep;
  return MakeCaller(Ref<Module>(keep), imports, std::move(options));
}

TEST(VariadicImportTest, RefArgumentsAndResultsKeepCountsBalanced) {
  // The interpreter lends ref arguments to the import (the registers keep
  // their references) and moves ref results into registers: whatever the
  // function copies or returns is counted, and nothing else is.
  Ref<NativeModule<KeepState>> keep;
  auto context = MakeKeepCaller(&keep, {{"keep.hold", "rr_r"}, {"keep.fail", "r_r"}});
  ASSERT_TRUE(context.ok()) << context.status().ToString();
  KeepState& state = NativeModule<KeepState>::UserState(*(*context)->state_of(0));
  Ref<ByteBuffer> a = *ByteBuffer::Allocate(1);
  Ref<ByteBuffer> b = *ByteBuffer::Allocate(2);
  {
    auto results = Call(**context, "caller.f0", {Variant::FromRef(a), Variant::FromRef(b)});
    ASSERT_TRUE(results.ok()) << results.status().ToString();
    ASSERT_EQ(results->size(), 1u);
    EXPECT_EQ((*results)[0].ref().get(), b.get());
    EXPECT_EQ(a->ref_count(), 2) << "`a` and the copy the function kept";
    EXPECT_EQ(b->ref_count(), 2) << "`b` and the result";
  }
  EXPECT_EQ(b->ref_count(), 1);
  state.kept = nullptr;
  EXPECT_EQ(a->ref_count(), 1);
  // A result set before a failure is released with the failure.
  auto failed = Call(**context, "caller.f1", {Variant::FromRef(a)});
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("import 'keep.fail' failed: failed on purpose"),
            std::string::npos)
      << failed.status().ToString();
  EXPECT_EQ(a->ref_count(), 1);
}

TEST(VariadicImportTest, ResultsOfTheWrongTypeAreAnError) {
  // A native function's results are still checked against the import's
  // signature: a wrong or missing one is an error, never a mistyped register.
  Ref<NativeModule<KeepState>> keep;
  auto context = MakeKeepCaller(&keep, {{"keep.liar", "_r"}, {"keep.silent", "_r"}});
  ASSERT_TRUE(context.ok()) << context.status().ToString();
  auto liar = Call(**context, "caller.f0", {});
  ASSERT_FALSE(liar.ok());
  EXPECT_EQ(liar.status().code(), StatusCode::kInternal);
  EXPECT_NE(
      liar.status().message().find("import 'keep.liar' returned i32=7 for result 0, expected ref"),
      std::string::npos)
      << liar.status().ToString();
  auto silent = Call(**context, "caller.f1", {});
  ASSERT_FALSE(silent.ok());
  EXPECT_NE(silent.status().message().find(
                "import 'keep.silent' returned none for result 0, expected ref"),
            std::string::npos)
      << silent.status().ToString();
}

TEST(VariadicImportTest, CallValuesPastTheStackArenaAreAStackOverflow) {
  // The values of an import call live in the stack's arena above the
  // caller's frame: 12 arguments and a result need 13 Variants there.
  const std::vector<std::pair<std::string, std::string>> imports = {{"var.sum", "iiiiiiiiiiii_I"}};
  std::vector<Variant> args;
  for (int i = 1; i <= 12; ++i) args.push_back(Variant::I32(i));
  const size_t frame_bytes = kFrameHeaderBytes + 8 * 13;  // 12 i32 and 1 i64 registers.
  ContextOptions options;
  options.stack.arena_bytes = frame_bytes + 13 * sizeof(Variant) - 8;
  auto tight = MakeCaller(MakeVar(), imports, options);
  ASSERT_TRUE(tight.ok()) << tight.status().ToString();
  auto results = Call(**tight, "caller.f0", args);
  ASSERT_FALSE(results.ok());
  EXPECT_EQ(results.status().code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(results.status().message(),
            "function 'caller.f0' at bytecode offset 0: stack overflow: the values of an import "
            "call exceed the " +
                std::to_string(options.stack.arena_bytes) + "-byte stack");
  options.stack.arena_bytes += 8;  // Exactly enough.
  auto fits = MakeCaller(MakeVar(), imports, options);
  ASSERT_TRUE(fits.ok()) << fits.status().ToString();
  results = Call(**fits, "caller.f0", args);
  ASSERT_TRUE(results.ok()) << results.status().ToString();
  EXPECT_EQ((*results)[0].ToString(), "i64=77");  // 1 * (2 + ... + 12).
}

}  // namespace
}  // namespace kiln::vm
