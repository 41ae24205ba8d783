// Strategy `single`: one process, one device; forward, backward and the optimizer's step, with
// the [train] techniques of the strategy-support library.
#pragma once

#include <runner/runner.hpp>
#include <runner/strategies/replica_state.hpp>
#include <runner/strategies/training_step.hpp>

namespace runner::strategies {

class SingleStrategy : public Strategy {
 public:
  void setup(const StrategyContext& context) override;
  StepResult train_step(const Batch& batch) override;
  StepResult eval_step(const Batch& batch) override;
  void set_learning_rate(double lr) override;
  std::vector<StatePiece> state_pieces() override { return state_->pieces(); }
  void state_loaded() override { state_->loaded(); }

 private:
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  std::unique_ptr<TrainingStep> step_;
  std::unique_ptr<ReplicaState> state_;
};

}  // namespace runner::strategies
