// Block-argument copies: the parallel-copy sequencer against a simulated
// register file, and randomly permuting loops (cycles, shared sources,
// conditional edges, edge blocks, for.step fallbacks) compiled and run against
// a C++ simulation of the same program.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "compiler/codegen/parallel_copy.h"
#include "tests/compiler/codegen/codegen_test_util.h"

namespace kiln::compiler::testing {
namespace {

using codegen::RegisterCopy;
using codegen::SequenceParallelCopy;
using vm::Opcode;
using vm::Variant;

TEST(ParallelCopyTest, RandomCopySetsMatchParallelSemantics) {
  std::mt19937 rng(1234);
  for (int round = 0; round < 2000; ++round) {
    const int registers = 2 + static_cast<int>(rng() % 8);
    // Distinct destinations among `registers`; sources anywhere (or a
    // constant); two banks with the same register numbers.
    std::vector<RegisterCopy> copies;
    for (int bank = 0; bank < 2; ++bank) {
      std::vector<uint16_t> dsts(registers);
      for (int r = 0; r < registers; ++r) dsts[r] = static_cast<uint16_t>(r);
      std::shuffle(dsts.begin(), dsts.end(), rng);
      const int count = static_cast<int>(rng() % registers) + 1;
      for (int i = 0; i < count; ++i) {
        RegisterCopy c;
        c.bank = bank ? vm::Bank::kF64 : vm::Bank::kI32;
        c.dst = dsts[i];
        if (rng() % 5 == 0) {
          c.is_constant = true;
          c.bits = 1000 + rng() % 100;
        } else {
          c.src = static_cast<uint16_t>(rng() % registers);
        }
        copies.push_back(c);
      }
    }
    // Simulated register files: value = 100 * bank + register.
    std::map<std::pair<int, uint16_t>, uint64_t> file;
    for (int bank = 0; bank < 2; ++bank) {
      for (int r = 0; r <= registers; ++r) file[{bank, static_cast<uint16_t>(r)}] = 100 * bank + r;
    }
    auto expected = file;
    for (const RegisterCopy& c : copies) {
      const int bank = c.bank == vm::Bank::kF64;
      expected[{bank, c.dst}] = c.is_constant ? c.bits : file[{bank, c.src}];
    }
    int scratch_uses = 0;
    std::vector<RegisterCopy> moves = SequenceParallelCopy(copies, [&](vm::Bank) {
      ++scratch_uses;
      return static_cast<uint16_t>(registers);  // One past the copies' registers.
    });
    for (const RegisterCopy& m : moves) {
      const int bank = m.bank == vm::Bank::kF64;
      file[{bank, m.dst}] = m.is_constant ? m.bits : file[{bank, m.src}];
    }
    for (int bank = 0; bank < 2; ++bank) {
      for (int r = 0; r < registers; ++r) {
        const std::pair<int, uint16_t> key(bank, static_cast<uint16_t>(r));
        EXPECT_EQ(file[key], expected[key])
            << "round " << round << " bank " << bank << " register " << r;
      }
    }
    // No more moves than copies plus one per cycle.
    EXPECT_LE(moves.size(), copies.size() + static_cast<size_t>(scratch_uses));
  }
}

TEST(ParallelCopyTest, SwapUsesOneScratchMove) {
  std::vector<RegisterCopy> moves = SequenceParallelCopy(
      {{vm::Bank::kI32, 0, 1}, {vm::Bank::kI32, 1, 0}}, [](vm::Bank) { return uint16_t{7}; });
  ASSERT_EQ(moves.size(), 3u);
  EXPECT_EQ(moves[0].dst, 7);
}

// Generates a loop whose back edges permute (and combine) K i32 values, with
// a conditional choice between two permutations, and checks it against C++.
struct PermutingLoop {
  int k;
  std::vector<int> p1, p2;  // Per argument: a value index in [0, k] (k = the sum).
  int sum_a, sum_b;

