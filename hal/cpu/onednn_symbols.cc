#include "hal/cpu/onednn_symbols.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

#include "base/shared_library.h"

namespace kiln::hal::cpu {

namespace {

// oneDNN runs its primitives on OpenMP (libgomp, loaded with it), and the
// cpu device then runs its generated kernels on the same threads
// (ThreadPool::ShareOpenMpThreads). Between two parallel regions those
// threads spin for GOMP_SPINCOUNT iterations before they sleep: libgomp's
// default, 300000, keeps them burning the cores for about a millisecond
// after every call, and sleeping at once (OMP_WAIT_POLICY=PASSIVE) makes
// every dispatch of a model pay a wake-up of each thread. Measured on the
// lent 16-core machine (ms per call, median of 5, two rounds, one run):
// ResNet-50 17.9/17.9 passive, 15.5/17.0 at 30000, 17.4/14.5 at 300000,
// 15.6/16.4 active; GPT-2 43.1/48.2, 40.8/40.0, 43.8/41.0, 49.7/44.8. libgomp
// reads its environment when it is loaded, so the spin count is set before
// the first dlopen, unless the process has chosen (OMP_WAIT_POLICY or
// GOMP_SPINCOUNT set) or libgomp is already loaded, where it changes
// nothing.
inline constexpr char kOpenMpSpinCount[] = "30000";

void PreferShortOpenMpSpin() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (std::getenv("OMP_WAIT_POLICY") == nullptr && std::getenv("GOMP_SPINCOUNT") == nullptr) {
      ::setenv("GOMP_SPINCOUNT", kOpenMpSpinCount, /*overwrite=*/0);
    }
  });
}

}  // namespace

Result<Ref<OnednnSymbols>> OnednnSymbols::Load(const char* library_path) {
  PreferShortOpenMpSpin();
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
  symbols->gomp_parallel = reinterpret_cast<ParallelRegionFn>(::dlsym(library, "GOMP_parallel"));
  if (symbols->omp_set_num_threads == nullptr || symbols->omp_get_max_threads == nullptr ||
      symbols->gomp_parallel == nullptr) {
    symbols->omp_set_num_threads = nullptr;
    symbols->omp_get_max_threads = nullptr;
    symbols->gomp_parallel = nullptr;
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
