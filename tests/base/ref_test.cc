// Ref<T>: intrusive, atomic reference counting.
#include "base/ref.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace kiln {
namespace {

// Counts destructions so tests can see exactly when an object dies.
class Tracked : public RefObject {
 public:
  explicit Tracked(int* destroyed, int value = 0) : destroyed_(destroyed), value_(value) {}
  int value() const { return value_; }

 protected:
  ~Tracked() override { ++*destroyed_; }

 private:
  int* destroyed_;
  int value_;
};

class Derived final : public Tracked {
 public:
  using Tracked::Tracked;
};

TEST(RefTest, MakeRefStartsAtOneAndDeletesOnLastRelease) {
  int destroyed = 0;
  {
    Ref<Tracked> ref = MakeRef<Tracked>(&destroyed, 5);
    EXPECT_EQ(ref->ref_count(), 1);
    EXPECT_EQ(ref->value(), 5);
    EXPECT_EQ((*ref).value(), 5);
    EXPECT_TRUE(ref);
  }
  EXPECT_EQ(destroyed, 1);
}

TEST(RefTest, CopyRetainsMoveTransfers) {
  int destroyed = 0;
  Ref<Tracked> a = MakeRef<Tracked>(&destroyed);
  {
    Ref<Tracked> b = a;
    EXPECT_EQ(a->ref_count(), 2);
    EXPECT_TRUE(a == b);
    Ref<Tracked> c = std::move(b);
    EXPECT_EQ(a->ref_count(), 2);
    EXPECT_FALSE(b);
    EXPECT_TRUE(b == nullptr);
  }
  EXPECT_EQ(a->ref_count(), 1);
  EXPECT_EQ(destroyed, 0);
  a = nullptr;
  EXPECT_EQ(destroyed, 1);
}

TEST(RefTest, AssignmentReleasesOldAndSelfAssignmentIsSafe) {
  int destroyed_a = 0, destroyed_b = 0;
  Ref<Tracked> a = MakeRef<Tracked>(&destroyed_a);
  Ref<Tracked> b = MakeRef<Tracked>(&destroyed_b);
  a = b;
  EXPECT_EQ(destroyed_a, 1);
  EXPECT_EQ(b->ref_count(), 2);
  Ref<Tracked>& alias = a;
  a = alias;
  EXPECT_EQ(b->ref_count(), 2);
  EXPECT_EQ(destroyed_b, 0);
}

TEST(RefTest, RawPointerConstructorRetainsAdoptDoesNot) {
  int destroyed = 0;
  Tracked* raw = MakeRef<Tracked>(&destroyed).Detach();  // Count 1, owned by `raw`.
  {
    Ref<Tracked> retained(raw);
    EXPECT_EQ(raw->ref_count(), 2);
  }
  EXPECT_EQ(raw->ref_count(), 1);
  EXPECT_EQ(destroyed, 0);
  {
    Ref<Tracked> adopted = Ref<Tracked>::Adopt(raw);  // Takes over `raw`'s reference.
    EXPECT_EQ(raw->ref_count(), 1);
  }
  EXPECT_EQ(destroyed, 1);
}

TEST(RefTest, DetachKeepsTheObjectAlive) {
  int destroyed = 0;
  Ref<Tracked> ref = MakeRef<Tracked>(&destroyed);
  Tracked* raw = ref.Detach();
  EXPECT_FALSE(ref);
  EXPECT_EQ(ref.get(), nullptr);
  EXPECT_EQ(raw->ref_count(), 1);
  EXPECT_EQ(destroyed, 0);
  raw->Release();
  EXPECT_EQ(destroyed, 1);
}

TEST(RefTest, UpcastCopyAndMove) {
  int destroyed = 0;
  Ref<Derived> derived = MakeRef<Derived>(&destroyed, 9);
  Ref<Tracked> copied = derived;  // Retains.
  EXPECT_EQ(derived->ref_count(), 2);
  EXPECT_EQ(copied.get(), derived.get());
  Ref<RefObject> moved = std::move(copied);  // Transfers without touching the count.
  EXPECT_FALSE(copied);
  EXPECT_EQ(derived->ref_count(), 2);
  derived = nullptr;
  EXPECT_EQ(destroyed, 0);
  EXPECT_EQ(moved->ref_count(), 1);
  moved = nullptr;
  EXPECT_EQ(destroyed, 1);
}

TEST(RefTest, NullRefs) {
  Ref<Tracked> empty;
  Ref<Tracked> from_null = nullptr;
  EXPECT_FALSE(empty);
  EXPECT_TRUE(empty == from_null);
  EXPECT_EQ(empty.Detach(), nullptr);
  Ref<Tracked> null_raw(static_cast<Tracked*>(nullptr));
  EXPECT_FALSE(null_raw);
}

TEST(RefTest, ConcurrentCopiesKeepAnExactCount) {
  // Several threads copy and drop refs to one object at once; with atomic
  // counts the object survives all of them and dies exactly once at the end.
  constexpr int kThreads = 4;
  constexpr int kIterations = 20000;
  int destroyed = 0;
  Ref<Tracked> shared = MakeRef<Tracked>(&destroyed);
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      ready.fetch_add(1);
      while (ready.load() < kThreads) {
      }
      std::vector<Ref<Tracked>> held;
      held.reserve(64);
      for (int i = 0; i < kIterations; ++i) {
        held.push_back(shared);
        if (held.size() == 64) held.clear();
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(shared->ref_count(), 1);
  EXPECT_EQ(destroyed, 0);

  // The last references dropped on other threads delete the object once.
  std::vector<Ref<Tracked>> copies(kThreads, shared);
  shared = nullptr;
  EXPECT_EQ(copies[0]->ref_count(), kThreads);
  threads.clear();
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&copies, t] { copies[t] = nullptr; });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(destroyed, 1);
}

}  // namespace
}  // namespace kiln
