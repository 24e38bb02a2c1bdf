// Shared helpers of the passes tests: parse MLIR text into a module, run a
// stage, and look at the result's blocks and ops.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>

#include "compiler/ir/diagnostics.h"
#include "compiler/ir/ir.h"
#include "compiler/ir/source.h"
#include "compiler/parser/parser.h"
#include "compiler/passes/passes.h"

namespace kiln::compiler::testing {

// Owns one compilation's sources, diagnostics and module.
class PassTest : public ::testing::Test {
 protected:
  // Parses `text` (as file "test.mlir"); fails the test on a parse error.
  Operation* Parse(std::string_view text) {
    uint32_t file = sources_.AddFile("test.mlir", std::string(text));
    auto parsed = ParseModule(sources_, file, diagnostics_);
    EXPECT_TRUE(parsed.ok()) << parsed.status().message();
    if (!parsed.ok()) return nullptr;
    module_ = std::move(parsed).value();
    return module_.get();
  }

  // Parses and verifies, expecting success.
  Operation* ParseValid(std::string_view text) {
    Operation* module = Parse(text);
    if (!module) return nullptr;
    Status status = VerifyModule(module, diagnostics_);
    EXPECT_TRUE(status.ok()) << status.message();
    return module;
  }

  // The first line of the rendered diagnostics ("test.mlir:3:5: error: ...").
  std::string FirstLine() const {
    std::string all = diagnostics_.Render();
    return all.substr(0, all.find('\n'));
  }

  // The function named `name` in the module.
  Operation* Func(std::string_view name) const { return LookupSymbol(module_.get(), name); }
  static Region* Body(Operation* func) { return func->region(0); }

  SourceManager sources_;
  DiagnosticEngine diagnostics_{sources_};
  std::unique_ptr<Operation> module_;
};

// The kinds of the ops of `block`, e.g. "arith.addi,cf.br".
inline std::string OpNames(const Block* block) {
  std::string out;
  for (const auto& op : block->operations()) {
    if (!out.empty()) out += ',';
    out += op->name();
  }
  return out;
}

// How many ops of `kind` `root` holds (itself included).
inline size_t CountOps(Operation* root, OpKind kind) {
  size_t n = 0;
  Walk(root, [&](Operation* op) { n += op->kind() == kind; });
  return n;
}

// The value attribute of the arith.constant defining `v`, or null.
inline const Attribute* ConstantOf(const Value* v) {
  const Operation* def = v->defining_op();
  if (!def || def->kind() != OpKind::kConstant) return nullptr;
  return def->attribute("value");
}

}  // namespace kiln::compiler::testing
