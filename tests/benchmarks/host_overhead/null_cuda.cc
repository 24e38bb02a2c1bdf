// null_cuda.cc: a null CUDA driver, a libcuda.so.1 that needs no GPU.
//
// kiln opens libcuda.so.1 at run time and resolves every driver entry point it
// calls through cuGetProcAddress_v2 (hal/cuda/cuda_symbols.h). This library
// answers those look-ups with stubs that do no device work, so that kiln's own
// host cost per call (the VM, the HAL, graph patching, submission) can be
// timed and profiled (perf, callgrind) on a machine without a GPU, with no
// driver time mixed in: put its folder first on LD_LIBRARY_PATH (README.md).
//
// What the stubs do:
// - Device memory is host memory (256-byte aligned, as cuMemAlloc's is);
//   copies and fills outside graphs run at once on the host.
// - Kernels and graph launches do nothing: device results, and whatever a
//   graph's copy or fill nodes would write, are never produced. A program
//   whose host control flow depends on device results (a shape read back)
//   sees whatever the memory held.
// - Events are always complete, so nothing ever waits.
// - Handles are heap objects, checked for null and (for graph nodes) for
//   belonging to the graph and being of the right kind, with the errors the
//   real driver returns for these misuses: a kiln bug then fails here as it
//   would on a GPU, instead of passing silently.
// - Stream capture records the captured work as graph nodes (none for work
//   that libraries enqueue without the driver, like the null cuBLASLt's).
//
// KILN_NULL_CUDA_COUNTS=1 prints at exit how often each entry point was
// called (and how many graph nodes the launches held): the driver calls a
// kiln call makes, which a real driver charges for each.
#include <cuda.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hal/cuda/cuda_symbols.h"  // KILN_CUDA_SYMBOLS: the entry points kiln resolves.

// The opaque handle types <cuda.h> declares, defined here. Functions before
// modules: a module owns its functions.
struct CUctx_st {
  CUdevice device = 0;
};

struct CUfunc_st {
  // What cuFuncSetAttribute changed; the launch checks against it.
  std::atomic<int> max_dynamic_shared_bytes{48 * 1024};
};

struct CUmod_st {
  // The PTX text, to tell a kernel name that is not there (empty for a
  // binary image, whose kernels are all taken on trust).
  std::string ptx;
  std::mutex mutex;  // cuModuleGetFunction may run on several threads.
  std::map<std::string, std::unique_ptr<CUfunc_st>, std::less<>> functions;
};

struct CUstream_st {
  // Read by every enqueue, possibly on another thread than the capture's.
  std::atomic<bool> capturing{false};
  CUgraph capture = nullptr;  // Only the capturing thread touches it.
};

struct CUevent_st {
  unsigned int flags = 0;
};

struct CUgraphNode_st {
  uint64_t graph_id = 0;  // The graph it was added to (an exec has its ids).
  CUgraphNodeType type = CU_GRAPH_NODE_TYPE_EMPTY;
  size_t child_nodes = 0;  // A child graph's node count: its topology.
};

struct CUgraph_st {
  uint64_t id = 0;
  std::vector<std::unique_ptr<CUgraphNode_st>> nodes;
};

struct CUgraphExec_st {
  uint64_t graph_id = 0;
  size_t node_count = 0;
};

struct CUmemPoolHandle_st {
  cuuint64_t release_threshold = 0;
};

