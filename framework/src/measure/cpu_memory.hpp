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

// A ceiling on the process's resident memory while blocks are kept (0: none, the default):
// over it, freed blocks are not kept, and before a block of 32 MiB or more comes fresh from the
// system the kept blocks, then glibc's free heap pages, go back. Returns the ceiling it
// replaces.
int64_t keep_resident_memory_under(int64_t bytes);
// The process's resident memory now (its RSS).
int64_t resident_memory_bytes();

// What a rank's process may hold beyond its base (its resident memory before its model) for a
// plan of `planned` bytes: the plan, and a quarter more for the freed memory its allocators
// keep for reuse (glibc's heap, the kept blocks). The budget check holds the same against the
// machine's memory. GPT-2 small's step at 4 x 256 tokens needs about that much to run at the
// kept blocks' speed (tools/bench/README.md).
inline double resident_allowance(double planned) { return 1.25 * planned; }

// A run's use of kept blocks: the process's resident memory when it starts is the run's base;
// `bound_by_plan` puts the ceiling at that base plus the plan's resident_allowance. When it
// goes (declared before a run's tensors, it goes after them), the ceiling is lifted and the
// kept blocks released.
class CpuBlocksKeptForARun {
 public:
  CpuBlocksKeptForARun() : base_(resident_memory_bytes()) {}
  CpuBlocksKeptForARun(const CpuBlocksKeptForARun&) = delete;
  CpuBlocksKeptForARun& operator=(const CpuBlocksKeptForARun&) = delete;
  ~CpuBlocksKeptForARun() {
    keep_resident_memory_under(0);
    release_cached_cpu_blocks();
  }
  void bound_by_plan(double planned_bytes) {
    keep_resident_memory_under(base_ + static_cast<int64_t>(resident_allowance(planned_bytes)));
  }

 private:
  int64_t base_;
};

// The most bytes in use since the last reset_cpu_peak() (which sets it to the bytes in use).
void reset_cpu_peak();
int64_t cpu_peak_bytes();

}  // namespace runner::measure
