#include "base/file_io.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

namespace kiln {

void AlignedBuffer::Free::operator()(uint8_t* p) const { std::free(p); }

AlignedBuffer::AlignedBuffer(size_t size, size_t alignment) : size_(size) {
  if (alignment < kFileAlignment) alignment = kFileAlignment;
  // aligned_alloc needs a size that is a multiple of the alignment; 0 bytes
  // still gets a valid pointer so data() is never null.
  size_t rounded = (size + alignment - 1) / alignment * alignment;
  if (rounded == 0) rounded = alignment;
  auto* p = static_cast<uint8_t*>(std::aligned_alloc(alignment, rounded));
  if (!p) throw std::bad_alloc();
  data_.reset(p);
}

AlignedBuffer AlignedBuffer::CopyOf(std::span<const uint8_t> bytes, size_t alignment) {
  AlignedBuffer buffer(bytes.size(), alignment);
  if (!bytes.empty()) std::memcpy(buffer.data(), bytes.data(), bytes.size());
  return buffer;
}

Result<AlignedBuffer> ReadFile(const std::string& path) {
  FILE* file = path == "-" ? stdin : std::fopen(path.c_str(), "rb");
  if (!file) {
    return NotFoundError("cannot open '" + path + "': " + std::strerror(errno));
  }
  std::vector<uint8_t> bytes;
  uint8_t chunk[65536];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof(chunk), file)) > 0) {
    bytes.insert(bytes.end(), chunk, chunk + n);
  }
  bool failed = std::ferror(file);
  int saved_errno = errno;
  if (file != stdin) std::fclose(file);
  if (failed) {
    return DataLossError("error reading '" + path + "': " + std::strerror(saved_errno));
  }
  return AlignedBuffer::CopyOf(bytes);
}

Status WriteFile(const std::string& path, std::span<const uint8_t> bytes) {
  FILE* file = path == "-" ? stdout : std::fopen(path.c_str(), "wb");
  if (!file) {
    return NotFoundError("cannot open '" + path + "' for writing: " + std::strerror(errno));
  }
  bool ok = bytes.empty() || std::fwrite(bytes.data(), 1, bytes.size(), file) == bytes.size();
  ok = (file == stdout ? std::fflush(file) : std::fclose(file)) == 0 && ok;
  if (!ok) return DataLossError("error writing '" + path + "': " + std::strerror(errno));
  return OkStatus();
}

std::string ExecutableDirectory() {
  char path[4096] = {};
  const ssize_t length = readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (length <= 0) return std::string();
  std::string text(path, static_cast<size_t>(length));
  return text.substr(0, text.find_last_of('/') + 1);
}

}  // namespace kiln
