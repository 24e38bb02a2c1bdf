// Safetensors files for tests, written by hand: an 8-byte little-endian
// header length, the JSON header text as given (so tests can make it
// malformed), then the data section.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "base/file_io.h"
#include "gtest/gtest.h"

namespace kiln::hal::testing {

inline std::vector<uint8_t> SafetensorsBytes(std::string_view header,
                                             const std::vector<uint8_t>& data) {
  std::vector<uint8_t> bytes(8);
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<uint8_t>(header.size() >> (8 * i));
  bytes.insert(bytes.end(), header.begin(), header.end());
  bytes.insert(bytes.end(), data.begin(), data.end());
  return bytes;
}

// The little-endian bytes of `values`.
template <typename T>
std::vector<uint8_t> BytesOf(const std::vector<T>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

// `bytes` written to a file named `name` in the test's temporary directory;
// its path.
inline std::string WriteTestFile(const std::string& name, const std::vector<uint8_t>& bytes) {
  const std::string path = ::testing::TempDir() + name;
  const Status status = WriteFile(path, bytes);
  EXPECT_TRUE(status.ok()) << status.ToString();
  return path;
}

}  // namespace kiln::hal::testing
