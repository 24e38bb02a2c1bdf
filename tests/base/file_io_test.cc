// ReadFile/WriteFile and AlignedBuffer.
#include "base/file_io.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace kiln {
namespace {

bool IsAligned(const void* p) { return reinterpret_cast<uintptr_t>(p) % kFileAlignment == 0; }

std::string TempPath(const std::string& name) { return ::testing::TempDir() + "kiln_" + name; }

TEST(FileIoTest, WriteThenReadRoundTrips) {
  std::vector<uint8_t> bytes(70000);  // More than one read chunk.
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(i * 7 + 3);
  std::string path = TempPath("round_trip.bin");
  ASSERT_TRUE(WriteFile(path, bytes).ok());
  Result<AlignedBuffer> read = ReadFile(path);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  ASSERT_EQ(read->size(), bytes.size());
  EXPECT_TRUE(IsAligned(read->data()));
  EXPECT_EQ(std::vector<uint8_t>(read->span().begin(), read->span().end()), bytes);
}

TEST(FileIoTest, EmptyFileReadsAsEmptyAlignedBuffer) {
  std::string path = TempPath("empty.bin");
  ASSERT_TRUE(WriteFile(path, {}).ok());
  Result<AlignedBuffer> read = ReadFile(path);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->size(), 0u);
  ASSERT_NE(read->data(), nullptr);
  EXPECT_TRUE(IsAligned(read->data()));
}

TEST(FileIoTest, OverwriteReplacesContents) {
  std::string path = TempPath("overwrite.bin");
  const uint8_t first[] = {1, 2, 3, 4, 5};
  const uint8_t second[] = {9};
  ASSERT_TRUE(WriteFile(path, first).ok());
  ASSERT_TRUE(WriteFile(path, second).ok());
  Result<AlignedBuffer> read = ReadFile(path);
  ASSERT_TRUE(read.ok());
  ASSERT_EQ(read->size(), 1u);
  EXPECT_EQ(read->data()[0], 9);
}

TEST(FileIoTest, MissingFileErrorNamesThePath) {
  std::string path = TempPath("does_not_exist/nothing.kmod");
  Result<AlignedBuffer> read = ReadFile(path);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(read.status().message(), "cannot open '" + path + "': No such file or directory");
}

TEST(FileIoTest, UnwritablePathErrorNamesThePath) {
  std::string path = TempPath("no_such_dir/out.bin");
  const uint8_t byte[] = {1};
  Status status = WriteFile(path, byte);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message(), "cannot open '" + path + "' for writing: No such file or directory");
}

TEST(FileIoTest, ReadingADirectoryFailsCleanly) {
  // fopen succeeds on a directory on Linux; the read then fails with EISDIR.
  Result<AlignedBuffer> read = ReadFile(::testing::TempDir());
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), StatusCode::kDataLoss);
  EXPECT_EQ(read.status().message(),
            "error reading '" + ::testing::TempDir() + "': Is a directory");
}

TEST(AlignedBufferTest, EverySizeIsAligned) {
  for (size_t size : {size_t{0}, size_t{1}, size_t{63}, size_t{64}, size_t{65}, size_t{4097}}) {
    AlignedBuffer buffer(size);
    EXPECT_EQ(buffer.size(), size);
    ASSERT_NE(buffer.data(), nullptr) << size;
    EXPECT_TRUE(IsAligned(buffer.data())) << size;
  }
  EXPECT_EQ(kFileAlignment, 64u);
}

TEST(AlignedBufferTest, CopyOfCopiesBytes) {
  const uint8_t bytes[] = {10, 20, 30};
  AlignedBuffer buffer = AlignedBuffer::CopyOf(bytes);
  ASSERT_EQ(buffer.size(), 3u);
  EXPECT_TRUE(IsAligned(buffer.data()));
  EXPECT_EQ(buffer.data()[0], 10);
  EXPECT_EQ(buffer.data()[2], 30);
  EXPECT_NE(static_cast<const void*>(buffer.data()), static_cast<const void*>(bytes));
  AlignedBuffer moved = std::move(buffer);
  EXPECT_EQ(moved.size(), 3u);
  EXPECT_EQ(moved.span()[1], 20);
}

TEST(AlignedBufferTest, DefaultIsEmpty) {
  AlignedBuffer buffer;
  EXPECT_EQ(buffer.size(), 0u);
  EXPECT_TRUE(buffer.span().empty());
}

}  // namespace
}  // namespace kiln
