// The verifier and the passes on many programs: the e2e and fuzz-corpus
// .mlir files, and deterministic mutants of them (lines deleted, duplicated
// or swapped; value names, block labels, types, integers and op names
// replaced). For every input the parser accepts, VerifyModule must not crash;
// for every input that verifies, each pass must leave valid IR (verified after
// each one) and the lowering must leave no scf op; LowerDispatches must
// either report an error or leave valid IR free of dispatch-level ops.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <sstream>

#include "tests/compiler/passes/test_util.h"

namespace kiln::compiler::testing {
namespace {

std::vector<std::string> SeedFiles() {
  std::vector<std::string> out;
  for (const char* dir : {"tests/e2e", "tests/fuzz/compiler_corpus"}) {
    std::filesystem::path root = std::filesystem::path(KILN_SOURCE_DIR) / dir;
    if (!std::filesystem::exists(root)) continue;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
      if (entry.path().extension() != ".mlir") continue;
      std::ifstream in(entry.path());
      std::stringstream text;
      text << in.rdbuf();
      out.push_back(text.str());
    }
  }
  std::sort(out.begin(), out.end());  // Deterministic order.
  return out;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string Join(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

// Every match of `pattern` in `text`.
std::vector<std::string> Tokens(const std::string& text, const std::regex& pattern) {
  std::vector<std::string> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), pattern);
       it != std::sregex_iterator(); ++it) {
    out.push_back(it->str());
  }
  return out;
}

// Replaces the `n`th occurrence of `pattern` in `text` by `with`.
std::string ReplaceNth(const std::string& text, const std::regex& pattern, size_t n,
                       const std::string& with) {
  size_t i = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), pattern);
       it != std::sregex_iterator(); ++it, ++i) {
    if (i == n) {
      return text.substr(0, it->position()) + with + text.substr(it->position() + it->length());
    }
  }
  return text;
}

std::string Mutate(const std::string& text, std::mt19937& rng) {
  static const std::regex kValue(R"(%[A-Za-z0-9_]+)");
  static const std::regex kLabel(R"(\^[A-Za-z0-9_]+)");
  static const std::regex kType(R"(\b(i1|i8|i16|i32|i64|index|f32|f64)\b)");
  static const std::regex kInteger(R"(\b[0-9]+\b)");
  static const std::regex kOp(R"(\b(arith|math|scf|cf|func|util)\.[a-z_.]+)");
  static const char* kTypes[] = {"i1", "i8", "i16", "i32", "i64", "index", "f32", "f64"};
  static const char* kIntegers[] = {"0", "1", "2", "7", "31", "32", "64", "255", "2147483647"};
  static const char* kOps[] = {"arith.addi", "arith.subi",    "arith.divsi",  "arith.shli",
                               "arith.addf", "arith.cmpi",    "arith.select", "arith.extsi",
                               "scf.yield",  "cf.br",         "func.return",  "scf.if",
                               "math.sqrt",  "arith.constant"};
  auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
  std::string out = text;
  const int mutations = 1 + static_cast<int>(pick(3));
  for (int m = 0; m < mutations; ++m) {
    std::vector<std::string> lines = Lines(out);
    if (lines.empty()) return out;
    auto replace_token = [&](const std::regex& pattern, const std::vector<std::string>& choices) {
      std::vector<std::string> found = Tokens(out, pattern);
      if (found.empty() || choices.empty()) return;
      out = ReplaceNth(out, pattern, pick(found.size()), choices[pick(choices.size())]);
    };
    switch (pick(8)) {
      case 0:
        lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(pick(lines.size())));
        out = Join(lines);
        break;
      case 1: {
        size_t i = pick(lines.size());
        lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(pick(lines.size())), lines[i]);
        out = Join(lines);
        break;
      }
      case 2:
        std::swap(lines[pick(lines.size())], lines[pick(lines.size())]);
        out = Join(lines);
        break;
      case 3:
        replace_token(kValue, Tokens(out, kValue));
        break;
      case 4:
        replace_token(kLabel, Tokens(out, kLabel));
        break;
      case 5:
        replace_token(kType, std::vector<std::string>(std::begin(kTypes), std::end(kTypes)));
        break;
      case 6:
        replace_token(kInteger,
                      std::vector<std::string>(std::begin(kIntegers), std::end(kIntegers)));
        break;
      default:
        replace_token(kOp, std::vector<std::string>(std::begin(kOps), std::end(kOps)));
        break;
    }
  }
  return out;
}

