// Unit tests of source locations and the diagnostic format every tool prints.
#include "compiler/ir/diagnostics.h"

#include <gtest/gtest.h>

namespace kiln::compiler {
namespace {

TEST(SourceManagerTest, LineAndColumn) {
  SourceManager sources;
  uint32_t f = sources.AddFile("a.mlir", "first\n  second\r\nthird");
  EXPECT_EQ(sources.LocationOf(f, 0), (Location{f, 1, 1}));
  EXPECT_EQ(sources.LocationOf(f, 8), (Location{f, 2, 3}));
  EXPECT_EQ(sources.LocationOf(f, 16), (Location{f, 3, 1}));
  EXPECT_EQ(sources.LineText(f, 2), "  second");  // '\r' dropped.
  EXPECT_EQ(sources.LineText(f, 3), "third");
  EXPECT_EQ(sources.LineText(f, 4), "");
  EXPECT_EQ(sources.LineText(f, 0), "");
  EXPECT_EQ(sources.Format({f, 2, 3}), "a.mlir:2:3");
  EXPECT_EQ(sources.Format({f, 0, 0}), "a.mlir");
}

TEST(SourceManagerTest, NamedFilesHaveNoText) {
  SourceManager sources;
  uint32_t f = sources.AddFile("a.mlir", "x");
  uint32_t g = sources.AddFileName("other.py");
  EXPECT_NE(f, g);
  EXPECT_EQ(sources.AddFileName("other.py"), g);
  EXPECT_EQ(sources.AddFileName("a.mlir"), f);
  EXPECT_FALSE(sources.has_text(g));
  EXPECT_EQ(sources.LineText(g, 1), "");
  EXPECT_EQ(sources.LineText(99, 1), "");
}

TEST(DiagnosticEngineTest, RendersLineAndCaret) {
  SourceManager sources;
  uint32_t f = sources.AddFile("t.mlir", "func.func @f() {\n  %0 = arith.addi %x, %y : i32\n}\n");
  DiagnosticEngine diagnostics(sources);
  EXPECT_TRUE(diagnostics.ToStatus().ok());
  diagnostics.Error({f, 2, 19}, "use of undefined value '%x'");
  diagnostics.Note({f, 1, 11}, "in this function");
  EXPECT_TRUE(diagnostics.has_errors());
  EXPECT_EQ(diagnostics.Render(),
            "t.mlir:2:19: error: use of undefined value '%x'\n"
            "    %0 = arith.addi %x, %y : i32\n"
            "                    ^\n"
            "t.mlir:1:11: note: in this function\n"
            "  func.func @f() {\n"
            "            ^\n");
  Status status = diagnostics.ToStatus();
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), diagnostics.Render());
}

TEST(DiagnosticEngineTest, KeepsTabsAndCapsOutput) {
  SourceManager sources;
  uint32_t f = sources.AddFile("t.mlir", "\tbad\n");
  DiagnosticEngine diagnostics(sources);
  diagnostics.Error({f, 1, 2}, "oops");
  EXPECT_EQ(diagnostics.Render(), "t.mlir:1:2: error: oops\n  \tbad\n  \t^\n");
  for (int i = 0; i < 100; ++i) diagnostics.Error({f, 1, 1}, "again");
  EXPECT_EQ(diagnostics.error_count(), 101u);
  EXPECT_NE(diagnostics.Render().find("81 more error(s) not shown"), std::string::npos);
}

TEST(DiagnosticEngineTest, LocationWithoutTextHasNoCaret) {
  SourceManager sources;
  uint32_t g = sources.AddFileName("gen.py");
  DiagnosticEngine diagnostics(sources);
  diagnostics.Error({g, 10, 4}, "from elsewhere");
  EXPECT_EQ(diagnostics.Render(), "gen.py:10:4: error: from elsewhere\n");
}

}  // namespace
}  // namespace kiln::compiler
