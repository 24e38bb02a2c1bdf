// Functions, calls, imports, globals, switch, assert, block-argument copies
// (swaps, cycles, edge blocks), errors and debug locations, run in the VM.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/compiler/codegen/codegen_test_util.h"
#include "vm/native_module.h"

namespace kiln::compiler::testing {
namespace {

using vm::Opcode;
using vm::Variant;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(FunctionTest, CallsRecursionAndMultipleResults) {
  Compiled c = Compiled::FromText(R"mlir(
func.func private @divmod(%a: i32, %b: i32) -> (i32, i32) {
  %q = arith.divsi %a, %b : i32
  %r = arith.remsi %a, %b : i32
  return %q, %r : i32, i32
}
func.func @digits(%n: i32) -> (i32, i64) {
  %c10 = arith.constant 10 : i32
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i64
  %small = arith.cmpi slt, %n, %c10 : i32
  cf.cond_br %small, ^one, ^more
^one:
  return %n, %c1 : i32, i64
^more:
  %q, %r = func.call @divmod(%n, %c10) : (i32, i32) -> (i32, i32)
  %s, %k = func.call @digits(%q) : (i32) -> (i32, i64)
  %sum = arith.addi %s, %r : i32
  %k1 = arith.addi %k, %c1 : i64
  return %sum, %k1 : i32, i64
}
func.func @nothing() {
  return
}
)mlir");
  ASSERT_TRUE(c.ok()) << c.error();
  auto r = c.Call("digits", {Variant::I32(987654)});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].i32(), 9 + 8 + 7 + 6 + 5 + 4);
  EXPECT_EQ((*r)[1].i64(), 6);
  EXPECT_TRUE(c.Call("nothing", {}).ok());
  // Private functions are not exported.
  EXPECT_FALSE(c.Call("divmod", {Variant::I32(1), Variant::I32(1)}).ok());
  // Reflection describes arguments and results by their MLIR types.
  const schema::Module& flat = c.flat();
  bool found = false;
  for (const schema::Export* e : *flat.exports()) {
    if (e->name()->string_view() != "digits") continue;
    found = true;
    ASSERT_EQ(e->argument_descriptions()->size(), 1u);
    EXPECT_EQ(e->argument_descriptions()->Get(0)->string_view(), "i32");
    ASSERT_EQ(e->result_descriptions()->size(), 2u);
    EXPECT_EQ(e->result_descriptions()->Get(1)->string_view(), "i64");
  }
  EXPECT_TRUE(found);
  EXPECT_EQ(c.function("digits")->signature()->string_view(), "i_iI");
}

TEST(FunctionTest, ModuleNameFromTheModuleOrTheOptions) {
  Compiled named = Compiled::FromText(R"mlir(
module @arith_lib {
  func.func @one() -> index {
    %c = arith.constant 1 : index
    return %c : index
  }
}
)mlir");
  ASSERT_TRUE(named.ok()) << named.error();
  EXPECT_EQ(named.flat().name()->string_view(), "arith_lib");
  EXPECT_EQ(CallOne(named, "one", {}).i64(), 1);
  CodegenOptions options;
  options.module_name = "renamed";
  Compiled renamed = Compiled::FromText("func.func @f() { return }", true, {}, options);
  ASSERT_TRUE(renamed.ok()) << renamed.error();
  EXPECT_EQ(renamed.flat().name()->string_view(), "renamed");
  Compiled unnamed = Compiled::FromText("func.func @f() { return }");
  ASSERT_TRUE(unnamed.ok()) << unnamed.error();
  EXPECT_EQ(unnamed.flat().name()->string_view(), "module");
}

struct HostState {
  int32_t calls = 0;
};
int32_t Add3(HostState& s, int32_t a, int32_t b, int32_t c) {
  ++s.calls;
  return a + b + c;
}
double Scale(HostState&, double x) { return x * 2.5; }
int32_t Wide(HostState&, int32_t x) { return x + 256; }  // Declared as returning i8.
void Note(HostState& s, int64_t) { ++s.calls; }

