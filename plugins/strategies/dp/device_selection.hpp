// The `devices` key of strategy dp and the CUDA devices it resolves to.
#pragma once

#include <runner/runner.hpp>
#include <vector>

namespace runner::strategies {

// The keys of [strategy] when name = "dp".
Schema dp_schema();

// `devices` as given, refused (ConfigError naming the key) when it names a device twice.
std::vector<int64_t> requested_devices(const Options& options);

// The CUDA devices dp runs on: `requested`, or devices 0 to visible - 1 when it is empty. The
// first must be `first`, the device the host placed the model and the batches on. An index
// outside 0 to visible - 1, or a list that starts elsewhere, is a ConfigError naming the key.
std::vector<torch::Device> select_cuda_devices(const std::vector<int64_t>& requested,
                                               int64_t visible, int64_t first);

}  // namespace runner::strategies
