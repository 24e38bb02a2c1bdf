// The parser never crashes or hangs: every truncation of a realistic program,
// random byte mutations, deep nesting and binary garbage all end in a module
// or in exactly reported errors.
#include <random>

#include "tests/compiler/parser/test_util.h"

namespace kiln::compiler::testing {
namespace {

// Parses `text`; on failure there must be at least one error diagnostic with
// a location inside the file (or a named loc file).
void ExpectHandled(std::string_view text) {
  auto parsed = Parse(text);
  if (parsed->ok) {
    ASSERT_NE(parsed->module, nullptr);
    // Whatever parsed must also print and parse back.
    std::string printed = PrintOperation(*parsed->module);
    auto reparsed = Parse(printed);
    ASSERT_TRUE(reparsed->ok) << reparsed->Render() << "\n--- printed:\n"
                              << printed << "\n--- from:\n"
                              << text;
    return;
  }
  ASSERT_TRUE(parsed->diagnostics.has_errors());
  ASSERT_FALSE(parsed->Render().empty());
}

TEST(RobustnessTest, EveryPrefixOfARealisticProgram) {
  std::string_view program = kRealisticProgram;
  for (size_t n = 0; n <= program.size(); ++n) {
    ExpectHandled(program.substr(0, n));
    if (::testing::Test::HasFatalFailure()) {
      FAIL() << "prefix of " << n << " bytes";
    }
  }
}

TEST(RobustnessTest, RandomByteMutations) {
  std::mt19937 rng(1234);
  const std::string program(kRealisticProgram);
  const char interesting[] = "%^@#!<>(){}[],:=\"\\-0123456789xe.\n\0\x80\xff ";
  for (int round = 0; round < 1500; ++round) {
    std::string text = program;
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      size_t at = rng() % text.size();
      switch (rng() % 4) {
        case 0:  // replace with an interesting byte
          text[at] = interesting[rng() % (sizeof(interesting) - 1)];
          break;
        case 1:  // random byte
          text[at] = static_cast<char>(rng() & 0xff);
          break;
        case 2:  // delete a short run
          text.erase(at, 1 + rng() % 8);
          break;
        default:  // duplicate a short run
          text.insert(at, text.substr(at, 1 + rng() % 16));
          break;
      }
      if (text.empty()) text = "x";
    }
    ExpectHandled(text);
    if (::testing::Test::HasFatalFailure()) FAIL() << "round " << round;
  }
}

TEST(RobustnessTest, DeepNestingIsRejected) {
  auto expect_too_deep = [](const std::string& text) {
    auto parsed = Parse(text);
    EXPECT_FALSE(parsed->ok);
    EXPECT_NE(parsed->FirstLine().find("nesting too deep"), std::string::npos)
        << parsed->FirstLine();
  };
  const int n = 100000;
  expect_too_deep("util.global @g : i32 = " + std::string(n, '['));
  std::string dictionaries = "util.global @g {a = ";
  for (int i = 0; i < n; ++i) dictionaries += "{b = ";
  expect_too_deep(dictionaries);
  std::string types = "func.func private @f(";
  for (int i = 0; i < n; ++i) types += "tensor<";
  expect_too_deep(types);
  std::string functions = "func.func private @f(";
  for (int i = 0; i < n; ++i) functions += "(";
  expect_too_deep(functions);
  std::string regions = "func.func @f(%c: i1) {\n";
  for (int i = 0; i < 5000; ++i) regions += "scf.if %c {\n";
  expect_too_deep(regions);
  std::string generic;
  for (int i = 0; i < 5000; ++i) generic += "\"builtin.module\"() ({\n";
  expect_too_deep(generic);
  std::string locations = "%0 = arith.constant 1 : i32 loc(";
  for (int i = 0; i < n; ++i) locations += "callsite(";
  expect_too_deep(locations);
}

TEST(RobustnessTest, ModerateNestingIsFine) {
  std::string text = "func.func @f(%c: i1) {\n";
  for (int i = 0; i < 60; ++i) text += "scf.if %c {\n";
  for (int i = 0; i < 60; ++i) text += "}\n";
  text += "return\n}\n";
  auto parsed = ParseOk(text);
  EXPECT_TRUE(parsed->ok);
}

TEST(RobustnessTest, LocationAliasCyclesAreReported) {
  auto parsed = Parse("%0 = arith.constant 1 : i32 loc(#a)\n#a = loc(#b)\n#b = loc(#a)\n");
  EXPECT_FALSE(parsed->ok);
  EXPECT_EQ(parsed->FirstLine(), "test.mlir:3:10: error: location alias cycle through '#a'");
}

TEST(RobustnessTest, LocationAliasChainsAndFanOut) {
  // Each alias names the next one twice: resolved naively this would take
  // 2^40 steps; each alias must be resolved once.
  std::string text = "%0 = arith.constant 1 : i32 loc(#a0)\n";
  for (int i = 0; i < 40; ++i) {
    text += "#a" + std::to_string(i) + " = loc(fused[#a" + std::to_string(i + 1) + ", #a" +
            std::to_string(i + 1) + "])\n";
  }
  text += "#a40 = loc(\"deep.py\":1:2)\n";
  auto parsed = ParseOk(text);
  ASSERT_TRUE(parsed->ok);
  EXPECT_EQ(parsed->sources.Format(parsed->TopOps()[0]->debug_loc), "deep.py:1:2");

  // A chain longer than the nesting bound is an error, not a stack overflow.
  std::string chain = "%0 = arith.constant 1 : i32 loc(#a0)\n";
  for (int i = 0; i < 20000; ++i) {
    chain += "#a" + std::to_string(i) + " = loc(#a" + std::to_string(i + 1) + ")\n";
  }
  auto deep = Parse(chain);
  EXPECT_FALSE(deep->ok);
  EXPECT_NE(deep->FirstLine().find("location aliases nested too deeply"), std::string::npos)
      << deep->FirstLine();
}

TEST(RobustnessTest, ExponentialAliasesAreBounded) {
  // Each alias doubles the previous one: 2^60 elements if expanded.
  std::string attributes = "#a0 = [1, 2]\n";
  for (int i = 1; i <= 60; ++i) {
    attributes += "#a" + std::to_string(i) + " = [#a" + std::to_string(i - 1) + ", #a" +
                  std::to_string(i - 1) + "]\n";
  }
  auto parsed = Parse(attributes);
  EXPECT_FALSE(parsed->ok);
  EXPECT_NE(
      parsed->FirstLine().find("error: alias '#a18' is too large (more than 1048576 elements)"),
      std::string::npos)
      << parsed->FirstLine();

  std::string types = "!t0 = i32\n";
  for (int i = 1; i <= 60; ++i) {
    types += "!t" + std::to_string(i) + " = (!t" + std::to_string(i - 1) + ") -> !t" +
             std::to_string(i - 1) + "\n";
  }
  parsed = Parse(types);
  EXPECT_FALSE(parsed->ok);
  EXPECT_NE(parsed->FirstLine().find("is too large"), std::string::npos) << parsed->FirstLine();

  // Within the per-alias bound, but used over and over.
  std::string uses = "#big = \"" + std::string(4000000, 'x') + "\"\n";
  uses += "\"util.global\"() {sym_name = \"g\", type = i32";
  for (int i = 0; i < 40; ++i) uses += ", k" + std::to_string(i) + " = #big";
  uses += "} : () -> ()\n";
  parsed = Parse(uses);
  EXPECT_FALSE(parsed->ok);
  EXPECT_NE(parsed->FirstLine().find(
                "aliases in this file expand to too much (more than 8388608 elements)"),
            std::string::npos)
      << parsed->FirstLine();

  // Nesting through aliases is bounded too.
  std::string nested = "!n0 = i32\n";
  for (int i = 1; i <= 300; ++i) {
    nested += "!n" + std::to_string(i) + " = tensor<!n" + std::to_string(i - 1) + ">\n";
  }
  parsed = Parse(nested);
  EXPECT_FALSE(parsed->ok);
  EXPECT_NE(parsed->FirstLine().find("error: alias '!n256' nests more than 256 levels deep"),
            std::string::npos)
      << parsed->FirstLine();
}

TEST(RobustnessTest, Garbage) {
  std::mt19937 rng(99);
  for (int round = 0; round < 300; ++round) {
    std::string text(static_cast<size_t>(rng() % 200), '\0');
    for (char& c : text) c = static_cast<char>(rng() & 0xff);
    ExpectHandled(text);
  }
  for (std::string_view text :
       {std::string_view("\0\0\0", 3), std::string_view("%"), std::string_view("\""),
        std::string_view("module"), std::string_view("module {"), std::string_view("#"),
        std::string_view("#a ="), std::string_view("!a = !"), std::string_view("%0 ="),
        std::string_view("%0:99999999999999999999 = "), std::string_view("\"arith.addi\"("),
        std::string_view("func.func @f(%a: i32) { cf.br ^"),
        std::string_view("util.global @g = #x<"), std::string_view("%r#99999999999999999999"),
        std::string_view("loc("),
        std::string_view("func.func @f() { %0 = arith.constant 1.0e99999 : f64 }"),
        std::string_view("func.func @f() { %0 = arith.constant 1.0e39 : f32 }"),
        std::string_view("func.func @f() { return } loc(#l)\n#l = loc(\"f\":99999999999:1)")}) {
    ExpectHandled(text);
  }
}

}  // namespace
}  // namespace kiln::compiler::testing