Ref<vm::NativeModule<HostState>> MakeHost() {
  auto host = vm::NativeModule<HostState>::Create("host", nullptr);
  host->Export("add3", &Add3).Export("scale", &Scale).Export("wide", &Wide).Export("note", &Note);
  return host;
}

TEST(ImportTest, DeclarationsBecomeImports) {
  auto host = MakeHost();
  Compiled c = Compiled::FromText(R"mlir(
func.func private @host.add3(i32, i32, i32) -> i32
func.func private @host.scale(f64) -> f64
func.func private @host.wide(i8) -> i8
func.func private @host.note(i64)
func.func @f(%a: i32, %x: f64, %w: i8, %n: i64) -> (i32, f64, i8) {
  %r = func.call @host.add3(%a, %a, %a) : (i32, i32, i32) -> i32
  %s = func.call @host.scale(%x) : (f64) -> f64
  %v = func.call @host.wide(%w) : (i8) -> i8
  func.call @host.note(%n) : (i64) -> ()
  return %r, %s, %v : i32, f64, i8
}
)mlir",
                                  true, {Ref<vm::Module>(host)});
  ASSERT_TRUE(c.ok()) << c.error();
  auto r = c.Call("f", {Variant::I32(7), Variant::F64(2.0), Variant::I32(-3), Variant::I64(1)});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].i32(), 21);
  EXPECT_EQ((*r)[1].f64(), 5.0);
  EXPECT_EQ((*r)[2].i32(), -3);  // 253 from the host, canonicalised as an i8
  EXPECT_EQ(vm::NativeModule<HostState>::UserState(*c.context().state_of(0)).calls, 2);
  const schema::Module& flat = c.flat();
  ASSERT_EQ(flat.imports()->size(), 4u);
  EXPECT_EQ(flat.imports()->Get(0)->name()->string_view(), "host.add3");
  EXPECT_EQ(flat.imports()->Get(0)->signature()->string_view(), "iii_i");
}

TEST(ImportTest, UnqualifiedDeclarationIsAnError) {
  Compiled c = Compiled::FromText(R"mlir(
func.func private @helper(i32) -> i32
func.func @f(%a: i32) -> i32 {
  %r = func.call @helper(%a) : (i32) -> i32
  return %r : i32
}
)mlir");
  ASSERT_FALSE(c.ok());
  EXPECT_TRUE(Contains(c.error(), "test.mlir:2:1")) << c.error();
  EXPECT_TRUE(Contains(c.error(), "'@helper' cannot be imported")) << c.error();
}

TEST(GlobalTest, InitialValuesLoadsAndStoresAcrossCalls) {
  Compiled c = Compiled::FromText(R"mlir(
util.global private mutable @counter = 5 : i32
util.global private mutable @total : i64
util.global private @pi = 3.25 : f64
util.global private mutable @small = -3 : i8
util.global private mutable @ratio = 0.5 : f32
util.global private mutable @flag = true
func.func @bump(%by: i32) -> i32 {
  %v = util.global.load @counter : i32
  %n = arith.addi %v, %by : i32
  util.global.store %n, @counter : i32
  %t = util.global.load @total : i64
  %w = arith.extsi %by : i32 to i64
  %t2 = arith.addi %t, %w : i64
  util.global.store %t2, @total : i64
  return %n : i32
}
func.func @read() -> (i64, f64, i8, f32, i1) {
  %t = util.global.load @total : i64
  %p = util.global.load @pi : f64
  %s = util.global.load @small : i8
  %r = util.global.load @ratio : f32
  %f = util.global.load @flag : i1
  return %t, %p, %s, %r, %f : i64, f64, i8, f32, i1
}
func.func @flip() {
  %f = util.global.load @flag : i1
  %t = arith.constant true
  %n = arith.xori %f, %t : i1
  util.global.store %n, @flag : i1
  %s = util.global.load @small : i8
  %d = arith.muli %s, %s : i8
  util.global.store %d, @small : i8
  return
}
)mlir");
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_NE(c.function("__init"), nullptr);
  EXPECT_GE(c.flat().initializer(), 0);
  EXPECT_EQ(CallOne(c, "bump", {Variant::I32(1)}).i32(), 6);
  EXPECT_EQ(CallOne(c, "bump", {Variant::I32(10)}).i32(), 16);
  ASSERT_TRUE(c.Call("flip", {}).ok());
  auto r = c.Call("read", {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].i64(), 11);
  EXPECT_EQ((*r)[1].f64(), 3.25);
  EXPECT_EQ((*r)[2].i32(), 9);
  EXPECT_EQ((*r)[3].f32(), 0.5f);
  EXPECT_EQ((*r)[4].i32(), 0);
  // 8-byte globals are 8-byte aligned (the verifier checks every access).
  EXPECT_GE(c.flat().global_bytes(), 8u + 8u + 4u * 4u);
}

