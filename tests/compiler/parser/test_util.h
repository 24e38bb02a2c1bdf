// Shared helpers of the parser and printer tests: parse MLIR text held in a
// test-owned SourceManager, look at the result, render diagnostics.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>

#include "compiler/ir/diagnostics.h"
#include "compiler/ir/ir.h"
#include "compiler/ir/printer.h"
#include "compiler/ir/source.h"
#include "compiler/parser/parser.h"

namespace kiln::compiler::testing {

// One compilation: its sources, diagnostics and the parsed module.
struct Parsed {
  SourceManager sources;
  DiagnosticEngine diagnostics{sources};
  std::unique_ptr<Operation> module;
  bool ok = false;

  std::string Render() const { return diagnostics.Render(); }
  // The first diagnostic's "file:line:col: error: message" line.
  std::string FirstLine() const {
    std::string all = Render();
    return all.substr(0, all.find('\n'));
  }
  // The first diagnostic's three lines: message, source line, caret line.
  std::string FirstDiagnostic() const {
    std::string all = Render();
    size_t end = 0;
    for (int line = 0; line < 3; ++line) {
      size_t newline = all.find('\n', end);
      if (newline == std::string::npos) return all;
      end = newline + 1;
    }
    return all.substr(0, end);
  }
  // The ops of the module's body.
  const std::vector<std::unique_ptr<Operation>>& TopOps() const {
    return module->region(0)->front()->operations();
  }
  Operation* Func(std::string_view name) const { return LookupSymbol(module.get(), name); }
};

inline std::unique_ptr<Parsed> Parse(std::string_view text, std::string_view path = "test.mlir") {
  auto parsed = std::make_unique<Parsed>();
  uint32_t file = parsed->sources.AddFile(std::string(path), std::string(text));
  auto result = ParseModule(parsed->sources, file, parsed->diagnostics);
  parsed->ok = result.ok();
  if (result.ok()) parsed->module = std::move(result).value();
  return parsed;
}

// Parses `text`, failing the test (with the diagnostics) on an error.
inline std::unique_ptr<Parsed> ParseOk(std::string_view text) {
  auto parsed = Parse(text);
  EXPECT_TRUE(parsed->ok) << parsed->Render();
  return parsed;
}

// The ops of a block, e.g. "arith.addi,cf.br".
inline std::string OpNames(const Block* block) {
  std::string out;
  for (const auto& op : block->operations()) {
    if (!out.empty()) out += ',';
    out += op->name();
  }
  return out;
}

// The first op of the body of function `name` (or of the module when the
// function is not found).
inline Operation* FirstOpOf(const Parsed& parsed, std::string_view name = "f") {
  Operation* func = parsed.Func(name);
  if (!func || func->region(0)->empty()) return nullptr;
  return func->region(0)->front()->operations().front().get();
}

// A realistic program using every custom form: recursion with scf.if, a loop
// with scf.for iter_args, scf.while, cf blocks with a switch, globals, calls,
// multi-result ops, aliases and loc trailers.
inline constexpr std::string_view kRealisticProgram = R"mlir(// A test program.
!int = i32
#one = 1 : i32
module @prog attributes {kiln.version = 1 : i64} {
  util.global private mutable @counter : i32 = 0 : i32
  util.global private @scale = 2.5 : f32
  util.global @table : f32
  func.func private @ext.log(i32, f32 {kiln.noalias}) -> i32
  func.func @fib(%n: !int) -> i32 {
    %c2 = arith.constant 2 : i32
    %one = arith.constant #one
    %lt = arith.cmpi slt, %n, %c2 : i32
    %r = scf.if %lt -> (i32) {
      scf.yield %n : i32
    } else {
      %a = arith.subi %n, %one overflow<nsw> : i32
      %b = arith.subi %n, %c2 : i32
      %fa = func.call @fib(%a) : (i32) -> i32
      %fb = call @fib(%b) : (i32) -> i32
      %s = arith.addi %fa, %fb : i32
      scf.yield %s : i32
    } loc("fib.py":3:4)
    return %r : i32
  }
  func.func @loop(%n: index, %x: f32) -> (i32, f32) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0 : i32
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero, %f = %x) -> (i32, f32) {
      %ii = arith.index_cast %i : index to i32
      %acc2 = arith.addi %acc, %ii : i32
      %f2 = arith.mulf %f, %x fastmath<fast> : f32
      %sq = math.sqrt %f2 : f32
      %m = math.fma %sq, %f, %x : f32
      scf.yield %acc2, %m : i32, f32
    }
    %loaded = util.global.load @counter : i32
    %sum = arith.addi %loaded, %r#0 : i32
    util.global.store %sum, @counter : i32
    return %r#0, %r#1 : i32, f32
  }
  func.func @count(%init: i32, %limit: i32) -> i32 {
    %res = scf.while (%arg1 = %init) : (i32) -> i32 {
      %cond = arith.cmpi slt, %arg1, %limit : i32
      scf.condition(%cond) %arg1 : i32
    } do {
    ^bb0(%arg2: i32):
      %one = arith.constant 1 : i32
      %next = arith.addi %arg2, %one : i32
      scf.yield %next : i32
    }
    return %res : i32
  }
  func.func @branches(%flag: i32, %v: f64) -> f64 {
    %neg = arith.negf %v : f64
    %true = arith.constant true
    cf.assert %true, "always \"true\"\n\09"
    cf.switch %flag : i32, [
      default: ^bb1(%v : f64),
      42: ^bb2,
      -7: ^bb3(%neg, %flag : f64, i32)
    ]
  ^bb1(%x: f64):
    return %x : f64
  ^bb2:
    %big = arith.constant 1.0E+5 : f64
    %ok = arith.cmpf olt, %v, %big : f64
    cf.cond_br %ok, ^bb1(%big : f64), ^bb4
  ^bb3(%y: f64, %k: i32):
    %ext = arith.extsi %k : i32 to i64
    %fp = arith.sitofp %ext : i64 to f64
    %pos = arith.cmpf ogt, %y, %fp : f64
    %sel = arith.select %pos, %y, %fp : f64
    cf.br ^bb1(%sel : f64)
  ^bb4:
    %z = arith.constant -2.0e-3 : f64
    cf.br ^bb1(%z : f64) loc(#loc9)
  }
}
#loc9 = loc("branches.py":12:1)
)mlir";

}  // namespace kiln::compiler::testing
