// DominanceInfo over a region's CFG: straight lines, diamonds, loops,
// unreachable blocks, successors listed twice.
#include "compiler/passes/dominance.h"

#include "tests/compiler/passes/test_util.h"

namespace kiln::compiler::testing {
namespace {

class DominanceTest : public PassTest {};

TEST_F(DominanceTest, DiamondLoopAndUnreachable) {
  Operation* module = Parse(R"(
func.func @f(%c: i1) {
  cf.cond_br %c, ^left, ^right
^left:
  cf.br ^join
^right:
  cf.br ^join
^join:
  cf.cond_br %c, ^loop, ^exit
^loop:
  cf.cond_br %c, ^loop, ^exit
^exit:
  return
^dead:
  cf.br ^join
})");
  ASSERT_NE(module, nullptr);
  Region* r = Body(Func("f"));
  Block *entry = r->block(0), *left = r->block(1), *right = r->block(2), *join = r->block(3),
        *loop = r->block(4), *exit = r->block(5), *dead = r->block(6);
  DominanceInfo dom(*r);
  for (Block* b : {left, right, join, loop, exit}) {
    EXPECT_TRUE(dom.Dominates(entry, b));
    EXPECT_TRUE(dom.Dominates(b, b));
    EXPECT_FALSE(dom.Dominates(b, entry));
  }
  EXPECT_FALSE(dom.Dominates(left, join));
  EXPECT_FALSE(dom.Dominates(right, join));
  EXPECT_TRUE(dom.Dominates(join, exit));
  EXPECT_TRUE(dom.Dominates(join, loop));
  EXPECT_FALSE(dom.Dominates(loop, exit));
  EXPECT_EQ(dom.ImmediateDominator(join), entry);
  EXPECT_EQ(dom.ImmediateDominator(exit), join);
  EXPECT_EQ(dom.ImmediateDominator(entry), nullptr);
  EXPECT_FALSE(dom.IsReachable(dead));
  EXPECT_FALSE(dom.Dominates(dead, join));
  EXPECT_FALSE(dom.Dominates(entry, dead));
  EXPECT_EQ(dom.reverse_post_order().size(), 6u);
  EXPECT_EQ(dom.reverse_post_order().front(), entry);
  EXPECT_EQ(DominanceInfo::Successors(loop), (std::vector<Block*>{loop, exit}));
}

TEST_F(DominanceTest, LongChainIsIterative) {
  // Thousands of blocks: the DFS and tree walk use explicit stacks.
  std::string text = "func.func @f() {\n  cf.br ^b0\n";
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    text += "^b" + std::to_string(i) + ":\n  cf.br ^b" + std::to_string(i + 1) + "\n";
  }
  text += "^b" + std::to_string(n) + ":\n  return\n}\n";
  Operation* module = Parse(text);
  ASSERT_NE(module, nullptr);
  Region* r = Body(Func("f"));
  DominanceInfo dom(*r);
  EXPECT_TRUE(dom.Dominates(r->block(1), r->block(n + 1)));
  EXPECT_FALSE(dom.Dominates(r->block(n + 1), r->block(1)));
  EXPECT_TRUE(VerifyModule(module, diagnostics_).ok());
}

}  // namespace
}  // namespace kiln::compiler::testing