TEST(GlobalTest, ZeroInitialValuesNeedNoInitializer) {
  Compiled c = Compiled::FromText(R"mlir(
util.global private mutable @x = 0 : i32
util.global private mutable @y : f64
func.func @get() -> f64 {
  %y = util.global.load @y : f64
  return %y : f64
}
)mlir");
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ(c.function("__init"), nullptr);
  EXPECT_EQ(c.flat().initializer(), -1);
  EXPECT_EQ(CallOne(c, "get", {}).f64(), 0.0);
}

constexpr char kDenseSwitch[] = R"mlir(
func.func @f(%x: i32, %a: i32) -> i32 {
  cf.switch %x : i32, [
    default: ^other(%a : i32),
    0: ^zero,
    1: ^one(%x : i32),
    2: ^two,
    4: ^one(%a : i32),
    5: ^two
  ]
^zero:
  %c100 = arith.constant 100 : i32
  return %c100 : i32
^one(%v: i32):
  %c1000 = arith.constant 1000 : i32
  %r = arith.addi %v, %c1000 : i32
  return %r : i32
^two:
  %c200 = arith.constant 200 : i32
  return %c200 : i32
^other(%w: i32):
  %m = arith.constant -1 : i32
  %r2 = arith.muli %w, %m : i32
  return %r2 : i32
}
)mlir";

TEST(SwitchTest, DenseCasesUseTheSwitchTable) {
  Compiled c = Compiled::FromText(kDenseSwitch);
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ(c.Count("f", Opcode::kSwitch), 1u) << c.Listing("f");
  auto f = [&](int32_t x) { return CallOne(c, "f", {Variant::I32(x), Variant::I32(7)}).i32(); };
  EXPECT_EQ(f(0), 100);
  EXPECT_EQ(f(1), 1001);
  EXPECT_EQ(f(2), 200);
  EXPECT_EQ(f(3), -7);  // hole
  EXPECT_EQ(f(4), 1007);
  EXPECT_EQ(f(5), 200);
  EXPECT_EQ(f(6), -7);
  EXPECT_EQ(f(-1), -7);
  EXPECT_EQ(f(INT32_MIN), -7);
}

