// Runs one piece of work per device at the same time, as nn.DataParallel's parallel_apply.
#pragma once

#include <torch/torch.h>

#include <functional>
#include <vector>

namespace runner::strategies {

// Calls work(i) for i in 0 to count - 1, each on its own thread (i = 0 on the calling one)
// with devices[i] as the current device and the caller's grad and inference modes. Returns
// when all have finished; then rethrows the first failure, if any.
void parallel_apply(const std::vector<torch::Device>& devices, size_t count,
                    const std::function<void(size_t)>& work);

}  // namespace runner::strategies
