// The CPU driver's thread pool: every index runs once, work spreads over
// threads, early stop, repeated jobs, jobs run on another runtime's
// parallel regions once shared.
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

// A stand-in for GOMP_parallel: runs fn(data) on the caller and
// num_threads - 1 threads of its own, and counts its regions.
std::atomic<int> fake_regions{0};
std::atomic<unsigned> fake_team_size{0};
void FakeParallelRegion(void (*fn)(void*), void* data, unsigned num_threads, unsigned flags) {
  EXPECT_EQ(flags, 0u);
  fake_regions.fetch_add(1);
  fake_team_size.store(num_threads);
  std::vector<std::thread> team;
  for (unsigned t = 1; t < num_threads; ++t) team.emplace_back([&] { fn(data); });
  fn(data);
  for (std::thread& thread : team) thread.join();
}

TEST(ThreadPoolTest, RunsJobsOnSharedParallelRegions) {
  ThreadPool pool(3);
  EXPECT_FALSE(pool.shares_openmp_threads());
  pool.ShareOpenMpThreads(&FakeParallelRegion);
  EXPECT_TRUE(pool.shares_openmp_threads());
  fake_regions.store(0);
  for (int job = 0; job < 5; ++job) {
    std::vector<std::atomic<int>> hits(777);
    pool.ParallelFor(hits.size(), [&](uint64_t i) {
      hits[i].fetch_add(1);
      return true;
    });
    for (auto& h : hits) ASSERT_EQ(h.load(), 1);
  }
  EXPECT_EQ(fake_regions.load(), 5);
  EXPECT_EQ(fake_team_size.load(), 3u);
  // One index runs inline, without a region; an early stop still stops.
  pool.ParallelFor(1, [](uint64_t) { return true; });
  EXPECT_EQ(fake_regions.load(), 5);
  std::atomic<int> ran{0};
  pool.ParallelFor(10000, [&](uint64_t) {
    ran.fetch_add(1);
    return false;
  });
  EXPECT_LT(ran.load(), 10000);
}

}  // namespace
}  // namespace kiln::hal::cpu
