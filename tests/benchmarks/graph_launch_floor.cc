// kiln_graph_launch_floor: what issuing one CUDA graph costs the host with
// nothing of kiln's around it, as a function of the graph's size, of how
// long its work keeps the GPU busy, and of how the host waits for it. It is
// the floor under kiln's host time per call of a model (kiln-benchmark-module's
// host_time_us: the VM, the HAL, and the same cuGraphLaunch + cuEventRecord):
// tests/benchmarks/model_benchmarks.py reports both, and the README's tables
// put them side by side.
//
// Each row builds one graph of N chained kernel nodes, each node a kernel
// that spins on the GPU's global timer for a fixed time, so the whole graph
// keeps the GPU busy for about `device_us` (N x the node's time). An
// iteration is what a synchronous call of a model does: cuGraphLaunch,
// cuEventRecord, then a wait for the event. Counters:
//   issue_us       the median iteration's cuGraphLaunch + cuEventRecord (the
//                  host's share; the wait is not in it)
//   issue_p90_us   its 90th percentile
// and Google Benchmark's real time, an iteration's wall time (about the
// graph's device time, since the host waits for it).
// Rows: BM_GraphLaunch/<nodes>/<node_ns>/<wait>, wait 0 = cuEventSynchronize
// (the driver's default policy: it spins, as kiln's infinite waits do),
// 1 = a blocking-sync event (the thread sleeps in the kernel until the GPU
// is done). On the lent H100 a long wait (a model's 0.5-1 ms) made the next
// issue slower than a short one, and a sleeping wait slower still
// (tests/benchmarks/README.md), with the CPU's own speed unchanged.
//
// The driver is kiln's dlopen-ed libcuda (hal/cuda/cuda_symbols.h); the
// kernel is PTX in this file. Without a GPU every row skips with the reason.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

#include "hal/cuda/cuda_symbols.h"

namespace {

using namespace kiln;

// spin(ns): returns once the global timer has advanced by `ns`.
constexpr const char* kSpinPtx = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry spin(.param .u64 ns) {
  .reg .u64 %t<3>;
  .reg .pred %p;
  ld.param.u64 %t1, [ns];
  mov.u64 %t0, %globaltimer;
  add.u64 %t1, %t0, %t1;
WAIT:
  mov.u64 %t2, %globaltimer;
  setp.lt.u64 %p, %t2, %t1;
  @%p bra WAIT;
  ret;
}
)";

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct Driver {
  Ref<hal::cuda::CudaSymbols> s;
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  CUmodule module = nullptr;
  CUfunction spin = nullptr;

  Status Check(CUresult result, const char* what) const { return s->Check(result, what); }

  Status Init() {
    KILN_ASSIGN_OR_RETURN(s, hal::cuda::CudaSymbols::Load());
    KILN_RETURN_IF_ERROR(Check(s->cuDeviceGet(&device, 0), "cuDeviceGet"));
    KILN_RETURN_IF_ERROR(Check(s->cuDevicePrimaryCtxRetain(&context, device), "retain"));
    KILN_RETURN_IF_ERROR(Check(s->cuCtxSetCurrent(context), "cuCtxSetCurrent"));
    KILN_RETURN_IF_ERROR(Check(s->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "stream"));
    KILN_RETURN_IF_ERROR(
        Check(s->cuModuleLoadDataEx(&module, kSpinPtx, 0, nullptr, nullptr), "load"));
    return Check(s->cuModuleGetFunction(&spin, module, "spin"), "cuModuleGetFunction");
  }
  ~Driver() {
    if (!s || !context) return;
    s->cuCtxSetCurrent(context);
    if (module) s->cuModuleUnload(module);
    if (stream) s->cuStreamDestroy(stream);
    s->cuDevicePrimaryCtxRelease(device);
  }
};

void RunGraphLaunch(benchmark::State& state) {
  const int64_t nodes = state.range(0);
  uint64_t node_ns = static_cast<uint64_t>(state.range(1));
  const bool blocking_wait = state.range(2) == 1;
  Driver d;
  Status status = d.Init();
  CUgraph graph = nullptr;
  CUgraphExec exec = nullptr;
  CUevent event = nullptr;
  if (status.ok()) status = d.Check(d.s->cuGraphCreate(&graph, 0), "cuGraphCreate");
  CUgraphNode previous = nullptr;
  void* params[] = {&node_ns};
  for (int64_t i = 0; i < nodes && status.ok(); ++i) {
    CUDA_KERNEL_NODE_PARAMS p = {};
    p.func = d.spin;
    p.gridDimX = p.gridDimY = p.gridDimZ = 1;
    p.blockDimX = 32;
    p.blockDimY = p.blockDimZ = 1;
    p.kernelParams = params;
    CUgraphNode node = nullptr;
    status = d.Check(d.s->cuGraphAddKernelNode(&node, graph, previous ? &previous : nullptr,
                                               previous ? 1 : 0, &p),
                     "cuGraphAddKernelNode");
    previous = node;
  }
  if (status.ok()) {
    status = d.Check(d.s->cuGraphInstantiateWithFlags(&exec, graph, 0), "instantiate");
  }
  if (status.ok()) status = d.Check(d.s->cuGraphUpload(exec, d.stream), "cuGraphUpload");
  if (status.ok()) {
    const unsigned flags = CU_EVENT_DISABLE_TIMING | (blocking_wait ? CU_EVENT_BLOCKING_SYNC : 0u);
    status = d.Check(d.s->cuEventCreate(&event, flags), "cuEventCreate");
  }
  std::vector<int64_t> issue_ns;
  issue_ns.reserve(size_t{1} << 16);
  for (auto _ : state) {
    if (!status.ok()) break;
    const int64_t start = NowNs();
    CUresult launched = d.s->cuGraphLaunch(exec, d.stream);
    CUresult recorded = d.s->cuEventRecord(event, d.stream);
    issue_ns.push_back(NowNs() - start);
    status = d.Check(launched, "cuGraphLaunch");
    if (status.ok()) status = d.Check(recorded, "cuEventRecord");
    if (status.ok()) status = d.Check(d.s->cuEventSynchronize(event), "cuEventSynchronize");
  }
  if (event) d.s->cuEventDestroy(event);
  if (exec) d.s->cuGraphExecDestroy(exec);
  if (graph) d.s->cuGraphDestroy(graph);
  if (!status.ok()) {
    state.SkipWithError(status.ToString().c_str());
    return;
  }
  std::sort(issue_ns.begin(), issue_ns.end());
  if (!issue_ns.empty()) {
    state.counters["issue_us"] = static_cast<double>(issue_ns[issue_ns.size() / 2]) / 1e3;
    state.counters["issue_p90_us"] = static_cast<double>(issue_ns[issue_ns.size() * 9 / 10]) / 1e3;
  }
}

// Graphs of 3 and 100 nodes (an MLP's and a model's), about 10 µs and
// 700 µs of device time, each waited for both ways.
BENCHMARK(RunGraphLaunch)
    ->Name("BM_GraphLaunch")
    ->ArgNames({"nodes", "node_ns", "blocking_wait"})
    ->Args({3, 3000, 0})
    ->Args({100, 100, 0})
    ->Args({100, 7000, 0})
    ->Args({100, 7000, 1})
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
