// An epoch's sample order and its batches.
#include "train/sampler.hpp"

#include <ATen/CPUGeneratorImpl.h>

namespace runner::train {

torch::Tensor epoch_permutation(int64_t size, int64_t seed, int64_t epoch) {
  // A generator of its own: the global one also drives initialization and dropout.
  auto generator = at::make_generator<at::CPUGeneratorImpl>(
      static_cast<uint64_t>(seed) * 1000003ull + static_cast<uint64_t>(epoch));
  return torch::randperm(size, generator, torch::TensorOptions().dtype(torch::kInt64));
}

std::vector<torch::Tensor> batches_of(const torch::Tensor& order, int64_t batch_size) {
  std::vector<torch::Tensor> batches;
  const int64_t n = order.size(0);
  for (int64_t start = 0; start < n; start += batch_size)
    batches.push_back(order.slice(0, start, std::min(n, start + batch_size)));
  return batches;
}

std::vector<torch::Tensor> batches_in(const torch::Tensor& order, int64_t batch_size,
                                      int64_t count) {
  std::vector<torch::Tensor> batches = batches_of(order, batch_size);
  if (static_cast<int64_t>(batches.size()) <= count) return batches;
  if (count <= 0) return {};
  batches.resize(static_cast<size_t>(count));
  batches.back() = order.slice(0, (count - 1) * batch_size, order.size(0));
  return batches;
}

}  // namespace runner::train
