// Running sums of one pass over a split: loss, correct predictions, per-class counts. A
// classifier counts samples; a language model counts the tokens it predicted (all but the
// first of each sequence), so its mean loss is per token and exp(mean loss) its perplexity.
#pragma once

#include <torch/torch.h>

#include <vector>

#include "runner/dataset.hpp"

namespace runner::train {

class PassMetrics {
 public:
  explicit PassMetrics(int64_t num_classes, Task task = Task::classification)
      : num_classes_(num_classes), task_(task) {}

  // classification: loss the mean over the batch, predictions (N) class indices, targets (N).
  // language modeling: loss the mean per predicted token, predictions (N, T) token ids,
  // targets (N, T) where predictions[:, t] predicts targets[:, t + 1].
  void add(const torch::Tensor& loss, const torch::Tensor& predictions,
           const torch::Tensor& targets, bool per_class);

  int64_t samples() const { return samples_; }
  double mean_loss() const;   // per sample, or per token
  double accuracy() const;    // of samples, or of next tokens
  double perplexity() const;  // exp(mean_loss()); meaningful for language models
  // Empty unless per_class was asked, and always for language models.
  std::vector<double> per_class_accuracy() const;

  // The sums as one float64 tensor on `device`, to be summed over ranks; unpack() takes the
  // sum back, after which this pass counts every rank's samples.
  // (4 + 2 * classes): samples, predictions, loss sum, correct, correct and total per class.
  torch::Tensor pack(torch::Device device) const;
  void unpack(const torch::Tensor& packed);

 private:
  void add_predictions(const torch::Tensor& loss, const torch::Tensor& hits);

  int64_t num_classes_;
  Task task_;
  int64_t samples_ = 0;
  int64_t predictions_ = 0;  // samples, or tokens
  // Accumulated as tensors so that a CUDA pass syncs once, at the end.
  torch::Tensor loss_sum_;
  torch::Tensor correct_;
  torch::Tensor class_correct_;
  torch::Tensor class_total_;
};

}  // namespace runner::train
