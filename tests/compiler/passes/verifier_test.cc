// VerifyModule: each rule's message (the exact first rendered line), several
// errors at once, valid programs accepted, and malformed IR that only the
// builder (not the parser) can make handled without crashing.
#include "tests/compiler/passes/test_util.h"

namespace kiln::compiler::testing {
namespace {

class VerifierTest : public PassTest {
 protected:
  // Parses `text` and expects verification to fail with `first_line`.
  void ExpectError(std::string_view text, std::string_view first_line) {
    Operation* module = Parse(text);
    ASSERT_NE(module, nullptr);
    Status status = VerifyModule(module, diagnostics_);
    EXPECT_FALSE(status.ok());
    EXPECT_EQ(FirstLine(), first_line) << diagnostics_.Render();
  }
  Status Verify() { return VerifyModule(module_.get(), diagnostics_); }
};

// --- Op shapes ---

TEST_F(VerifierTest, OperandCount) {
  ExpectError(R"(
func.func @f(%a: i32) -> i32 {
  %0 = "arith.addi"(%a, %a, %a) : (i32, i32, i32) -> i32
  return %0 : i32
})",
              "test.mlir:3:3: error: 'arith.addi' op expected 2 operands, got 3");
}

TEST_F(VerifierTest, OperandCountSingular) {
  ExpectError(R"(
func.func @f(%a: i32, %b: i1) {
  "cf.assert"(%b, %b) {msg = "two"} : (i1, i1) -> ()
  return
})",
              "test.mlir:3:3: error: 'cf.assert' op expected 1 operand, got 2");
}

TEST_F(VerifierTest, ResultCount) {
  ExpectError(R"(
func.func @f(%a: i32) -> i32 {
  %0:2 = "arith.addi"(%a, %a) : (i32, i32) -> (i32, i32)
  return %0#0 : i32
})",
              "test.mlir:3:3: error: 'arith.addi' op expected 1 result, got 2");
}

TEST_F(VerifierTest, RegionCount) {
  ExpectError(R"(
func.func @f(%a: index) {
  "scf.for"(%a, %a, %a) : (index, index, index) -> ()
  return
})",
              "test.mlir:3:3: error: 'scf.for' op expected 1 region, got 0");
}

TEST_F(VerifierTest, IntegerOpOnFloat) {
  ExpectError(R"(
func.func @f(%x: f32) -> f32 {
  %0 = arith.addi %x, %x : f32
  return %0 : f32
})",
              "test.mlir:3:3: error: 'arith.addi' op operand #0 must be an integer or index, but "
              "got 'f32'");
}

TEST_F(VerifierTest, FloatOpOnInteger) {
  ExpectError(R"(
func.func @f(%a: i32) -> i32 {
  %0 = arith.mulf %a, %a : i32
  return %0 : i32
})",
              "test.mlir:3:3: error: 'arith.mulf' op operand #0 must be a float, but got 'i32'");
}

TEST_F(VerifierTest, MathOpOnInteger) {
  ExpectError(R"(
func.func @f(%a: i32) -> i32 {
  %0 = math.sqrt %a : i32
  return %0 : i32
})",
              "test.mlir:3:3: error: 'math.sqrt' op operand #0 must be a float, but got 'i32'");
}

TEST_F(VerifierTest, MixedOperandTypes) {
  ExpectError(R"(
func.func @f(%a: i32, %b: i64) -> i32 {
  %0 = "arith.subi"(%a, %b) : (i32, i64) -> i32
  return %0 : i32
})",
              "test.mlir:3:3: error: 'arith.subi' op requires the same type for all operands and "
              "results");
}

TEST_F(VerifierTest, ResultTypeDiffersFromOperands) {
  ExpectError(R"(
func.func @f(%a: i32) -> i64 {
  %0 = "arith.muli"(%a, %a) : (i32, i32) -> i64
  return %0 : i64
})",
              "test.mlir:3:3: error: 'arith.muli' op requires the same type for all operands and "
              "results");
}

TEST_F(VerifierTest, CmpIResultMustBeI1) {
  ExpectError(R"(
func.func @f(%a: i32) -> i32 {
  %0 = "arith.cmpi"(%a, %a) {predicate = 0 : i64} : (i32, i32) -> i32
  return %0 : i32
})",
              "test.mlir:3:3: error: 'arith.cmpi' op result #0 must be i1, but got 'i32'");
}

