// The cache of large freed CPU blocks.
#include "machine/cpu_block_cache.hpp"

#include <utility>
#include <vector>

namespace runner::machine {

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

std::vector<CpuBlock> CpuBlockCache::drop_oldest_to_fit(size_t bytes) {
  std::vector<CpuBlock> dropped;
  while (!kept_.empty() && bytes_kept_ + bytes > capacity_) {
    dropped.push_back(kept_.front());
    bytes_kept_ -= kept_.front().bytes;
    kept_.pop_front();
  }
  return dropped;
}

bool CpuBlockCache::keep(const CpuBlock& block) {
  // Every tensor's free comes here: the small ones leave without taking the lock.
  if (block.bytes < kSmallest) return false;
  std::vector<CpuBlock> dropped;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (block.bytes > capacity_) return false;
    dropped = drop_oldest_to_fit(block.bytes);
    kept_.push_back(block);
    bytes_kept_ += block.bytes;
  }
  for (const CpuBlock& old : dropped) old.free(old.data);
  return true;
}

bool CpuBlockCache::drop_oldest() {
  CpuBlock oldest{};
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (kept_.empty()) return false;
    oldest = kept_.front();
    bytes_kept_ -= oldest.bytes;
    kept_.pop_front();
  }
  oldest.free(oldest.data);
  return true;
}

size_t CpuBlockCache::set_capacity(size_t capacity) {
  std::vector<CpuBlock> dropped;
  size_t replaced = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    replaced = std::exchange(capacity_, capacity);
    dropped = drop_oldest_to_fit(0);
  }
  for (const CpuBlock& old : dropped) old.free(old.data);
  return replaced;
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

}  // namespace runner::machine