namespace {

// X(name): every entry point this driver hands out: cuGetProcAddress and
// the list kiln resolves (KILN_CUDA_SYMBOLS, so a symbol kiln adds fails to
// build here until it has a stub), by the unversioned name kiln looks up;
// `&name` is the variant the header's macro names (cuMemAlloc_v2), which is
// the one a driver returns for CUDA_VERSION.
#define NULL_CUDA_FUNCTIONS(X) \
  X(cuGetProcAddress)          \
  KILN_CUDA_SYMBOLS(X)

// --- Call counts (KILN_NULL_CUDA_COUNTS=1) -----------------------------------

enum CallIndex : int {
#define NULL_CUDA_INDEX(name) kCall_##name,
  NULL_CUDA_FUNCTIONS(NULL_CUDA_INDEX)
#undef NULL_CUDA_INDEX
      kCallCount
};

constexpr const char* kCallNames[kCallCount] = {
#define NULL_CUDA_NAME(name) #name,
    NULL_CUDA_FUNCTIONS(NULL_CUDA_NAME)
#undef NULL_CUDA_NAME
};

// Read once at load: counting costs an atomic add per call, which a run that
// is not counting should not pay.
const bool g_counting = [] {
  const char* value = std::getenv("KILN_NULL_CUDA_COUNTS");
  return value != nullptr && *value != '\0' && std::string_view(value) != "0";
}();
std::atomic<uint64_t> g_calls[kCallCount];
std::atomic<uint64_t> g_launched_nodes{0};

#define COUNT_CALL(name) \
  if (g_counting) g_calls[kCall_##name].fetch_add(1, std::memory_order_relaxed)

// Prints the counts when the process exits (the library is never unloaded:
// kiln keeps libcuda loaded for the life of the process).
struct CountReport {
  ~CountReport() {
    if (!g_counting) return;
    std::vector<std::pair<uint64_t, const char*>> rows;
    for (int i = 0; i < kCallCount; ++i) {
      const uint64_t n = g_calls[i].load(std::memory_order_relaxed);
      if (n != 0) rows.emplace_back(n, kCallNames[i]);
    }
    std::stable_sort(rows.begin(), rows.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    std::fprintf(stderr, "kiln null CUDA driver: calls per entry point\n");
    for (const auto& [n, name] : rows) {
      std::fprintf(stderr, "  %-36s %12llu\n", name, static_cast<unsigned long long>(n));
    }
    std::fprintf(stderr, "  %-36s %12llu\n", "(graph nodes launched)",
                 static_cast<unsigned long long>(g_launched_nodes.load()));
  }
} g_count_report;

// --- Shared state ------------------------------------------------------------

constexpr char kDeviceName[] = "kiln null CUDA device";
// cuMemAlloc's alignment: kiln's planned offsets and cuBLASLt's operand
// alignment checks assume it.
constexpr size_t kAlignment = 256;

std::atomic<bool> g_initialized{false};
CUctx_st g_primary_context;
std::atomic<int> g_primary_retains{0};
CUmemPoolHandle_st g_default_pool;
std::atomic<uint64_t> g_next_graph_id{1};
// The current context is per thread, as in the driver.
thread_local CUcontext t_current = nullptr;

// The legacy and per-thread default streams are the null and two small
// handles, not objects: only a created stream can capture.
CUstream_st* StreamObject(CUstream stream) {
  const auto value = reinterpret_cast<uintptr_t>(stream);
  return value <= reinterpret_cast<uintptr_t>(CU_STREAM_PER_THREAD) ? nullptr : stream;
}

bool Capturing(CUstream stream) {
  CUstream_st* object = StreamObject(stream);
  return object != nullptr && object->capturing.load(std::memory_order_acquire);
}

CUgraph NewGraph() {
  auto* graph = new CUgraph_st();
  graph->id = g_next_graph_id.fetch_add(1, std::memory_order_relaxed);
  return graph;
}

void* AllocateHost(size_t size) {
  if (size > SIZE_MAX - kAlignment) return nullptr;
  // aligned_alloc wants a multiple of the alignment.
  return std::aligned_alloc(kAlignment, (size + kAlignment - 1) / kAlignment * kAlignment);
}

CUresult AllocateDevice(CUdeviceptr* out, size_t size) {
  if (out == nullptr || size == 0) return CUDA_ERROR_INVALID_VALUE;
  void* memory = AllocateHost(size);
  if (memory == nullptr) return CUDA_ERROR_OUT_OF_MEMORY;
  *out = reinterpret_cast<CUdeviceptr>(memory);
  return CUDA_SUCCESS;
}

void* HostPointer(CUdeviceptr pointer) { return reinterpret_cast<void*>(pointer); }

CUgraphNode AddNode(CUgraph graph, CUgraphNodeType type, size_t child_nodes = 0) {
  auto node = std::make_unique<CUgraphNode_st>();
  node->graph_id = graph->id;
  node->type = type;
  node->child_nodes = child_nodes;
  graph->nodes.push_back(std::move(node));
  return graph->nodes.back().get();
}

// The checks every cuGraphAdd*Node makes of its common arguments.
CUresult CheckAdd(CUgraphNode* out, CUgraph graph, const CUgraphNode* dependencies, size_t count) {
  if (out == nullptr || graph == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (count != 0 && dependencies == nullptr) return CUDA_ERROR_INVALID_VALUE;
  for (size_t i = 0; i < count; ++i) {
    if (dependencies[i] == nullptr || dependencies[i]->graph_id != graph->id) {
      return CUDA_ERROR_INVALID_VALUE;
    }
  }
  return CUDA_SUCCESS;
}

// Whether `node` is a node of `exec`'s graph of the given kind, as every
// cuGraphExec*SetParams requires.
bool ExecNodeIs(CUgraphExec exec, CUgraphNode node, CUgraphNodeType type) {
  return exec != nullptr && node != nullptr && node->graph_id == exec->graph_id &&
         node->type == type;
}

// Whether a kernel launch (direct or as a graph node) is well formed.
CUresult CheckLaunch(CUfunction f, unsigned grid_x, unsigned grid_y, unsigned grid_z,
                     unsigned block_x, unsigned block_y, unsigned block_z, unsigned shared_bytes,
                     void** params, void** extra) {
  if (f == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  if (grid_x == 0 || grid_y == 0 || grid_z == 0 || block_x == 0 || block_y == 0 || block_z == 0) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (uint64_t{block_x} * block_y * block_z > 1024) return CUDA_ERROR_INVALID_VALUE;
  if (shared_bytes > static_cast<unsigned>(f->max_dynamic_shared_bytes.load())) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (params != nullptr && extra != nullptr) return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

// H100 SXM values for the attributes kiln (or anything it loads) may ask;
// any other is 0.
int DeviceAttribute(CUdevice_attribute attribute) {
  switch (attribute) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
      return 9;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
      return 0;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
      return 132;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X:
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y:
      return 1024;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z:
      return 64;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X:
      return 2147483647;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y:
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z:
      return 65535;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK:
      return 48 * 1024;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
      return 227 * 1024;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR:
      return 228 * 1024;
    case CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK:
      return 1024;
    case CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY:
      return 64 * 1024;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE:
      return 32;
    case CU_DEVICE_ATTRIBUTE_MAX_PITCH:
      return 2147483647;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK:
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR:
      return 65536;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE:
      return 1980000;  // kHz
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE:
      return 2619000;  // kHz
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH:
      return 5120;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE:
      return 50 * 1024 * 1024;
    case CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE:
      return 31 * 1024 * 1024;
    case CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE:
      return 128 * 1024 * 1024;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR:
      return 2048;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR:
      return 32;
    case CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT:
      return 512;
    case CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT:
      return 32;
    case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT:
      return 3;
    case CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO:
      return 2;
    case CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES:
      return CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    case CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT:
      return 4;
    case CU_DEVICE_ATTRIBUTE_GPU_OVERLAP:
    case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY:
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS:
    case CU_DEVICE_ATTRIBUTE_ECC_ENABLED:
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING:
    case CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY:
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS:
    case CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM:
    case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH:
    case CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_TIMELINE_SEMAPHORE_INTEROP_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH:
    case CU_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS:
    case CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR:
    case CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_TENSOR_MAP_ACCESS_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS:
      return 1;
    default:
      return 0;
  }
}

// X(name, description) for the CUresults kiln names in its messages (and a
// few more); cuGetErrorName/String reject the rest as the driver rejects an
// unknown value.
#define NULL_CUDA_ERRORS(X)                                                                     \
  X(CUDA_SUCCESS, "no error")                                                                   \
  X(CUDA_ERROR_INVALID_VALUE, "invalid argument")                                               \
  X(CUDA_ERROR_OUT_OF_MEMORY, "out of memory")                                                  \
  X(CUDA_ERROR_NOT_INITIALIZED, "initialization error")                                         \
  X(CUDA_ERROR_DEINITIALIZED, "driver shutting down")                                           \
  X(CUDA_ERROR_STUB_LIBRARY, "CUDA driver is a stub library")                                   \
  X(CUDA_ERROR_DEVICE_UNAVAILABLE, "CUDA-capable device(s) is/are busy or unavailable")         \
  X(CUDA_ERROR_NO_DEVICE, "no CUDA-capable device is detected")                                 \
  X(CUDA_ERROR_INVALID_DEVICE, "invalid device ordinal")                                        \
  X(CUDA_ERROR_INVALID_IMAGE, "device kernel image is invalid")                                 \
  X(CUDA_ERROR_INVALID_CONTEXT, "invalid device context")                                       \
  X(CUDA_ERROR_NO_BINARY_FOR_GPU, "no kernel image is available for execution on the device")   \
  X(CUDA_ERROR_ECC_UNCORRECTABLE, "uncorrectable ECC error encountered")                        \
  X(CUDA_ERROR_INVALID_PTX, "a PTX JIT compilation failed")                                     \
  X(CUDA_ERROR_UNSUPPORTED_PTX_VERSION,                                                         \
    "the provided PTX was compiled with an unsupported toolchain.")                             \
  X(CUDA_ERROR_INVALID_SOURCE, "device kernel image is invalid")                                \
  X(CUDA_ERROR_FILE_NOT_FOUND, "file not found")                                                \
  X(CUDA_ERROR_INVALID_HANDLE, "invalid resource handle")                                       \
  X(CUDA_ERROR_ILLEGAL_STATE, "the operation cannot be performed in the present state")         \
  X(CUDA_ERROR_NOT_FOUND, "named symbol not found")                                             \
  X(CUDA_ERROR_NOT_READY, "device not ready")                                                   \
  X(CUDA_ERROR_ILLEGAL_ADDRESS, "an illegal memory access was encountered")                     \
  X(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "too many resources requested for launch")              \
  X(CUDA_ERROR_LAUNCH_TIMEOUT, "the launch timed out and was terminated")                       \
  X(CUDA_ERROR_CONTEXT_IS_DESTROYED, "context is destroyed")                                    \
  X(CUDA_ERROR_ASSERT, "device-side assert triggered")                                          \
  X(CUDA_ERROR_HARDWARE_STACK_ERROR, "hardware stack error")                                    \
  X(CUDA_ERROR_ILLEGAL_INSTRUCTION, "an illegal instruction was encountered")                   \
  X(CUDA_ERROR_MISALIGNED_ADDRESS, "misaligned address")                                        \
  X(CUDA_ERROR_INVALID_ADDRESS_SPACE, "operation not supported on global/shared address space") \
  X(CUDA_ERROR_INVALID_PC, "invalid program counter")                                           \
  X(CUDA_ERROR_LAUNCH_FAILED, "unspecified launch failure")                                     \
  X(CUDA_ERROR_NOT_PERMITTED, "operation not permitted")                                        \
  X(CUDA_ERROR_NOT_SUPPORTED, "operation not supported")                                        \
  X(CUDA_ERROR_SYSTEM_NOT_READY, "system not yet initialized")                                  \
  X(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "operation not permitted when stream is capturing")  \
  X(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,                                                      \
    "operation failed due to a previous error during capture")                                  \
  X(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD,                                                     \
    "attempt to terminate a thread-local capture sequence from another thread")                 \
  X(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE,                                                       \
    "the graph update was not performed because it included changes which violated "            \
    "constraints specific to instantiated graph update")                                        \
  X(CUDA_ERROR_UNKNOWN, "unknown error")

}  // namespace

// --- Entry points --------------------------------------------------------------
//
// Defined with the names <cuda.h> declares them by, so each gets exactly the
// header's prototype (and, through its macros, the versioned symbol name).

CUresult cuInit(unsigned int flags) {
  COUNT_CALL(cuInit);
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  g_initialized.store(true);
  return CUDA_SUCCESS;
}

CUresult cuGetErrorName(CUresult error, const char** out) {
  COUNT_CALL(cuGetErrorName);
  if (out == nullptr) return CUDA_ERROR_INVALID_VALUE;
  switch (error) {
#define NULL_CUDA_ERROR_NAME(name, text) \
  case name:                             \
    *out = #name;                        \
    return CUDA_SUCCESS;
    NULL_CUDA_ERRORS(NULL_CUDA_ERROR_NAME)
#undef NULL_CUDA_ERROR_NAME
    default:
      *out = nullptr;
      return CUDA_ERROR_INVALID_VALUE;
  }
}

CUresult cuGetErrorString(CUresult error, const char** out) {
  COUNT_CALL(cuGetErrorString);
  if (out == nullptr) return CUDA_ERROR_INVALID_VALUE;
  switch (error) {
#define NULL_CUDA_ERROR_STRING(name, text) \
  case name:                               \
    *out = text;                           \
    return CUDA_SUCCESS;
    NULL_CUDA_ERRORS(NULL_CUDA_ERROR_STRING)
#undef NULL_CUDA_ERROR_STRING
    default:
      *out = nullptr;
      return CUDA_ERROR_INVALID_VALUE;
  }
}

CUresult cuDeviceGetCount(int* count) {
  COUNT_CALL(cuDeviceGetCount);
  if (!g_initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
  if (count == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *count = 1;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  COUNT_CALL(cuDeviceGet);
  if (!g_initialized.load()) return CUDA_ERROR_NOT_INITIALIZED;
  if (device == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
  *device = 0;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char* name, int length, CUdevice device) {
  COUNT_CALL(cuDeviceGetName);
  if (name == nullptr || length <= 0) return CUDA_ERROR_INVALID_VALUE;
  if (device != 0) return CUDA_ERROR_INVALID_DEVICE;
  const size_t n = std::min(sizeof(kDeviceName) - 1, static_cast<size_t>(length) - 1);
  std::memcpy(name, kDeviceName, n);
  name[n] = '\0';
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int* value, CUdevice_attribute attribute, CUdevice device) {
  COUNT_CALL(cuDeviceGetAttribute);
  if (value == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (device != 0) return CUDA_ERROR_INVALID_DEVICE;
  *value = DeviceAttribute(attribute);
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext* context, CUdevice device) {
  COUNT_CALL(cuDevicePrimaryCtxRetain);
  if (context == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (device != 0) return CUDA_ERROR_INVALID_DEVICE;
  g_primary_retains.fetch_add(1);
  *context = &g_primary_context;
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease(CUdevice device) {
  COUNT_CALL(cuDevicePrimaryCtxRelease);
  if (device != 0) return CUDA_ERROR_INVALID_DEVICE;
  // Releasing more often than retaining is an error in the driver too.
  int retains = g_primary_retains.load();
  do {
    if (retains == 0) return CUDA_ERROR_INVALID_CONTEXT;
  } while (!g_primary_retains.compare_exchange_weak(retains, retains - 1));
  return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext context) {
  COUNT_CALL(cuCtxSetCurrent);
  if (context != nullptr && context != &g_primary_context) return CUDA_ERROR_INVALID_CONTEXT;
  t_current = context;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetCurrent(CUcontext* context) {
  COUNT_CALL(cuCtxGetCurrent);
  if (context == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *context = t_current;
  return CUDA_SUCCESS;
}

CUresult cuMemAlloc(CUdeviceptr* pointer, size_t size) {
  COUNT_CALL(cuMemAlloc);
  return AllocateDevice(pointer, size);
}

CUresult cuMemAllocManaged(CUdeviceptr* pointer, size_t size, unsigned int flags) {
  COUNT_CALL(cuMemAllocManaged);
  return AllocateDevice(pointer, size);
}

CUresult cuMemFree(CUdeviceptr pointer) {
  COUNT_CALL(cuMemFree);
  std::free(HostPointer(pointer));
  return CUDA_SUCCESS;
}

// Every address is this one device's memory (the null driver keeps no
// allocation table): enough for kiln's import check, which asks the ordinal.
CUresult cuPointerGetAttribute(void* data, CUpointer_attribute attribute, CUdeviceptr pointer) {
  COUNT_CALL(cuPointerGetAttribute);
  if (data == nullptr || pointer == 0) return CUDA_ERROR_INVALID_VALUE;
  if (attribute != CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL) return CUDA_ERROR_NOT_SUPPORTED;
  *static_cast<int*>(data) = 0;
  return CUDA_SUCCESS;
}

CUresult cuMemHostAlloc(void** pointer, size_t size, unsigned int flags) {
  COUNT_CALL(cuMemHostAlloc);
  if (pointer == nullptr || size == 0) return CUDA_ERROR_INVALID_VALUE;
  *pointer = AllocateHost(size);
  return *pointer != nullptr ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult cuMemFreeHost(void* pointer) {
  COUNT_CALL(cuMemFreeHost);
  std::free(pointer);
  return CUDA_SUCCESS;
}

CUresult cuMemHostGetDevicePointer(CUdeviceptr* device_pointer, void* host_pointer,
                                   unsigned int flags) {
  COUNT_CALL(cuMemHostGetDevicePointer);
  if (device_pointer == nullptr || host_pointer == nullptr || flags != 0) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  *device_pointer = reinterpret_cast<CUdeviceptr>(host_pointer);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyHtoD(CUdeviceptr target, const void* source, size_t size) {
  COUNT_CALL(cuMemcpyHtoD);
  if (size != 0) std::memcpy(HostPointer(target), source, size);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoH(void* target, CUdeviceptr source, size_t size) {
  COUNT_CALL(cuMemcpyDtoH);
  if (size != 0) std::memcpy(target, HostPointer(source), size);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyAsync(CUdeviceptr target, CUdeviceptr source, size_t size, CUstream stream) {
  COUNT_CALL(cuMemcpyAsync);
  if (Capturing(stream)) {
    AddNode(stream->capture, CU_GRAPH_NODE_TYPE_MEMCPY);
  } else if (size != 0) {
    // memmove: nothing forbids the ranges to overlap here.
    std::memmove(HostPointer(target), HostPointer(source), size);
  }
  return CUDA_SUCCESS;
}

CUresult cuMemsetD8Async(CUdeviceptr target, unsigned char value, size_t count, CUstream stream) {
  COUNT_CALL(cuMemsetD8Async);
  if (Capturing(stream)) {
    AddNode(stream->capture, CU_GRAPH_NODE_TYPE_MEMSET);
  } else if (count != 0) {
    std::memset(HostPointer(target), value, count);
  }
  return CUDA_SUCCESS;
}

CUresult cuMemsetD16Async(CUdeviceptr target, unsigned short value, size_t count, CUstream stream) {
  COUNT_CALL(cuMemsetD16Async);
  if (target % 2 != 0) return CUDA_ERROR_INVALID_VALUE;
  if (Capturing(stream)) {
    AddNode(stream->capture, CU_GRAPH_NODE_TYPE_MEMSET);
  } else {
    std::fill_n(static_cast<uint16_t*>(HostPointer(target)), count, value);
  }
  return CUDA_SUCCESS;
}

CUresult cuMemsetD32Async(CUdeviceptr target, unsigned int value, size_t count, CUstream stream) {
  COUNT_CALL(cuMemsetD32Async);
  if (target % 4 != 0) return CUDA_ERROR_INVALID_VALUE;
  if (Capturing(stream)) {
    AddNode(stream->capture, CU_GRAPH_NODE_TYPE_MEMSET);
  } else {
    std::fill_n(static_cast<uint32_t*>(HostPointer(target)), count, value);
  }
  return CUDA_SUCCESS;
}

CUresult cuMemAllocAsync(CUdeviceptr* pointer, size_t size, CUstream stream) {
  COUNT_CALL(cuMemAllocAsync);
  return AllocateDevice(pointer, size);
}

CUresult cuMemFreeAsync(CUdeviceptr pointer, CUstream stream) {
  COUNT_CALL(cuMemFreeAsync);
  // Freed at once: no work that could still use it is ever pending.
  std::free(HostPointer(pointer));
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetDefaultMemPool(CUmemoryPool* pool, CUdevice device) {
  COUNT_CALL(cuDeviceGetDefaultMemPool);
  if (pool == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (device != 0) return CUDA_ERROR_INVALID_DEVICE;
  *pool = &g_default_pool;
  return CUDA_SUCCESS;
}

CUresult cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attribute, void* value) {
  COUNT_CALL(cuMemPoolSetAttribute);
  if (pool == nullptr || value == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (attribute == CU_MEMPOOL_ATTR_RELEASE_THRESHOLD) {
    pool->release_threshold = *static_cast<cuuint64_t*>(value);
  }
  return CUDA_SUCCESS;
}

CUresult cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned int option_count,
                            CUjit_option* options, void** option_values) {
  COUNT_CALL(cuModuleLoadDataEx);
  if (module == nullptr || image == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (option_count != 0 && (options == nullptr || option_values == nullptr)) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  auto loaded = std::make_unique<CUmod_st>();
  // PTX is NUL-terminated text; a cubin (ELF) or fatbinary is taken as is.
  static constexpr unsigned char kElf[] = {0x7f, 'E', 'L', 'F'};
  static constexpr unsigned char kFatbin[] = {0x50, 0xed, 0x55, 0xba};
  if (std::memcmp(image, kElf, 4) != 0 && std::memcmp(image, kFatbin, 4) != 0) {
    loaded->ptx = static_cast<const char*>(image);
  }
  *module = loaded.release();
  return CUDA_SUCCESS;
}

CUresult cuModuleUnload(CUmodule module) {
  COUNT_CALL(cuModuleUnload);
  if (module == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  delete module;
  return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction* function, CUmodule module, const char* name) {
  COUNT_CALL(cuModuleGetFunction);
  if (function == nullptr || name == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (module == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  std::lock_guard<std::mutex> lock(module->mutex);
  auto it = module->functions.find(std::string_view(name));
  if (it == module->functions.end()) {
    if (!module->ptx.empty()) {
      // PTX declares each kernel as `.entry <name>(` (or with a space or a
      // line break before the parameter list): a name it lacks is not found,
      // as in the driver.
      const std::string entry = std::string(".entry ") + name;
      bool found = false;
      for (size_t at = module->ptx.find(entry); at != std::string::npos && !found;
           at = module->ptx.find(entry, at + 1)) {
        const char next = module->ptx.c_str()[at + entry.size()];
        found = next == '(' || next == ' ' || next == '\t' || next == '\n' || next == '\r';
      }
      if (!found) return CUDA_ERROR_NOT_FOUND;
    }
    it = module->functions.emplace(name, std::make_unique<CUfunc_st>()).first;
  }
  *function = it->second.get();
  return CUDA_SUCCESS;
}

CUresult cuFuncGetAttribute(int* value, CUfunction_attribute attribute, CUfunction function) {
  COUNT_CALL(cuFuncGetAttribute);
  if (value == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (function == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  switch (attribute) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
      *value = 1024;
      break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS:
      *value = 32;
      break;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION:
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION:
      *value = 90;
      break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
      *value = function->max_dynamic_shared_bytes.load();
      break;
    default:  // Static shared, constant and local sizes, cache mode, clusters.
      *value = 0;
      break;
  }
  return CUDA_SUCCESS;
}

CUresult cuFuncSetAttribute(CUfunction function, CUfunction_attribute attribute, int value) {
  COUNT_CALL(cuFuncSetAttribute);
  if (function == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  if (attribute == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) {
    if (value < 0 ||
        value > DeviceAttribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)) {
      return CUDA_ERROR_INVALID_VALUE;
    }
    function->max_dynamic_shared_bytes.store(value);
  }
  return CUDA_SUCCESS;
}

CUresult cuLaunchKernel(CUfunction f, unsigned int grid_x, unsigned int grid_y, unsigned int grid_z,
                        unsigned int block_x, unsigned int block_y, unsigned int block_z,
                        unsigned int shared_bytes, CUstream stream, void** params, void** extra) {
  COUNT_CALL(cuLaunchKernel);
  const CUresult checked = CheckLaunch(f, grid_x, grid_y, grid_z, block_x, block_y, block_z,
                                       shared_bytes, params, extra);
  if (checked != CUDA_SUCCESS) return checked;
  if (Capturing(stream)) AddNode(stream->capture, CU_GRAPH_NODE_TYPE_KERNEL);
  return CUDA_SUCCESS;
}

CUresult cuStreamCreate(CUstream* stream, unsigned int flags) {
  COUNT_CALL(cuStreamCreate);
  if (stream == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *stream = new CUstream_st();
  return CUDA_SUCCESS;
}

CUresult cuStreamDestroy(CUstream stream) {
  COUNT_CALL(cuStreamDestroy);
  CUstream_st* object = StreamObject(stream);
  if (object == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  // A capture in progress is abandoned with its stream.
  delete object->capture;
  delete object;
  return CUDA_SUCCESS;
}

CUresult cuStreamSynchronize(CUstream stream) {
  COUNT_CALL(cuStreamSynchronize);
  // Waiting for work that a capture only records is an error in the driver.
  if (Capturing(stream)) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  return CUDA_SUCCESS;
}

CUresult cuStreamWaitEvent(CUstream stream, CUevent event, unsigned int flags) {
  COUNT_CALL(cuStreamWaitEvent);
  if (event == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  return CUDA_SUCCESS;
}

CUresult cuEventCreate(CUevent* event, unsigned int flags) {
  COUNT_CALL(cuEventCreate);
  if (event == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *event = new CUevent_st{flags};
  return CUDA_SUCCESS;
}

CUresult cuEventDestroy(CUevent event) {
  COUNT_CALL(cuEventDestroy);
  if (event == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  delete event;
  return CUDA_SUCCESS;
}

CUresult cuEventRecord(CUevent event, CUstream stream) {
  COUNT_CALL(cuEventRecord);
  if (event == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  return CUDA_SUCCESS;
}

CUresult cuEventQuery(CUevent event) {
  COUNT_CALL(cuEventQuery);
  if (event == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  return CUDA_SUCCESS;
}

CUresult cuEventSynchronize(CUevent event) {
  COUNT_CALL(cuEventSynchronize);
  if (event == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  return CUDA_SUCCESS;
}

CUresult cuEventElapsedTime(float* milliseconds, CUevent start, CUevent end) {
  COUNT_CALL(cuEventElapsedTime);
  if (milliseconds == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (start == nullptr || end == nullptr) return CUDA_ERROR_INVALID_HANDLE;
  // As in the driver: events created without timing have no times.
  if ((start->flags | end->flags) & CU_EVENT_DISABLE_TIMING) return CUDA_ERROR_INVALID_HANDLE;
  *milliseconds = 0.0f;
  return CUDA_SUCCESS;
}

CUresult cuGraphCreate(CUgraph* graph, unsigned int flags) {
  COUNT_CALL(cuGraphCreate);
  if (graph == nullptr || flags != 0) return CUDA_ERROR_INVALID_VALUE;
  *graph = NewGraph();
  return CUDA_SUCCESS;
}

CUresult cuGraphDestroy(CUgraph graph) {
  COUNT_CALL(cuGraphDestroy);
  if (graph == nullptr) return CUDA_ERROR_INVALID_VALUE;
  delete graph;
  return CUDA_SUCCESS;
}

CUresult cuGraphAddKernelNode(CUgraphNode* node, CUgraph graph, const CUgraphNode* dependencies,
                              size_t count, const CUDA_KERNEL_NODE_PARAMS* params) {
  COUNT_CALL(cuGraphAddKernelNode);
  CUresult checked = CheckAdd(node, graph, dependencies, count);
  if (checked == CUDA_SUCCESS && params == nullptr) checked = CUDA_ERROR_INVALID_VALUE;
  if (checked == CUDA_SUCCESS) {
    checked = CheckLaunch(params->func, params->gridDimX, params->gridDimY, params->gridDimZ,
                          params->blockDimX, params->blockDimY, params->blockDimZ,
                          params->sharedMemBytes, params->kernelParams, params->extra);
  }
  if (checked != CUDA_SUCCESS) return checked;
  *node = AddNode(graph, CU_GRAPH_NODE_TYPE_KERNEL);
  return CUDA_SUCCESS;
}

CUresult cuGraphAddMemsetNode(CUgraphNode* node, CUgraph graph, const CUgraphNode* dependencies,
                              size_t count, const CUDA_MEMSET_NODE_PARAMS* params,
                              CUcontext context) {
  COUNT_CALL(cuGraphAddMemsetNode);
  CUresult checked = CheckAdd(node, graph, dependencies, count);
  if (checked != CUDA_SUCCESS) return checked;
  if (params == nullptr || params->width == 0 || params->height == 0 ||
      (params->elementSize != 1 && params->elementSize != 2 && params->elementSize != 4)) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  *node = AddNode(graph, CU_GRAPH_NODE_TYPE_MEMSET);
  return CUDA_SUCCESS;
}

CUresult cuGraphAddMemcpyNode(CUgraphNode* node, CUgraph graph, const CUgraphNode* dependencies,
                              size_t count, const CUDA_MEMCPY3D* params, CUcontext context) {
  COUNT_CALL(cuGraphAddMemcpyNode);
  CUresult checked = CheckAdd(node, graph, dependencies, count);
  if (checked != CUDA_SUCCESS) return checked;
  if (params == nullptr || params->WidthInBytes == 0) return CUDA_ERROR_INVALID_VALUE;
  *node = AddNode(graph, CU_GRAPH_NODE_TYPE_MEMCPY);
  return CUDA_SUCCESS;
}

CUresult cuGraphAddEmptyNode(CUgraphNode* node, CUgraph graph, const CUgraphNode* dependencies,
                             size_t count) {
  COUNT_CALL(cuGraphAddEmptyNode);
  CUresult checked = CheckAdd(node, graph, dependencies, count);
  if (checked != CUDA_SUCCESS) return checked;
  *node = AddNode(graph, CU_GRAPH_NODE_TYPE_EMPTY);
  return CUDA_SUCCESS;
}

CUresult cuGraphAddChildGraphNode(CUgraphNode* node, CUgraph graph, const CUgraphNode* dependencies,
                                  size_t count, CUgraph child) {
  COUNT_CALL(cuGraphAddChildGraphNode);
  CUresult checked = CheckAdd(node, graph, dependencies, count);
  if (checked != CUDA_SUCCESS) return checked;
  if (child == nullptr || child == graph) return CUDA_ERROR_INVALID_VALUE;
  // The driver clones the child: only its topology (node count) is kept.
  *node = AddNode(graph, CU_GRAPH_NODE_TYPE_GRAPH, child->nodes.size());
  return CUDA_SUCCESS;
}

CUresult cuGraphAddEventRecordNode(CUgraphNode* node, CUgraph graph,
                                   const CUgraphNode* dependencies, size_t count, CUevent event) {
  COUNT_CALL(cuGraphAddEventRecordNode);
  CUresult checked = CheckAdd(node, graph, dependencies, count);
  if (checked != CUDA_SUCCESS) return checked;
  if (event == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *node = AddNode(graph, CU_GRAPH_NODE_TYPE_EVENT_RECORD);
  return CUDA_SUCCESS;
}

CUresult cuGraphInstantiateWithFlags(CUgraphExec* exec, CUgraph graph, unsigned long long flags) {
  COUNT_CALL(cuGraphInstantiateWithFlags);
  if (exec == nullptr || graph == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *exec = new CUgraphExec_st{graph->id, graph->nodes.size()};
  return CUDA_SUCCESS;
}

CUresult cuGraphExecDestroy(CUgraphExec exec) {
  COUNT_CALL(cuGraphExecDestroy);
  if (exec == nullptr) return CUDA_ERROR_INVALID_VALUE;
  delete exec;
  return CUDA_SUCCESS;
}

CUresult cuGraphLaunch(CUgraphExec exec, CUstream stream) {
  COUNT_CALL(cuGraphLaunch);
  if (exec == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (g_counting) g_launched_nodes.fetch_add(exec->node_count, std::memory_order_relaxed);
  if (Capturing(stream)) {
    AddNode(stream->capture, CU_GRAPH_NODE_TYPE_GRAPH, exec->node_count);
  }
  return CUDA_SUCCESS;
}

CUresult cuGraphUpload(CUgraphExec exec, CUstream stream) {
  COUNT_CALL(cuGraphUpload);
  if (exec == nullptr) return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

CUresult cuGraphExecKernelNodeSetParams(CUgraphExec exec, CUgraphNode node,
                                        const CUDA_KERNEL_NODE_PARAMS* params) {
  COUNT_CALL(cuGraphExecKernelNodeSetParams);
  if (!ExecNodeIs(exec, node, CU_GRAPH_NODE_TYPE_KERNEL) || params == nullptr) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  return CheckLaunch(params->func, params->gridDimX, params->gridDimY, params->gridDimZ,
                     params->blockDimX, params->blockDimY, params->blockDimZ,
                     params->sharedMemBytes, params->kernelParams, params->extra);
}

CUresult cuGraphExecMemcpyNodeSetParams(CUgraphExec exec, CUgraphNode node,
                                        const CUDA_MEMCPY3D* params, CUcontext context) {
  COUNT_CALL(cuGraphExecMemcpyNodeSetParams);
  if (!ExecNodeIs(exec, node, CU_GRAPH_NODE_TYPE_MEMCPY) || params == nullptr) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

CUresult cuGraphExecMemsetNodeSetParams(CUgraphExec exec, CUgraphNode node,
                                        const CUDA_MEMSET_NODE_PARAMS* params, CUcontext context) {
  COUNT_CALL(cuGraphExecMemsetNodeSetParams);
  if (!ExecNodeIs(exec, node, CU_GRAPH_NODE_TYPE_MEMSET) || params == nullptr) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

CUresult cuGraphExecChildGraphNodeSetParams(CUgraphExec exec, CUgraphNode node, CUgraph child) {
  COUNT_CALL(cuGraphExecChildGraphNodeSetParams);
  if (!ExecNodeIs(exec, node, CU_GRAPH_NODE_TYPE_GRAPH) || child == nullptr) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  // The driver refuses a child of another topology; kiln then rebuilds.
  if (child->nodes.size() != node->child_nodes) return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}

CUresult cuGraphExecEventRecordNodeSetEvent(CUgraphExec exec, CUgraphNode node, CUevent event) {
  COUNT_CALL(cuGraphExecEventRecordNodeSetEvent);
  if (!ExecNodeIs(exec, node, CU_GRAPH_NODE_TYPE_EVENT_RECORD) || event == nullptr) {
    return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

CUresult cuStreamBeginCapture(CUstream stream, CUstreamCaptureMode mode) {
  COUNT_CALL(cuStreamBeginCapture);
  CUstream_st* object = StreamObject(stream);
  // The legacy default stream cannot capture; a stream captures once at a time.
  if (object == nullptr) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  if (object->capturing.load()) return CUDA_ERROR_ILLEGAL_STATE;
  object->capture = NewGraph();
  object->capturing.store(true, std::memory_order_release);
  return CUDA_SUCCESS;
}

CUresult cuStreamEndCapture(CUstream stream, CUgraph* graph) {
  COUNT_CALL(cuStreamEndCapture);
  CUstream_st* object = StreamObject(stream);
  if (graph == nullptr) return CUDA_ERROR_INVALID_VALUE;
  if (object == nullptr || !object->capturing.load()) return CUDA_ERROR_ILLEGAL_STATE;
  object->capturing.store(false);
  *graph = std::exchange(object->capture, nullptr);
  return CUDA_SUCCESS;
}

namespace {

struct ProcEntry {
  const char* name;
  void* function;
};

// Sorted by name at first use, for a binary search: kiln resolves ~60 names
// once per process, but other clients may ask often.
const std::vector<ProcEntry>& ProcTable() {
  static const std::vector<ProcEntry> table = [] {
    std::vector<ProcEntry> entries = {
#define NULL_CUDA_ENTRY(name) {#name, reinterpret_cast<void*>(&name)},
        NULL_CUDA_FUNCTIONS(NULL_CUDA_ENTRY)
#undef NULL_CUDA_ENTRY
    };
    std::sort(entries.begin(), entries.end(), [](const ProcEntry& a, const ProcEntry& b) {
      return std::strcmp(a.name, b.name) < 0;
    });
    return entries;
  }();
  return table;
}

void* FindProc(const char* name) {
  const std::vector<ProcEntry>& table = ProcTable();
  auto it = std::lower_bound(
      table.begin(), table.end(), name,
      [](const ProcEntry& entry, const char* key) { return std::strcmp(entry.name, key) < 0; });
  return it != table.end() && std::strcmp(it->name, name) == 0 ? it->function : nullptr;
}

}  // namespace

// cuGetProcAddress_v2 (the header's macro): the variant of `symbol` for the
// requested API version. Every stub here is the one CUDA_VERSION's headers
// name, which is what kiln asks for; an unknown name is not found.
CUresult cuGetProcAddress(const char* symbol, void** function, int cuda_version, cuuint64_t flags,
                          CUdriverProcAddressQueryResult* status) {
  COUNT_CALL(cuGetProcAddress);
  if (function == nullptr) return CUDA_ERROR_INVALID_VALUE;
  *function = symbol != nullptr ? FindProc(symbol) : nullptr;
  if (status != nullptr) {
    *status =
        *function != nullptr ? CU_GET_PROC_ADDRESS_SUCCESS : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  }
  return *function != nullptr ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

// The CUDA 11 entry point of the same name (no query result), which older
// clients look up with dlsym.
#undef cuGetProcAddress
extern "C" CUresult cuGetProcAddress(const char* symbol, void** function, int cuda_version,
                                     cuuint64_t flags) {
  return cuGetProcAddress_v2(symbol, function, cuda_version, flags, nullptr);
}
