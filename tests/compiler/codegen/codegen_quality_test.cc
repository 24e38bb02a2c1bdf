// Output quality: the instruction sequences the code generator must produce
// for the VM benchmark's fib and counted loop (tests/benchmarks/
// vm_benchmark.cc builds them by hand), immediates, coalesced loop copies and
// register sharing.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/compiler/codegen/codegen_test_util.h"

namespace kiln::compiler::testing {
namespace {

using vm::Opcode;
using vm::Variant;

// The instructions of the block starting at `offset` up to its terminator.
std::vector<Instruction> BlockAt(const std::vector<Instruction>& code, int64_t offset) {
  std::vector<Instruction> out;
  bool in = false;
  for (const Instruction& i : code) {
    if (i.offset == offset) in = true;
    if (!in) continue;
    out.push_back(i);
    if (vm::GetOpcodeInfo(i.opcode).is_terminator()) break;
  }
  return out;
}

int64_t ReferenceLoop(int64_t n) {
  int64_t s = 0;
  for (int64_t i = 0; i < n; ++i) s += i * 3 % 7;
  return s;
}

int32_t ReferenceFib(int32_t n) { return n < 2 ? n : ReferenceFib(n - 1) + ReferenceFib(n - 2); }

// fib as it leaves the passes: scf.if lowered, each arm returning.
constexpr char kFibLowered[] = R"mlir(
func.func @fib(%n: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %lt = arith.cmpi slt, %n, %c2 : i32
  cf.cond_br %lt, ^base, ^rec
^base:
  return %n : i32
^rec:
  %a = arith.subi %n, %c1 : i32
  %fa = func.call @fib(%a) : (i32) -> i32
  %b = arith.subi %n, %c2 : i32
  %fb = func.call @fib(%b) : (i32) -> i32
  %s = arith.addi %fa, %fb : i32
  return %s : i32
}
)mlir";

void ExpectBenchmarkFib(const Compiled& c) {
  // br.lt.imm.i32.s r0, 2, base, rec; base: return r0;
  // rec: add.imm r1, r0, -1; call; add.imm r?, r0, -2; call; add.i32; return.
  std::vector<Instruction> code = c.Disassemble("fib");
  ASSERT_EQ(code.size(), 8u);
  EXPECT_EQ(code[0].opcode, Opcode::kBrLtImmI32S);
  EXPECT_EQ(code[0].operands[0], 0);  // n
  EXPECT_EQ(code[0].operands[1], 2);
  EXPECT_EQ(code[0].operands[2], code[1].offset);  // less: the base case
  EXPECT_EQ(code[0].operands[3], code[2].offset);
  EXPECT_EQ(code[1].opcode, Opcode::kReturn);
  EXPECT_EQ(code[1].operands, (std::vector<int64_t>{1, 0}));  // return r0
  EXPECT_EQ(code[2].opcode, Opcode::kAddImmI32);
  EXPECT_EQ(code[2].operands[1], 0);
  EXPECT_EQ(code[2].operands[2], -1);
  EXPECT_EQ(code[3].opcode, Opcode::kCall);
  EXPECT_EQ(code[4].opcode, Opcode::kAddImmI32);
  EXPECT_EQ(code[4].operands[1], 0);
  EXPECT_EQ(code[4].operands[2], -2);
  EXPECT_EQ(code[5].opcode, Opcode::kCall);
  EXPECT_EQ(code[6].opcode, Opcode::kAddI32);
  EXPECT_EQ(code[7].opcode, Opcode::kReturn);
  // No constant is materialised: both are immediates.
  EXPECT_EQ(c.Count("fib", Opcode::kConstI32), 0u);
  EXPECT_LE(c.function("fib")->i32_register_count(), 4);
}

TEST(CodegenQualityTest, FibMatchesTheHandWrittenBytecode) {
  Compiled c = Compiled::FromText(kFibLowered);
  ASSERT_TRUE(c.ok()) << c.error();
  ExpectBenchmarkFib(c);
  for (int32_t n : {0, 1, 2, 3, 10, 20}) {
    EXPECT_EQ(CallOne(c, "fib", {Variant::I32(n)}).i32(), ReferenceFib(n)) << n;
  }
}

TEST(CodegenQualityTest, FibWithoutThePassesIsTheSame) {
  Compiled c = Compiled::FromText(kFibLowered, /*run_passes=*/false);
  ASSERT_TRUE(c.ok()) << c.error();
  ExpectBenchmarkFib(c);
  EXPECT_EQ(CallOne(c, "fib", {Variant::I32(15)}).i32(), 610);
}

TEST(CodegenQualityTest, FibFromScfIf) {
  Compiled c = Compiled::FromText(R"mlir(
func.func @fib(%n: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %lt = arith.cmpi slt, %n, %c2 : i32
  %r = scf.if %lt -> (i32) {
    scf.yield %n : i32
  } else {
    %a = arith.subi %n, %c1 : i32
    %fa = func.call @fib(%a) : (i32) -> i32
    %b = arith.subi %n, %c2 : i32
    %fb = func.call @fib(%b) : (i32) -> i32
    %s = arith.addi %fa, %fb : i32
    scf.yield %s : i32
  }
  return %r : i32
}
)mlir");
  ASSERT_TRUE(c.ok()) << c.error();
  ExpectBenchmarkFib(c);
  EXPECT_EQ(CallOne(c, "fib", {Variant::I32(20)}).i32(), 6765);
}

constexpr char kLoop[] = R"mlir(
func.func @loop(%n: i64) -> i64 {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c3 = arith.constant 3 : i64
  %c7 = arith.constant 7 : i64
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (i64) : i64 {
    %t = arith.muli %i, %c3 : i64
    %u = arith.remsi %t, %c7 : i64
    %a = arith.addi %acc, %u : i64
    scf.yield %a : i64
  }
  return %s : i64
}
)mlir";

