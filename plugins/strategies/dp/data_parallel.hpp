// The step of strategy dp on an explicit list of devices, as PyTorch's nn.DataParallel: the
// batch is cut along dim 0, one replica per device runs its chunk on its own thread, the
// outputs are gathered on the first device where the loss is taken, and backward sums every
// replica's gradients into the master, which the optimizer steps. The devices may repeat
// (tests run two replicas on the CPU).
#pragma once

#include <runner/runner.hpp>
#include <runner/strategies/replica_state.hpp>
#include <runner/strategies/training_step.hpp>

#include "replicas.hpp"

namespace runner::strategies {

class DataParallel {
 public:
  // context.model (the master) goes to devices[0]; the batches will be there too.
  DataParallel(std::vector<torch::Device> devices, const StrategyContext& context);

  StepResult train_step(const Batch& batch);
  StepResult eval_step(const Batch& batch);
  void set_learning_rate(double lr);

  // [0] is the master.
  const std::vector<std::shared_ptr<Model>>& replicas() const { return replicas_.models(); }

  // The master's state: the replicas take its values before each step.
  std::vector<StatePiece> state_pieces() { return state_.pieces(); }
  void state_loaded() { state_.loaded(); }

 private:
  // (N, ...) on devices[0] -> the replicas' outputs (N, ...) gathered on devices[0].
  torch::Tensor forward(const torch::Tensor& inputs, bool checkpoint_layers);

  Replicas replicas_;
  std::vector<torch::Tensor> parameters_;  // the master's
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  TrainingStep step_;
  ReplicaState state_;
};

}  // namespace runner::strategies
