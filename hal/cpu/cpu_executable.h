// CpuExecutable: an executable of the CPU driver, i.e. one C function per
// export following the kernel ABI of hal/cpu/kernel_abi.h.
//
// Executables loaded from a "system-elf-*" FlatBuffer (elf_loader.h) are
// CpuExecutables whose functions come from a shared object; the library
// stays loaded as long as the executable lives. An export may also have a
// library call (library_call.h), which its dispatches run instead of the
// function. Tests and applications may
// also build one directly from function pointers of their own process.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/ref.h"
#include "base/result.h"
#include "hal/cpu/kernel_abi.h"
#include "hal/cpu/library_call.h"
#include "hal/executable.h"

namespace kiln::hal::cpu {

struct CpuExport {
  ExecutableExport info;
  kiln_hal_kernel_fn function = nullptr;
  // Run once per dispatch instead of `function` (null: none). Shared so
  // that exports stay copyable.
  std::shared_ptr<const CpuLibraryCall> library_call;
};

class CpuExecutable final : public Executable {
 public:
  // `library` (may be null) is released when the executable is destroyed;
  // it keeps the code of the functions alive. Validates the exports
  // (names, workgroup sizes, non-null functions).
  static Result<Ref<CpuExecutable>> Create(std::string format, std::vector<CpuExport> exports,
                                           std::shared_ptr<void> library = nullptr);

  kiln_hal_kernel_fn function(uint32_t ordinal) const { return functions_[ordinal]; }
  // The library call export `ordinal` runs instead of its function, or null.
  const CpuLibraryCall* library_call(uint32_t ordinal) const {
    return library_calls_[ordinal].get();
  }

 private:
  CpuExecutable(std::string format, std::vector<ExecutableExport> exports,
                std::vector<kiln_hal_kernel_fn> functions,
                std::vector<std::shared_ptr<const CpuLibraryCall>> library_calls,
                std::shared_ptr<void> library)
      : Executable(std::move(format), std::move(exports)),
        functions_(std::move(functions)),
        library_calls_(std::move(library_calls)),
        library_(std::move(library)) {}

  std::vector<kiln_hal_kernel_fn> functions_;
  std::vector<std::shared_ptr<const CpuLibraryCall>> library_calls_;
  std::shared_ptr<void> library_;
};

}  // namespace kiln::hal::cpu