  std::string Text() const {
    std::string args, params, values, types, returns;
    for (int i = 0; i < k; ++i) {
      args += "%a" + std::to_string(i) + ": i32, ";
      params += std::string(i ? ", " : "") + "%x" + std::to_string(i) + ": i32";
      values += std::string(i ? ", " : "") + "%a" + std::to_string(i);
      types += std::string(i ? ", " : "") + "i32";
      returns += std::string(i ? ", " : "") + "%x" + std::to_string(i);
    }
    auto pick = [&](const std::vector<int>& p) {
      std::string out;
      for (int i = 0; i < k; ++i) {
        out += (i ? ", " : "") + (p[i] == k ? std::string("%s") : "%x" + std::to_string(p[i]));
      }
      return out + ", %next : " + types + ", i32";
    };
    return "func.func @f(" + args + "%n: i32) -> (" + types + ") {\n" +
           "  %c0 = arith.constant 0 : i32\n  %c1 = arith.constant 1 : i32\n" + "  cf.br ^loop(" +
           values + ", %c0 : " + types + ", i32)\n" + "^loop(" + params + ", %i: i32):\n" +
           "  %more = arith.cmpi slt, %i, %n : i32\n" + "  cf.cond_br %more, ^body, ^done\n" +
           "^body:\n" + "  %next = arith.addi %i, %c1 : i32\n" + "  %s = arith.addi %x" +
           std::to_string(sum_a) + ", %x" + std::to_string(sum_b) + " : i32\n" +
           "  %bit = arith.andi %i, %c1 : i32\n" + "  %odd = arith.cmpi ne, %bit, %c0 : i32\n" +
           "  cf.cond_br %odd, ^loop(" + pick(p1) + "), ^loop(" + pick(p2) + ")\n" + "^done:\n" +
           "  return " + returns + " : " + types + "\n}\n";
  }

