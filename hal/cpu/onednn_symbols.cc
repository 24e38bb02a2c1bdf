#include "hal/cpu/onednn_symbols.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

#include "base/shared_library.h"

namespace kiln::hal::cpu {

namespace {

// oneDNN runs its primitives on OpenMP (libgomp, loaded with it), whose
// threads spin for a while after each parallel region by default. Here
// they spin beside the cpu device's own workers, which run the generated
// kernels between two library calls: on the lent 16-core machine those
// kernels then took about 1 ms each, and on the 2-core development machine
// ResNet-50 took 383 ms per call with spinning threads against 84 ms with
// OMP_WAIT_POLICY=PASSIVE (GOMP_SPINCOUNT=10000: 112 ms). libgomp reads its
// environment when it is loaded, so the policy is set before the first
// dlopen, unless the process has chosen one (OMP_WAIT_POLICY or
// GOMP_SPINCOUNT set) or libgomp is already loaded, where it changes
// nothing.
void PreferPassiveOpenMpThreads() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (std::getenv("OMP_WAIT_POLICY") == nullptr && std::getenv("GOMP_SPINCOUNT") == nullptr) {
      ::setenv("OMP_WAIT_POLICY", "PASSIVE", /*overwrite=*/0);
    }
  });
}

}  // namespace

Result<Ref<OnednnSymbols>> OnednnSymbols::Load(const char* library_path) {
  PreferPassiveOpenMpThreads();
  Ref<OnednnSymbols> symbols = Ref<OnednnSymbols>::Adopt(new OnednnSymbols());
  KILN_ASSIGN_OR_RETURN(void* library,
                        OpenSharedLibrary(library_path, "the oneDNN library",
                                          "is oneDNN " + std::to_string(DNNL_VERSION_MAJOR) +
                                              " installed (Debian: libdnnl" +
                                              std::to_string(DNNL_VERSION_MAJOR) + ")?"));
  const SharedLibrarySymbol table[] = {
#define KILN_ONEDNN_SLOT(name) {#name, reinterpret_cast<void**>(&symbols->name)},
      KILN_ONEDNN_SYMBOLS(KILN_ONEDNN_SLOT)
#undef KILN_ONEDNN_SLOT
  };
  KILN_RETURN_IF_ERROR(ResolveSharedLibrarySymbols(library, library_path, table));
  const dnnl_version_t* version = symbols->dnnl_version();
  if (version == nullptr || version->major != DNNL_VERSION_MAJOR) {
    return UnavailableError(std::string(library_path) + " is " + symbols->Describe() +
                            ", kiln was built for oneDNN " + std::to_string(DNNL_VERSION_MAJOR));
  }
  // dlsym on a handle searches the library's dependencies too: libgomp is
  // oneDNN's, loaded RTLD_LOCAL with it, so the process's global scope may
  // not have it.
  symbols->omp_set_num_threads =
      reinterpret_cast<SetNumThreadsFn>(::dlsym(library, "omp_set_num_threads"));
  symbols->omp_get_max_threads =
      reinterpret_cast<GetMaxThreadsFn>(::dlsym(library, "omp_get_max_threads"));
  if (symbols->omp_set_num_threads == nullptr || symbols->omp_get_max_threads == nullptr) {
    symbols->omp_set_num_threads = nullptr;
    symbols->omp_get_max_threads = nullptr;
  }
  symbols->library_ = library;
  return symbols;
}

OnednnSymbols::~OnednnSymbols() {
  // The library stays loaded: oneDNN keeps process state (its primitive
  // cache, JIT code, the OpenMP runtime's threads) that is not meant to be
  // unloaded while the process runs.
}

std::string OnednnSymbols::Describe() const {
  const dnnl_version_t* version = dnnl_version();
  if (version == nullptr) return "oneDNN (unknown version)";
  return "oneDNN " + std::to_string(version->major) + "." + std::to_string(version->minor) + "." +
         std::to_string(version->patch);
}

Status OnednnSymbols::Check(dnnl_status_t status, std::string_view what) const {
  if (status == dnnl_success) return OkStatus();
  std::string message = std::string(what) + ": ";
  switch (status) {
    case dnnl_out_of_memory:
      return ResourceExhaustedError(message + "dnnl_out_of_memory");
    case dnnl_invalid_arguments:
      return InvalidArgumentError(message + "dnnl_invalid_arguments");
    case dnnl_unimplemented:
      return UnimplementedError(message +
                                "dnnl_unimplemented (oneDNN has no implementation for it)");
    case dnnl_iterator_ends:
      return InternalError(message + "dnnl_iterator_ends");
    case dnnl_runtime_error:
      return InternalError(message + "dnnl_runtime_error");
    case dnnl_not_required:
      return InternalError(message + "dnnl_not_required");
    default:
      return InternalError(message + "dnnl_status_t " + std::to_string(static_cast<int>(status)));
  }
}

}  // namespace kiln::hal::cpu
