// What the random transforms of [[dataset.augment]] share: drawing per-sample parameters.
#pragma once

#include <torch/torch.h>

namespace runner::augment {

// (n) float64 on the CPU, uniform in [low, high]: the per-sample parameters of a batch.
inline torch::Tensor uniform(int64_t n, double low, double high, at::Generator& generator) {
  return torch::empty({n}, torch::kFloat64).uniform_(low, high, generator);
}

}  // namespace runner::augment
