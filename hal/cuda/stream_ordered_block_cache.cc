#include "hal/cuda/stream_ordered_block_cache.h"

namespace kiln::hal::cuda {

size_t StreamOrderedBlockCache::RoundSize(size_t size) {
  constexpr size_t kSmallStep = 512;
  constexpr size_t kLargeStep = size_t{128} << 10;
  constexpr size_t kSmallLimit = size_t{1} << 20;
  const size_t step = size <= kSmallLimit ? kSmallStep : kLargeStep;
  return (size + step - 1) / step * step;
}

StreamOrderedBlockCache::Blocks* StreamOrderedBlockCache::ListLocked(size_t rounded_size,
                                                                     bool create) {
  if (last_ != nullptr && last_size_ == rounded_size) [[likely]]
    return last_;
  Blocks* blocks = nullptr;
  if (create) {
    blocks = &free_[rounded_size];
  } else if (auto it = free_.find(rounded_size); it != free_.end()) {
    blocks = &it->second;
  } else {
    return nullptr;
  }
  last_size_ = rounded_size;
  last_ = blocks;  // Elements of an unordered_map keep their address.
  return blocks;
}

CUdeviceptr StreamOrderedBlockCache::Take(size_t rounded_size) {
  std::lock_guard<std::mutex> lock(mutex_);
  Blocks* blocks = ListLocked(rounded_size, /*create=*/false);
  if (blocks == nullptr || blocks->empty()) return 0;
  const CUdeviceptr block = blocks->back();
  blocks->pop_back();
  cached_bytes_ -= rounded_size;
  return block;
}

bool StreamOrderedBlockCache::Give(CUdeviceptr block, size_t rounded_size) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (cached_bytes_ + rounded_size > kMaxCachedBytes) return false;
  ListLocked(rounded_size, /*create=*/true)->push_back(block);
  cached_bytes_ += rounded_size;
  return true;
}

std::vector<CUdeviceptr> StreamOrderedBlockCache::TakeAll() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<CUdeviceptr> blocks;
  for (auto& [size, list] : free_) blocks.insert(blocks.end(), list.begin(), list.end());
  free_.clear();
  last_ = nullptr;
  cached_bytes_ = 0;
  return blocks;
}

size_t StreamOrderedBlockCache::cached_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return cached_bytes_;
}

}  // namespace kiln::hal::cuda
