// base/shared_library: a library that is not there, or lacks an entry point,
// is UNAVAILABLE with a message naming it (what the CUDA driver and its
// libraries report when a machine lacks them); present ones resolve.
#include "base/shared_library.h"

#include <gtest/gtest.h>

#include <cstring>

namespace kiln {
namespace {

TEST(SharedLibraryTest, MissingLibraryNamesItselfAndTheHint) {
  Result<void*> library =
      OpenSharedLibrary("libkiln-absent.so.7", "the test library", "is it installed?");
  ASSERT_FALSE(library.ok());
  EXPECT_EQ(library.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(library.status().message().find("the test library libkiln-absent.so.7 could not be "
                                            "opened"),
            std::string::npos)
      << library.status().ToString();
  EXPECT_NE(library.status().message().find("is it installed?"), std::string::npos);
}

TEST(SharedLibraryTest, ResolvesPresentSymbolsAndNamesAMissingOne) {
  Result<void*> libc = OpenSharedLibrary("libc.so.6", "the C library", "");
  ASSERT_TRUE(libc.ok()) << libc.status().ToString();
  void* strlen_symbol = nullptr;
  void* absent_symbol = nullptr;
  const SharedLibrarySymbol present[] = {{"strlen", &strlen_symbol}};
  ASSERT_TRUE(ResolveSharedLibrarySymbols(*libc, "libc.so.6", present).ok());
  auto* length = reinterpret_cast<size_t (*)(const char*)>(strlen_symbol);
  EXPECT_EQ(length("kiln"), 4u);

  const SharedLibrarySymbol missing[] = {{"strlen", &strlen_symbol},
                                         {"kiln_no_such_function", &absent_symbol}};
  Status status = ResolveSharedLibrarySymbols(*libc, "libc.so.6", missing, ": a hint");
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kUnavailable);
  EXPECT_NE(status.message().find("libc.so.6 does not provide kiln_no_such_function"),
            std::string::npos)
      << status.ToString();
  EXPECT_NE(status.message().find(": a hint"), std::string::npos);
}

}  // namespace
}  // namespace kiln
