// EliminateDeadCode: unused pure ops removed to a fixed point, side effects
// kept, unreferenced private functions removed (transitively), everything
// public or referenced kept.
#include "tests/compiler/passes/test_util.h"

namespace kiln::compiler::testing {
namespace {

class DeadCodeTest : public PassTest {
 protected:
  Operation* Eliminate(std::string_view text) {
    Operation* module = ParseValid(text);
    if (!module) return nullptr;
    EliminateDeadCode(module);
    Status status = VerifyModule(module, diagnostics_);
    EXPECT_TRUE(status.ok()) << status.message();
    return module;
  }
};

TEST_F(DeadCodeTest, RemovesUnusedPureChainsToAFixedPoint) {
  ASSERT_TRUE(Eliminate(R"(
func.func @f(%x: i32, %y: f32) -> i32 {
  %a = arith.addi %x, %x : i32
  %b = arith.muli %a, %a : i32
  %c = arith.cmpi slt, %b, %x : i32
  %d = arith.select %c, %a, %b : i32
  %e = arith.sitofp %d : i32 to f32
  %f = math.sqrt %e : f32
  %k = arith.constant 3 : i32
  %used = arith.subi %x, %k : i32
  return %used : i32
})"));
  EXPECT_EQ(OpNames(Body(Func("f"))->front()), "arith.constant,arith.subi,func.return");
}

TEST_F(DeadCodeTest, KeepsSideEffects) {
  ASSERT_TRUE(Eliminate(R"(
util.global private mutable @g : i32
func.func private @ext(i32) -> i32
func.func @f(%x: i32, %c: i1) {
  %q = arith.divsi %x, %x : i32
  %r = func.call @ext(%x) : (i32) -> i32
  %v = util.global.load @g : i32
  util.global.store %x, @g : i32
  cf.assert %c, "must hold"
  return
})"));
  EXPECT_EQ(OpNames(Body(Func("f"))->front()),
            "arith.divsi,func.call,util.global.load,util.global.store,cf.assert,func.return");
}

TEST_F(DeadCodeTest, UsesInOtherBlocksAndRegionsKeepOps) {
  ASSERT_TRUE(Eliminate(R"(
func.func @f(%c: i1, %x: i32) -> i32 {
  %a = arith.addi %x, %x : i32
  %b = arith.muli %x, %x : i32
  %r = scf.if %c -> (i32) {
    scf.yield %a : i32
  } else {
    scf.yield %x : i32
  }
  cf.br ^next(%b : i32)
^next(%v: i32):
  %s = arith.addi %v, %r : i32
  return %s : i32
})"));
  EXPECT_EQ(CountOps(Func("f"), OpKind::kAddI), 2u);
  EXPECT_EQ(CountOps(Func("f"), OpKind::kMulI), 1u);
}

TEST_F(DeadCodeTest, RemovesUnreferencedPrivateFunctions) {
  ASSERT_TRUE(Eliminate(R"(
util.global private @unused_global : i32 = 1 : i32
func.func private @decl_used(i32) -> i32
func.func private @decl_unused(i32) -> i32
func.func private @helper(%x: i32) -> i32 {
  %r = func.call @decl_used(%x) : (i32) -> i32
  return %r : i32
}
func.func private @only_called_by_dead(%x: i32) -> i32 {
  return %x : i32
}
func.func private @dead(%x: i32) -> i32 {
  %r = func.call @only_called_by_dead(%x) : (i32) -> i32
  return %r : i32
}
func.func private @ping(%x: i32) -> i32 {
  %r = func.call @pong(%x) : (i32) -> i32
  return %r : i32
}
func.func private @pong(%x: i32) -> i32 {
  %r = func.call @ping(%x) : (i32) -> i32
  return %r : i32
}
func.func @public_entry(%x: i32) -> i32 {
  %r = func.call @helper(%x) : (i32) -> i32
  return %r : i32
}
func.func @public_unused() {
  return
})"));
  std::vector<std::string> names;
  for (const auto& op : module_->region(0)->front()->operations()) {
    names.emplace_back(op->symbol_name());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"unused_global", "decl_used", "helper", "public_entry",
                                             "public_unused"}));
}

TEST_F(DeadCodeTest, SelfRecursivePrivateFunctionIsDead) {
  ASSERT_TRUE(Eliminate(R"(
func.func private @loop(%x: i32) -> i32 {
  %r = func.call @loop(%x) : (i32) -> i32
  return %r : i32
}
func.func @main() {
  return
})"));
  EXPECT_EQ(Func("loop"), nullptr);
  EXPECT_NE(Func("main"), nullptr);
}

}  // namespace
}  // namespace kiln::compiler::testing
