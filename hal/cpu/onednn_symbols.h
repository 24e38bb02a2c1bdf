// OnednnSymbols: the oneDNN (libdnnl.so.2) entry points the CPU driver's
// library calls use (onednn_call.h), resolved at run time.
//
// kiln never links oneDNN (DESIGN.md, principle 5): a binary built with its
// headers (Debian's libdnnl-dev, 2.6) starts on a machine without it, where
// matmul and convolution exports then run their kernels and --list_devices
// says why. The headers are used at build time only, for types and
// prototypes; each member has exactly the type of the function the header
// declares. The library's major version must be the headers' (2): the C
// API's op descriptors changed in 3.0.
#pragma once

#include <oneapi/dnnl/dnnl.h>

#include <string>
#include <string_view>

#include "base/ref.h"
#include "base/result.h"

namespace kiln::hal::cpu {

// X(name): every oneDNN function kiln calls, looked up by its own name.
#define KILN_ONEDNN_SYMBOLS(X)                  \
  X(dnnl_version)                               \
  X(dnnl_get_effective_cpu_isa)                 \
  X(dnnl_engine_create)                         \
  X(dnnl_engine_destroy)                        \
  X(dnnl_stream_create)                         \
  X(dnnl_stream_wait)                           \
  X(dnnl_stream_destroy)                        \
  X(dnnl_memory_desc_init_by_strides)           \
  X(dnnl_memory_desc_init_by_tag)               \
  X(dnnl_memory_desc_equal)                     \
  X(dnnl_memory_desc_get_size)                  \
  X(dnnl_memory_create)                         \
  X(dnnl_memory_set_data_handle)                \
  X(dnnl_memory_destroy)                        \
  X(dnnl_matmul_desc_init)                      \
  X(dnnl_dilated_convolution_forward_desc_init) \
  X(dnnl_post_ops_create)                       \
  X(dnnl_post_ops_destroy)                      \
  X(dnnl_post_ops_append_sum)                   \
  X(dnnl_post_ops_append_binary)                \
  X(dnnl_post_ops_append_eltwise)               \
  X(dnnl_primitive_attr_create)                 \
  X(dnnl_primitive_attr_destroy)                \
  X(dnnl_primitive_attr_set_scratchpad_mode)    \
  X(dnnl_primitive_attr_set_post_ops)           \
  X(dnnl_primitive_desc_create)                 \
  X(dnnl_reorder_primitive_desc_create)         \
  X(dnnl_primitive_desc_destroy)                \
  X(dnnl_primitive_desc_query)                  \
  X(dnnl_primitive_desc_query_md)               \
  X(dnnl_primitive_create)                      \
  X(dnnl_primitive_execute)                     \
  X(dnnl_primitive_destroy)

class OnednnSymbols : public RefObject {
 public:
  // Opens libdnnl.so.2 (or `library_path`) and resolves every symbol.
  // UNAVAILABLE names what is missing: the library (with dlerror's text), a
  // symbol, or the right major version.
  static Result<Ref<OnednnSymbols>> Load(const char* library_path = "libdnnl.so.2");
  ~OnednnSymbols() override;

  // "oneDNN 2.6.3": the version of the library that was loaded (not of the
  // headers kiln was built with).
  std::string Describe() const;

  // OK for dnnl_success; otherwise an error whose code follows the status
  // (UNIMPLEMENTED for what the library has no implementation of,
  // RESOURCE_EXHAUSTED for a failed allocation, INVALID_ARGUMENT for a bad
  // value, INTERNAL otherwise) and whose message is "<what>: <status name>".
  Status Check(dnnl_status_t status, std::string_view what) const;

  // The OpenMP runtime oneDNN runs its threads on (libgomp for Debian's
  // build), found among the library's dependencies; null where oneDNN was
  // built for another threading runtime (TBB, a threadpool).
  using SetNumThreadsFn = void (*)(int);
  using GetMaxThreadsFn = int (*)();
  SetNumThreadsFn omp_set_num_threads = nullptr;
  GetMaxThreadsFn omp_get_max_threads = nullptr;
  // The runtime's entry point that runs `fn(data)` on a team of
  // `num_threads` threads (the calling thread among them) and returns when
  // every one has: what GCC emits for `#pragma omp parallel`, a stable ABI
  // of libgomp (and of LLVM's and Intel's OpenMP runtimes, which provide it
  // for GCC-built code). The cpu device runs its generated kernels on the
  // same threads through it (ThreadPool::ShareOpenMpThreads). Null with the
  // two above.
  using ParallelRegionFn = void (*)(void (*fn)(void*), void* data, unsigned num_threads,
                                    unsigned flags);
  ParallelRegionFn gomp_parallel = nullptr;

#define KILN_ONEDNN_DECLARE_MEMBER(name) decltype(&::name) name = nullptr;
  KILN_ONEDNN_SYMBOLS(KILN_ONEDNN_DECLARE_MEMBER)
#undef KILN_ONEDNN_DECLARE_MEMBER

 private:
  OnednnSymbols() = default;
  void* library_ = nullptr;
};

}  // namespace kiln::hal::cpu
