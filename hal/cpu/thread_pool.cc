#include "hal/cpu/thread_pool.h"

#include <sched.h>

#include <algorithm>

namespace kiln::hal::cpu {

uint32_t AvailableCpuCount() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int count = CPU_COUNT(&set);
    if (count > 0) return static_cast<uint32_t>(count);
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

ThreadPool::ThreadPool(uint32_t thread_count) {
  if (thread_count == 0) thread_count = 1;
  workers_.reserve(thread_count - 1);
  for (uint32_t i = 1; i < thread_count; ++i) workers_.emplace_back([this] { WorkerMain(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  work_cv_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

void ThreadPool::Run(Job& job) {
  while (!job.stop.load(std::memory_order_relaxed)) {
    uint64_t i = job.next.fetch_add(1, std::memory_order_relaxed);
    if (i >= job.count) return;
    if (!(*job.fn)(i)) job.stop.store(true, std::memory_order_relaxed);
  }
}

void ThreadPool::ShareOpenMpThreads(ParallelRegionFn parallel_region) {
  // Under run_mutex_: a job in flight finishes on the threads it started on.
  std::lock_guard<std::mutex> run_lock(run_mutex_);
  parallel_region_.store(parallel_region, std::memory_order_release);
}

void ThreadPool::ParallelFor(uint64_t count, const std::function<bool(uint64_t)>& fn) {
  std::lock_guard<std::mutex> run_lock(run_mutex_);
  if (workers_.empty() || count <= 1) {
    for (uint64_t i = 0; i < count; ++i) {
      if (!fn(i)) break;
    }
    return;
  }
  Job job;
  job.fn = &fn;
  job.count = count;
  if (ParallelRegionFn region = parallel_region_.load(std::memory_order_acquire)) {
    // Returns once every team thread has left the job.
    region(&RunOnTeamThread, &job, thread_count(), /*flags=*/0);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_ = &job;
    ++generation_;
    active_ = static_cast<uint32_t>(workers_.size());
  }
  work_cv_.notify_all();
  Run(job);
  // Every worker must leave the job before it goes out of scope.
  std::unique_lock<std::mutex> lock(mutex_);
  done_cv_.wait(lock, [this] { return active_ == 0; });
  job_ = nullptr;
}

void ThreadPool::WorkerMain() {
  uint64_t seen = 0;
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    work_cv_.wait(lock, [&] { return stopping_ || generation_ != seen; });
    if (stopping_) return;
    seen = generation_;
    Job* job = job_;
    lock.unlock();
    Run(*job);
    lock.lock();
    if (--active_ == 0) done_cv_.notify_one();
  }
}

}  // namespace kiln::hal::cpu
