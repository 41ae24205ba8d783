// The optimizers of [optimizer] and the learning-rate schedules of [schedule].
#include "train/optimizers.hpp"

#include <cmath>

#include "train/fused_adamw.hpp"

namespace runner::train {
namespace {

std::pair<double, double> betas_of(const Options& optimizer) {
  std::vector<double> betas = optimizer.get_doubles("betas");
  if (betas.size() != 2 || betas[0] < 0 || betas[0] >= 1 || betas[1] < 0 || betas[1] >= 1)
    throw ConfigError("optimizer.betas must be two numbers in [0, 1), got " +
                      value_to_string(betas));
  return {betas[0], betas[1]};
}

OptimizerFactory sgd(const Options& o) {
  double lr = o.get_double("lr"), momentum = o.get_double("momentum");
  double weight_decay = o.get_double("weight_decay");
  bool nesterov = o.get_bool("nesterov");
  if (nesterov && momentum <= 0)
    throw ConfigError("optimizer.nesterov = true needs optimizer.momentum > 0",
                      "set momentum = 0.9, say, or nesterov = false");
  return [=](std::vector<torch::Tensor> params) -> std::unique_ptr<torch::optim::Optimizer> {
    auto options = torch::optim::SGDOptions(lr).momentum(momentum).nesterov(nesterov);
    return std::make_unique<torch::optim::SGD>(std::move(params),
                                               options.weight_decay(weight_decay));
  };
}

OptimizerFactory adam(const Options& o, bool decoupled) {
  double lr = o.get_double("lr"), eps = o.get_double("eps");
  double weight_decay = o.get_double("weight_decay");
  auto betas = betas_of(o);
  return [=](std::vector<torch::Tensor> params) -> std::unique_ptr<torch::optim::Optimizer> {
    if (decoupled) {
      auto options = torch::optim::AdamWOptions(lr).betas({betas.first, betas.second}).eps(eps);
      return std::make_unique<FusedAdamW>(std::move(params), options.weight_decay(weight_decay));
    }
    auto options = torch::optim::AdamOptions(lr).betas({betas.first, betas.second}).eps(eps);
    return std::make_unique<torch::optim::Adam>(std::move(params),
                                                options.weight_decay(weight_decay));
  };
}

// Cosine interpolation from `start` (pct 0) to `end` (pct 1), as PyTorch's OneCycleLR.
double cosine_between(double start, double end, double pct) {
  return end + (start - end) / 2.0 * (1.0 + std::cos(M_PI * pct));
}

}  // namespace

OptimizerFactory optimizer_factory(const Options& optimizer) {
  const std::string& name = optimizer.get_string("name");
  if (name == "sgd") return sgd(optimizer);
  if (name == "adam") return adam(optimizer, false);
  if (name == "adamw") return adam(optimizer, true);
  throw ConfigError("optimizer.name '" + name + "' is not one of sgd, adam, adamw");
}

void set_learning_rate(torch::optim::Optimizer& optimizer, double lr) {
  for (auto& group : optimizer.param_groups()) group.options().set_lr(lr);
}

LearningRateSchedule::LearningRateSchedule(const Options& schedule, double base_lr,
                                           int64_t steps_per_epoch, int64_t epochs)
    : name_(schedule.get_string("name")),
      base_lr_(base_lr),
      steps_per_epoch_(std::max<int64_t>(1, steps_per_epoch)),
      total_steps_(std::max<int64_t>(1, steps_per_epoch * epochs)),
      step_size_epochs_(schedule.get_int("step_size")),
      gamma_(schedule.get_double("gamma")),
      min_lr_(schedule.get_double("min_lr")),
      max_lr_(schedule.get_double("max_lr") > 0 ? schedule.get_double("max_lr") : base_lr),
      pct_start_(schedule.get_double("pct_start")),
      warmup_steps_(schedule.get_int("warmup_steps")) {}

double LearningRateSchedule::one_cycle(int64_t step) const {
  const double initial = max_lr_ / 25.0, final_lr = initial / 1e4;
  const double warm_end = pct_start_ * static_cast<double>(total_steps_) - 1.0;
  const double last = static_cast<double>(total_steps_) - 1.0;
  const double s = static_cast<double>(step);
  if (s <= warm_end) return cosine_between(initial, max_lr_, warm_end > 0 ? s / warm_end : 1.0);
  return cosine_between(max_lr_, final_lr,
                        last > warm_end ? (s - warm_end) / (last - warm_end) : 1.0);
}

double LearningRateSchedule::at(int64_t step) const {
  double lr = base_lr_;
  if (name_ == "step") {
    const int64_t decays = (step / steps_per_epoch_) / step_size_epochs_;  // whole periods
    lr = base_lr_ * std::pow(gamma_, static_cast<double>(decays));
  } else if (name_ == "cosine") {
    double pct = std::min(1.0, static_cast<double>(step) / static_cast<double>(total_steps_));
    lr = cosine_between(base_lr_, min_lr_, pct);
  } else if (name_ == "one_cycle") {
    return one_cycle(step);
  }
  if (step < warmup_steps_)
    lr *= static_cast<double>(step + 1) / static_cast<double>(warmup_steps_);
  return lr;
}

}  // namespace runner::train
