// The CPU driver's thread pool: every index runs once, work spreads over
// threads, early stop, repeated jobs.
#include "hal/cpu/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace kiln::hal::cpu {
namespace {

TEST(ThreadPoolTest, RunsEveryIndexExactlyOnce) {
  for (uint32_t threads : {1u, 2u, 4u}) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.thread_count(), threads);
    std::vector<std::atomic<int>> hits(1000);
    pool.ParallelFor(hits.size(), [&](uint64_t i) {
      hits[i].fetch_add(1);
      return true;
    });
    for (auto& h : hits) EXPECT_EQ(h.load(), 1);
  }
}

TEST(ThreadPoolTest, UsesSeveralThreads) {
  ThreadPool pool(4);
  std::mutex mutex;
  std::set<std::thread::id> ids;
  std::atomic<int> arrived{0};
  // Each index waits (bounded) until all four have started, which can only
  // happen when four threads run at once.
  pool.ParallelFor(4, [&](uint64_t) {
    arrived.fetch_add(1);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (arrived.load() < 4 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
    }
    std::lock_guard<std::mutex> lock(mutex);
    ids.insert(std::this_thread::get_id());
    return true;
  });
  EXPECT_EQ(ids.size(), 4u);
}

TEST(ThreadPoolTest, StopsEarlyWhenAnIndexFails) {
  ThreadPool pool(2);
  std::atomic<uint64_t> ran{0};
  pool.ParallelFor(1000000, [&](uint64_t i) {
    ran.fetch_add(1);
    return i != 10;
  });
  EXPECT_LT(ran.load(), 1000000u);
}

TEST(ThreadPoolTest, ManySmallJobsAndConcurrentCallers) {
  ThreadPool pool(3);
  std::atomic<uint64_t> sum{0};
  auto caller = [&] {
    for (int job = 0; job < 200; ++job) {
      pool.ParallelFor(5, [&](uint64_t i) {
        sum.fetch_add(i);
        return true;
      });
    }
  };
  std::thread a(caller), b(caller);
  a.join();
  b.join();
  EXPECT_EQ(sum.load(), 2u * 200u * 10u);
  pool.ParallelFor(0, [](uint64_t) { return true; });
}

}  // namespace
}  // namespace kiln::hal::cpu
