// ThreadPool: runs the workgroups of one dispatch in parallel.
//
// A pool of N threads is N - 1 worker threads plus the thread that calls
// ParallelFor, which works too (so a pool of 1 runs everything inline and a
// pool of N keeps exactly N threads busy). ParallelFor hands out indices
// from a shared atomic counter, so uneven workgroups balance themselves, and
// returns when every index has run. Calls are serialized: the CPU device's
// queue is the only caller and dispatches run one after another.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace kiln::hal::cpu {

// The CPUs this process may run on (its affinity mask, which taskset, cgroup
// cpusets and container limits narrow), at least 1: the default worker count.
// std::thread::hardware_concurrency counts every online CPU instead, more
// threads than cores where the process is confined.
uint32_t AvailableCpuCount();

class ThreadPool {
 public:
  // `thread_count` >= 1 (0 is taken as 1).
  explicit ThreadPool(uint32_t thread_count);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  uint32_t thread_count() const { return static_cast<uint32_t>(workers_.size()) + 1; }

  // From now on ParallelFor runs its jobs on the OpenMP runtime's threads:
  // `parallel_region` (GOMP_parallel's ABI) starts a team of
  // thread_count() threads, the caller among them, that take indices from
  // the job as the pool's own workers would (which then stay asleep).
  //
  // Why: a device whose library calls run on OpenMP (Debian's oneDNN) would
  // otherwise keep two sets of threads, one per core each, that take the
  // cores from each other at every switch between a library call and a
  // generated kernel: woken from sleep at every call if they wait
  // passively, preempting each other if they spin. One set serves both, as
  // one thread pool does in ONNX Runtime.
  using ParallelRegionFn = void (*)(void (*fn)(void*), void* data, unsigned num_threads,
                                    unsigned flags);
  void ShareOpenMpThreads(ParallelRegionFn parallel_region);
  bool shares_openmp_threads() const {
    return parallel_region_.load(std::memory_order_acquire) != nullptr;
  }

  // Calls `fn(i)` for every i in [0, count), in parallel, and returns when
  // all calls have returned. `fn` returns false to stop the loop early:
  // indices not yet started are skipped.
  void ParallelFor(uint64_t count, const std::function<bool(uint64_t)>& fn);

 private:
  struct Job {
    const std::function<bool(uint64_t)>* fn;
    uint64_t count;
    std::atomic<uint64_t> next{0};
    std::atomic<bool> stop{false};
  };
  static void Run(Job& job);
  static void RunOnTeamThread(void* job) { Run(*static_cast<Job*>(job)); }
  void WorkerMain();

  std::mutex run_mutex_;  // Serializes ParallelFor.
  std::mutex mutex_;
  std::condition_variable work_cv_;
  std::condition_variable done_cv_;
  Job* job_ = nullptr;       // Guarded by mutex_.
  uint64_t generation_ = 0;  // Guarded by mutex_; bumps per job.
  uint32_t active_ = 0;      // Guarded by mutex_; workers still in the job.
  bool stopping_ = false;    // Guarded by mutex_.
  std::vector<std::thread> workers_;
  std::atomic<ParallelRegionFn> parallel_region_{nullptr};
};

}  // namespace kiln::hal::cpu
