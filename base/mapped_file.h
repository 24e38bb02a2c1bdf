// A file mapped read-only into memory: its bytes without reading them all.
//
// Weights kept beside a program (safetensors files of external parameters,
// hal/parameters/) can be gigabytes: mapping them costs no copy and no heap,
// the kernel pages in only what is read (a parameter being uploaded), and
// every context of the process shares the one mapping.
//
//   KILN_ASSIGN_OR_RETURN(std::unique_ptr<MappedFile> file, MappedFile::Open(path));
//   std::span<const uint8_t> bytes = file->bytes();
//
// The mapping is private and read-only, so writes to the file by another
// process while it is mapped are the one thing it cannot guard against (as
// with any mmap reader). An empty file maps to an empty span. Errors name the
// path and the system's reason.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "base/result.h"

namespace kiln {

class MappedFile {
 public:
  // Maps the whole of `path` (a regular file).
  static Result<std::unique_ptr<MappedFile>> Open(const std::string& path);

  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  const std::string& path() const { return path_; }
  std::span<const uint8_t> bytes() const { return {data_, size_}; }
  size_t size() const { return size_; }

 private:
  MappedFile(std::string path, const uint8_t* data, size_t size)
      : path_(std::move(path)), data_(data), size_(size) {}

  std::string path_;
  const uint8_t* data_;  // Null when the file is empty.
  size_t size_;
};

}  // namespace kiln