TEST_F(VerifierTest, CmpIPredicateOutOfRange) {
  ExpectError(R"(
func.func @f(%a: i32) -> i1 {
  %0 = "arith.cmpi"(%a, %a) {predicate = 12 : i64} : (i32, i32) -> i1
  return %0 : i1
})",
              "test.mlir:3:3: error: 'arith.cmpi' op invalid predicate 12 (expected 0..9)");
}

TEST_F(VerifierTest, CmpFPredicateOutOfRange) {
  ExpectError(R"(
func.func @f(%x: f32) -> i1 {
  %0 = "arith.cmpf"(%x, %x) {predicate = 16 : i64} : (f32, f32) -> i1
  return %0 : i1
})",
              "test.mlir:3:3: error: 'arith.cmpf' op invalid predicate 16 (expected 0..15)");
}

TEST_F(VerifierTest, CmpIMissingPredicate) {
  ExpectError(R"(
func.func @f(%a: i32) -> i1 {
  %0 = "arith.cmpi"(%a, %a) : (i32, i32) -> i1
  return %0 : i1
})",
              "test.mlir:3:3: error: 'arith.cmpi' op requires attribute 'predicate'");
}

TEST_F(VerifierTest, CmpIPredicateWrongKind) {
  ExpectError(R"(
func.func @f(%a: i32) -> i1 {
  %0 = "arith.cmpi"(%a, %a) {predicate = "slt"} : (i32, i32) -> i1
  return %0 : i1
})",
              "test.mlir:3:3: error: 'arith.cmpi' op attribute 'predicate' must be an integer, "
              "got \"slt\"");
}

TEST_F(VerifierTest, CmpIOperandTypesDiffer) {
  ExpectError(R"(
func.func @f(%a: i32, %b: i64) -> i1 {
  %0 = "arith.cmpi"(%a, %b) {predicate = 0 : i64} : (i32, i64) -> i1
  return %0 : i1
})",
              "test.mlir:3:3: error: 'arith.cmpi' op requires both operands to have the same "
              "type, got 'i32' and 'i64'");
}

TEST_F(VerifierTest, SelectConditionMustBeI1) {
  ExpectError(R"(
func.func @f(%a: i32) -> i32 {
  %0 = "arith.select"(%a, %a, %a) : (i32, i32, i32) -> i32
  return %0 : i32
})",
              "test.mlir:3:3: error: 'arith.select' op operand #0 (the condition) must be i1, but "
              "got 'i32'");
}

TEST_F(VerifierTest, SelectArmsMustMatch) {
  ExpectError(R"(
func.func @f(%c: i1, %a: i32, %b: i64) -> i32 {
  %0 = "arith.select"(%c, %a, %b) : (i1, i32, i64) -> i32
  return %0 : i32
})",
              "test.mlir:3:3: error: 'arith.select' op requires the true value, false value and "
              "result to have the same type, got 'i32', 'i64' and 'i32'");
}

TEST_F(VerifierTest, ExtSIMustWiden) {
  ExpectError(R"(
func.func @f(%a: i32) -> i8 {
  %0 = arith.extsi %a : i32 to i8
  return %0 : i8
})",
              "test.mlir:3:3: error: 'arith.extsi' op result type 'i8' must be wider than operand "
              "type 'i32'");
}

TEST_F(VerifierTest, TruncIMustNarrow) {
  ExpectError(R"(
func.func @f(%a: i32) -> i32 {
  %0 = arith.trunci %a : i32 to i32
  return %0 : i32
})",
              "test.mlir:3:3: error: 'arith.trunci' op result type 'i32' must be narrower than "
              "operand type 'i32'");
}

TEST_F(VerifierTest, ExtFMustWiden) {
  ExpectError(R"(
func.func @f(%x: f64) -> f32 {
  %0 = arith.extf %x : f64 to f32
  return %0 : f32
})",
              "test.mlir:3:3: error: 'arith.extf' op result type 'f32' must be wider than operand "
              "type 'f64'");
}

TEST_F(VerifierTest, IndexCastNeedsIndex) {
  ExpectError(R"(
func.func @f(%a: i32) -> i64 {
  %0 = arith.index_cast %a : i32 to i64
  return %0 : i64
})",
              "test.mlir:3:3: error: 'arith.index_cast' op operand type 'i32' and result type "
              "'i64' are cast incompatible");
}

TEST_F(VerifierTest, SIToFPNeedsIntegerOperand) {
  ExpectError(R"(
func.func @f(%x: f32) -> f64 {
  %0 = arith.sitofp %x : f32 to f64
  return %0 : f64
})",
              "test.mlir:3:3: error: 'arith.sitofp' op operand type 'f32' and result type 'f64' "
              "are cast incompatible");
}