TEST(CodegenQualityTest, CountedLoopRunsFourInstructionsPerIteration) {
  Compiled c = Compiled::FromText(kLoop);
  ASSERT_TRUE(c.ok()) << c.error();
  std::vector<Instruction> code = c.Disassemble("loop");
  const Instruction* step = nullptr;
  for (const Instruction& i : code) {
    if (i.opcode == Opcode::kForStepI64) step = &i;
  }
  ASSERT_NE(step, nullptr) << "no for.step.i64";
  EXPECT_EQ(step->operands[1], 1);  // step immediate
  std::vector<Instruction> body = BlockAt(code, step->operands[3]);
  std::vector<std::string> mnemonics;
  for (const Instruction& i : body) mnemonics.emplace_back(i.mnemonic());
  EXPECT_EQ(mnemonics,
            (std::vector<std::string>{"mul.i64", "rem.i64.s", "add.i64", "for.step.i64"}));
  // No copies anywhere: the block arguments share registers with their
  // incoming values (or are rematerialised constants).
  EXPECT_EQ(c.Count("loop", Opcode::kMovI64), 0u);
  // Setup as the hand-written loop: four constants and the entry branch.
  EXPECT_EQ(c.Count("loop", Opcode::kConstI64), 4u);
  EXPECT_EQ(code.size(), 4u + 1u + 4u + 1u);
  EXPECT_LE(c.function("loop")->i64_register_count(), 6);
  for (int64_t n : {-3, 0, 1, 2, 7, 100, 12345}) {
    EXPECT_EQ(CallOne(c, "loop", {Variant::I64(n)}).i64(), ReferenceLoop(n)) << n;
  }
}

TEST(CodegenQualityTest, CountedLoopInI32WithConstantBound) {
  Compiled c = Compiled::FromText(R"mlir(
func.func @sum(%x: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c2 = arith.constant 2 : i32
  %c100 = arith.constant 100 : i32
  %s = scf.for %i = %c0 to %c100 step %c2 iter_args(%acc = %x) -> (i32) : i32 {
    %a = arith.addi %acc, %i : i32
    scf.yield %a : i32
  }
  return %s : i32
}
)mlir");
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ(c.Count("sum", Opcode::kForStepI32), 1u);
  EXPECT_EQ(c.Count("sum", Opcode::kMovI32), 0u);
  EXPECT_EQ(CallOne(c, "sum", {Variant::I32(5)}).i32(), 5 + 2450);
}

TEST(CodegenQualityTest, NestedLoopsCarryNoCopies) {
  Compiled c = Compiled::FromText(R"mlir(
func.func @grid(%n: index, %m: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %c0) -> (index) {
    %r2 = scf.for %j = %c0 to %m step %c1 iter_args(%b = %a) -> (index) {
      %p = arith.muli %i, %j : index
      %q = arith.addi %b, %p : index
      scf.yield %q : index
    }
    scf.yield %r2 : index
  }
  return %r : index
}
)mlir");
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ(c.Count("grid", Opcode::kForStepI64), 2u);
  int64_t expected = 0;
  for (int64_t i = 0; i < 13; ++i) {
    for (int64_t j = 0; j < 7; ++j) expected += i * j;
  }
  EXPECT_EQ(CallOne(c, "grid", {Variant::I64(13), Variant::I64(7)}).i64(), expected);
  EXPECT_EQ(CallOne(c, "grid", {Variant::I64(0), Variant::I64(7)}).i64(), 0);
  EXPECT_EQ(CallOne(c, "grid", {Variant::I64(5), Variant::I64(0)}).i64(), 0);
  // The inner loop body: muli, addi, for.step.
  std::vector<Instruction> code = c.Disassemble("grid");
  for (const Instruction& i : code) {
    if (i.opcode != Opcode::kForStepI64) continue;
    std::vector<Instruction> body = BlockAt(code, i.operands[3]);
    if (body.size() == 3) {
      EXPECT_EQ(body[0].opcode, Opcode::kMulI64);
      EXPECT_EQ(body[1].opcode, Opcode::kAddI64);
      EXPECT_EQ(body[2].opcode, Opcode::kForStepI64);
    }
  }
}

