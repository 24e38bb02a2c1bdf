// Loading a "system-elf-x86_64" / "system-elf-arm_64" executable FlatBuffer
// (schemas/executable_elf.fbs) into a CpuExecutable.
//
// The shared object is never written to disk: its bytes go into an
// anonymous memory file (memfd_create), which is dlopened through
// /proc/self/fd/N and closed right after (the mapping keeps the code). Each
// export's symbol is resolved with dlsym; a missing symbol is an error that
// names the symbol, the export and the executable. The library is dlclosed
// when the executable is destroyed. An export's library call is validated
// and made into a CpuLibraryCall by `libraries` (cpu_libraries.h).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/ref.h"
#include "base/result.h"
#include "hal/cpu/cpu_executable.h"
#include "hal/cpu/cpu_libraries.h"

namespace kiln::hal::cpu {

// The ELF format this host runs: "system-elf-x86_64" or "system-elf-arm_64".
std::string_view HostElfFormat();

// `name` identifies the executable in errors (e.g. its symbol in the module).
// `libraries` makes exports' library calls (null: every export runs its
// kernel, and calls are still validated).
Result<Ref<CpuExecutable>> LoadElfExecutable(std::string_view format,
                                             std::span<const uint8_t> bytes,
                                             std::string_view name = "executable",
                                             const CpuLibraries* libraries = nullptr);

}  // namespace kiln::hal::cpu
