// The launch grid the op plugins' CUDA kernels share: 256 threads a block, at most 65535
// blocks, and grid-stride loops over the elements.
#pragma once

#include <algorithm>
#include <cstdint>

namespace op_support {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 65535;

// Blocks for `count` elements, each thread taking one or (past kMaxBlocks) several.
inline int blocks_for(int64_t count) {
  return static_cast<int>(
      std::max<int64_t>(1, std::min(kMaxBlocks, (count + kThreads - 1) / kThreads)));
}

__device__ inline int64_t global_index() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

__device__ inline int64_t global_stride() { return static_cast<int64_t>(blockDim.x) * gridDim.x; }

}  // namespace op_support
