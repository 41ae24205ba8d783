// Strategy `single`: one process, one device; the plain forward, backward, step.
#pragma once

#include <runner/runner.hpp>

namespace runner::strategies {

class SingleStrategy : public Strategy {
 public:
  void setup(const StrategyContext& context) override;
  StepResult train_step(const Batch& batch) override;
  StepResult eval_step(const Batch& batch) override;
  void set_learning_rate(double lr) override;

 private:
  std::shared_ptr<Model> model_;
  std::vector<torch::Tensor> parameters_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  std::shared_ptr<StepMeter> meter_;
};

}  // namespace runner::strategies