TEST(SwitchTest, OffsetNarrowAndIndexFlags) {
  Compiled c = Compiled::FromText(R"mlir(
func.func @neg(%x: i8) -> i32 {
  cf.switch %x : i8, [
    default: ^d,
    -3: ^a,
    -2: ^b,
    -1: ^c
  ]
^a:
  %r1 = arith.constant 1 : i32
  return %r1 : i32
^b:
  %r2 = arith.constant 2 : i32
  return %r2 : i32
^c:
  %r3 = arith.constant 3 : i32
  return %r3 : i32
^d:
  %r0 = arith.constant 0 : i32
  return %r0 : i32
}
func.func @wide(%x: i64) -> i32 {
  cf.switch %x : i64, [
    default: ^d,
    10: ^a,
    11: ^b,
    12: ^c
  ]
^a:
  %r1 = arith.constant 1 : i32
  return %r1 : i32
^b:
  %r2 = arith.constant 2 : i32
  return %r2 : i32
^c:
  %r3 = arith.constant 3 : i32
  return %r3 : i32
^d:
  %r0 = arith.constant 0 : i32
  return %r0 : i32
}
)mlir");
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ(c.Count("neg", Opcode::kSwitch), 1u);
  EXPECT_EQ(c.Count("wide", Opcode::kSwitch), 1u);
  for (int x : {-128, -4, -3, -2, -1, 0, 127}) {
    EXPECT_EQ(CallOne(c, "neg", {Variant::I32(x)}).i32(), x >= -3 && x <= -1 ? x + 4 : 0) << x;
  }
  for (int64_t x : {int64_t{0}, int64_t{9}, int64_t{10}, int64_t{11}, int64_t{12}, int64_t{13},
                    (int64_t{1} << 32) + 11, int64_t{-1}, INT64_MIN}) {
    EXPECT_EQ(CallOne(c, "wide", {Variant::I64(x)}).i32(), x >= 10 && x <= 12 ? x - 9 : 0) << x;
  }
}

TEST(SwitchTest, SparseCasesUseACompareChain) {
  Compiled c = Compiled::FromText(R"mlir(
func.func @f(%x: i32, %y: i64) -> i32 {
  %c0 = arith.constant 0 : i32
  cf.switch %x : i32, [
    default: ^d(%c0 : i32),
    -1000000: ^a,
    7: ^b,
    123456789: ^d(%x : i32)
  ]
^a:
  %r1 = arith.constant 1 : i32
  return %r1 : i32
^b:
  cf.switch %y : i64, [
    default: ^d(%c0 : i32),
    5000000000: ^a,
    0: ^b2
  ]
^b2:
  %r2 = arith.constant 2 : i32
  return %r2 : i32
^d(%v: i32):
  return %v : i32
}
)mlir");
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ(c.Count("f", Opcode::kSwitch), 0u);
  auto f = [&](int32_t x, int64_t y) {
    return CallOne(c, "f", {Variant::I32(x), Variant::I64(y)}).i32();
  };
  EXPECT_EQ(f(-1000000, 0), 1);
  EXPECT_EQ(f(123456789, 0), 123456789);
  EXPECT_EQ(f(5, 0), 0) << c.Listing("f");
  EXPECT_EQ(f(7, 0), 2);
  EXPECT_EQ(f(7, 5000000000LL), 1);
  EXPECT_EQ(f(7, 5), 0);
}

TEST(AssertTest, FailureNamesTheMessageAndTheSourceLine) {
  Compiled c = Compiled::FromText(R"mlir(
func.func @check(%x: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %ok = arith.cmpi sgt, %x, %c0 : i32
  cf.assert %ok, "x must be positive"
  return %x : i32
}
)mlir");
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ(CallOne(c, "check", {Variant::I32(3)}).i32(), 3);
  auto r = c.Call("check", {Variant::I32(-3)});
  ASSERT_FALSE(r.ok());
  const std::string message = r.status().message();
  EXPECT_TRUE(Contains(message, "x must be positive")) << message;
  EXPECT_TRUE(Contains(message, "test.mlir:5:3")) << message;
}

TEST(AssertTest, WithoutDebugLocationsTheMessageRemains) {
  CodegenOptions options;
  options.debug_locations = false;
  Compiled c = Compiled::FromText(R"mlir(
func.func @check(%x: i1) {
  cf.assert %x, "boom"
  return
}
)mlir",
                                  true, {}, options);
  ASSERT_TRUE(c.ok()) << c.error();
  auto r = c.Call("check", {Variant::I32(0)});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Contains(r.status().message(), "boom"));
  EXPECT_FALSE(Contains(r.status().message(), "test.mlir"));
  EXPECT_EQ(c.flat().source_files() ? c.flat().source_files()->size() : 0u, 0u);
}

