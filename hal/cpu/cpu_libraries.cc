#include "hal/cpu/cpu_libraries.h"

#include "hal/cpu/thread_pool.h"
#include "hal/utils/library_call_spec.h"
#include "schemas/library_call_generated.h"
#if defined(KILN_HAVE_ONEDNN)
#include "hal/cpu/onednn_convolution.h"
#include "hal/cpu/onednn_library.h"
#include "hal/cpu/onednn_matmul.h"
#endif

namespace kiln::hal::cpu {

using utils::ConvolutionSpec;
using utils::MatmulSpec;
using utils::ValidateConvolutionCall;
using utils::ValidateMatmulCall;

#if !defined(KILN_HAVE_ONEDNN)
// Without oneDNN's headers the driver has no library: Ref needs only the
// declaration's RefObject base for the Result it never holds.
class OnednnLibrary : public RefObject {};
#endif

namespace {

#if !defined(KILN_HAVE_ONEDNN)
constexpr const char* kNotBuilt =
    "kiln was built without oneDNN's headers (Debian: libdnnl-dev), so the cpu driver has no "
    "library calls";
#endif

}  // namespace

CpuLibraries::CpuLibraries(bool enabled, uint32_t thread_count, std::string onednn_path,
                           ThreadPool* pool)
    : enabled_(enabled),
      thread_count_(thread_count),
      onednn_path_(std::move(onednn_path)),
      pool_(pool) {}

CpuLibraries::~CpuLibraries() = default;

const Result<Ref<OnednnLibrary>>& CpuLibraries::onednn() const {
  std::call_once(onednn_once_, [&] {
#if defined(KILN_HAVE_ONEDNN)
    onednn_.emplace(OnednnLibrary::Load(thread_count_, onednn_path_.c_str()));
    if (onednn_->ok() && pool_ != nullptr && (**onednn_)->symbols().gomp_parallel != nullptr) {
      pool_->ShareOpenMpThreads((**onednn_)->symbols().gomp_parallel);
    }
#else
    onednn_.emplace(UnavailableError(kNotBuilt));
#endif
  });
  return *onednn_;
}

Result<std::unique_ptr<CpuLibraryCall>> CpuLibraries::CreateCall(
    const schema::library::LibraryCall& call, const ExecutableExport& info,
    std::string_view where_view) const {
  const std::string where(where_view);
  if ((call.matmul() != nullptr) == (call.convolution() != nullptr)) {
    return InvalidArgumentError(where + ": must hold exactly one of matmul and convolution (" +
                                (call.matmul() ? "it has both" : "it has neither") + ")");
  }
  std::optional<MatmulSpec> matmul;
  std::optional<ConvolutionSpec> convolution;
  if (call.matmul() != nullptr) {
    KILN_ASSIGN_OR_RETURN(matmul, ValidateMatmulCall(*call.matmul(), info, where + ".matmul"));
  } else {
    KILN_ASSIGN_OR_RETURN(
        convolution, ValidateConvolutionCall(*call.convolution(), info, where + ".convolution"));
  }
  if (!enabled_) return std::unique_ptr<CpuLibraryCall>();
  const Result<Ref<OnednnLibrary>>& library = onednn();
  if (!library.ok()) return std::unique_ptr<CpuLibraryCall>();
#if defined(KILN_HAVE_ONEDNN)
  Result<std::unique_ptr<CpuLibraryCall>> created =
      matmul ? CreateOnednnMatmul(*library, *matmul)
             : CreateOnednnConvolution(*library, *convolution);
  // The spec is valid: anything oneDNN refuses or fails at is the kernel's
  // to compute, unless an operand is in the blocked layout. The kernel
  // computes NCHW, so one call in it among calls in oneDNN would read and
  // write the wrong layout: that is an error.
  if (created.ok()) return created;
  if (convolution && convolution->any_blocked()) {
    return FailedPreconditionError(
        where + ": oneDNN cannot make this " + convolution->description + " (" +
        created.status().message() +
        "), and its export's kernel cannot stand in for it: the blocked operands are "
        "another oneDNN call's layout, which the kernel does not read or write");
  }
#endif
  return std::unique_ptr<CpuLibraryCall>();
}

std::string CpuLibraries::Probe(bool enabled) {
  if (!enabled) return "library calls disabled (--cpu_library_calls=false)";
#if defined(KILN_HAVE_ONEDNN)
  Result<Ref<OnednnSymbols>> onednn = OnednnSymbols::Load();
  if (onednn.ok()) return "libraries: " + (*onednn)->Describe();
  return "libraries: oneDNN: not found (" + onednn.status().message() + ")";
#else
  return std::string("libraries: none (") + kNotBuilt + ")";
#endif
}

}  // namespace kiln::hal::cpu
