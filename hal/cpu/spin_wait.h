// SpinFor: polls a condition for a short time before a caller blocks on a
// condition variable.
//
// A submission to the `cpu` device crosses two threads (host -> queue thread
// -> host). Each crossing through a condition variable costs a futex wake-up
// and a reschedule, tens of microseconds on a loaded or virtualised host,
// while the work itself often takes a few microseconds. Polling first, for a
// bounded time and yielding between polls so a spinning thread never starves
// the one it waits for, turns most of those crossings into a few cache-line
// reads; past the budget the caller blocks as before.
#pragma once

#include <chrono>
#include <thread>

namespace kiln::hal::cpu {

// How long waits on the CPU device poll before they block.
inline constexpr std::chrono::microseconds kSpinBudget{50};

// Polls `ready` until it returns true (returns true) or `budget` has passed
// (returns false).
template <typename Predicate>
bool SpinFor(std::chrono::nanoseconds budget, Predicate ready) {
  const auto deadline = std::chrono::steady_clock::now() + budget;
  for (;;) {
    for (int i = 0; i < 16; ++i) {
      if (ready()) return true;
      std::this_thread::yield();
    }
    if (std::chrono::steady_clock::now() >= deadline) return ready();
  }
}

}  // namespace kiln::hal::cpu