// Swapping loop arguments: cf.br ^loop(%y, %x, ...) needs a parallel copy
// with a cycle, broken with a scratch register.
TEST(CopyTest, SwapsAndCycles) {
  Compiled c = Compiled::FromText(R"mlir(
func.func @swap(%a: i32, %b: i32, %n: i32) -> (i32, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  cf.br ^loop(%a, %b, %c0 : i32, i32, i32)
^loop(%x: i32, %y: i32, %i: i32):
  %more = arith.cmpi slt, %i, %n : i32
  cf.cond_br %more, ^body, ^done
^body:
  %next = arith.addi %i, %c1 : i32
  cf.br ^loop(%y, %x, %next : i32, i32, i32)
^done:
  return %x, %y : i32, i32
}
func.func @rotate(%a: f64, %b: f64, %c: f64, %n: index) -> (f64, f64, f64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  cf.br ^loop(%a, %b, %c, %c0 : f64, f64, f64, index)
^loop(%x: f64, %y: f64, %z: f64, %i: index):
  %more = arith.cmpi slt, %i, %n : index
  cf.cond_br %more, ^body, ^done
^body:
  %next = arith.addi %i, %c1 : index
  cf.br ^loop(%y, %z, %x, %next : f64, f64, f64, index)
^done:
  return %x, %y, %z : f64, f64, f64
}
)mlir",
                                  /*run_passes=*/false);
  ASSERT_TRUE(c.ok()) << c.error();
  for (int32_t n : {0, 1, 2, 5}) {
    auto r = c.Call("swap", {Variant::I32(10), Variant::I32(20), Variant::I32(n)});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ((*r)[0].i32(), n % 2 ? 20 : 10) << n << "\n" << c.Listing("swap");
    EXPECT_EQ((*r)[1].i32(), n % 2 ? 10 : 20) << n;
  }
  const double in[3] = {1.5, 2.5, 3.5};
  for (int64_t n : {0, 1, 2, 3, 4, 7}) {
    auto r = c.Call(
        "rotate", {Variant::F64(in[0]), Variant::F64(in[1]), Variant::F64(in[2]), Variant::I64(n)});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    for (int k = 0; k < 3; ++k) EXPECT_EQ((*r)[k].f64(), in[(k + n) % 3]) << n << " " << k;
  }
  // A swap is three moves (one through a scratch register), a 3-cycle four.
  EXPECT_EQ(c.Count("swap", Opcode::kMovI32), 3u) << c.Listing("swap");
  EXPECT_EQ(c.Count("rotate", Opcode::kMovF64), 4u) << c.Listing("rotate");
}

// Copies on a conditional back edge that cannot move before the branch (the
// exit edge reads the registers being swapped) go to an edge block.
TEST(CopyTest, EdgeBlocksForConflictingConditionalEdges) {
  Compiled c = Compiled::FromText(R"mlir(
func.func @f(%a: i64, %b: i64, %n: i64) -> (i64, i64) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  cf.br ^loop(%a, %b, %c0 : i64, i64, i64)
^loop(%x: i64, %y: i64, %i: i64):
  %next = arith.addi %i, %c1 : i64
  %sum = arith.addi %x, %y : i64
  %more = arith.cmpi slt, %i, %n : i64
  cf.cond_br %more, ^loop(%y, %sum, %next : i64, i64, i64), ^done(%x, %y : i64, i64)
^done(%p: i64, %q: i64):
  return %p, %q : i64, i64
}
)mlir",
                                  /*run_passes=*/false);
  ASSERT_TRUE(c.ok()) << c.error();
  for (int64_t n : {-1, 0, 1, 2, 10}) {
    int64_t ex = 3, ey = 4;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t s = ex + ey;
      ex = ey;
      ey = s;
    }
    auto r = c.Call("f", {Variant::I64(3), Variant::I64(4), Variant::I64(n)});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ((*r)[0].i64(), ex) << n << "\n" << c.Listing("f");
    EXPECT_EQ((*r)[1].i64(), ey) << n;
  }
}

