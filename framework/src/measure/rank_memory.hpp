// One rank's memory over a run: the process's peak (RSS on the CPU, the caching allocator's
// on CUDA) and the tensors' peak (the counting allocator's on the CPU, counted from before the
// model is built, so it holds what the run plan estimates: model states, activations,
// buffers, batches), each the largest over the epochs.
#pragma once

#include <torch/torch.h>

#include <cstdint>

namespace runner::measure {

class RankMemory {
 public:
  // Before the model is built: installs the counting allocator and takes the baseline.
  explicit RankMemory(torch::Device device);

  void epoch_begins();
  // This epoch's peaks, bytes.
  double process_peak() const;
  double tensor_peak() const;
  // Tensor bytes in use now beyond the baseline: between steps, the model state.
  double tensors_in_use() const;

 private:
  torch::Device device_;
  int64_t baseline_ = 0;  // bytes in use before the model: the dataset, earlier runs' leftovers
};

}  // namespace runner::measure
