// Bytes of tensor memory LibTorch's CPU allocator has handed out and not yet taken back.
// The runner wraps the default CPU allocator in a counting one, so a step can tell how much
// memory its forward pass left held for backward.
#pragma once

#include <cstdint>

namespace runner::engine {

// Installs the counting allocator; later calls do nothing. Tensors allocated before keep
// their own deleter and are never counted.
void count_cpu_allocations();

// 0 until count_cpu_allocations() ran.
int64_t cpu_bytes_in_use();

}  // namespace runner::engine