TEST_F(VerifierTest, FPToSINeedsFloatOperand) {
  ExpectError(R"(
func.func @f(%a: i32) -> i64 {
  %0 = arith.fptosi %a : i32 to i64
  return %0 : i64
})",
              "test.mlir:3:3: error: 'arith.fptosi' op operand type 'i32' and result type 'i64' "
              "are cast incompatible");
}

TEST_F(VerifierTest, BitcastSameWidth) {
  ExpectError(R"(
func.func @f(%a: i32) -> f64 {
  %0 = arith.bitcast %a : i32 to f64
  return %0 : f64
})",
              "test.mlir:3:3: error: 'arith.bitcast' op operand type 'i32' and result type 'f64' "
              "must have the same bit width");
}

TEST_F(VerifierTest, ConstantValueTypeMismatch) {
  ExpectError(R"(
func.func @f() -> i32 {
  %0 = "arith.constant"() {value = 1 : i64} : () -> i32
  return %0 : i32
})",
              "test.mlir:3:3: error: 'arith.constant' op value '1 : i64' doesn't match result "
              "type 'i32'");
}

TEST_F(VerifierTest, ConstantFloatForInteger) {
  ExpectError(R"(
func.func @f() -> i32 {
  %0 = "arith.constant"() {value = 1.5 : f32} : () -> i32
  return %0 : i32
})",
              "test.mlir:3:3: error: 'arith.constant' op value '1.5 : f32' doesn't match result "
              "type 'i32'");
}

TEST_F(VerifierTest, ConstantMissingValue) {
  ExpectError(R"(
func.func @f() -> i32 {
  %0 = "arith.constant"() : () -> i32
  return %0 : i32
})",
              "test.mlir:3:3: error: 'arith.constant' op requires attribute 'value'");
}

TEST_F(VerifierTest, AssertNeedsMessage) {
  ExpectError(R"(
func.func @f(%c: i1) {
  "cf.assert"(%c) : (i1) -> ()
  return
})",
              "test.mlir:3:3: error: 'cf.assert' op requires attribute 'msg'");
}

TEST_F(VerifierTest, OpAtModuleLevel) {
  ExpectError(R"(
%c = arith.constant 1 : i32
func.func @f() {
  return
})",
              "test.mlir:2:1: error: 'arith.constant' op is not allowed at module level "
              "(expected 'func.func', 'util.global' or 'hal.executable.source')");
}

// --- Terminators ---

TEST_F(VerifierTest, BlockWithoutTerminator) {
  ExpectError(R"(
func.func @f() -> i32 {
  %c = arith.constant 1 : i32
})",
              "test.mlir:3:3: error: block with no terminator (last op is 'arith.constant')");
}

TEST_F(VerifierTest, TerminatorNotAtEnd) {
  ExpectError(R"(
func.func @f() {
  cf.br ^bb1
  %c = arith.constant 1 : i32
  cf.br ^bb1
^bb1:
  return
})",
              "test.mlir:3:3: error: 'cf.br' op must be the last operation in its block");
}

TEST_F(VerifierTest, YieldInFunctionBody) {
  ExpectError(R"(
func.func @f() {
  scf.yield
})",
              "test.mlir:3:3: error: 'scf.yield' op expects parent op 'scf.if', 'scf.for' or "
              "'scf.while'");
}

TEST_F(VerifierTest, ReturnInsideScfIf) {
  ExpectError(R"(
func.func @f(%c: i1) {
  scf.if %c {
    return
  }
  return
})",
              "test.mlir:4:5: error: 'func.return' op expects parent op 'func.func'");
}

TEST_F(VerifierTest, ScfRegionWithoutTerminator) {
  ExpectError(R"(
func.func @f(%c: i1) {
  "scf.if"(%c) ({
    %x = arith.constant 1 : i32
  }, {
  }) : (i1) -> ()
  return
})",
              "test.mlir:4:5: error: block with no terminator (last op is 'arith.constant')");
}

TEST_F(VerifierTest, ConditionOutsideWhileBefore) {
  ExpectError(R"(
func.func @f(%c: i1) {
  scf.if %c {
    scf.condition(%c)
  }
  return
})",
              "test.mlir:4:5: error: 'scf.condition' op expects to terminate the 'before' region "
              "of 'scf.while'");
}

