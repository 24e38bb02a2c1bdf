// The flag helpers every cxxopts tool shares: --flagfile expansion
// (flagfile.h), the repeated-flag check and the module list (flags.h).
#include "tools/common/flags.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cxxopts.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tools/common/flagfile.h"
#include "tools/common/version.h"

namespace kiln::tools {
namespace {

class FlagfileTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = (std::filesystem::path(::testing::TempDir()) / name).string();
    std::ofstream(path) << text;
    return path;
  }

  static Result<std::vector<std::string>> Expand(std::vector<std::string> arguments) {
    std::vector<const char*> argv;
    for (const std::string& argument : arguments) argv.push_back(argument.c_str());
    return ExpandFlagfiles(static_cast<int>(argv.size()), argv.data());
  }
};

TEST_F(FlagfileTest, LinesReplaceTheFlagInPlace) {
  const std::string path = Write("run.flags",
                                 "# a comment\n"
                                 "\n"
                                 "  --function=fib  \n"
                                 "   # an indented comment\n"
                                 "--input=2x2xf32=1 2 3 4\r\n");
  auto expanded = Expand({"tool", "--module=a.kmod", "--flagfile=" + path, "--input=3"});
  ASSERT_TRUE(expanded.ok()) << expanded.status().message();
  EXPECT_EQ(*expanded, (std::vector<std::string>{"tool", "--module=a.kmod", "--function=fib",
                                                 "--input=2x2xf32=1 2 3 4", "--input=3"}));
}

TEST_F(FlagfileTest, SeparateValueAndNesting) {
  const std::string inner = Write("inner.flags", "--device=cpu-sync\n");
  const std::string outer = Write("outer.flags", "--flagfile=" + inner + "\n--input=1\n");
  auto expanded = Expand({"tool", "--flagfile", outer});
  ASSERT_TRUE(expanded.ok()) << expanded.status().message();
  EXPECT_EQ(*expanded, (std::vector<std::string>{"tool", "--device=cpu-sync", "--input=1"}));
}

TEST_F(FlagfileTest, ErrorsNameTheFileAndLine) {
  const std::string path = Write("bad.flags", "--input=1\n# fine\nmodule.kmod\n");
  auto expanded = Expand({"tool", "--flagfile=" + path});
  ASSERT_FALSE(expanded.ok());
  EXPECT_EQ(expanded.status().message(),
            path + ":3: 'module.kmod' is not a flag (one --flag=value per line)");

  auto missing = Expand({"tool", "--flagfile=/nonexistent/x.flags"});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), "--flagfile=/nonexistent/x.flags: cannot open the file");

  auto no_name = Expand({"tool", "--flagfile"});
  ASSERT_FALSE(no_name.ok());
  EXPECT_EQ(no_name.status().message(), "--flagfile needs a file name");
}

TEST_F(FlagfileTest, AFileNamingItselfStops) {
  const std::string path = (std::filesystem::path(::testing::TempDir()) / "self.flags").string();
  Write("self.flags", "--flagfile=" + path + "\n");
  auto expanded = Expand({"tool", "--flagfile=" + path});
  ASSERT_FALSE(expanded.ok());
  EXPECT_NE(expanded.status().message().find("nest more than 8 deep"), std::string::npos)
      << expanded.status().message();
}

TEST(ArgvStorageTest, OwnsNullTerminatedArguments) {
  ArgvStorage storage({"tool", "--a=1"});
  ASSERT_EQ(storage.argc(), 2);
  EXPECT_STREQ(storage.argv()[0], "tool");
  EXPECT_STREQ(storage.argv()[1], "--a=1");
  EXPECT_EQ(storage.argv()[2], nullptr);
}

// Parses `arguments` with a tool-like set of flags.
cxxopts::ParseResult Parse(std::vector<std::string> arguments) {
  cxxopts::Options flags("tool", "");
  flags.add_options()                                                  //
      ("device", "", cxxopts::value<std::string>())                    //
      ("input", "", cxxopts::value<std::string>())                     //
      ("module", "", cxxopts::value<std::string>())                    //
      ("verbose", "", cxxopts::value<bool>()->default_value("false"))  //
      ("positional", "", cxxopts::value<std::vector<std::string>>());
  flags.parse_positional({"positional"});
  arguments.insert(arguments.begin(), "tool");
  ArgvStorage argv(std::move(arguments));
  return flags.parse(argv.argc(), argv.argv());
}

TEST(CheckSingleValuedFlagsTest, RepeatedSingleValuedFlagIsAnError) {
  Status twice = CheckSingleValuedFlags(
      Parse({"--input=1", "--device=cpu", "--input=2", "--device=cuda"}), {"input"});
  EXPECT_EQ(twice.message(), "--device given twice (cpu, cuda)");
  Status thrice =
      CheckSingleValuedFlags(Parse({"--verbose", "--verbose", "--verbose=false"}), {"input"});
  EXPECT_EQ(thrice.message(), "--verbose given 3 times (true, true, false)");
}

TEST(CheckSingleValuedFlagsTest, RepeatableFlagsAndPositionalsPass) {
  EXPECT_TRUE(
      CheckSingleValuedFlags(Parse({"--input=1", "--input=2", "--device=cpu", "a", "b"}), {"input"})
          .ok());
}

TEST(ModulePathsFlagTest, RepeatedModulesInOrder) {
  auto paths = ModulePathsFlag(Parse({"--module=a.kmod", "--module=b.kmod"}));
  ASSERT_TRUE(paths.ok()) << paths.status().message();
  EXPECT_EQ(*paths, (std::vector<std::string>{"a.kmod", "b.kmod"}));
  auto positional = ModulePathsFlag(Parse({"c.kmod"}));
  ASSERT_TRUE(positional.ok());
  EXPECT_EQ(*positional, std::vector<std::string>{"c.kmod"});
}

TEST(ModulePathsFlagTest, Errors) {
  EXPECT_EQ(ModulePathsFlag(Parse({})).status().message(),
            "no module given (--module=FILE or a positional FILE)");
  EXPECT_EQ(ModulePathsFlag(Parse({"--module=a.kmod", "b.kmod"})).status().message(),
            "module given twice: --module=a.kmod and 'b.kmod'");
  EXPECT_EQ(ModulePathsFlag(Parse({"--module=-", "--module=-"})).status().message(),
            "--module=- (standard input) given more than once");
  EXPECT_EQ(ModulePathsFlag(Parse({"--module="})).status().message(), "empty module path");
}

TEST(VersionTest, LineNamesToolAndProjectVersion) {
  EXPECT_EQ(VersionLine("kiln-run-module"), "kiln-run-module version " KILN_VERSION);
  EXPECT_FALSE(kKilnVersion.empty());
}

}  // namespace
}  // namespace kiln::tools
