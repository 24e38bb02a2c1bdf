#include "hal/cpu/onednn_library.h"

#include <algorithm>
#include <limits>

namespace kiln::hal::cpu {

Result<Ref<OnednnLibrary>> OnednnLibrary::Load(uint32_t thread_count, const char* library_path) {
  KILN_ASSIGN_OR_RETURN(Ref<OnednnSymbols> symbols, OnednnSymbols::Load(library_path));
  const uint32_t threads = std::clamp<uint32_t>(thread_count, 1, std::numeric_limits<int>::max());
  Ref<OnednnLibrary> library =
      Ref<OnednnLibrary>::Adopt(new OnednnLibrary(std::move(symbols), threads));
  const OnednnSymbols& s = library->symbols();
  Status created = s.Check(s.dnnl_engine_create(&library->engine_, dnnl_cpu, 0),
                           "dnnl_engine_create(dnnl_cpu, 0)");
  if (!created.ok()) {
    return UnavailableError(s.Describe() + " has no CPU engine: " + created.message());
  }
  // The ISA values are sets of feature bits: AVX-512 (core) is present when
  // all of its bits are.
  const auto isa = static_cast<unsigned>(s.dnnl_get_effective_cpu_isa());
  const auto avx512 = static_cast<unsigned>(dnnl_cpu_isa_avx512_core);
  library->channel_block_ = (isa & avx512) == avx512 ? 16 : 8;
  return library;
}

OnednnLibrary::~OnednnLibrary() {
  if (engine_ != nullptr) symbols_->dnnl_engine_destroy(engine_);
}

OnednnLibrary::ThreadScope::ThreadScope(const OnednnLibrary& library)
    : symbols_(library.symbols()) {
  if (symbols_.omp_set_num_threads == nullptr) return;
  previous_ = symbols_.omp_get_max_threads();
  const int wanted = static_cast<int>(library.thread_count());
  if (previous_ != wanted) {
    symbols_.omp_set_num_threads(wanted);
  } else {
    previous_ = 0;  // Nothing to restore.
  }
}

OnednnLibrary::ThreadScope::~ThreadScope() {
  if (previous_ > 0) symbols_.omp_set_num_threads(previous_);
}

}  // namespace kiln::hal::cpu
