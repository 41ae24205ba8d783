// Freed CPU blocks of 32 MiB and more, kept for the next allocation of the same size.
#pragma once

#include <c10/core/Allocator.h>

#include <cstddef>
#include <list>
#include <mutex>
#include <optional>
#include <vector>

namespace runner::machine {

// A block as its allocator handed it out: where, how large, and how it is freed.
struct CpuBlock {
  void* data;
  size_t bytes;
  c10::DeleterFnPtr free;
};

// glibc's malloc maps large blocks fresh from the kernel and unmaps them when they are freed
// (from 64 MiB up under runner's mallopt, from at most 32 MiB by default), so a step's large
// tensors (GPT-2's (B, T, V) logits and their gradients) were faulted in and zeroed by the kernel
// again at every step. The cache keeps such blocks for the next allocation of the same size, up to
// `capacity` bytes, dropping the ones kept longest first.
class CpuBlockCache {
 public:
  static constexpr size_t kSmallest = size_t{32} << 20;

  explicit CpuBlockCache(size_t capacity) : capacity_(capacity) {}
  ~CpuBlockCache() { release_all(); }
  CpuBlockCache(const CpuBlockCache&) = delete;
  CpuBlockCache& operator=(const CpuBlockCache&) = delete;

  // A kept block of exactly `bytes`, no longer kept; none when there is none.
  std::optional<CpuBlock> take(size_t bytes);
  // Keeps `block` when it is large enough and fits the capacity; false: the caller frees it.
  bool keep(const CpuBlock& block);
  // Frees the block kept longest; false when none is kept.
  bool drop_oldest();
  // Frees every kept block.
  void release_all();
  // A new bound; the blocks kept longest go until the kept ones fit it. 0: keeps none.
  // Returns the bound it replaces.
  size_t set_capacity(size_t capacity);
  size_t bytes_kept() const;

 private:
  // Under the lock: takes out the oldest blocks until `bytes` more fit; the caller frees them.
  std::vector<CpuBlock> drop_oldest_to_fit(size_t bytes);

  mutable std::mutex mutex_;
  std::list<CpuBlock> kept_;  // the oldest first
  size_t capacity_;
  size_t bytes_kept_ = 0;
};

}  // namespace runner::machine