TEST_F(VerifierTest, YieldInWhileBeforeRegion) {
  ExpectError(R"(
func.func @f(%a: i32) {
  %r = scf.while (%x = %a) : (i32) -> i32 {
    scf.yield %x : i32
  } do {
  ^bb0(%y: i32):
    scf.yield %y : i32
  }
  return
})",
              "test.mlir:4:5: error: 'scf.yield' op cannot terminate the 'before' region of "
              "'scf.while' (expected 'scf.condition')");
}

TEST_F(VerifierTest, EmptyBlock) {
  ExpectError(R"(
func.func @f() {
  cf.br ^bb1
^bb1:
})",
              "test.mlir:4:1: error: empty block ^bb1: missing terminator");
}

// --- Successors ---

TEST_F(VerifierTest, BranchArgumentType) {
  ExpectError(R"(
func.func @f(%x: f32) -> i32 {
  cf.br ^bb1(%x : f32)
^bb1(%y: i32):
  return %y : i32
})",
              "test.mlir:3:3: error: type mismatch for block argument 0 of '^bb1': branch passes "
              "'f32', block expects 'i32'");
}

TEST_F(VerifierTest, BranchArgumentCount) {
  ExpectError(R"(
func.func @f(%x: i32) -> i32 {
  cf.br ^next
^next(%y: i32):
  return %y : i32
})",
              "test.mlir:3:3: error: 'cf.br' op branch to '^next' passes 0 arguments, block "
              "expects 1");
}

TEST_F(VerifierTest, CondBrSecondSuccessorArgumentType) {
  ExpectError(R"(
func.func @f(%c: i1, %x: i64) -> i32 {
  %z = arith.constant 0 : i32
  cf.cond_br %c, ^a(%z : i32), ^a(%x : i64)
^a(%y: i32):
  return %y : i32
})",
              "test.mlir:4:3: error: type mismatch for block argument 0 of '^a': branch passes "
              "'i64', block expects 'i32'");
}

TEST_F(VerifierTest, CondBrConditionType) {
  ExpectError(R"(
func.func @f(%x: i32) -> i32 {
  "cf.cond_br"(%x) [^a, ^b] : (i32) -> ()
^a:
  return %x : i32
^b:
  return %x : i32
})",
              "test.mlir:3:3: error: 'cf.cond_br' op operand #0 (the condition) must be i1, but "
              "got 'i32'");
}

TEST_F(VerifierTest, SwitchCaseCount) {
  ExpectError(R"(
func.func @f(%a: i32) {
  "cf.switch"(%a) [^bb1, ^bb1] {case_values = array<i32: 4, 5>} : (i32) -> ()
^bb1:
  return
})",
              "test.mlir:3:3: error: 'cf.switch' op has 2 case values but 1 case destination");
}

TEST_F(VerifierTest, SwitchDuplicateCase) {
  ExpectError(R"(
func.func @f(%a: i32) {
  "cf.switch"(%a) [^bb1, ^bb1, ^bb1] {case_values = array<i32: 4, 4>} : (i32) -> ()
^bb1:
  return
})",
              "test.mlir:3:3: error: 'cf.switch' op has duplicate case value 4");
}

TEST_F(VerifierTest, BranchToEntryBlock) {
  ExpectError(R"(
func.func @f(%c: i1) {
  "scf.if"(%c) ({
  ^entry:
    cf.br ^entry
  }, {
  }) : (i1) -> ()
  return
})",
              "test.mlir:5:5: error: 'cf.br' op cannot branch to the entry block of a region");
}

TEST_F(VerifierTest, SuccessorInAnotherRegion) {
  Operation* module = Parse(R"(
func.func @f(%c: i1) {
  scf.if %c {
    cf.br ^inner
  ^inner:
    scf.yield
  }
  cf.br ^outer
^outer:
  return
})");
  ASSERT_NE(module, nullptr);
  // Only a builder can make this: the branch inside the scf.if targets a
  // block of the function body.
  Operation* scf_if = Body(Func("f"))->front()->operations()[0].get();
  scf_if->region(0)->front()->terminator()->successors[0].block = Body(Func("f"))->block(1);
  EXPECT_FALSE(Verify().ok());
  EXPECT_EQ(FirstLine(),
            "test.mlir:4:5: error: 'cf.br' op successor #0 is not a block of the same region");
}

// --- Dominance ---

TEST_F(VerifierTest, UseBeforeDefinitionInBlock) {
  ExpectError(R"(
func.func @f() -> i32 {
  %0 = arith.addi %1, %1 : i32
  %1 = arith.constant 1 : i32
  return %0 : i32
})",
              "test.mlir:3:3: error: operand #0 ('%1') does not dominate this use");
  ASSERT_GE(diagnostics_.diagnostics().size(), 2u);
  EXPECT_EQ(diagnostics_.diagnostics()[1].severity, Diagnostic::Severity::kNote);
  EXPECT_EQ(diagnostics_.diagnostics()[1].location.line, 4u);
}

