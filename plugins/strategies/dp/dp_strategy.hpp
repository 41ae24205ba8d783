// Strategy `dp`: one process, several CUDA devices, as PyTorch's nn.DataParallel. This class
// picks the devices and refuses machines without two; DataParallel does the steps.
#pragma once

#include <runner/runner.hpp>

#include "data_parallel.hpp"

namespace runner::strategies {

class DpStrategy : public Strategy {
 public:
  // requested: the `devices` key, CUDA indices; empty for every visible device.
  explicit DpStrategy(std::vector<int64_t> requested);

  // RunSkipped when train.device is not CUDA or fewer than 2 CUDA devices are visible or
  // selected, before any replica or optimizer is built.
  void setup(const StrategyContext& context) override;
  StepResult train_step(const Batch& batch) override;
  StepResult eval_step(const Batch& batch) override;
  void set_learning_rate(double lr) override;
  std::vector<StatePiece> state_pieces() override { return parallel_->state_pieces(); }
  void state_loaded() override { parallel_->state_loaded(); }

 private:
  std::vector<int64_t> requested_;
  std::unique_ptr<DataParallel> parallel_;
};

// The factory of the plugin: reads and checks the keys of dp_schema().
std::shared_ptr<Strategy> make_dp_strategy(const Options& options);

}  // namespace runner::strategies
