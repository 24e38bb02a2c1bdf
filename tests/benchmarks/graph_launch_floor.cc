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
//   chase_after_wait_us  a pointer chase over 32 KiB (512 cache lines) that
//                  the host last touched before the previous wait, timed
//                  right after the wait: how cold the host's caches are
//                  when the next call begins (median)
//   chase_cached_us      the same chase repeated at once (the lines cached)
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
#include <numeric>
#include <random>
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

// A pointer chase over 32 KiB (512 cache lines in a shuffled cycle): fits the
// L1 data cache, so right after a chase over the same lines it takes about a
// nanosecond per line, and as long as a cache miss per line when something
// evicted the lines in between.
class CacheChase {
 public:
  CacheChase() : next_(kLines * kWordsPerLine, 0) {
    std::vector<size_t> order(kLines);
    std::iota(order.begin(), order.end(), size_t{0});
    std::shuffle(order.begin() + 1, order.end(), std::mt19937(7));
    for (size_t i = 0; i < kLines; ++i) {
      next_[order[i] * kWordsPerLine] = order[(i + 1) % kLines] * kWordsPerLine;
    }
  }
  // Nanoseconds to follow every line once.
  int64_t Run() {
    const int64_t start = NowNs();
    size_t at = 0;
    for (size_t i = 0; i < kLines; ++i) at = next_[at];
    benchmark::DoNotOptimize(at);
    return NowNs() - start;
  }

 private:
  static constexpr size_t kLines = 512;
  static constexpr size_t kWordsPerLine = 64 / sizeof(size_t);
  std::vector<size_t> next_;
};

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
    const unsigned flags =
        CU_EVENT_DISABLE_TIMING | (blocking_wait ? unsigned{CU_EVENT_BLOCKING_SYNC} : 0u);
    status = d.Check(d.s->cuEventCreate(&event, flags), "cuEventCreate");
  }
  std::vector<int64_t> issue_ns, cold_chase_ns, warm_chase_ns;
  issue_ns.reserve(size_t{1} << 16);
  cold_chase_ns.reserve(size_t{1} << 16);
  warm_chase_ns.reserve(size_t{1} << 16);
  CacheChase chase;
  int64_t iteration = 0;
  for (auto _ : state) {
    if (!status.ok()) break;
    // Every fourth iteration, before its launch, times the chase twice: how
    // much of what the host touched before the previous wait (the same
    // lines, chased in the iteration before) is still cached after it, and
    // the same lines once cached. The issue times of the iterations that
    // chase are not kept: the chase ran between the wait and the launch.
    const int64_t phase = iteration++ % 4;
    const bool probe = phase == 3;
    if (probe) {
      cold_chase_ns.push_back(chase.Run());
      warm_chase_ns.push_back(chase.Run());
    } else if (phase == 2) {
      chase.Run();  // The lines the next iteration's probe looks for.
    }
    const int64_t start = NowNs();
    CUresult launched = d.s->cuGraphLaunch(exec, d.stream);
    CUresult recorded = d.s->cuEventRecord(event, d.stream);
    if (phase < 2) issue_ns.push_back(NowNs() - start);
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
  auto percentile_us = [](std::vector<int64_t>& values, size_t numerator) {
    std::sort(values.begin(), values.end());
    return static_cast<double>(values[values.size() * numerator / 10]) / 1e3;
  };
  if (!issue_ns.empty()) {
    state.counters["issue_us"] = percentile_us(issue_ns, 5);
    state.counters["issue_p90_us"] = percentile_us(issue_ns, 9);
  }
  if (!cold_chase_ns.empty()) {
    state.counters["chase_after_wait_us"] = percentile_us(cold_chase_ns, 5);
    state.counters["chase_cached_us"] = percentile_us(warm_chase_ns, 5);
  }
}

// Graphs of 3 and 100 nodes (an MLP's and a model's), about 10 µs, 86 µs
// and 700 µs of device time, the last waited for both ways; and 100 nodes
// of 5 ms, where the host's caches are colder still after the wait.
BENCHMARK(RunGraphLaunch)
    ->Name("BM_GraphLaunch")
    ->ArgNames({"nodes", "node_ns", "blocking_wait"})
    ->Args({3, 3000, 0})
    ->Args({100, 100, 0})
    ->Args({100, 7000, 0})
    ->Args({100, 7000, 1})
    ->Args({100, 50000, 0})
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
