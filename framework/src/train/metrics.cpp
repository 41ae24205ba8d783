// A pass's running sums: loss, correct predictions, per-class counts.
#include "train/metrics.hpp"

#include <cmath>

namespace runner::train {

void PassMetrics::add_predictions(const torch::Tensor& loss, const torch::Tensor& hits) {
  const int64_t n = hits.numel();
  torch::Tensor weighted_loss = loss.detach().to(torch::kFloat64) * static_cast<double>(n);
  torch::Tensor hit_count = hits.sum();
  loss_sum_ = loss_sum_.defined() ? loss_sum_ + weighted_loss : weighted_loss;
  correct_ = correct_.defined() ? correct_ + hit_count : hit_count;
  predictions_ += n;
}

void PassMetrics::add(const torch::Tensor& loss, const torch::Tensor& predictions,
                      const torch::Tensor& targets, bool per_class) {
  samples_ += targets.size(0);
  if (task_ == Task::language_modeling) {
    add_predictions(loss, predictions.narrow(1, 0, predictions.size(1) - 1)
                              .eq(targets.narrow(1, 1, targets.size(1) - 1)));
    return;
  }
  torch::Tensor hits = predictions.eq(targets);  // (N) bool
  add_predictions(loss, hits);
  if (per_class) {
    auto total = torch::bincount(targets, {}, num_classes_);
    auto correct = torch::bincount(targets.masked_select(hits), {}, num_classes_);
    class_total_ = class_total_.defined() ? class_total_ + total : total;
    class_correct_ = class_correct_.defined() ? class_correct_ + correct : correct;
  }
}

double PassMetrics::mean_loss() const {
  return predictions_ ? loss_sum_.item<double>() / static_cast<double>(predictions_) : 0.0;
}

double PassMetrics::accuracy() const {
  return predictions_ ? correct_.item<double>() / static_cast<double>(predictions_) : 0.0;
}

double PassMetrics::perplexity() const { return std::exp(mean_loss()); }

std::vector<double> PassMetrics::per_class_accuracy() const {
  if (!class_total_.defined()) return {};
  auto total = class_total_.to(torch::kCPU, torch::kFloat64);
  auto correct = class_correct_.to(torch::kCPU, torch::kFloat64);
  auto ratio = (correct / total.clamp_min(1)).contiguous();
  return std::vector<double>(ratio.data_ptr<double>(), ratio.data_ptr<double>() + ratio.numel());
}

namespace {

torch::Tensor as_float64(const torch::Tensor& t, int64_t size, torch::Device device) {
  auto options = torch::TensorOptions().dtype(torch::kFloat64).device(device);
  return t.defined() ? t.to(options).reshape({size}) : torch::zeros({size}, options);
}

}  // namespace

torch::Tensor PassMetrics::pack(torch::Device device) const {
  auto counts = torch::tensor({static_cast<double>(samples_), static_cast<double>(predictions_)},
                              torch::kFloat64)
                    .to(device);
  return torch::cat({counts, as_float64(loss_sum_, 1, device), as_float64(correct_, 1, device),
                     as_float64(class_correct_, num_classes_, device),
                     as_float64(class_total_, num_classes_, device)});
}

void PassMetrics::unpack(const torch::Tensor& packed) {
  auto sums = packed.to(torch::kCPU).contiguous();
  const double* v = sums.data_ptr<double>();
  samples_ = static_cast<int64_t>(v[0]);
  predictions_ = static_cast<int64_t>(v[1]);
  loss_sum_ = sums.slice(0, 2, 3).reshape({});
  correct_ = sums.slice(0, 3, 4).reshape({});
  // A pass that did not count classes keeps not counting them.
  if (class_total_.defined()) {
    class_correct_ = sums.slice(0, 4, 4 + num_classes_);
    class_total_ = sums.slice(0, 4 + num_classes_, 4 + 2 * num_classes_);
  }
}

}  // namespace runner::train
