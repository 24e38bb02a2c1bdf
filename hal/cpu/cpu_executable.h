// CpuExecutable: an executable of the CPU driver, i.e. one C function per
// export following the kernel ABI of hal/cpu/kernel_abi.h.
//
// Executables loaded from a "system-elf-*" FlatBuffer (elf_loader.h) are
// CpuExecutables whose functions come from a shared object; the library
// stays loaded as long as the executable lives. Tests and applications may
// also build one directly from function pointers of their own process.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/ref.h"
#include "base/result.h"
#include "hal/cpu/kernel_abi.h"
#include "hal/executable.h"

namespace kiln::hal::cpu {

struct CpuExport {
  ExecutableExport info;
  kiln_hal_kernel_fn function = nullptr;
};

class CpuExecutable final : public Executable {
 public:
  // `library` (may be null) is released when the executable is destroyed;
  // it keeps the code of the functions alive. Validates the exports
  // (names, workgroup sizes, non-null functions).
  static Result<Ref<CpuExecutable>> Create(std::string format, std::vector<CpuExport> exports,
                                           std::shared_ptr<void> library = nullptr);

  kiln_hal_kernel_fn function(uint32_t ordinal) const { return functions_[ordinal]; }

 private:
  CpuExecutable(std::string format, std::vector<ExecutableExport> exports,
                std::vector<kiln_hal_kernel_fn> functions, std::shared_ptr<void> library)
      : Executable(std::move(format), std::move(exports)),
        functions_(std::move(functions)),
        library_(std::move(library)) {}

  std::vector<kiln_hal_kernel_fn> functions_;
  std::shared_ptr<void> library_;
};

}  // namespace kiln::hal::cpu