  std::vector<int32_t> Simulate(std::vector<int32_t> x, int32_t n) const {
    for (int32_t i = 0; i < n; ++i) {
      const int32_t s =
          static_cast<int32_t>(static_cast<uint32_t>(x[sum_a]) + static_cast<uint32_t>(x[sum_b]));
      std::vector<int32_t> next(k);
      const std::vector<int>& p = (i & 1) ? p1 : p2;
      for (int j = 0; j < k; ++j) next[j] = p[j] == k ? s : x[p[j]];
      x = next;
    }
    return x;
  }
};

TEST(CopyStressTest, RandomPermutingLoops) {
  std::mt19937 rng(42);
  for (int round = 0; round < 60; ++round) {
    PermutingLoop loop;
    loop.k = 2 + static_cast<int>(rng() % 5);
    for (int i = 0; i < loop.k; ++i) {
      loop.p1.push_back(static_cast<int>(rng() % (loop.k + 1)));
      loop.p2.push_back(static_cast<int>(rng() % (loop.k + 1)));
    }
    // Every other round: pure permutations (all cycles, no sums).
    if (round % 2) {
      for (int i = 0; i < loop.k; ++i) loop.p1[i] = loop.p2[i] = i;
      std::shuffle(loop.p1.begin(), loop.p1.end(), rng);
      std::shuffle(loop.p2.begin(), loop.p2.end(), rng);
    }
    loop.sum_a = static_cast<int>(rng() % loop.k);
    loop.sum_b = static_cast<int>(rng() % loop.k);
    const std::string text = loop.Text();
    for (bool passes : {false, true}) {
      Compiled c = Compiled::FromText(text, passes);
      ASSERT_TRUE(c.ok()) << c.error() << "\n" << text;
      for (int32_t n : {0, 1, 2, 3, 8}) {
        std::vector<int32_t> in;
        std::vector<Variant> args;
        for (int i = 0; i < loop.k; ++i) {
          in.push_back(10 * (i + 1));
          args.push_back(Variant::I32(10 * (i + 1)));
        }
        args.push_back(Variant::I32(n));
        auto r = c.Call("f", args);
        ASSERT_TRUE(r.ok()) << r.status().ToString();
        std::vector<int32_t> expected = loop.Simulate(in, n);
        for (int i = 0; i < loop.k; ++i) {
          ASSERT_EQ((*r)[i].i32(), expected[i])
              << "n=" << n << " result " << i << " passes=" << passes << "\n"
              << text << c.Listing("f");
        }
      }
    }
  }
}

// The induction variable is still needed after the increment (the exit edge
// passes it), so for.step cannot increment it in place: a copy goes first.
TEST(CopyTest, ForStepWhenTheOldInductionValueIsStillLive) {
  Compiled c = Compiled::FromText(R"mlir(
func.func @f(%n: i32) -> (i32, i32, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %entered = arith.cmpi slt, %c0, %n : i32
  cf.cond_br %entered, ^body(%c0, %c0 : i32, i32), ^exit(%c0, %c0, %c0 : i32, i32, i32)
^body(%i: i32, %acc: i32):
  %acc2 = arith.addi %acc, %i : i32
  %next = arith.addi %i, %c1 : i32
  %more = arith.cmpi slt, %next, %n : i32
  cf.cond_br %more, ^body(%next, %acc2 : i32, i32), ^exit(%i, %acc2, %next : i32, i32, i32)
^exit(%last: i32, %sum: i32, %end: i32):
  return %last, %sum, %end : i32, i32, i32
}
)mlir",
                                  /*run_passes=*/false);
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ(c.Count("f", Opcode::kForStepI32), 1u) << c.Listing("f");
  for (int32_t n : {-2, 0, 1, 2, 5}) {
    auto r = c.Call("f", {Variant::I32(n)});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    const int32_t last = n > 0 ? n - 1 : 0, sum = n > 0 ? n * (n - 1) / 2 : 0;
    const int32_t end = n > 0 ? n : 0;
    EXPECT_EQ((*r)[0].i32(), last) << n << "\n" << c.Listing("f");
    EXPECT_EQ((*r)[1].i32(), sum) << n;
    EXPECT_EQ((*r)[2].i32(), end) << n;
  }
}

// An unreachable block is dropped; a loop exit's copies stay off the loop.
TEST(CopyTest, LoopExitCopiesStayOutOfTheLoop) {
  Compiled c = Compiled::FromText(R"mlir(
func.func @f(%n: i64, %k: i64) -> i64 {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c5 = arith.constant 5 : i64
  cf.br ^body(%c0, %c0 : i64, i64)
^dead:
  %z = arith.addi %n, %n : i64
  return %z : i64
^body(%i: i64, %acc: i64):
  %acc2 = arith.addi %acc, %k : i64
  %next = arith.addi %i, %c1 : i64
  %more = arith.cmpi slt, %next, %n : i64
  cf.cond_br %more, ^body(%next, %acc2 : i64, i64), ^exit(%c5, %acc2 : i64, i64)
^exit(%five: i64, %sum: i64):
  %r = arith.muli %five, %sum : i64
  return %r : i64
}
)mlir",
                                  /*run_passes=*/false);
  ASSERT_TRUE(c.ok()) << c.error();
  EXPECT_EQ(CallOne(c, "f", {Variant::I64(4), Variant::I64(3)}).i64(), 5 * 12);
  // The loop block is mul-free: add, for.step (the constant 5 is loaded on
  // the way out, in an edge block).
  std::vector<Instruction> code = c.Disassemble("f");
  for (const Instruction& i : code) {
    if (i.opcode != Opcode::kForStepI64) continue;
    size_t body_size = 0;
    for (const Instruction& j : code) {
      if (j.offset >= i.operands[3] && j.offset <= i.offset) ++body_size;
    }
    EXPECT_EQ(body_size, 2u) << c.Listing("f");
  }
  EXPECT_EQ(c.Count("f", Opcode::kForStepI64), 1u) << c.Listing("f");
}

}  // namespace
}  // namespace kiln::compiler::testing