TEST_F(VerifierTest, UseInNonDominatedBlock) {
  ExpectError(R"(
func.func @f(%c: i1) -> i32 {
  cf.cond_br %c, ^use, ^def
^use:
  return %v : i32
^def:
  %v = arith.constant 1 : i32
  return %v : i32
})",
              "test.mlir:5:3: error: operand #0 ('%v') does not dominate this use");
}

TEST_F(VerifierTest, SuccessorArgumentDominance) {
  // Successor arguments are numbered after the branch's own operands.
  ExpectError(R"(
func.func @f(%c: i1) -> i32 {
  cf.cond_br %c, ^a, ^b
^a:
  %v = arith.constant 1 : i32
  cf.br ^join(%v : i32)
^b:
  cf.br ^join(%v : i32)
^join(%r: i32):
  return %r : i32
})",
              "test.mlir:8:3: error: operand #0 ('%v') does not dominate this use");
}

TEST_F(VerifierTest, DominanceThroughDiamond) {
  ParseValid(R"(
func.func @f(%c: i1, %a: i32) -> i32 {
  %v = arith.addi %a, %a : i32
  cf.cond_br %c, ^l, ^r
^l:
  cf.br ^join
^r:
  cf.br ^join
^join:
  %w = arith.muli %v, %v : i32
  return %w : i32
})");
}

TEST_F(VerifierTest, UnreachableBlockMayUseAnything) {
  ParseValid(R"(
func.func @f(%a: i32) -> i32 {
  return %a : i32
^dead:
  %x = arith.addi %y, %y : i32
  cf.br ^dead2
^dead2:
  %y = arith.constant 1 : i32
  return %x : i32
})");
}

TEST_F(VerifierTest, EnclosingValuesVisibleInRegions) {
  ParseValid(R"(
func.func @f(%c: i1, %a: i32, %n: index) -> i32 {
  %one = arith.constant 1 : i32
  %lb = arith.constant 0 : index
  %st = arith.constant 1 : index
  %r = scf.if %c -> (i32) {
    %s = scf.for %i = %lb to %n step %st iter_args(%acc = %a) -> (i32) {
      %t = arith.addi %acc, %one : i32
      scf.yield %t : i32
    }
    scf.yield %s : i32
  } else {
    scf.yield %a : i32
  }
  return %r : i32
})");
}

TEST_F(VerifierTest, ValueOfAnotherFunction) {
  Operation* module = Parse(R"(
func.func @g(%b: i32) -> i32 {
  return %b : i32
}
func.func @f(%a: i32) -> i32 {
  return %a : i32
})");
  ASSERT_NE(module, nullptr);
  // Only a builder can make this: @f returns @g's argument.
  Value* foreign = Body(Func("g"))->front()->argument(0);
  Body(Func("f"))->front()->terminator()->operands[0] = foreign;
  EXPECT_FALSE(Verify().ok());
  EXPECT_EQ(FirstLine(), "test.mlir:6:3: error: operand #0 ('%b') does not dominate this use");
}

TEST_F(VerifierTest, ValueOfSiblingRegion) {
  Operation* module = Parse(R"(
func.func @f(%c: i1) -> i32 {
  %r = scf.if %c -> (i32) {
    %x = arith.constant 1 : i32
    scf.yield %x : i32
  } else {
    %y = arith.constant 2 : i32
    scf.yield %y : i32
  }
  return %r : i32
})");
  ASSERT_NE(module, nullptr);
  Operation* scf_if = Body(Func("f"))->front()->operations()[0].get();
  Value* x = scf_if->region(0)->front()->operations()[0]->result(0);
  scf_if->region(1)->front()->terminator()->operands[0] = x;
  EXPECT_FALSE(Verify().ok());
  EXPECT_EQ(FirstLine(), "test.mlir:8:5: error: operand #0 ('%x') does not dominate this use");
}

TEST_F(VerifierTest, ScfResultUsedInsideItsOwnRegion) {
  Operation* module = Parse(R"(
func.func @f(%c: i1, %a: i32) -> i32 {
  %r = scf.if %c -> (i32) {
    scf.yield %a : i32
  } else {
    scf.yield %a : i32
  }
  return %r : i32
})");
  ASSERT_NE(module, nullptr);
  Operation* scf_if = Body(Func("f"))->front()->operations()[0].get();
  scf_if->region(0)->front()->terminator()->operands[0] = scf_if->result(0);
  EXPECT_FALSE(Verify().ok());
  EXPECT_EQ(FirstLine(), "test.mlir:4:5: error: operand #0 ('%r') does not dominate this use");
}

