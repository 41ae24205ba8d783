// scatter: a batch in chunks along dim 0, one per device; gather: the chunks joined on one device.
#include "scatter_gather.hpp"

#include <algorithm>
#include <runner/errors.hpp>

namespace runner::strategies {

std::vector<torch::Tensor> scatter(const torch::Tensor& batch, size_t parts) {
  RUNNER_CHECK(batch.dim() >= 1 && batch.size(0) >= 1, "a batch of at least one sample");
  // No empty chunk: a device without samples sits the step out.
  const int64_t chunks = std::min<int64_t>(batch.size(0), static_cast<int64_t>(parts));
  return batch.tensor_split(chunks, 0);
}

torch::Tensor gather(const std::vector<torch::Tensor>& chunks, torch::Device device) {
  std::vector<torch::Tensor> here;
  here.reserve(chunks.size());
  for (const auto& chunk : chunks) here.push_back(chunk.to(device));
  return torch::cat(here, 0);
}

}  // namespace runner::strategies
