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

// The most bytes in use since the last reset_cpu_peak() (which sets it to the bytes in use).
void reset_cpu_peak();
int64_t cpu_peak_bytes();

}  // namespace runner::measure
