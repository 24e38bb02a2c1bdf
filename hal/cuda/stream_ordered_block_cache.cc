#include "hal/cuda/stream_ordered_block_cache.h"

namespace kiln::hal::cuda {

size_t StreamOrderedBlockCache::RoundSize(size_t size) {
  constexpr size_t kSmallStep = 512;
  constexpr size_t kLargeStep = size_t{128} << 10;
  constexpr size_t kSmallLimit = size_t{1} << 20;
  const size_t step = size <= kSmallLimit ? kSmallStep : kLargeStep;
  return (size + step - 1) / step * step;
}

CUdeviceptr StreamOrderedBlockCache::Take(size_t rounded_size) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = free_.find(rounded_size);
  if (it == free_.end() || it->second.empty()) return 0;
  const CUdeviceptr block = it->second.back();
  it->second.pop_back();
  cached_bytes_ -= rounded_size;
  return block;
}

bool StreamOrderedBlockCache::Give(CUdeviceptr block, size_t rounded_size) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (cached_bytes_ + rounded_size > kMaxCachedBytes) return false;
  free_[rounded_size].push_back(block);
  cached_bytes_ += rounded_size;
  return true;
}

std::vector<CUdeviceptr> StreamOrderedBlockCache::TakeAll() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<CUdeviceptr> blocks;
  for (auto& [size, list] : free_) blocks.insert(blocks.end(), list.begin(), list.end());
  free_.clear();
  cached_bytes_ = 0;
  return blocks;
}

size_t StreamOrderedBlockCache::cached_bytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return cached_bytes_;
}

}  // namespace kiln::hal::cuda