// --- Symbols, calls, returns ---

TEST_F(VerifierTest, Redefinition) {
  ExpectError(R"(
func.func @f() {
  return
}
func.func @f() {
  return
})",
              "test.mlir:5:1: error: redefinition of symbol '@f'");
  ASSERT_GE(diagnostics_.diagnostics().size(), 2u);
  EXPECT_EQ(diagnostics_.diagnostics()[1].message, "previous definition is here");
  EXPECT_EQ(diagnostics_.diagnostics()[1].location.line, 2u);
}

TEST_F(VerifierTest, GlobalAndFunctionShareNames) {
  ExpectError(R"(
util.global private @x : i32
func.func @x() {
  return
})",
              "test.mlir:3:1: error: redefinition of symbol '@x'");
}

TEST_F(VerifierTest, UnknownCallee) {
  ExpectError(R"(
func.func @f(%a: i32) {
  func.call @g(%a) : (i32) -> ()
  return
})",
              "test.mlir:3:3: error: unknown callee '@g'");
}

TEST_F(VerifierTest, CallWrongSignature) {
  ExpectError(R"(
func.func private @g(%a: i32, %b: i32) -> i32
func.func @f(%a: i32) -> i32 {
  %r = func.call @g(%a) : (i32) -> i32
  return %r : i32
})",
              "test.mlir:4:3: error: call to '@g' has wrong signature: passes (i32) -> i32, "
              "callee is (i32, i32) -> i32");
}

TEST_F(VerifierTest, CallWrongResultType) {
  ExpectError(R"(
func.func private @g(%a: i32) -> i32
func.func @f(%a: i32) -> i64 {
  %r = func.call @g(%a) : (i32) -> i64
  return %r : i64
})",
              "test.mlir:4:3: error: call to '@g' has wrong signature: passes (i32) -> i64, "
              "callee is (i32) -> i32");
}

TEST_F(VerifierTest, CallOfGlobal) {
  ExpectError(R"(
util.global private @g : i32
func.func @f() {
  func.call @g() : () -> ()
  return
})",
              "test.mlir:4:3: error: callee '@g' is not a function");
}

TEST_F(VerifierTest, CallForwardReferenceIsFine) {
  ParseValid(R"(
func.func @f(%a: i32) -> i32 {
  %r = func.call @g(%a) : (i32) -> i32
  return %r : i32
}
func.func @g(%a: i32) -> i32 {
  return %a : i32
})");
}

TEST_F(VerifierTest, ReturnMissingValue) {
  ExpectError(R"(
func.func @f() -> i32 {
  return
})",
              "test.mlir:3:3: error: 'func.return' op has 0 operands, but enclosing function (@f) "
              "returns 1");
}

TEST_F(VerifierTest, ReturnWrongType) {
  ExpectError(R"(
func.func @f() -> i64 {
  %c = arith.constant 1 : i32
  return %c : i32
})",
              "test.mlir:4:3: error: 'func.return' op type of return operand 0 ('i32') doesn't "
              "match function result type ('i64') in function @f");
}

TEST_F(VerifierTest, EntryBlockArgumentsMatchFunctionType) {
  Operation* module = Parse(R"(
func.func @f(%a: i32) {
  return
})");
  ASSERT_NE(module, nullptr);
  Func("f")->SetAttribute("function_type", Attribute::TypeAttr(Type::Function({Type::I64()}, {})));
  EXPECT_FALSE(Verify().ok());
  EXPECT_EQ(FirstLine(),
            "test.mlir:2:1: error: 'func.func' op type of entry block argument #0 ('i32') "
            "doesn't match the function input type ('i64')");
}

TEST_F(VerifierTest, EntryBlockArgumentCount) {
  Operation* module = Parse(R"(
func.func @f(%a: i32) {
  return
})");
  ASSERT_NE(module, nullptr);
  Func("f")->SetAttribute("function_type", Attribute::TypeAttr(Type::Function({}, {})));
  EXPECT_FALSE(Verify().ok());
  EXPECT_EQ(FirstLine(),
            "test.mlir:2:1: error: 'func.func' op entry block has 1 argument, but the function "
            "type has 0 inputs");
}

