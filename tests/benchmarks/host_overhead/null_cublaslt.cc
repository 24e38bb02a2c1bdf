// null_cublaslt.cc: a null cuBLASLt, a libcublasLt.so.13 that does no math.
//
// The companion of null_cuda.cc (the null CUDA driver): kiln opens
// libcublasLt.so.13 at run time and resolves the functions of
// KILN_CUBLASLT_SYMBOLS (hal/cuda/cublaslt_symbols.h) with dlsym. With this
// library first on LD_LIBRARY_PATH, matmuls that the compiler hands to
// cuBLASLt go through kiln's whole library-call path (planning, workspace,
// capture into a child graph, patching) on a machine without a GPU, and
// cost kiln's share only: a matmul does nothing. A real cuBLASLt there would
// not load (it needs the real driver), and kiln would run the generated
// kernels instead, which is another path.
//
// Descriptors, layouts and preferences are heap objects that accept any
// attribute; the heuristic offers one algorithm that needs no workspace;
// cublasLtGetVersion is the headers' own version, which kiln requires (its
// major version must be the headers'). Matmuls enqueue nothing on the
// stream, so a stream capture around one ends with an empty graph.
//
// KILN_NULL_CUDA_COUNTS=1 prints at exit how often each function was called,
// as null_cuda.cc does for the driver.
#include <cublasLt.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <utility>
#include <vector>

#include "hal/cuda/cublaslt_symbols.h"  // KILN_CUBLASLT_SYMBOLS: what kiln resolves.

// The handle type <cublasLt.h> leaves opaque.
struct cublasLtContext {
  int unused = 0;
};

