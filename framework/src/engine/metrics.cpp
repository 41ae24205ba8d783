#include "engine/metrics.hpp"

namespace runner::engine {

void PassMetrics::add(const torch::Tensor& loss, const torch::Tensor& outputs,
                      const torch::Tensor& targets, bool per_class) {
  const int64_t n = targets.size(0);
  torch::Tensor batch_loss = loss.detach().to(torch::kFloat64) * static_cast<double>(n);
  torch::Tensor hits = outputs.argmax(1).eq(targets);  // (N) bool
  torch::Tensor batch_correct = hits.sum();
  loss_sum_ = loss_sum_.defined() ? loss_sum_ + batch_loss : batch_loss;
  correct_ = correct_.defined() ? correct_ + batch_correct : batch_correct;
  if (per_class) {
    auto total = torch::bincount(targets, {}, num_classes_);
    auto correct = torch::bincount(targets.masked_select(hits), {}, num_classes_);
    class_total_ = class_total_.defined() ? class_total_ + total : total;
    class_correct_ = class_correct_.defined() ? class_correct_ + correct : correct;
  }
  samples_ += n;
}

double PassMetrics::mean_loss() const {
  return samples_ ? loss_sum_.item<double>() / static_cast<double>(samples_) : 0.0;
}

double PassMetrics::accuracy() const {
  return samples_ ? correct_.item<double>() / static_cast<double>(samples_) : 0.0;
}

std::vector<double> PassMetrics::per_class_accuracy() const {
  if (!class_total_.defined()) return {};
  auto total = class_total_.to(torch::kCPU, torch::kFloat64);
  auto correct = class_correct_.to(torch::kCPU, torch::kFloat64);
  auto ratio = (correct / total.clamp_min(1)).contiguous();
  return std::vector<double>(ratio.data_ptr<double>(), ratio.data_ptr<double>() + ratio.numel());
}

}  // namespace runner::engine