TEST(CodegenQualityTest, ShortLivedValuesShareRegisters) {
  // 40 values, each live for one instruction: a few registers suffice.
  std::string text =
      "func.func @chain(%a: i32, %b: i32) -> i32 {\n  %v0 = arith.addi %a, %b : i32\n";
  for (int i = 1; i < 40; ++i) {
    text += "  %v" + std::to_string(i) + " = arith." + (i % 2 ? "muli" : "xori") + " %v" +
            std::to_string(i - 1) + ", %" + (i % 3 ? "a" : "b") + " : i32\n";
  }
  text += "  return %v39 : i32\n}\n";
  Compiled c = Compiled::FromText(text);
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_LE(c.function("chain")->i32_register_count(), 3);
  int32_t a = 3, b = 5;
  uint32_t v = static_cast<uint32_t>(a + b);
  for (int i = 1; i < 40; ++i) {
    const uint32_t operand = static_cast<uint32_t>(i % 3 ? a : b);
    v = i % 2 ? v * operand : v ^ operand;
  }
  EXPECT_EQ(CallOne(c, "chain", {Variant::I32(a), Variant::I32(b)}).i32(), static_cast<int32_t>(v));
}

TEST(CodegenQualityTest, ImmediateForms) {
  Compiled c = Compiled::FromText(R"mlir(
func.func @f(%x: i32, %y: i64) -> (i32, i64) {
  %c5 = arith.constant 5 : i32
  %c9 = arith.constant 9 : i64
  %a = arith.subi %x, %c5 : i32
  %b = arith.addi %c5, %a : i32
  %d = arith.subi %y, %c9 : i64
  return %b, %d : i32, i64
}
)mlir",
                                  /*run_passes=*/false);
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ(c.Count("f", Opcode::kAddImmI32), 2u);
  EXPECT_EQ(c.Count("f", Opcode::kAddImmI64), 1u);
  EXPECT_EQ(c.Count("f", Opcode::kConstI32) + c.Count("f", Opcode::kConstI64), 0u);
  auto r = c.Call("f", {Variant::I32(1), Variant::I64(1)});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].i32(), 1);
  EXPECT_EQ((*r)[1].i64(), -8);
}

TEST(CodegenQualityTest, FusedCompareBranchForEveryPredicate) {
  // Each signed predicate against a register and against a constant on
  // either side becomes one br.lt form; results match the comparison.
  const char* predicates[] = {"slt", "sle", "sgt", "sge"};
  for (const char* p : predicates) {
    for (int form = 0; form < 3; ++form) {
      std::string lhs = form == 2 ? "%c" : "%a", rhs = form == 1 ? "%c" : "%b";
      std::string text = std::string(R"mlir(
func.func @f(%a: i32, %b: i32) -> i32 {
  %c = arith.constant 4 : i32
  %one = arith.constant 1 : i32
  %zero = arith.constant 0 : i32
  %cmp = arith.cmpi )mlir") +
                         p + ", " + lhs + ", " + rhs + R"mlir( : i32
  cf.cond_br %cmp, ^yes, ^no
^yes:
  return %one : i32
^no:
  return %zero : i32
}
)mlir";
      Compiled c = Compiled::FromText(text, /*run_passes=*/false);
      ASSERT_TRUE(c.ok()) << c.error();
      EXPECT_EQ(c.Count("f", Opcode::kCmpLtSI32) + c.Count("f", Opcode::kCmpLeSI32) +
                    c.Count("f", Opcode::kCmpGtSI32) + c.Count("f", Opcode::kCmpGeSI32),
                0u)
          << p << " form " << form;
      EXPECT_EQ(c.Count("f", Opcode::kBrLtI32S) + c.Count("f", Opcode::kBrLtImmI32S), 1u)
          << p << " form " << form;
      for (int32_t a : {INT32_MIN, -1, 3, 4, 5, INT32_MAX}) {
        for (int32_t b : {INT32_MIN, 3, 4, 5, INT32_MAX}) {
          const int32_t l = form == 2 ? 4 : a, r = form == 1 ? 4 : b;
          const std::string ps = p;
          const bool expected = ps == "slt"   ? l < r
                                : ps == "sle" ? l <= r
                                : ps == "sgt" ? l > r
                                              : l >= r;
          EXPECT_EQ(CallOne(c, "f", {Variant::I32(a), Variant::I32(b)}).i32(), expected ? 1 : 0)
              << p << " form " << form << " a=" << a << " b=" << b;
        }
      }
    }
  }
}

}  // namespace
}  // namespace kiln::compiler::testing