TEST(CopyTest, DeadBlockArgumentsCostNothing) {
  Compiled c = Compiled::FromText(R"mlir(
func.func @f(%a: i32, %b: i32, %c: i1) -> i32 {
  cf.cond_br %c, ^x(%a, %b : i32, i32), ^x(%b, %a : i32, i32)
^x(%unused: i32, %v: i32):
  return %v : i32
}
)mlir",
                                  /*run_passes=*/false);
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ(CallOne(c, "f", {Variant::I32(1), Variant::I32(2), Variant::I32(1)}).i32(), 2)
      << c.Listing("f");
  EXPECT_EQ(CallOne(c, "f", {Variant::I32(1), Variant::I32(2), Variant::I32(0)}).i32(), 1);
  // Only one edge can share %v's register; the other needs one move.
  EXPECT_EQ(c.Count("f", Opcode::kMovI32), 1u) << c.Listing("f");
}

TEST(ControlFlowTest, HandWrittenBranchesWithLocalConstants) {
  // Constants outside the entry block, a cond_br on a constant, a block
  // reached from three predecessors with different arguments.
  Compiled c = Compiled::FromText(R"mlir(
func.func @f(%x: i32) -> i32 {
  %zero = arith.constant 0 : i32
  %neg = arith.cmpi slt, %x, %zero : i32
  cf.cond_br %neg, ^negative, ^positive
^negative:
  %m = arith.constant -1 : i32
  %y = arith.muli %x, %m : i32
  cf.br ^join(%y, %m : i32, i32)
^positive:
  %t = arith.constant true
  cf.cond_br %t, ^big, ^join(%x, %zero : i32, i32)
^big:
  %k = arith.constant 1 : i32
  cf.br ^join(%x, %k : i32, i32)
^join(%v: i32, %s: i32):
  %r = arith.addi %v, %s : i32
  return %r : i32
}
)mlir",
                                  /*run_passes=*/false);
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ(CallOne(c, "f", {Variant::I32(-5)}).i32(), 4);
  EXPECT_EQ(CallOne(c, "f", {Variant::I32(5)}).i32(), 6);
}

TEST(ErrorTest, UnsupportedTypesAreReportedAtTheValue) {
  Compiled c = Compiled::FromText(R"mlir(
func.func @f(%x: f16, %y: i32) -> i32 {
  %b = arith.constant 1.0 : bf16
  return %y : i32
}
)mlir",
                                  /*run_passes=*/false);
  ASSERT_FALSE(c.ok());
  EXPECT_TRUE(Contains(c.error(), "type 'f16' is not supported by the VM (yet)")) << c.error();
  EXPECT_TRUE(Contains(c.error(), "type 'bf16' is not supported by the VM (yet)")) << c.error();
  ASSERT_GE(c.diagnostics().size(), 2u);
  EXPECT_EQ(c.diagnostics()[0].location.line, 2u);
  EXPECT_EQ(c.diagnostics()[1].location.line, 3u);
}

TEST(ErrorTest, UnsupportedResultAndGlobalTypes) {
  Compiled c = Compiled::FromText(R"mlir(
util.global private @g : tensor<4xf32>
func.func @f(%x: i32) -> i7 {
  %t = arith.trunci %x : i32 to i7
  return %t : i7
}
)mlir",
                                  /*run_passes=*/false);
  ASSERT_FALSE(c.ok());
  EXPECT_TRUE(Contains(c.error(), "type 'tensor<4xf32>' is not supported")) << c.error();
  EXPECT_TRUE(Contains(c.error(), "type 'i7' is not supported")) << c.error();
}

TEST(ErrorTest, StructuredControlFlowMustBeLoweredFirst) {
  Compiled c = Compiled::FromText(R"mlir(
func.func @f(%c: i1, %x: i32) -> i32 {
  %r = scf.if %c -> (i32) {
    scf.yield %x : i32
  } else {
    scf.yield %x : i32
  }
  return %r : i32
}
)mlir",
                                  /*run_passes=*/false);
  ASSERT_FALSE(c.ok());
  EXPECT_TRUE(Contains(c.error(), "test.mlir:3:3")) << c.error();
  EXPECT_TRUE(Contains(c.error(), "'scf.if' must be lowered")) << c.error();
}

