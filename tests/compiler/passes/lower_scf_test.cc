// LowerStructuredControlFlow: the exact block shapes of scf.if/for/while (the
// contract with codegen), locations, nested structures, scf inside cf-based
// functions, multi-block regions; lowered programs verify and compute what
// they computed before (run on the VM).
#include "tests/compiler/codegen/codegen_test_util.h"
#include "tests/compiler/passes/test_util.h"

namespace kiln::compiler::testing {
namespace {

class LowerScfTest : public PassTest {
 protected:
  // Parses, verifies, lowers, and verifies the result.
  Operation* Lower(std::string_view text) {
    Operation* module = ParseValid(text);
    if (!module) return nullptr;
    Status status = LowerStructuredControlFlow(module, diagnostics_);
    EXPECT_TRUE(status.ok()) << status.message();
    EXPECT_EQ(CountOps(module, OpKind::kIf) + CountOps(module, OpKind::kFor) +
                  CountOps(module, OpKind::kWhile) + CountOps(module, OpKind::kYield) +
                  CountOps(module, OpKind::kCondition),
              0u);
    status = VerifyModule(module, diagnostics_);
    EXPECT_TRUE(status.ok()) << status.message();
    return module;
  }
  Block* BlockOf(std::string_view f, size_t i) { return Body(Func(f))->block(i); }
};

int64_t Predicate(const Operation* cmp) { return cmp->attribute("predicate")->integer_value; }

TEST_F(LowerScfTest, IfElseWithResult) {
  ASSERT_TRUE(Lower(R"(
func.func @f(%c: i1, %a: i32, %b: i32) -> i32 {
  %r = scf.if %c -> (i32) {
    %x = arith.addi %a, %b : i32
    scf.yield %x : i32
  } else {
    scf.yield %b : i32
  }
  %m = arith.muli %r, %r : i32
  return %m : i32
})"));
  Region* body = Body(Func("f"));
  ASSERT_EQ(body->num_blocks(), 4u);
  Block *entry = body->block(0), *then = body->block(1), *els = body->block(2),
        *merge = body->block(3);
  // ^entry: cf.cond_br %c, ^then, ^else
  ASSERT_EQ(OpNames(entry), "cf.cond_br");
  Operation* br = entry->terminator();
  EXPECT_EQ(br->operands[0], entry->argument(0));
  EXPECT_EQ(br->successors[0].block, then);
  EXPECT_TRUE(br->successors[0].arguments.empty());
  EXPECT_EQ(br->successors[1].block, els);
  EXPECT_TRUE(br->successors[1].arguments.empty());
  EXPECT_EQ(br->loc.line, 3u);
  // ^then: %x = addi; cf.br ^merge(%x)
  ASSERT_EQ(OpNames(then), "arith.addi,cf.br");
  EXPECT_EQ(then->terminator()->successors[0].block, merge);
  EXPECT_EQ(then->terminator()->successors[0].arguments,
            std::vector<Value*>{then->operations()[0]->result(0)});
  EXPECT_EQ(then->terminator()->loc.line, 5u);
  // ^else: cf.br ^merge(%b)
  ASSERT_EQ(OpNames(els), "cf.br");
  EXPECT_EQ(els->terminator()->successors[0].block, merge);
  EXPECT_EQ(els->terminator()->successors[0].arguments, std::vector<Value*>{entry->argument(2)});
  EXPECT_EQ(els->terminator()->loc.line, 7u);
  // ^merge(%r: i32): the ops after the if, using the argument.
  ASSERT_EQ(merge->num_arguments(), 1u);
  EXPECT_EQ(merge->argument(0)->type, Type::I32());
  EXPECT_EQ(merge->argument(0)->name, "r");
  ASSERT_EQ(OpNames(merge), "arith.muli,func.return");
  EXPECT_EQ(merge->operations()[0]->operands,
            (std::vector<Value*>{merge->argument(0), merge->argument(0)}));
}

TEST_F(LowerScfTest, IfWithoutElseBranchesToMerge) {
  ASSERT_TRUE(Lower(R"(
util.global private mutable @g : i32
func.func @f(%c: i1, %a: i32) {
  scf.if %c {
    util.global.store %a, @g : i32
  }
  return
})"));
  Region* body = Body(Func("f"));
  ASSERT_EQ(body->num_blocks(), 3u);
  Operation* br = body->block(0)->terminator();
  ASSERT_EQ(br->kind(), OpKind::kCondBr);
  EXPECT_EQ(br->successors[0].block, body->block(1));
  EXPECT_EQ(br->successors[1].block, body->block(2));
  EXPECT_EQ(OpNames(body->block(1)), "util.global.store,cf.br");
  EXPECT_EQ(body->block(1)->terminator()->successors[0].block, body->block(2));
  EXPECT_EQ(body->block(2)->num_arguments(), 0u);
  EXPECT_EQ(OpNames(body->block(2)), "func.return");
}

TEST_F(LowerScfTest, ForIsARotatedLoop) {
  ASSERT_TRUE(Lower(R"(
func.func @sum(%lb: index, %ub: index, %st: index, %init: i32) -> i32 {
  %r = scf.for %i = %lb to %ub step %st iter_args(%acc = %init) -> (i32) {
    %v = arith.index_cast %i : index to i32
    %s = arith.addi %acc, %v : i32
    scf.yield %s : i32
  }
  return %r : i32
})"));
  Region* region = Body(Func("sum"));
  ASSERT_EQ(region->num_blocks(), 3u);
  Block *pre = region->block(0), *body = region->block(1), *exit = region->block(2);
  Value *lb = pre->argument(0), *ub = pre->argument(1), *st = pre->argument(2),
        *init = pre->argument(3);

  // ^pre: %entered = cmpi slt, %lb, %ub; cond_br %entered, ^body(%lb, %init), ^exit(%init)
  ASSERT_EQ(OpNames(pre), "arith.cmpi,cf.cond_br");
  Operation* entered = pre->operations()[0].get();
  EXPECT_EQ(Predicate(entered), static_cast<int64_t>(CmpIPredicate::kSlt));
  EXPECT_EQ(entered->operands, (std::vector<Value*>{lb, ub}));
  Operation* guard = pre->terminator();
  EXPECT_EQ(guard->operands[0], entered->result(0));
  EXPECT_EQ(guard->successors[0].block, body);
  EXPECT_EQ(guard->successors[0].arguments, (std::vector<Value*>{lb, init}));
  EXPECT_EQ(guard->successors[1].block, exit);
  EXPECT_EQ(guard->successors[1].arguments, (std::vector<Value*>{init}));
  EXPECT_EQ(entered->loc.line, 3u);
  EXPECT_EQ(guard->loc.line, 3u);

  // ^body(%i: index, %acc: i32): body ops, then the latch.
  ASSERT_EQ(body->num_arguments(), 2u);
  EXPECT_EQ(body->argument(0)->type, Type::Index());
  EXPECT_EQ(body->argument(1)->type, Type::I32());
  ASSERT_EQ(OpNames(body), "arith.index_cast,arith.addi,arith.addi,arith.cmpi,cf.cond_br");
  Value* s = body->operations()[1]->result(0);
  Operation* next = body->operations()[2].get();
  EXPECT_EQ(next->operands, (std::vector<Value*>{body->argument(0), st}));
  EXPECT_EQ(next->result(0)->type, Type::Index());
  Operation* more = body->operations()[3].get();
  EXPECT_EQ(Predicate(more), static_cast<int64_t>(CmpIPredicate::kSlt));
  EXPECT_EQ(more->operands, (std::vector<Value*>{next->result(0), ub}));
  Operation* latch = body->terminator();
  EXPECT_EQ(latch->operands[0], more->result(0));
  EXPECT_EQ(latch->successors[0].block, body);
  EXPECT_EQ(latch->successors[0].arguments, (std::vector<Value*>{next->result(0), s}));
  EXPECT_EQ(latch->successors[1].block, exit);
  EXPECT_EQ(latch->successors[1].arguments, (std::vector<Value*>{s}));
  for (size_t i = 2; i < 5; ++i) EXPECT_EQ(body->operations()[i]->loc.line, 6u);  // The yield.

  // ^exit(%r: i32): return %r
  ASSERT_EQ(exit->num_arguments(), 1u);
  ASSERT_EQ(OpNames(exit), "func.return");
  EXPECT_EQ(exit->terminator()->operands, (std::vector<Value*>{exit->argument(0)}));
}

TEST_F(LowerScfTest, ForOverI32WithoutIterArgs) {
  ASSERT_TRUE(Lower(R"(
func.func private @use(i32)
func.func @f(%n: i32) {
  %z = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  scf.for %i = %z to %n step %one : i32 {
    func.call @use(%i) : (i32) -> ()
  }
  return
})"));
  Region* region = Body(Func("f"));
  ASSERT_EQ(region->num_blocks(), 3u);
  Block* body = region->block(1);
  ASSERT_EQ(body->num_arguments(), 1u);
  EXPECT_EQ(body->argument(0)->type, Type::I32());
  EXPECT_EQ(OpNames(body), "func.call,arith.addi,arith.cmpi,cf.cond_br");
  EXPECT_EQ(body->terminator()->successors[0].arguments.size(), 1u);
  EXPECT_TRUE(body->terminator()->successors[1].arguments.empty());
  EXPECT_EQ(region->block(2)->num_arguments(), 0u);
}

TEST_F(LowerScfTest, UnsignedForComparesUnsigned) {
  ASSERT_TRUE(Lower(R"(
func.func @f(%lb: i32, %ub: i32, %st: i32) {
  "scf.for"(%lb, %ub, %st) ({
  ^bb0(%i: i32):
    scf.yield
  }) {unsignedCmp} : (i32, i32, i32) -> ()
  return
})"));
  Region* region = Body(Func("f"));
  EXPECT_EQ(Predicate(region->block(0)->operations()[0].get()),
            static_cast<int64_t>(CmpIPredicate::kUlt));
  EXPECT_EQ(Predicate(region->block(1)->operations()[1].get()),
            static_cast<int64_t>(CmpIPredicate::kUlt));
}

TEST_F(LowerScfTest, While) {
  ASSERT_TRUE(Lower(R"(
func.func @w(%n: i32) -> i32 {
  %z = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %r = scf.while (%i = %z) : (i32) -> i32 {
    %c = arith.cmpi slt, %i, %n : i32
    scf.condition(%c) %i : i32
  } do {
  ^bb0(%j: i32):
    %k = arith.addi %j, %one : i32
    scf.yield %k : i32
  }
  return %r : i32
})"));
  Region* region = Body(Func("w"));
  ASSERT_EQ(region->num_blocks(), 4u);
  Block *entry = region->block(0), *before = region->block(1), *after = region->block(2),
        *exit = region->block(3);
  // ^entry: cf.br ^before(%z)
  ASSERT_EQ(OpNames(entry), "arith.constant,arith.constant,cf.br");
  EXPECT_EQ(entry->terminator()->successors[0].block, before);
  EXPECT_EQ(entry->terminator()->successors[0].arguments,
            std::vector<Value*>{entry->operations()[0]->result(0)});
  EXPECT_EQ(entry->terminator()->loc.line, 5u);
  // ^before(%i): cmpi; cond_br %c, ^after(%i), ^exit(%i)
  ASSERT_EQ(before->num_arguments(), 1u);
  ASSERT_EQ(OpNames(before), "arith.cmpi,cf.cond_br");
  Operation* cond = before->terminator();
  EXPECT_EQ(cond->operands[0], before->operations()[0]->result(0));
  EXPECT_EQ(cond->successors[0].block, after);
  EXPECT_EQ(cond->successors[0].arguments, std::vector<Value*>{before->argument(0)});
  EXPECT_EQ(cond->successors[1].block, exit);
  EXPECT_EQ(cond->successors[1].arguments, std::vector<Value*>{before->argument(0)});
  EXPECT_EQ(cond->loc.line, 7u);
  // ^after(%j): addi; cf.br ^before(%k)
  ASSERT_EQ(after->num_arguments(), 1u);
  ASSERT_EQ(OpNames(after), "arith.addi,cf.br");
  EXPECT_EQ(after->terminator()->successors[0].block, before);
  EXPECT_EQ(after->terminator()->successors[0].arguments,
            std::vector<Value*>{after->operations()[0]->result(0)});
  EXPECT_EQ(after->terminator()->loc.line, 11u);
  // ^exit(%r): return %r
  ASSERT_EQ(exit->num_arguments(), 1u);
  EXPECT_EQ(exit->terminator()->operands, std::vector<Value*>{exit->argument(0)});
}

TEST_F(LowerScfTest, DebugLocationsComeFromTheScfOps) {
  ASSERT_TRUE(Lower(R"(
func.func @f(%c: i1, %a: i32) -> i32 {
  %r = scf.if %c -> (i32) {
    scf.yield %a : i32 loc("orig.py":10:1)
  } else {
    scf.yield %a : i32 loc("orig.py":20:1)
  } loc("orig.py":5:1)
  return %r : i32
})"));
  Region* body = Body(Func("f"));
  EXPECT_EQ(body->block(0)->terminator()->debug_loc.line, 5u);
  EXPECT_EQ(body->block(0)->terminator()->loc.line, 3u);
  EXPECT_EQ(body->block(1)->terminator()->debug_loc.line, 10u);
  EXPECT_EQ(body->block(2)->terminator()->debug_loc.line, 20u);
}

TEST_F(LowerScfTest, LatchInsideANestedIfsMergeBlock) {
  // The for's yield comes after an inner scf.if: it ends up in the if's
  // ^merge block, which then carries the latch back to ^body.
  ASSERT_TRUE(Lower(R"(
func.func @f(%n: index, %c: i1) -> i32 {
  %lb = arith.constant 0 : index
  %st = arith.constant 1 : index
  %z = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %r = scf.for %i = %lb to %n step %st iter_args(%acc = %z) -> (i32) {
    %t = scf.if %c -> (i32) {
      %u = arith.addi %acc, %one : i32
      scf.yield %u : i32
    } else {
      scf.yield %acc : i32
    }
    scf.yield %t : i32
  }
  return %r : i32
})"));
  Region* region = Body(Func("f"));
  // pre, body (cond_br of the if), then, else, merge (latch), exit.
  ASSERT_EQ(region->num_blocks(), 6u);
  Block* body = region->block(1);
  Block* merge = region->block(4);
  EXPECT_EQ(OpNames(body), "cf.cond_br");
  EXPECT_EQ(OpNames(merge), "arith.addi,arith.cmpi,cf.cond_br");
  EXPECT_EQ(merge->terminator()->successors[0].block, body);
  EXPECT_EQ(merge->terminator()->successors[0].arguments[1], merge->argument(0));
  EXPECT_EQ(merge->terminator()->successors[1].block, region->block(5));
}

TEST_F(LowerScfTest, MultiBlockForBodyGetsOneLatchPerYield) {
  ASSERT_TRUE(Lower(R"(
func.func @f(%n: i32, %c: i1) -> i32 {
  %z = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %r = "scf.for"(%z, %n, %one, %z) ({
  ^bb0(%i: i32, %acc: i32):
    cf.cond_br %c, ^inc, ^keep
  ^inc:
    %u = arith.addi %acc, %one : i32
    scf.yield %u : i32
  ^keep:
    scf.yield %acc : i32
  }) : (i32, i32, i32, i32) -> i32
  return %r : i32
})"));
  Region* region = Body(Func("f"));
  ASSERT_EQ(region->num_blocks(), 5u);  // pre, body, inc, keep, exit
  Block* body = region->block(1);
  for (size_t b : {2, 3}) {
    Operation* latch = region->block(b)->terminator();
    ASSERT_EQ(latch->kind(), OpKind::kCondBr) << b;
    EXPECT_EQ(latch->successors[0].block, body);
    EXPECT_EQ(latch->successors[1].block, region->block(4));
    EXPECT_EQ(latch->successors[0].arguments.size(), 2u);
  }
}

TEST_F(LowerScfTest, ScfInsideACfFunction) {
  ASSERT_TRUE(Lower(R"(
func.func @f(%c: i1, %x: i32) -> i32 {
  cf.cond_br %c, ^a, ^b(%x : i32)
^a:
  %r = scf.if %c -> (i32) {
    scf.yield %x : i32
  } else {
    %y = arith.addi %x, %x : i32
    scf.yield %y : i32
  }
  cf.br ^b(%r : i32)
^b(%v: i32):
  return %v : i32
})"));
  Region* region = Body(Func("f"));
  // entry, ^a (cond_br of the if), then, else, merge (cf.br ^b), ^b.
  ASSERT_EQ(region->num_blocks(), 6u);
  EXPECT_EQ(OpNames(region->block(1)), "cf.cond_br");
  EXPECT_EQ(OpNames(region->block(4)), "cf.br");
  EXPECT_EQ(region->block(4)->terminator()->successors[0].block, region->block(5));
  EXPECT_EQ(region->block(4)->terminator()->successors[0].arguments[0],
            region->block(4)->argument(0));
}

TEST_F(LowerScfTest, MalformedScfIsReportedNotCrashed) {
  Operation* module = Parse(R"(
func.func @f(%c: i1) {
  "scf.if"(%c) ({
  }, {
  }) : (i1) -> ()
  return
})");
  ASSERT_NE(module, nullptr);
  Status status = LowerStructuredControlFlow(module, diagnostics_);
  EXPECT_FALSE(status.ok());
  EXPECT_EQ(FirstLine(),
            "test.mlir:3:3: error: 'scf.if' op cannot be lowered: malformed scf.if (run the "
            "verifier first)");
}

// --- Behaviour: the lowered programs compute what the structured ones mean ---

TEST_F(LowerScfTest, NestedLoopsRunOnTheVm) {
  // while i < n: if i is odd, acc += (sum of k for k in [0, i)) else acc -= 1.
  Compiled c = Compiled::FromText(R"(
func.func @f(%n: i32) -> i32 {
  %z = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %r:2 = scf.while (%i = %z, %acc = %z) : (i32, i32) -> (i32, i32) {
    %more = arith.cmpi slt, %i, %n : i32
    scf.condition(%more) %i, %acc : i32, i32
  } do {
  ^bb0(%j: i32, %a: i32):
    %bit = arith.andi %j, %one : i32
    %odd = arith.cmpi ne, %bit, %z : i32
    %next = scf.if %odd -> (i32) {
      %s = scf.for %k = %z to %j step %one iter_args(%t = %a) -> (i32) : i32 {
        %t2 = arith.addi %t, %k : i32
        scf.yield %t2 : i32
      }
      scf.yield %s : i32
    } else {
      %d = arith.subi %a, %one : i32
      scf.yield %d : i32
    }
    %j1 = arith.addi %j, %one : i32
    scf.yield %j1, %next : i32, i32
  }
  return %r#1 : i32
})");
  ASSERT_TRUE(c.ok()) << c.error();
  for (int32_t n : {0, 1, 2, 5, 10, 37}) {
    int32_t acc = 0;
    for (int32_t i = 0; i < n; ++i) {
      if (i & 1) {
        for (int32_t k = 0; k < i; ++k) acc += k;
      } else {
        acc -= 1;
      }
    }
    EXPECT_EQ(CallOne(c, "f", {vm::Variant::I32(n)}).i32(), acc) << n;
  }
}

TEST_F(LowerScfTest, ForLoopEdgeCasesRunOnTheVm) {
  // Empty ranges skip the body (the guard), steps overshooting the bound stop.
  Compiled c = Compiled::FromText(R"(
func.func @count(%lb: index, %ub: index, %st: index) -> i64 {
  %z = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %r = scf.for %i = %lb to %ub step %st iter_args(%n = %z) -> (i64) {
    %n1 = arith.addi %n, %one : i64
    scf.yield %n1 : i64
  }
  return %r : i64
})");
  ASSERT_TRUE(c.ok()) << c.error();
  auto count = [&](int64_t lb, int64_t ub, int64_t st) {
    return CallOne(c, "count", {vm::Variant::I64(lb), vm::Variant::I64(ub), vm::Variant::I64(st)})
        .i64();
  };
  EXPECT_EQ(count(0, 10, 1), 10);
  EXPECT_EQ(count(0, 10, 3), 4);
  EXPECT_EQ(count(5, 5, 1), 0);
  EXPECT_EQ(count(7, 3, 1), 0);
  EXPECT_EQ(count(-5, 5, 2), 5);
}

}  // namespace
}  // namespace kiln::compiler::testing