TEST_F(VerifierTest, BadVisibility) {
  ExpectError(R"(
func.func @f() attributes {sym_visibility = "secret"} {
  return
})",
              "test.mlir:2:1: error: 'func.func' op attribute 'sym_visibility' must be "
              "\"public\", \"private\" or \"nested\", got \"secret\"");
}

// --- scf ---

TEST_F(VerifierTest, IfYieldType) {
  ExpectError(R"(
func.func @f(%c: i1, %x: f32, %y: i32) -> i32 {
  %r = scf.if %c -> (i32) {
    scf.yield %x : f32
  } else {
    scf.yield %y : i32
  }
  return %r : i32
})",
              "test.mlir:4:5: error: 'scf.yield' op yields (f32) but the parent 'scf.if' expects "
              "(i32)");
}

TEST_F(VerifierTest, IfWithResultsNeedsElse) {
  ExpectError(R"(
func.func @f(%c: i1, %y: i32) -> i32 {
  %r = "scf.if"(%c) ({
    scf.yield %y : i32
  }, {
  }) : (i1) -> i32
  return %r : i32
})",
              "test.mlir:3:3: error: 'scf.if' op must have an 'else' region when it has results");
}

TEST_F(VerifierTest, IfConditionType) {
  ExpectError(R"(
func.func @f(%c: i32) {
  "scf.if"(%c) ({
    scf.yield
  }, {
  }) : (i32) -> ()
  return
})",
              "test.mlir:3:3: error: 'scf.if' op operand #0 (the condition) must be i1, but got "
              "'i32'");
}

TEST_F(VerifierTest, ForYieldType) {
  ExpectError(R"(
func.func @f(%n: index, %a: i32, %b: i64) -> i32 {
  %lb = arith.constant 0 : index
  %st = arith.constant 1 : index
  %r = scf.for %i = %lb to %n step %st iter_args(%acc = %a) -> (i32) {
    scf.yield %b : i64
  }
  return %r : i32
})",
              "test.mlir:6:5: error: 'scf.yield' op yields (i64) but the parent 'scf.for' expects "
              "(i32)");
}

TEST_F(VerifierTest, ForBoundsTypes) {
  ExpectError(R"(
func.func @f(%lb: index, %ub: i32, %st: index) {
  "scf.for"(%lb, %ub, %st) ({
  ^bb0(%i: index):
    scf.yield
  }) : (index, i32, index) -> ()
  return
})",
              "test.mlir:3:3: error: 'scf.for' op lower bound, upper bound and step must have the "
              "same integer or index type, got (index, i32, index)");
}

TEST_F(VerifierTest, ForInductionVariableType) {
  ExpectError(R"(
func.func @f(%lb: index) {
  "scf.for"(%lb, %lb, %lb) ({
  ^bb0(%i: i32):
    scf.yield
  }) : (index, index, index) -> ()
  return
})",
              "test.mlir:3:3: error: 'scf.for' op induction variable type 'i32' doesn't match the "
              "bounds' type 'index'");
}

TEST_F(VerifierTest, WhileConditionTypes) {
  ExpectError(R"(
func.func @f(%a: i32, %x: f32) -> i32 {
  %r = scf.while (%v = %a) : (i32) -> i32 {
    %c = arith.constant true
    scf.condition(%c) %x : f32
  } do {
  ^bb0(%y: i32):
    scf.yield %y : i32
  }
  return %r : i32
})",
              "test.mlir:5:5: error: 'scf.condition' op forwards (f32) but the parent 'scf.while' "
              "has results (i32)");
}

TEST_F(VerifierTest, WhileAfterYieldTypes) {
  ExpectError(R"(
func.func @f(%a: i32, %x: f32) -> i32 {
  %r = scf.while (%v = %a) : (i32) -> i32 {
    %c = arith.constant true
    scf.condition(%c) %v : i32
  } do {
  ^bb0(%y: i32):
    scf.yield %x : f32
  }
  return %r : i32
})",
              "test.mlir:8:5: error: 'scf.yield' op yields (f32) but the parent 'scf.while' "
              "expects (i32)");
}

// --- Globals ---

TEST_F(VerifierTest, UnknownGlobal) {
  ExpectError(R"(
func.func @f(%c: i32) {
  util.global.store %c, @nope : i32
  return
})",
              "test.mlir:3:3: error: unknown global '@nope'");
}

TEST_F(VerifierTest, StoreToImmutableGlobal) {
  ExpectError(R"(
util.global private @limit : i32 = 10 : i32
func.func @f(%c: i32) {
  util.global.store %c, @limit : i32
  return
})",
              "test.mlir:4:3: error: 'util.global.store' op cannot store to immutable global "
              "'@limit'");
}

