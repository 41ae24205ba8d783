// The cache of large freed CPU blocks.
#include "measure/cpu_block_cache.hpp"

#include <vector>

namespace runner::measure {

std::optional<CpuBlock> CpuBlockCache::take(size_t bytes) {
  if (bytes < kSmallest) return std::nullopt;
  std::lock_guard<std::mutex> lock(mutex_);
  // The newest first: it is the likeliest still in the CPU's caches.
  for (auto it = kept_.rbegin(); it != kept_.rend(); ++it) {
    if (it->bytes != bytes) continue;
    const CpuBlock block = *it;
    kept_.erase(std::next(it).base());
    bytes_kept_ -= bytes;
    return block;
  }
  return std::nullopt;
}

bool CpuBlockCache::keep(const CpuBlock& block) {
  if (block.bytes < kSmallest || block.bytes > capacity_) return false;
  std::vector<CpuBlock> dropped;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    while (bytes_kept_ + block.bytes > capacity_) {
      dropped.push_back(kept_.front());
      bytes_kept_ -= kept_.front().bytes;
      kept_.pop_front();
    }
    kept_.push_back(block);
    bytes_kept_ += block.bytes;
  }
  for (const CpuBlock& old : dropped) old.free(old.data);
  return true;
}

void CpuBlockCache::release_all() {
  std::list<CpuBlock> dropped;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    dropped.swap(kept_);
    bytes_kept_ = 0;
  }
  for (const CpuBlock& block : dropped) block.free(block.data);
}

size_t CpuBlockCache::bytes_kept() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return bytes_kept_;
}

}  // namespace runner::measure
