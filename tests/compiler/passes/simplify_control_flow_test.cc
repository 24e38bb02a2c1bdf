// SimplifyControlFlow: constant branches, identical destinations, switch on a
// constant, block merging, forwarded returns (the scf.if-into-return case),
// unreachable blocks, locations.
#include "tests/compiler/codegen/codegen_test_util.h"
#include "tests/compiler/passes/test_util.h"

namespace kiln::compiler::testing {
namespace {

class SimplifyTest : public PassTest {
 protected:
  // Parses, verifies, simplifies and verifies again.
  Operation* Simplify(std::string_view text) {
    Operation* module = ParseValid(text);
    if (!module) return nullptr;
    SimplifyControlFlow(module);
    Status status = VerifyModule(module, diagnostics_);
    EXPECT_TRUE(status.ok()) << status.message();
    return module;
  }
  // The whole pipeline up to SimplifyControlFlow.
  Operation* LowerAndSimplify(std::string_view text) {
    Operation* module = ParseValid(text);
    if (!module) return nullptr;
    Status status = LowerStructuredControlFlow(module, diagnostics_);
    EXPECT_TRUE(status.ok()) << status.message();
    SimplifyControlFlow(module);
    status = VerifyModule(module, diagnostics_);
    EXPECT_TRUE(status.ok()) << status.message();
    return module;
  }
};

TEST_F(SimplifyTest, CondBrOnTrueConstant) {
  ASSERT_TRUE(Simplify(R"(
func.func @f(%x: i32, %y: i32) -> i32 {
  %t = arith.constant true
  cf.cond_br %t, ^a(%x : i32), ^b
^a(%v: i32):
  return %v : i32
^b:
  return %y : i32
})"));
  // cond_br → br ^a(%x); ^b unreachable; ^a merged into the entry.
  Region* body = Body(Func("f"));
  ASSERT_EQ(body->num_blocks(), 1u);
  EXPECT_EQ(OpNames(body->front()), "arith.constant,func.return");
  EXPECT_EQ(body->front()->terminator()->operands[0], body->front()->argument(0));
}

TEST_F(SimplifyTest, CondBrOnFalseConstantKeepsLocation) {
  ASSERT_TRUE(Simplify(R"(
func.func @f(%x: i32) -> i32 {
  %f = arith.constant false
  cf.cond_br %f, ^a, ^b
^a:
  return %x : i32
^b:
  %y = arith.addi %x, %x : i32
  cf.br ^a
})"));
  // ^entry → br ^b: ^b merges in, its br ^a (now ^a's only predecessor) too.
  Region* body = Body(Func("f"));
  ASSERT_EQ(body->num_blocks(), 1u);
  EXPECT_EQ(OpNames(body->front()), "arith.constant,arith.addi,func.return");
}

TEST_F(SimplifyTest, RewrittenBranchTakesTheCondBrLocation) {
  ASSERT_TRUE(Simplify(R"(
func.func @f(%x: i32) -> i32 {
  %t = arith.constant true
  cf.cond_br %t, ^a, ^a
^a:
  %y = arith.addi %x, %x : i32
  cf.br ^loop
^loop:
  cf.br ^loop
})"));
  // ^a has one predecessor edge after the rewrite and merges into the entry;
  // ^loop branches to itself and stays.
  Region* body = Body(Func("f"));
  ASSERT_EQ(body->num_blocks(), 2u);
  EXPECT_EQ(OpNames(body->front()), "arith.constant,arith.addi,cf.br");
  EXPECT_EQ(body->front()->terminator()->loc.line, 7u);
}

TEST_F(SimplifyTest, CondBrOnComparisonOfConstants) {
  // The guard of a lowered scf.for with constant bounds.
  ASSERT_TRUE(Simplify(R"(
func.func @f(%x: i32) -> i32 {
  %a = arith.constant 0 : i32
  %b = arith.constant 8 : i32
  %c = arith.cmpi slt, %a, %b : i32
  cf.cond_br %c, ^yes, ^no
^yes:
  return %x : i32
^no:
  return %a : i32
})"));
  Region* body = Body(Func("f"));
  ASSERT_EQ(body->num_blocks(), 1u);
  EXPECT_EQ(body->front()->terminator()->operands[0], body->front()->argument(0));
}

TEST_F(SimplifyTest, CondBrWithIdenticalDestinations) {
  ASSERT_TRUE(Simplify(R"(
func.func @f(%c: i1, %x: i32) -> i32 {
  cf.cond_br %c, ^a(%x : i32), ^a(%x : i32)
^a(%v: i32):
  return %v : i32
})"));
  Region* body = Body(Func("f"));
  ASSERT_EQ(body->num_blocks(), 1u);
  EXPECT_EQ(OpNames(body->front()), "func.return");
}

TEST_F(SimplifyTest, CondBrWithDifferentArgumentsStays) {
  ASSERT_TRUE(Simplify(R"(
func.func @f(%c: i1, %x: i32, %y: i32) -> i32 {
  cf.cond_br %c, ^a(%x : i32), ^a(%y : i32)
^a(%v: i32):
  %w = arith.addi %v, %v : i32
  return %w : i32
})"));
  EXPECT_EQ(Body(Func("f"))->num_blocks(), 2u);
  EXPECT_EQ(Body(Func("f"))->front()->terminator()->kind(), OpKind::kCondBr);
}

TEST_F(SimplifyTest, SwitchOnConstant) {
  ASSERT_TRUE(Simplify(R"(
func.func @f(%x: i32) -> (i32, i32) {
  %k = arith.constant 5 : i32
  %d = arith.constant 100 : i32
  "cf.switch"(%k) [^default, ^four, ^five] {case_values = array<i32: 4, 5>} : (i32) -> ()
^default:
  return %d, %d : i32, i32
^four:
  return %x, %x : i32, i32
^five:
  %y = arith.muli %x, %x : i32
  return %y, %k : i32, i32
})"));
  Region* body = Body(Func("f"));
  ASSERT_EQ(body->num_blocks(), 1u);
  EXPECT_EQ(OpNames(body->front()), "arith.constant,arith.constant,arith.muli,func.return");
}

TEST_F(SimplifyTest, SwitchOnConstantTakesTheDefault) {
  ASSERT_TRUE(Simplify(R"(
func.func @f(%x: i32) -> i32 {
  %k = arith.constant 9 : i32
  "cf.switch"(%k) [^default, ^four] {case_values = array<i32: 4>} : (i32) -> ()
^default:
  return %k : i32
^four:
  return %x : i32
})"));
  Region* body = Body(Func("f"));
  ASSERT_EQ(body->num_blocks(), 1u);
  EXPECT_EQ(ConstantOf(body->front()->terminator()->operands[0])->integer_value, 9);
}

TEST_F(SimplifyTest, MergesChainsAndReplacesBlockArguments) {
  ASSERT_TRUE(Simplify(R"(
func.func @f(%x: i32) -> i32 {
  %a = arith.addi %x, %x : i32
  cf.br ^b(%a : i32)
^b(%p: i32):
  %m = arith.muli %p, %x : i32
  cf.br ^c(%m, %p : i32, i32)
^c(%q: i32, %r: i32):
  %s = arith.subi %q, %r : i32
  return %s : i32
})"));
  Region* body = Body(Func("f"));
  ASSERT_EQ(body->num_blocks(), 1u);
  Block* entry = body->front();
  ASSERT_EQ(OpNames(entry), "arith.addi,arith.muli,arith.subi,func.return");
  Value* a = entry->operations()[0]->result(0);
  Value* m = entry->operations()[1]->result(0);
  EXPECT_EQ(entry->operations()[1]->operands, (std::vector<Value*>{a, entry->argument(0)}));
  EXPECT_EQ(entry->operations()[2]->operands, (std::vector<Value*>{m, a}));
}

TEST_F(SimplifyTest, DoesNotMergeBlocksWithSeveralPredecessors) {
  ASSERT_TRUE(Simplify(R"(
func.func @f(%c: i1, %x: i32) -> i32 {
  cf.cond_br %c, ^a, ^b
^a:
  cf.br ^join(%x : i32)
^b:
  %y = arith.addi %x, %x : i32
  cf.br ^join(%y : i32)
^join(%v: i32):
  %w = arith.muli %v, %v : i32
  return %w : i32
})"));
  EXPECT_EQ(Body(Func("f"))->num_blocks(), 4u);
}

TEST_F(SimplifyTest, LoopsAreKept) {
  ASSERT_TRUE(Simplify(R"(
func.func @f(%n: i32) -> i32 {
  %z = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  cf.br ^loop(%z : i32)
^loop(%i: i32):
  %i1 = arith.addi %i, %one : i32
  %more = arith.cmpi slt, %i1, %n : i32
  cf.cond_br %more, ^loop(%i1 : i32), ^exit
^exit:
  return %i1 : i32
})"));
  // ^loop has two predecessors, and ^exit's only one ends in a cond_br, not
  // a cf.br: nothing merges.
  EXPECT_EQ(Body(Func("f"))->num_blocks(), 3u);
}

TEST_F(SimplifyTest, RemovesUnreachableBlocks) {
  ASSERT_TRUE(Simplify(R"(
func.func @f(%x: i32) -> i32 {
  return %x : i32
^dead1:
  %y = arith.addi %x, %x : i32
  cf.br ^dead2(%y : i32)
^dead2(%z: i32):
  cf.br ^dead1
})"));
  EXPECT_EQ(Body(Func("f"))->num_blocks(), 1u);
}

TEST_F(SimplifyTest, IfYieldingIntoReturnReturnsOnEachPath) {
  ASSERT_TRUE(LowerAndSimplify(R"(
func.func @f(%c: i1, %a: i32, %b: i32) -> (i32, i32) {
  %k = arith.addi %a, %b : i32
  %r = scf.if %c -> (i32) {
    %x = arith.muli %a, %b : i32
    scf.yield %x : i32
  } else {
    scf.yield %b : i32
  }
  return %r, %k : i32, i32
})"));
  Region* body = Body(Func("f"));
  ASSERT_EQ(body->num_blocks(), 3u);
  Block *entry = body->block(0), *then = body->block(1), *els = body->block(2);
  EXPECT_EQ(OpNames(entry), "arith.addi,cf.cond_br");
  Value* k = entry->operations()[0]->result(0);
  ASSERT_EQ(OpNames(then), "arith.muli,func.return");
  EXPECT_EQ(then->terminator()->operands,
            (std::vector<Value*>{then->operations()[0]->result(0), k}));
  ASSERT_EQ(OpNames(els), "func.return");
  EXPECT_EQ(els->terminator()->operands, (std::vector<Value*>{entry->argument(2), k}));
  // The forwarded returns keep the return's location.
  EXPECT_EQ(then->terminator()->loc.line, 10u);
  EXPECT_EQ(els->terminator()->loc.line, 10u);
}

TEST_F(SimplifyTest, ForwardsReturnsOfArgumentsAndDominatingValues) {
  ASSERT_TRUE(Simplify(R"(
func.func @f(%c: i1, %x: i32) -> i32 {
  cf.cond_br %c, ^a, ^b
^a:
  %y = arith.addi %x, %x : i32
  cf.br ^ret
^b:
  cf.br ^ret
^ret:
  return %x : i32
})"));
  // %x is a function argument: both branches become returns, ^ret goes.
  Region* body = Body(Func("f"));
  ASSERT_EQ(body->num_blocks(), 3u);
  EXPECT_EQ(OpNames(body->block(1)), "arith.addi,func.return");
  EXPECT_EQ(OpNames(body->block(2)), "func.return");

  Operation* module = Parse(R"(
func.func @g(%c: i1, %x: i32) -> (i32, i32) {
  %z = arith.muli %x, %x : i32
  cf.cond_br %c, ^mid, ^other
^mid:
  cf.br ^ret(%x : i32)
^other:
  cf.br ^ret(%z : i32)
^ret(%v: i32):
  return %v, %z : i32, i32
})");
  ASSERT_NE(module, nullptr);
  SimplifyControlFlow(module);
  ASSERT_TRUE(VerifyModule(module, diagnostics_).ok()) << diagnostics_.Render();
  // Each branch becomes `return <its argument>, %z` (%z, of the entry block,
  // dominates both branches).
  Region* g = Body(Func("g"));
  ASSERT_EQ(g->num_blocks(), 3u);
  Value* z = g->front()->operations()[0]->result(0);
  EXPECT_EQ(g->block(1)->terminator()->operands, (std::vector<Value*>{g->front()->argument(1), z}));
  EXPECT_EQ(g->block(2)->terminator()->operands, (std::vector<Value*>{z, z}));
}

TEST_F(SimplifyTest, BranchToABlockDoingMoreThanReturnIsKept) {
  ASSERT_TRUE(Simplify(R"(
func.func @f(%c: i1, %x: i32) -> i32 {
  cf.cond_br %c, ^a, ^b
^a:
  cf.br ^ret(%x : i32)
^b:
  cf.br ^ret(%x : i32)
^ret(%v: i32):
  %w = arith.addi %v, %v : i32
  return %w : i32
})"));
  Region* body = Body(Func("f"));
  ASSERT_EQ(body->num_blocks(), 4u);
  EXPECT_EQ(body->block(1)->terminator()->kind(), OpKind::kBr);
  EXPECT_EQ(body->block(2)->terminator()->kind(), OpKind::kBr);
}

TEST_F(SimplifyTest, SimplifiesScfRegionsBeforeLowering) {
  ASSERT_TRUE(Simplify(R"(
func.func @f(%c: i1, %x: i32) -> i32 {
  %r = scf.if %c -> (i32) {
    %t = arith.constant true
    cf.cond_br %t, ^a, ^b
  ^a:
    scf.yield %x : i32
  ^b:
    %y = arith.addi %x, %x : i32
    scf.yield %y : i32
  } else {
    scf.yield %x : i32
  }
  return %r : i32
})"));
  Operation* scf_if = Body(Func("f"))->front()->operations()[0].get();
  ASSERT_EQ(scf_if->kind(), OpKind::kIf);
  ASSERT_EQ(scf_if->region(0)->num_blocks(), 1u);
  EXPECT_EQ(OpNames(scf_if->region(0)->front()), "arith.constant,scf.yield");
}

TEST_F(SimplifyTest, FullPipelineRunsOnTheVm) {
  Compiled c = Compiled::FromText(R"(
func.func @pick(%c: i1, %a: i32, %b: i32) -> i32 {
  %r = scf.if %c -> (i32) {
    %x = arith.muli %a, %b : i32
    scf.yield %x : i32
  } else {
    %y = arith.subi %a, %b : i32
    scf.yield %y : i32
  }
  return %r : i32
}
func.func @classify(%x: i32) -> i32 {
  %z = arith.constant 0 : i32
  %neg = arith.cmpi slt, %x, %z : i32
  cf.cond_br %neg, ^n, ^p
^n:
  %m1 = arith.constant -1 : i32
  cf.br ^done(%m1 : i32)
^p:
  %zero = arith.cmpi eq, %x, %z : i32
  %one = arith.constant 1 : i32
  %s = arith.select %zero, %z, %one : i32
  cf.br ^done(%s : i32)
^done(%v: i32):
  return %v : i32
})");
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ(
      CallOne(c, "pick", {vm::Variant::I32(1), vm::Variant::I32(6), vm::Variant::I32(7)}).i32(),
      42);
  EXPECT_EQ(
      CallOne(c, "pick", {vm::Variant::I32(0), vm::Variant::I32(6), vm::Variant::I32(7)}).i32(),
      -1);
  EXPECT_EQ(CallOne(c, "classify", {vm::Variant::I32(-5)}).i32(), -1);
  EXPECT_EQ(CallOne(c, "classify", {vm::Variant::I32(0)}).i32(), 0);
  EXPECT_EQ(CallOne(c, "classify", {vm::Variant::I32(9)}).i32(), 1);
}

}  // namespace
}  // namespace kiln::compiler::testing