TEST(DebugLocationTest, InstructionsCarryTheirSourceLines) {
  Compiled c = Compiled::FromText(R"mlir(
func.func @f(%a: i32, %b: i32) -> i32 {
  %s = arith.muli %a, %b : i32
  %t = arith.divsi %s, %b : i32
  return %t : i32
}
)mlir");
  ASSERT_TRUE(c.ok()) << c.error();
  const schema::Function* f = c.function("f");
  ASSERT_NE(f->locations(), nullptr);
  std::vector<uint32_t> lines;
  for (const schema::SourceLocation* l : *f->locations()) lines.push_back(l->line());
  EXPECT_EQ(lines, (std::vector<uint32_t>{3, 4, 5}));
  ASSERT_EQ(c.flat().source_files()->size(), 1u);
  EXPECT_EQ(c.flat().source_files()->Get(0)->string_view(), "test.mlir");
  // A runtime error points at the divide.
  auto r = c.Call("f", {Variant::I32(1), Variant::I32(0)});
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(Contains(r.status().message(), "test.mlir:4:3")) << r.status().message();
}

// IR built directly with OpBuilder (no parser): a counted loop in cf form.
TEST(BuilderTest, GeneratesIrBuiltWithOpBuilder) {
  SourceManager sources;
  const Location loc{sources.AddFile("built.mlir", ""), 1, 1};
  std::unique_ptr<Operation> module = Operation::Create(OpKind::kModule, loc);
  Block* top = module->AddRegion()->AddBlock();
  OpBuilder mb(top);
  Operation* func = mb.Create(
      OpKind::kFunc, loc, {}, {},
      {{"sym_name", Attribute::String("sum_squares")},
       {"function_type", Attribute::TypeAttr(Type::Function({Type::I32()}, {Type::I32()}))}});
  Region* body = func->AddRegion();
  Block* entry = body->AddBlock();
  Block* loop = body->AddBlock();
  Block* exit = body->AddBlock();
  Value* n = entry->AddArgument(Type::I32(), loc, "n");
  OpBuilder b(entry);
  Value* zero = b.CreateConstant(loc, Attribute::Integer(0, Type::I32()));
  Value* one = b.CreateConstant(loc, Attribute::Integer(1, Type::I32()));
  Operation* enter = b.Create(OpKind::kBr, loc);
  enter->successors.push_back({loop, {zero, zero}});
  Value* i = loop->AddArgument(Type::I32(), loc, "i");
  Value* acc = loop->AddArgument(Type::I32(), loc, "acc");
  b.SetInsertionPointToEnd(loop);
  Value* sq = b.Create(OpKind::kMulI, loc, {i, i}, {Type::I32()})->result(0);
  Value* acc2 = b.Create(OpKind::kAddI, loc, {acc, sq}, {Type::I32()})->result(0);
  Value* next = b.Create(OpKind::kAddI, loc, {i, one}, {Type::I32()})->result(0);
  Value* more =
      b.Create(OpKind::kCmpI, loc, {next, n}, {Type::I1()},
               {{"predicate",
                 Attribute::Integer(static_cast<int64_t>(CmpIPredicate::kSlt), Type::I64())}})
          ->result(0);
  Operation* latch = b.Create(OpKind::kCondBr, loc, {more});
  latch->successors.push_back({loop, {next, acc2}});
  latch->successors.push_back({exit, {acc2}});
  Value* result = exit->AddArgument(Type::I32(), loc, "result");
  b.SetInsertionPointToEnd(exit);
  b.Create(OpKind::kReturn, loc, {result});

  Compiled c = Compiled::FromModule(module.get(), sources);
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ(c.Count("sum_squares", Opcode::kForStepI32), 1u) << c.Listing("sum_squares");
  EXPECT_EQ(c.Count("sum_squares", Opcode::kMovI32), 0u) << c.Listing("sum_squares");
  EXPECT_EQ(CallOne(c, "sum_squares", {Variant::I32(4)}).i32(), 0 + 1 + 4 + 9);
  EXPECT_EQ(CallOne(c, "sum_squares", {Variant::I32(1)}).i32(), 0);
}