TEST_F(VerifierTest, GlobalLoadType) {
  ExpectError(R"(
util.global private mutable @g : i32
func.func @f() -> f32 {
  %v = util.global.load @g : f32
  return %v : f32
})",
              "test.mlir:4:3: error: 'util.global.load' op result type 'f32' doesn't match the "
              "type 'i32' of global '@g'");
}

TEST_F(VerifierTest, GlobalInitialValueType) {
  ExpectError(R"(
util.global private @g : i32 = 1.5 : f32
func.func @f() {
  return
})",
              "test.mlir:2:1: error: 'util.global' op initial value '1.5 : f32' doesn't match the "
              "global's type 'i32'");
}

TEST_F(VerifierTest, GlobalsValid) {
  ParseValid(R"(
util.global private mutable @counter : i64 = 0 : i64
util.global private @scale : f32 = 2.5 : f32
func.func @bump() -> i64 {
  %v = util.global.load @counter : i64
  %one = arith.constant 1 : i64
  %n = arith.addi %v, %one : i64
  util.global.store %n, @counter : i64
  %s = util.global.load @scale : f32
  return %n : i64
})");
}

// --- Several errors, valid programs ---

TEST_F(VerifierTest, ReportsErrorsInEveryFunction) {
  Operation* module = Parse(R"(
func.func @a() -> i32 {
  return
}
func.func @b(%x: i32) {
  func.call @nope() : () -> ()
  return
}
func.func @c(%x: f32) -> f32 {
  %0 = arith.addi %x, %x : f32
  %1 = arith.addi %x, %x : f32
  return %x : f32
})");
  ASSERT_NE(module, nullptr);
  EXPECT_FALSE(Verify().ok());
  EXPECT_EQ(diagnostics_.error_count(), 4u);
  std::vector<uint32_t> lines;
  for (const Diagnostic& d : diagnostics_.diagnostics()) lines.push_back(d.location.line);
  EXPECT_EQ(lines, (std::vector<uint32_t>{3, 6, 10, 11}));
}

TEST_F(VerifierTest, OneErrorPerOp) {
  // Wrong count and wrong types: only the first problem is reported.
  Operation* module = Parse(R"(
func.func @f(%x: f32) -> f32 {
  %0 = "arith.addi"(%x, %x, %x) : (f32, f32, f32) -> f32
  return %x : f32
})");
  ASSERT_NE(module, nullptr);
  EXPECT_FALSE(Verify().ok());
  EXPECT_EQ(diagnostics_.error_count(), 1u);
}

TEST_F(VerifierTest, ValidProgram) {
  ParseValid(R"(
func.func private @ext(i32) -> i32
func.func @fib(%n: i32) -> i32 {
  %c2 = arith.constant 2 : i32
  %small = arith.cmpi slt, %n, %c2 : i32
  cf.cond_br %small, ^base, ^rec
^base:
  return %n : i32
^rec:
  %c1 = arith.constant 1 : i32
  %a = arith.subi %n, %c1 : i32
  %b = arith.subi %n, %c2 : i32
  %fa = func.call @fib(%a) : (i32) -> i32
  %fb = func.call @fib(%b) : (i32) -> i32
  %s = arith.addi %fa, %fb : i32
  %e = func.call @ext(%s) : (i32) -> i32
  return %e : i32
}
func.func @loops(%n: i32, %x: f64) -> (i32, f64) {
  %z = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %r:2 = scf.while (%i = %z, %acc = %x) : (i32, f64) -> (i32, f64) {
    %more = arith.cmpi slt, %i, %n : i32
    scf.condition(%more) %i, %acc : i32, f64
  } do {
  ^bb0(%j: i32, %v: f64):
    %j1 = arith.addi %j, %one : i32
    %v1 = math.sqrt %v : f64
    scf.yield %j1, %v1 : i32, f64
  }
  %w = arith.sitofp %r#0 : i32 to f64
  %t = arith.addf %w, %r#1 : f64
  %q = arith.fptosi %t : f64 to i32
  %pos = arith.cmpi sgt, %q, %z : i32
  %sel = arith.select %pos, %q, %z : i32
  "cf.switch"(%sel) [^d, ^c0] {case_values = array<i32: 7>} : (i32) -> ()
^d:
  return %sel, %t : i32, f64
^c0:
  return %z, %x : i32, f64
}
)");
}

}  // namespace
}  // namespace kiln::compiler::testing
