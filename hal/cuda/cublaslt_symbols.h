// CublasLtSymbols: the cuBLASLt entry points kiln uses, resolved at run time
// from libcublasLt.so.13.
//
// kiln never links cuBLASLt (DESIGN.md, principle 6): a binary built with
// the toolkit's headers starts on a machine without it, where matmul
// exports then run their generated kernels and --list_devices says why.
// The headers (cublasLt.h) are used at build time only, for types and
// prototypes; each member has exactly the type of the function the header
// declares. The library's major version must be the headers' (13): the
// descriptor attributes kiln sets are numbered per major version.
#pragma once

#include <cublasLt.h>

#include <string>
#include <string_view>

#include "base/ref.h"
#include "base/result.h"

namespace kiln::hal::cuda {

// X(name): every cuBLASLt function kiln calls, looked up by its own name.
#define KILN_CUBLASLT_SYMBOLS(X)          \
  X(cublasLtGetVersion)                   \
  X(cublasLtGetStatusName)                \
  X(cublasLtGetStatusString)              \
  X(cublasLtCreate)                       \
  X(cublasLtDestroy)                      \
  X(cublasLtMatmulDescCreate)             \
  X(cublasLtMatmulDescDestroy)            \
  X(cublasLtMatmulDescSetAttribute)       \
  X(cublasLtMatrixLayoutCreate)           \
  X(cublasLtMatrixLayoutDestroy)          \
  X(cublasLtMatrixLayoutSetAttribute)     \
  X(cublasLtMatmulPreferenceCreate)       \
  X(cublasLtMatmulPreferenceDestroy)      \
  X(cublasLtMatmulPreferenceSetAttribute) \
  X(cublasLtMatmulAlgoGetHeuristic)       \
  X(cublasLtMatmul)

class CublasLtSymbols : public RefObject {
 public:
  // Opens libcublasLt.so.13 (or `library_path`) and resolves every symbol.
  // UNAVAILABLE names what is missing: the library (with dlerror's text), a
  // symbol, or the right major version.
  static Result<Ref<CublasLtSymbols>> Load(const char* library_path = "libcublasLt.so.13");
  ~CublasLtSymbols() override;

  // "cublasLt 13.1.0": the version of the library that was loaded (not of
  // the headers kiln was built with).
  std::string Describe() const;

  // OK for CUBLAS_STATUS_SUCCESS; otherwise an error whose code follows the
  // status (INVALID_ARGUMENT for a bad value, UNIMPLEMENTED for what the
  // library does not support, RESOURCE_EXHAUSTED for a failed allocation,
  // INTERNAL otherwise) and whose message is
  // "<what>: CUBLAS_STATUS_X (description)".
  Status Check(cublasStatus_t status, std::string_view what) const;

#define KILN_CUBLASLT_DECLARE_MEMBER(name) decltype(&::name) name = nullptr;
  KILN_CUBLASLT_SYMBOLS(KILN_CUBLASLT_DECLARE_MEMBER)
#undef KILN_CUBLASLT_DECLARE_MEMBER

 private:
  CublasLtSymbols() = default;
  void* library_ = nullptr;
};

}  // namespace kiln::hal::cuda