// Large programs compile quickly: no pass over the whole function is
// quadratic. ~20,000 lines in one function (loops, branches, calls).
TEST(LargeProgramTest, TwentyThousandLinesCompileCorrectly) {
  std::string text =
      "func.func private @leaf(%x: i64) -> i64 {\n  return %x : i64\n}\n"
      "func.func @big(%n: i64, %seed: i64) -> i64 {\n"
      "  %c0 = arith.constant 0 : i64\n  %c1 = arith.constant 1 : i64\n"
      "  %c3 = arith.constant 3 : i64\n";
  std::string acc = "%seed";
  int lines = 6;
  for (int k = 0; lines < 20000; ++k) {
    const std::string s = std::to_string(k);
    text += "  %l" + s + " = scf.for %i" + s + " = %c0 to %n step %c1 iter_args(%a" + s + " = " +
            acc + ") -> (i64) : i64 {\n" + "    %m" + s + " = arith.muli %a" + s + ", %c3 : i64\n" +
            "    %p" + s + " = arith.addi %m" + s + ", %i" + s + " : i64\n" + "    %q" + s +
            " = arith.xori %p" + s + ", %a" + s + " : i64\n" + "    %b" + s +
            " = arith.cmpi slt, %q" + s + ", %c0 : i64\n" + "    %r" + s + " = scf.if %b" + s +
            " -> (i64) {\n" + "      %u" + s + " = arith.subi %c0, %q" + s + " : i64\n" +
            "      scf.yield %u" + s + " : i64\n" + "    } else {\n" + "      %v" + s +
            " = func.call @leaf(%q" + s + ") : (i64) -> i64\n" + "      scf.yield %v" + s +
            " : i64\n" + "    }\n" + "    scf.yield %r" + s + " : i64\n" + "  }\n";
    acc = "%l" + s;
    lines += 14;
  }
  text += "  return " + acc + " : i64\n}\n";

  SourceManager sources;
  const uint32_t file = sources.AddFile("big.mlir", text);
  DiagnosticEngine diagnostics(sources);
  auto module = ParseModule(sources, file, diagnostics);
  ASSERT_TRUE(module.ok()) << diagnostics.Render();
  ASSERT_TRUE(VerifyModule(module->get(), diagnostics).ok()) << diagnostics.Render();
  FoldConstants(module->get());
  ASSERT_TRUE(LowerStructuredControlFlow(module->get(), diagnostics).ok());
  SimplifyControlFlow(module->get());
  EliminateDeadCode(module->get());
  // Compile speed is measured by tests/benchmarks/run_compile_benchmark.sh, not
  // asserted here: this test checks that a large program compiles correctly.
  auto bytes = GenerateModule(module->get(), sources, diagnostics);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  Compiled c = Compiled::FromModule(module->get(), sources);
  ASSERT_TRUE(c.ok()) << c.error();
  // Still correct: compare with the same computation in C++.
  const int loops = (lines - 6) / 14 + ((lines - 6) % 14 != 0);
  uint64_t value = 5;  // Wrapping arithmetic, as the program's.
  for (int k = 0; k < loops; ++k) {
    for (uint64_t i = 0; i < 3; ++i) {
      const int64_t q = static_cast<int64_t>((value * 3 + i) ^ value);
      value = q < 0 ? 0 - static_cast<uint64_t>(q) : static_cast<uint64_t>(q);
    }
  }
  EXPECT_EQ(CallOne(c, "big", {Variant::I64(3), Variant::I64(5)}).i64(),
            static_cast<int64_t>(value));
}

}  // namespace
}  // namespace kiln::compiler::testing
