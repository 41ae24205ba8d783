// Running sums of one pass over a split: loss, correct predictions, per-class counts.
#pragma once

#include <torch/torch.h>

#include <vector>

namespace runner::engine {

class PassMetrics {
 public:
  explicit PassMetrics(int64_t num_classes) : num_classes_(num_classes) {}

  // loss: scalar mean over the batch; outputs: (N, classes); targets: (N).
  void add(const torch::Tensor& loss, const torch::Tensor& outputs, const torch::Tensor& targets,
           bool per_class);

  int64_t samples() const { return samples_; }
  double mean_loss() const;
  double accuracy() const;
  std::vector<double> per_class_accuracy() const;  // empty unless per_class was asked

 private:
  int64_t num_classes_;
  int64_t samples_ = 0;
  // Accumulated as tensors so that a CUDA pass syncs once, at the end.
  torch::Tensor loss_sum_;
  torch::Tensor correct_;
  torch::Tensor class_correct_;
  torch::Tensor class_total_;
};

}  // namespace runner::engine