struct Outcome {
  bool parsed = false;
  bool verified = false;
  std::string failure;  // Non-empty: an invariant broke.
};

Outcome CompileStages(const std::string& text) {
  Outcome outcome;
  SourceManager sources;
  DiagnosticEngine diagnostics(sources);
  auto parsed = ParseModule(sources, sources.AddFile("mutant.mlir", text), diagnostics);
  if (!parsed.ok()) return outcome;
  outcome.parsed = true;
  Operation* module = parsed->get();
  if (!VerifyModule(module, diagnostics).ok()) {
    if (!diagnostics.has_errors()) outcome.failure = "verification failed without a diagnostic";
    return outcome;
  }
  outcome.verified = true;
  auto check = [&](const char* after) {
    if (outcome.failure.empty() && !VerifyModule(module, diagnostics).ok()) {
      outcome.failure = std::string("invalid IR after ") + after + ":\n" + diagnostics.Render();
    }
  };
  FoldConstants(module);
  check("FoldConstants");
  if (!LowerStructuredControlFlow(module, diagnostics).ok()) {
    outcome.failure = "lowering failed on verified IR:\n" + diagnostics.Render();
    return outcome;
  }
  check("LowerStructuredControlFlow");
  Walk(module, [&](Operation* op) {
    if (outcome.failure.empty() && op->name().starts_with("scf.")) {
      outcome.failure = "an scf op survived lowering";
    }
  });
  SimplifyControlFlow(module);
  check("SimplifyControlFlow");
  FoldConstants(module);
  check("FoldConstants (second run)");
  SimplifyControlFlow(module);
  EliminateDeadCode(module);
  check("EliminateDeadCode");
  if (!outcome.failure.empty()) return outcome;

  // The dispatch lowering, on a fresh copy (it runs right after verification):
  // it may reject what it cannot lower, with a diagnostic, or must leave
  // valid IR without executables, dispatches, tensors or affine ops.
  DiagnosticEngine lowering_diagnostics(sources);
  auto reparsed = ParseModule(sources, sources.AddFile("mutant.mlir", text), lowering_diagnostics);
  if (!reparsed.ok() || !VerifyModule(reparsed->get(), lowering_diagnostics).ok()) {
    outcome.failure = "the seed parsed and verified once only";
    return outcome;
  }
  DispatchLoweringOptions options;
  options.serialize = [](const ExecutableSpec& spec) -> Result<std::vector<SerializedExecutable>> {
    if (spec.name.size() % 2) return std::vector<SerializedExecutable>{};  // No variant.
    return std::vector<SerializedExecutable>{{"cuda", "cuda-nvptx-fb", "", {1, 2, 3}}};
  };
  Status lowered = LowerDispatches(reparsed->get(), lowering_diagnostics, options);
  if (!lowered.ok()) {
    if (!lowering_diagnostics.has_errors()) {
      outcome.failure = "dispatch lowering failed without a diagnostic";
    }
    return outcome;
  }
  if (!VerifyModule(reparsed->get(), lowering_diagnostics).ok()) {
    outcome.failure = "invalid IR after LowerDispatches:\n" + lowering_diagnostics.Render();
  }
  Walk(reparsed->get(), [&](Operation* op) {
    const OpKind kind = op->kind();
    if (outcome.failure.empty() && (kind == OpKind::kExecutableSource ||
                                    kind == OpKind::kDispatch || kind == OpKind::kTensorDim ||
                                    kind == OpKind::kTensorEmpty || kind == OpKind::kAffineApply)) {
      outcome.failure = "'" + std::string(op->name()) + "' survived LowerDispatches";
    }
  });
  return outcome;
}

constexpr int kMutantsPerSeed = 80;  // The first "mutant" is the seed itself.

