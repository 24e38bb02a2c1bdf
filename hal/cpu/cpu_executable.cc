#include "hal/cpu/cpu_executable.h"

namespace kiln::hal::cpu {

Result<Ref<CpuExecutable>> CpuExecutable::Create(std::string format, std::vector<CpuExport> exports,
                                                 std::shared_ptr<void> library) {
  std::vector<ExecutableExport> infos;
  std::vector<kiln_hal_kernel_fn> functions;
  std::vector<std::shared_ptr<const CpuLibraryCall>> library_calls;
  for (CpuExport& e : exports) {
    if (e.function == nullptr) {
      return InvalidArgumentError(format + " executable export '" + e.info.name +
                                  "' has no function");
    }
    infos.push_back(std::move(e.info));
    functions.push_back(e.function);
    library_calls.push_back(std::move(e.library_call));
  }
  KILN_RETURN_IF_ERROR(ValidateExports(format, infos));
  return Ref<CpuExecutable>::Adopt(new CpuExecutable(std::move(format), std::move(infos),
                                                     std::move(functions), std::move(library_calls),
                                                     std::move(library)));
}

}  // namespace kiln::hal::cpu
