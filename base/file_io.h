// Reading and writing whole files, with errors that name the path.
//
// File contents are returned in an AlignedBuffer whose data is aligned to
// kFileAlignment bytes, so FlatBuffer-embedded data (rodata, executables) that
// the writer aligned stays aligned in memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "base/result.h"

namespace kiln {

inline constexpr size_t kFileAlignment = 64;

// A heap byte buffer aligned to kFileAlignment.
class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  // `alignment` is a power of two, at least kFileAlignment.
  explicit AlignedBuffer(size_t size, size_t alignment = kFileAlignment);
  static AlignedBuffer CopyOf(std::span<const uint8_t> bytes, size_t alignment = kFileAlignment);

  uint8_t* data() { return data_.get(); }
  const uint8_t* data() const { return data_.get(); }
  size_t size() const { return size_; }
  std::span<const uint8_t> span() const { return {data_.get(), size_}; }

 private:
  struct Free {
    void operator()(uint8_t* p) const;
  };
  std::unique_ptr<uint8_t, Free> data_;
  size_t size_ = 0;
};

// Reads `path` ("-" reads standard input).
Result<AlignedBuffer> ReadFile(const std::string& path);
// Writes `bytes` to `path` ("-" writes standard output).
Status WriteFile(const std::string& path, std::span<const uint8_t> bytes);

// The folder of the running executable, with a trailing '/' (empty if it
// cannot be told). Tests and benchmarks find the files the build put next
// to them through it, so a build folder copied to another machine runs.
std::string ExecutableDirectory();

}  // namespace kiln
