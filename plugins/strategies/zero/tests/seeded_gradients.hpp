// Gradients drawn from a seed, the same for every set of tensors given the same seed, so two
// optimizers over equal tensors can be stepped alike and compared.
#pragma once

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include <cstdint>
#include <vector>

namespace runner::testing {

inline void give_seeded_gradients(const std::vector<torch::Tensor>& tensors, uint64_t seed) {
  auto generator = at::make_generator<at::CPUGeneratorImpl>(seed);
  for (const auto& t : tensors) t.mutable_grad() = torch::randn(t.sizes(), generator);
}

}  // namespace runner::testing
