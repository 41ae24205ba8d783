// Bytes of tensor memory LibTorch's CPU allocator has handed out and not yet taken back.
// The runner wraps the default CPU allocator in a counting one, so a step can tell how much
// memory its forward pass left held for backward, and a run its tensors' peak (unlike the
// process's RSS peak, without the ~300 MB of libraries and heap a process starts with).
#pragma once

#include <cstdint>

namespace runner::measure {

// Installs the counting allocator; later calls do nothing. Tensors allocated before keep
// their own deleter and are never counted.
void count_cpu_allocations();

// 0 until count_cpu_allocations() ran.
int64_t cpu_bytes_in_use();

// Freed blocks of 32 MiB and more are kept for the next tensor of their size (see
// cpu_block_cache.hpp); they count as freed. This hands them back to the system.
void release_cached_cpu_blocks();
int64_t cached_cpu_bytes();
// Bounds the cache (a quarter of the machine's memory until called); 0 turns it off. Returns
// the bound it replaces.
int64_t limit_cached_cpu_bytes(int64_t bytes);

// Releases the cached blocks when it goes: declared before a run's tensors, it goes after them.
struct CachedCpuBlocksReleasedAtEnd {
  CachedCpuBlocksReleasedAtEnd() = default;
  CachedCpuBlocksReleasedAtEnd(const CachedCpuBlocksReleasedAtEnd&) = delete;
  CachedCpuBlocksReleasedAtEnd& operator=(const CachedCpuBlocksReleasedAtEnd&) = delete;
  ~CachedCpuBlocksReleasedAtEnd() { release_cached_cpu_blocks(); }
};

// The most bytes in use since the last reset_cpu_peak() (which sets it to the bytes in use).
void reset_cpu_peak();
int64_t cpu_peak_bytes();

}  // namespace runner::measure
