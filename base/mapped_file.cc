#include "base/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace kiln {

Result<std::unique_ptr<MappedFile>> MappedFile::Open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return NotFoundError("cannot open '" + path + "': " + std::strerror(errno));
  struct stat info = {};
  if (::fstat(fd, &info) != 0) {
    const int saved = errno;
    ::close(fd);
    return DataLossError("cannot stat '" + path + "': " + std::strerror(saved));
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    return InvalidArgumentError("cannot map '" + path + "': not a regular file");
  }
  const size_t size = static_cast<size_t>(info.st_size);
  const uint8_t* data = nullptr;
  if (size > 0) {
    void* mapped = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (mapped == MAP_FAILED) {
      const int saved = errno;
      ::close(fd);
      return ResourceExhaustedError("cannot map '" + path + "' (" + std::to_string(size) +
                                    " bytes): " + std::strerror(saved));
    }
    data = static_cast<const uint8_t*>(mapped);
  }
  // The mapping keeps the file's pages; the descriptor is not needed.
  ::close(fd);
  return std::unique_ptr<MappedFile>(new MappedFile(path, data, size));
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(const_cast<uint8_t*>(data_), size_);
}

}  // namespace kiln