namespace {

// X(name): every function kiln resolves (KILN_CUBLASLT_SYMBOLS itself, so a
// symbol kiln adds fails to build here until it has a stub).
#define NULL_CUBLASLT_FUNCTIONS(X) KILN_CUBLASLT_SYMBOLS(X)

enum CallIndex : int {
#define NULL_CUBLASLT_INDEX(name) kCall_##name,
  NULL_CUBLASLT_FUNCTIONS(NULL_CUBLASLT_INDEX)
#undef NULL_CUBLASLT_INDEX
      kCallCount
};

constexpr const char* kCallNames[kCallCount] = {
#define NULL_CUBLASLT_NAME(name) #name,
    NULL_CUBLASLT_FUNCTIONS(NULL_CUBLASLT_NAME)
#undef NULL_CUBLASLT_NAME
};

// Read once at load, as in null_cuda.cc.
const bool g_counting = [] {
  const char* value = std::getenv("KILN_NULL_CUDA_COUNTS");
  return value != nullptr && *value != '\0' && std::string_view(value) != "0";
}();
std::atomic<uint64_t> g_calls[kCallCount];

#define COUNT_CALL(name) \
  if (g_counting) g_calls[kCall_##name].fetch_add(1, std::memory_order_relaxed)

struct CountReport {
  ~CountReport() {
    if (!g_counting) return;
    std::vector<std::pair<uint64_t, const char*>> rows;
    for (int i = 0; i < kCallCount; ++i) {
      const uint64_t n = g_calls[i].load(std::memory_order_relaxed);
      if (n != 0) rows.emplace_back(n, kCallNames[i]);
    }
    if (rows.empty()) return;
    std::stable_sort(rows.begin(), rows.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    std::fprintf(stderr, "kiln null cuBLASLt: calls per function\n");
    for (const auto& [n, name] : rows) {
      std::fprintf(stderr, "  %-36s %12llu\n", name, static_cast<unsigned long long>(n));
    }
  }
} g_count_report;

// What every Set*Attribute checks: a value to read.
cublasStatus_t CheckAttribute(const void* object, const void* buffer, size_t size) {
  if (object == nullptr || buffer == nullptr || size == 0) return CUBLAS_STATUS_INVALID_VALUE;
  return CUBLAS_STATUS_SUCCESS;
}

}  // namespace

size_t cublasLtGetVersion(void) {
  COUNT_CALL(cublasLtGetVersion);
  return CUBLAS_VERSION;
}

const char* cublasLtGetStatusName(cublasStatus_t status) {
  COUNT_CALL(cublasLtGetStatusName);
  switch (status) {
    case CUBLAS_STATUS_SUCCESS:
      return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED:
      return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED:
      return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE:
      return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH:
      return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR:
      return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED:
      return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR:
      return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED:
      return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_LICENSE_ERROR:
      return "CUBLAS_STATUS_LICENSE_ERROR";
  }
  return "CUBLAS_STATUS_UNKNOWN";
}

const char* cublasLtGetStatusString(cublasStatus_t status) {
  COUNT_CALL(cublasLtGetStatusString);
  switch (status) {
    case CUBLAS_STATUS_SUCCESS:
      return "success";
    case CUBLAS_STATUS_NOT_INITIALIZED:
      return "the library was not initialized";
    case CUBLAS_STATUS_ALLOC_FAILED:
      return "the resource allocation failed";
    case CUBLAS_STATUS_INVALID_VALUE:
      return "an invalid numeric value was used as an argument";
    case CUBLAS_STATUS_ARCH_MISMATCH:
      return "an absent device architectural feature is required";
    case CUBLAS_STATUS_MAPPING_ERROR:
      return "an access to GPU memory space failed";
    case CUBLAS_STATUS_EXECUTION_FAILED:
      return "the GPU program failed to execute";
    case CUBLAS_STATUS_INTERNAL_ERROR:
      return "an internal operation failed";
    case CUBLAS_STATUS_NOT_SUPPORTED:
      return "the functionality requested is not supported";
    case CUBLAS_STATUS_LICENSE_ERROR:
      return "error detected trying to check the license";
  }
  return "unknown error";
}

cublasStatus_t cublasLtCreate(cublasLtHandle_t* handle) {
  COUNT_CALL(cublasLtCreate);
  if (handle == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  *handle = new cublasLtContext();
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtDestroy(cublasLtHandle_t handle) {
  COUNT_CALL(cublasLtDestroy);
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  delete handle;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t* desc, cublasComputeType_t compute,
                                        cudaDataType_t scale) {
  COUNT_CALL(cublasLtMatmulDescCreate);
  if (desc == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  *desc = new cublasLtMatmulDescOpaque_t();
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t desc) {
  COUNT_CALL(cublasLtMatmulDescDestroy);
  delete desc;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t desc,
                                              cublasLtMatmulDescAttributes_t attribute,
                                              const void* buffer, size_t size) {
  COUNT_CALL(cublasLtMatmulDescSetAttribute);
  return CheckAttribute(desc, buffer, size);
}

cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t* layout, cudaDataType type,
                                          uint64_t rows, uint64_t cols, int64_t ld) {
  COUNT_CALL(cublasLtMatrixLayoutCreate);
  if (layout == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  *layout = new cublasLtMatrixLayoutOpaque_t();
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t layout) {
  COUNT_CALL(cublasLtMatrixLayoutDestroy);
  delete layout;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t layout,
                                                cublasLtMatrixLayoutAttribute_t attribute,
                                                const void* buffer, size_t size) {
  COUNT_CALL(cublasLtMatrixLayoutSetAttribute);
  return CheckAttribute(layout, buffer, size);
}

cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t* preference) {
  COUNT_CALL(cublasLtMatmulPreferenceCreate);
  if (preference == nullptr) return CUBLAS_STATUS_INVALID_VALUE;
  *preference = new cublasLtMatmulPreferenceOpaque_t();
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t preference) {
  COUNT_CALL(cublasLtMatmulPreferenceDestroy);
  delete preference;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t preference,
                                                    cublasLtMatmulPreferenceAttributes_t attribute,
                                                    const void* buffer, size_t size) {
  COUNT_CALL(cublasLtMatmulPreferenceSetAttribute);
  return CheckAttribute(preference, buffer, size);
}

cublasStatus_t cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t handle,
                                              cublasLtMatmulDesc_t operation,
                                              cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
                                              cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t d,
                                              cublasLtMatmulPreference_t preference, int requested,
                                              cublasLtMatmulHeuristicResult_t results[],
                                              int* returned) {
  COUNT_CALL(cublasLtMatmulAlgoGetHeuristic);
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (operation == nullptr || a == nullptr || b == nullptr || c == nullptr || d == nullptr ||
      preference == nullptr || requested <= 0 || results == nullptr || returned == nullptr) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  // One algorithm, needing no workspace.
  results[0] = cublasLtMatmulHeuristicResult_t{};
  results[0].workspaceSize = 0;
  results[0].state = CUBLAS_STATUS_SUCCESS;
  results[0].wavesCount = 1.0f;
  *returned = 1;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmul(cublasLtHandle_t handle, cublasLtMatmulDesc_t operation,
                              const void* alpha, const void* a, cublasLtMatrixLayout_t a_layout,
                              const void* b, cublasLtMatrixLayout_t b_layout, const void* beta,
                              const void* c, cublasLtMatrixLayout_t c_layout, void* d,
                              cublasLtMatrixLayout_t d_layout, const cublasLtMatmulAlgo_t* algo,
                              void* workspace, size_t workspace_bytes, cudaStream_t stream) {
  COUNT_CALL(cublasLtMatmul);
  if (handle == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;
  if (operation == nullptr || alpha == nullptr || beta == nullptr || a_layout == nullptr ||
      b_layout == nullptr || c_layout == nullptr || d_layout == nullptr) {
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  return CUBLAS_STATUS_SUCCESS;
}