TEST(RobustnessTest, SeedsAndMutants) {
  std::vector<std::string> seeds = SeedFiles();
  ASSERT_GT(seeds.size(), 20u) << "no seed files under " << KILN_SOURCE_DIR;
  std::mt19937 rng(20240611);
  size_t parsed = 0, verified = 0, failures = 0;
  for (const std::string& seed : seeds) {
    for (int i = 0; i < kMutantsPerSeed; ++i) {
      const std::string text = i == 0 ? seed : Mutate(seed, rng);
      Outcome outcome = CompileStages(text);
      parsed += outcome.parsed;
      verified += outcome.verified;
      if (!outcome.failure.empty() && ++failures <= 3) {
        ADD_FAILURE() << outcome.failure << "\n--- input ---\n" << text;
      }
    }
  }
  EXPECT_EQ(failures, 0u);
  // The mutants must reach the verifier and the passes in numbers.
  EXPECT_GT(parsed, seeds.size() * 16);
  EXPECT_GT(verified, seeds.size() * 6);
  std::printf("inputs: %zu, parsed: %zu, verified: %zu\n", seeds.size() * kMutantsPerSeed, parsed,
              verified);
}

// Large functions go through every stage in linear-ish time (a quadratic
// step would take minutes here): a 20000-op block, a 5000-block chain with
// arguments, 500 scf.ifs in sequence.
TEST(RobustnessTest, LargeFunctions) {
  std::string text = "func.func @straight(%x: i32) -> i32 {\n  %v0 = arith.addi %x, %x : i32\n";
  const int n = 20000;
  for (int i = 1; i <= n; ++i) {
    text +=
        "  %v" + std::to_string(i) + " = arith.addi %v" + std::to_string(i - 1) + ", %x : i32\n";
  }
  text += "  return %v" + std::to_string(n) + " : i32\n}\n";
  text += "func.func @chain(%x: i32) -> i32 {\n  cf.br ^b0(%x : i32)\n";
  const int blocks = 5000;
  for (int i = 0; i < blocks; ++i) {
    text += "^b" + std::to_string(i) + "(%a" + std::to_string(i) + ": i32):\n  %s" +
            std::to_string(i) + " = arith.muli %a" + std::to_string(i) + ", %x : i32\n  cf.br ^b" +
            std::to_string(i + 1) + "(%s" + std::to_string(i) + " : i32)\n";
  }
  text += "^b" + std::to_string(blocks) + "(%r: i32):\n  return %r : i32\n}\n";
  text += "func.func @ifs(%c: i1, %x: i32) -> i32 {\n  %w0 = arith.addi %x, %x : i32\n";
  const int ifs = 500;
  for (int i = 1; i <= ifs; ++i) {
    const std::string prev = "%w" + std::to_string(i - 1);
    text += "  %w" + std::to_string(i) + " = scf.if %c -> (i32) {\n    %t" + std::to_string(i) +
            " = arith.addi " + prev + ", %x : i32\n    scf.yield %t" + std::to_string(i) +
            " : i32\n  } else {\n    scf.yield " + prev + " : i32\n  }\n";
  }
  text += "  return %w" + std::to_string(ifs) + " : i32\n}\n";

  SourceManager sources;
  DiagnosticEngine diagnostics(sources);
  auto parsed = ParseModule(sources, sources.AddFile("large.mlir", text), diagnostics);
  ASSERT_TRUE(parsed.ok()) << diagnostics.Render();
  Operation* module = parsed->get();
  ASSERT_TRUE(VerifyModule(module, diagnostics).ok()) << diagnostics.Render();
  FoldConstants(module);
  ASSERT_TRUE(LowerStructuredControlFlow(module, diagnostics).ok());
  SimplifyControlFlow(module);
  EliminateDeadCode(module);
  ASSERT_TRUE(VerifyModule(module, diagnostics).ok()) << diagnostics.Render();
  // The chain collapsed into one block; each if is a diamond (4 blocks each
  // minus the merge folded into the next if's condition block).
  EXPECT_EQ(LookupSymbol(module, "chain")->region(0)->num_blocks(), 1u);
  EXPECT_EQ(LookupSymbol(module, "straight")->region(0)->num_blocks(), 1u);
}

}  // namespace
}  // namespace kiln::compiler::testing
