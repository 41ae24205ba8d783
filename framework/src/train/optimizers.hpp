// Optimizers and learning-rate schedules chosen in the [optimizer] and [schedule] tables.
#pragma once

#include <torch/torch.h>

#include "runner/options.hpp"
#include "runner/strategy.hpp"

namespace runner::train {

// Checks the combination of keys now (ConfigError), builds the optimizer later per strategy.
OptimizerFactory optimizer_factory(const Options& optimizer);

void set_learning_rate(torch::optim::Optimizer& optimizer, double lr);

class LearningRateSchedule {
 public:
  LearningRateSchedule(const Options& schedule, double base_lr, int64_t steps_per_epoch,
                       int64_t epochs);
  // Learning rate for the 0-based global step.
  double at(int64_t step) const;

 private:
  double one_cycle(int64_t step) const;

  std::string name_;
  double base_lr_;
  int64_t steps_per_epoch_;
  int64_t total_steps_;
  int64_t step_size_epochs_;
  double gamma_;
  double min_lr_;
  double max_lr_;
  double pct_start_;
  int64_t warmup_steps_;
};

}  // namespace runner::train
