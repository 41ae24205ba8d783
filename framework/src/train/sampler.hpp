// The order of samples in an epoch: a permutation seeded by the run's seed and the epoch,
// so a run is repeatable and every epoch differs.
#pragma once

#include <torch/torch.h>

#include <vector>

namespace runner::train {

// (size) int64 permutation of [0, size).
torch::Tensor epoch_permutation(int64_t size, int64_t seed, int64_t epoch);

// Consecutive slices of `order` of at most batch_size indices; a last partial one is kept.
std::vector<torch::Tensor> batches_of(const torch::Tensor& order, int64_t batch_size);

// batches_of() cut to at most `count` batches, the last taking every index left: ranks whose
// shards differ by a sample step through as many test batches.
std::vector<torch::Tensor> batches_in(const torch::Tensor& order, int64_t batch_size,
                                      int64_t count);

}  // namespace runner::train
