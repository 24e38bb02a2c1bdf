#include "hal/cpu/elf_loader.h"

#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "flatbuffers/flatbuffers.h"
#include "schemas/executable_elf_generated.h"

namespace kiln::hal::cpu {
namespace {

namespace fb = ::kiln::schema::elf;

std::string ErrnoString() { return std::strerror(errno); }

// Writes all of `bytes` to `fd`, retrying short writes.
Status WriteAll(int fd, std::span<const uint8_t> bytes, const std::string& where) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return InternalError(where +
                           ": writing the shared object to a memory file: " + ErrnoString());
    }
    done += static_cast<size_t>(n);
  }
  return OkStatus();
}

// dlopens `bytes` from an anonymous memory file.
Result<std::shared_ptr<void>> OpenLibraryFromMemory(std::span<const uint8_t> bytes,
                                                    const std::string& where) {
  int fd = ::memfd_create("kiln-executable", MFD_CLOEXEC);
  if (fd < 0) return UnavailableError(where + ": memfd_create failed: " + ErrnoString());
  Status written = WriteAll(fd, bytes, where);
  if (!written.ok()) {
    ::close(fd);
    return written;
  }
  // The file stays open as long as the library is loaded: the dynamic loader
  // knows a loaded library by the path it was opened with, and a closed fd's
  // number (so its /proc/self/fd/N path) is reused by the next memfd, whose
  // dlopen would then return the first library instead of loading its own.
  std::string path = "/proc/self/fd/" + std::to_string(fd);
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    std::string error = ::dlerror();
    ::close(fd);
    return InvalidArgumentError(where + ": dlopen of the embedded shared object failed: " + error);
  }
  return std::shared_ptr<void>(handle, [fd](void* h) {
    ::dlclose(h);
    ::close(fd);
  });
}

}  // namespace

std::string_view HostElfFormat() {
#if defined(__x86_64__)
  return "system-elf-x86_64";
#elif defined(__aarch64__)
  return "system-elf-arm_64";
#else
  return "system-elf-unsupported-host";
#endif
}

Result<Ref<CpuExecutable>> LoadElfExecutable(std::string_view format,
                                             std::span<const uint8_t> bytes, std::string_view name,
                                             const CpuLibraries* libraries) {
  std::string where = std::string(format) + " executable '" + std::string(name) + "'";
  if (format != "system-elf-x86_64" && format != "system-elf-arm_64") {
    return InvalidArgumentError(where +
                                ": not an ELF executable format (expected "
                                "system-elf-x86_64 or system-elf-arm_64)");
  }
  if (format != HostElfFormat()) {
    return UnavailableError(where + ": this host runs " + std::string(HostElfFormat()));
  }
  flatbuffers::Verifier verifier(bytes.data(), bytes.size());
  if (bytes.size() < 8 || !fb::ElfExecutableBufferHasIdentifier(bytes.data()) ||
      !fb::VerifyElfExecutableBuffer(verifier)) {
    return InvalidArgumentError(where + ": not a valid ELF executable FlatBuffer (identifier " +
                                std::string(fb::ElfExecutableIdentifier()) + ")");
  }
  const fb::ElfExecutable* flat = fb::GetElfExecutable(bytes.data());
  if (flat->library() == nullptr || flat->library()->size() == 0) {
    return InvalidArgumentError(where + " has no shared object");
  }
  std::vector<CpuExport> exports;
  if (flat->exports() != nullptr) {
    for (uint32_t i = 0; i < flat->exports()->size(); ++i) {
      const fb::Export* e = flat->exports()->Get(i);
      std::string export_where = where + " export " + std::to_string(i);
      if (e->name() == nullptr || e->symbol() == nullptr) {
        return InvalidArgumentError(export_where + " lacks a name or a symbol");
      }
      if (e->workgroup_size() == nullptr) {
        return InvalidArgumentError(export_where + " '" + e->name()->str() +
                                    "' has no workgroup size");
      }
      CpuExport out;
      out.info.name = e->name()->str();
      out.info.workgroup_size = {e->workgroup_size()->x(), e->workgroup_size()->y(),
                                 e->workgroup_size()->z()};
      out.info.layout.constant_count = e->constant_count();
      if (e->bindings() != nullptr) {
        for (const fb::Binding* b : *e->bindings()) {
          out.info.layout.bindings.push_back({DescriptorType::kStorageBuffer, b->read_only()});
        }
      }
      if (e->library_call() != nullptr) {
        // Validated even without libraries, so that a module loads (or not)
        // the same way everywhere.
        static const CpuLibraries kNoLibraries(/*enabled=*/false, 1);
        const CpuLibraries& owner = libraries != nullptr ? *libraries : kNoLibraries;
        KILN_ASSIGN_OR_RETURN(
            out.library_call,
            owner.CreateCall(*e->library_call(), out.info,
                             export_where + " '" + out.info.name + "' library_call"));
      }
      exports.push_back(std::move(out));
    }
  }
  KILN_ASSIGN_OR_RETURN(
      std::shared_ptr<void> library,
      OpenLibraryFromMemory({flat->library()->data(), flat->library()->size()}, where));
  for (uint32_t i = 0; i < exports.size(); ++i) {
    const char* symbol = flat->exports()->Get(i)->symbol()->c_str();
    ::dlerror();
    void* address = ::dlsym(library.get(), symbol);
    if (address == nullptr) {
      return NotFoundError(where + ": symbol '" + symbol + "' of export '" + exports[i].info.name +
                           "' is not in the shared object");
    }
    exports[i].function = reinterpret_cast<kiln_hal_kernel_fn>(address);
  }
  return CpuExecutable::Create(std::string(format), std::move(exports), std::move(library));
}

}  // namespace kiln::hal::cpu
