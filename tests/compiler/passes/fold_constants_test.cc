// FoldConstants as a pass: constants hoisted to the entry block and merged
// (first location kept), chains folded, identities, what is left alone, and
// the fixed point when uses come before definitions in block order.
#include "tests/compiler/passes/test_util.h"

namespace kiln::compiler::testing {
namespace {

class FoldConstantsTest : public PassTest {
 protected:
  // Parses, verifies, folds and verifies again.
  Operation* Fold(std::string_view text) {
    Operation* module = ParseValid(text);
    if (!module) return nullptr;
    FoldConstants(module);
    Status status = VerifyModule(module, diagnostics_);
    EXPECT_TRUE(status.ok()) << status.message();
    return module;
  }
  // The op returned (operand `i` of the first func.return) in function `f`.
  Value* Returned(std::string_view f, size_t i = 0) {
    Operation* ret = nullptr;
    Walk(Func(f), [&](Operation* op) {
      if (!ret && op->kind() == OpKind::kReturn) ret = op;
    });
    return ret && i < ret->operands.size() ? ret->operands[i] : nullptr;
  }
  int64_t ReturnedInt(std::string_view f, size_t i = 0) {
    Value* v = Returned(f, i);
    const Attribute* c = v ? ConstantOf(v) : nullptr;
    EXPECT_NE(c, nullptr) << "not a constant";
    return c ? c->integer_value : -12345;
  }
};

TEST_F(FoldConstantsTest, FoldsChains) {
  ASSERT_TRUE(Fold(R"(
func.func @f() -> i32 {
  %a = arith.constant 2 : i32
  %b = arith.constant 3 : i32
  %c = arith.constant 4 : i32
  %s = arith.addi %a, %b : i32
  %p = arith.muli %s, %c : i32
  %n = arith.subi %p, %a : i32
  return %n : i32
})"));
  EXPECT_EQ(OpNames(Body(Func("f"))->front()), "arith.constant,func.return");
  EXPECT_EQ(ReturnedInt("f"), 18);
}

TEST_F(FoldConstantsTest, FoldedConstantTakesTheFoldedOpsLocation) {
  ASSERT_TRUE(Fold(R"(
func.func @f() -> i32 {
  %a = arith.constant 2 : i32
  %b = arith.constant 3 : i32
  %s = arith.addi %a, %b : i32
  return %s : i32
})"));
  const Operation* c = Returned("f")->defining_op();
  EXPECT_EQ(c->loc.line, 5u);
  EXPECT_EQ(c->debug_loc.line, 5u);
}

TEST_F(FoldConstantsTest, HoistsAndMergesConstantsKeepingTheFirstLocation) {
  ASSERT_TRUE(Fold(R"(
func.func @f(%c: i1, %x: i32) -> i32 {
  cf.cond_br %c, ^a, ^b
^a:
  %one = arith.constant 1 : i32
  %y = arith.addi %x, %one : i32
  cf.br ^join(%y : i32)
^b:
  %one_again = arith.constant 1 : i32
  %r = scf.if %c -> (i32) {
    %seven = arith.constant 7 : i32
    %z = arith.muli %x, %seven : i32
    scf.yield %z : i32
  } else {
    %one_more = arith.constant 1 : i32
    %w = arith.subi %x, %one_more : i32
    scf.yield %w : i32
  }
  cf.br ^join(%r : i32)
^join(%v: i32):
  return %v : i32
})"));
  Block* entry = Body(Func("f"))->front();
  // Two distinct constants, at the top of the entry block, in textual order.
  EXPECT_EQ(OpNames(entry), "arith.constant,arith.constant,cf.cond_br");
  EXPECT_EQ(entry->operations()[0]->attribute("value")->integer_value, 1);
  EXPECT_EQ(entry->operations()[0]->loc.line, 5u);  // The first `1`.
  EXPECT_EQ(entry->operations()[1]->attribute("value")->integer_value, 7);
  EXPECT_EQ(CountOps(Func("f"), OpKind::kConstant), 2u);
  // Every use of a merged constant now names the survivor.
  Value* one = entry->operations()[0]->result(0);
  size_t uses = 0;
  Walk(Func("f"), [&](Operation* op) {
    for (Value* v : op->operands) uses += v == one;
  });
  EXPECT_EQ(uses, 2u);
}

TEST_F(FoldConstantsTest, DistinguishesTypesAndSignedZeros) {
  ASSERT_TRUE(Fold(R"(
func.func @f() -> (i32, i64, f32, f32, f64) {
  %a = arith.constant 1 : i32
  %b = arith.constant 1 : i64
  %c = arith.constant 0.0 : f32
  %d = arith.constant -0.0 : f32
  %e = arith.constant 0.0 : f64
  return %a, %b, %c, %d, %e : i32, i64, f32, f32, f64
})"));
  EXPECT_EQ(CountOps(Func("f"), OpKind::kConstant), 5u);
}

TEST_F(FoldConstantsTest, EachFunctionHasItsOwnConstants) {
  ASSERT_TRUE(Fold(R"(
func.func @f() -> i32 {
  %a = arith.constant 5 : i32
  return %a : i32
}
func.func @g() -> i32 {
  %a = arith.constant 5 : i32
  return %a : i32
})"));
  EXPECT_EQ(CountOps(Func("f"), OpKind::kConstant), 1u);
  EXPECT_EQ(CountOps(Func("g"), OpKind::kConstant), 1u);
}

TEST_F(FoldConstantsTest, RemovesConstantsLeftUnused) {
  ASSERT_TRUE(Fold(R"(
func.func @f() -> i32 {
  %a = arith.constant 20 : i32
  %b = arith.constant 22 : i32
  %s = arith.addi %a, %b : i32
  return %s : i32
})"));
  EXPECT_EQ(CountOps(Func("f"), OpKind::kConstant), 1u);
  EXPECT_EQ(ReturnedInt("f"), 42);
}

TEST_F(FoldConstantsTest, DivisionByZeroStays) {
  ASSERT_TRUE(Fold(R"(
func.func @f() -> i32 {
  %a = arith.constant 7 : i32
  %z = arith.constant 0 : i32
  %q = arith.divsi %a, %z : i32
  return %q : i32
})"));
  EXPECT_EQ(OpNames(Body(Func("f"))->front()),
            "arith.constant,arith.constant,arith.divsi,func.return");
}

TEST_F(FoldConstantsTest, IntegerIdentities) {
  ASSERT_TRUE(Fold(R"(
func.func @f(%x: i32, %b: i1) -> (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i1) {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %ones = arith.constant -1 : i32
  %n32 = arith.constant 32 : i32
  %t = arith.constant true
  %0 = arith.addi %x, %zero : i32
  %1 = arith.addi %zero, %x : i32
  %2 = arith.subi %x, %zero : i32
  %3 = arith.muli %one, %x : i32
  %4 = arith.andi %x, %ones : i32
  %5 = arith.ori %zero, %x : i32
  %6 = arith.xori %x, %zero : i32
  %7 = arith.shli %x, %zero : i32
  %8 = arith.shrsi %x, %n32 : i32
  %9 = arith.divsi %x, %one : i32
  %10 = arith.maxsi %x, %x : i32
  %11 = arith.andi %b, %t : i1
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11
      : i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i1
})"));
  Block* entry = Body(Func("f"))->front();
  EXPECT_EQ(OpNames(entry), "func.return");
  for (size_t i = 0; i < 11; ++i) EXPECT_EQ(Returned("f", i), entry->argument(0)) << i;
  EXPECT_EQ(Returned("f", 11), entry->argument(1));
}

TEST_F(FoldConstantsTest, IdentitiesThatGiveConstants) {
  ASSERT_TRUE(Fold(R"(
func.func @f(%x: i64) -> (i64, i64, i64, i64, i64, i1, i1, i1) {
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %ones = arith.constant -1 : i64
  %0 = arith.muli %x, %zero : i64
  %1 = arith.subi %x, %x : i64
  %2 = arith.xori %x, %x : i64
  %3 = arith.ori %x, %ones : i64
  %4 = arith.remui %x, %one : i64
  %5 = arith.cmpi eq, %x, %x : i64
  %6 = arith.cmpi slt, %x, %x : i64
  %7 = arith.cmpi uge, %x, %x : i64
  return %0, %1, %2, %3, %4, %5, %6, %7 : i64, i64, i64, i64, i64, i1, i1, i1
})"));
  std::vector<int64_t> expected = {0, 0, 0, -1, 0, 1, 0, 1};
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(ReturnedInt("f", i), expected[i]) << i;
  EXPECT_EQ(CountOps(Func("f"), OpKind::kCmpI), 0u);
}

TEST_F(FoldConstantsTest, ShiftByTheWidthOfANarrowTypeIsNotAnIdentity) {
  // i8 amounts are taken modulo 32 (the register), so 8 shifts everything out.
  ASSERT_TRUE(Fold(R"(
func.func @f(%x: i8) -> (i8, i8) {
  %eight = arith.constant 8 : i8
  %zero = arith.constant 0 : i8
  %0 = arith.shli %x, %eight : i8
  %1 = arith.shli %zero, %x : i8
  return %0, %1 : i8, i8
})"));
  EXPECT_EQ(CountOps(Func("f"), OpKind::kShLI), 1u);
  EXPECT_EQ(ReturnedInt("f", 1), 0);
}

TEST_F(FoldConstantsTest, SelectIdentities) {
  ASSERT_TRUE(Fold(R"(
func.func @f(%c: i1, %x: f32, %y: f32) -> (f32, f32, f32) {
  %t = arith.constant true
  %f = arith.constant false
  %0 = arith.select %t, %x, %y : f32
  %1 = arith.select %f, %x, %y : f32
  %2 = arith.select %c, %y, %y : f32
  return %0, %1, %2 : f32, f32, f32
})"));
  Block* entry = Body(Func("f"))->front();
  EXPECT_EQ(OpNames(entry), "func.return");
  EXPECT_EQ(Returned("f", 0), entry->argument(1));
  EXPECT_EQ(Returned("f", 1), entry->argument(2));
  EXPECT_EQ(Returned("f", 2), entry->argument(2));
}

TEST_F(FoldConstantsTest, NoFloatIdentities) {
  // x + 0.0 is not x for x = -0.0; x * 1.0 would quiet a signalling NaN.
  ASSERT_TRUE(Fold(R"(
func.func @f(%x: f32) -> (f32, f32) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %0 = arith.addf %x, %zero : f32
  %1 = arith.mulf %x, %one : f32
  return %0, %1 : f32, f32
})"));
  EXPECT_EQ(CountOps(Func("f"), OpKind::kAddF), 1u);
  EXPECT_EQ(CountOps(Func("f"), OpKind::kMulF), 1u);
}

TEST_F(FoldConstantsTest, FoldsInsideScfRegions) {
  ASSERT_TRUE(Fold(R"(
func.func @f(%n: index) -> i32 {
  %lb = arith.constant 0 : index
  %st = arith.constant 1 : index
  %init = arith.constant 0 : i32
  %r = scf.for %i = %lb to %n step %st iter_args(%acc = %init) -> (i32) {
    %a = arith.constant 6 : i32
    %b = arith.constant 7 : i32
    %p = arith.muli %a, %b : i32
    %s = arith.addi %acc, %p : i32
    scf.yield %s : i32
  }
  return %r : i32
})"));
  Operation* loop = nullptr;
  Walk(Func("f"), [&](Operation* op) {
    if (op->kind() == OpKind::kFor) loop = op;
  });
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(OpNames(loop->region(0)->front()), "arith.addi,scf.yield");
  EXPECT_EQ(ConstantOf(loop->region(0)->front()->operations()[0]->operands[1])->integer_value, 42);
}

TEST_F(FoldConstantsTest, ReachesAFixedPointAcrossBlockOrder) {
  // ^late is listed before ^early but runs after it: %d's operand is folded
  // only after %c is, which the walk meets later.
  ASSERT_TRUE(Fold(R"(
func.func @f() -> i32 {
  %two = arith.constant 2 : i32
  cf.br ^early
^late:
  %d = arith.muli %c, %two : i32
  return %d : i32
^early:
  %c = arith.addi %two, %two : i32
  cf.br ^late
})"));
  EXPECT_EQ(ReturnedInt("f"), 8);
  EXPECT_EQ(CountOps(Func("f"), OpKind::kMulI), 0u);
  EXPECT_EQ(CountOps(Func("f"), OpKind::kAddI), 0u);
}

TEST_F(FoldConstantsTest, LeavesCallsAndDeclarationsAlone) {
  ASSERT_TRUE(Fold(R"(
func.func private @ext(i32) -> i32
func.func @f() -> i32 {
  %a = arith.constant 1 : i32
  %r = func.call @ext(%a) : (i32) -> i32
  return %r : i32
})"));
  EXPECT_EQ(OpNames(Body(Func("f"))->front()), "arith.constant,func.call,func.return");
  EXPECT_TRUE(Body(Func("ext"))->empty());
}

}  // namespace
}  // namespace kiln::compiler::testing
