#include "hal/cuda/graph_cache.h"

#include <utility>

namespace kiln::hal::cuda {

void GraphCache::Key::AddExecutable(const Ref<Executable>& executable) {
  Add(reinterpret_cast<uintptr_t>(executable.get()));
  // Dispatches of one executable come in runs: one reference per run keeps
  // it alive without a reference per dispatch.
  if (executables_.empty() || executables_.back().get() != executable.get()) {
    executables_.push_back(executable);
  }
}

GraphCache::~GraphCache() { Clear(); }

std::unique_ptr<GraphCache::Entry> GraphCache::Take(const Key& key) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = slots_.begin(); it != slots_.end(); ++it) {
    if (!(it->key == key)) continue;
    std::unique_ptr<Entry> entry = std::move(it->entry);
    // The slot's key goes too: Put brings the taker's, equal to it.
    slots_.erase(it);
    ++statistics_.hits;
    return entry;
  }
  ++statistics_.misses;
  return nullptr;
}

void GraphCache::Put(Key key, std::unique_ptr<Entry> entry) {
  std::list<Slot> evicted;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    slots_.push_front(Slot{std::move(key), std::move(entry)});
    while (slots_.size() > capacity_) {
      evicted.splice(evicted.end(), slots_, std::prev(slots_.end()));
      ++statistics_.evictions;
    }
  }
  // Destroyed outside the lock: destroying a graph calls CUDA.
}

void GraphCache::Clear() {
  std::list<Slot> cleared;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    cleared.swap(slots_);
  }
}

GraphCache::Statistics GraphCache::statistics() const {
  std::lock_guard<std::mutex> lock(mutex_);
  Statistics statistics = statistics_;
  statistics.size = slots_.size();
  return statistics;
}

}  // namespace kiln::hal::cuda
